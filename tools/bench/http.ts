import { Pool } from 'undici';

/** An answer read in full: timing a request includes receiving its body. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  /** The body parsed as JSON when it is JSON, else undefined. */
  json: unknown;
}

export interface SendOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Parse a JSON body (setup calls); timed calls only count the bytes. */
  parse?: boolean;
  timeoutMs?: number;
}

/** A purchase may wait PURCHASE_WAIT_MS (20 s by default) before it answers 202. */
const REQUEST_TIMEOUT_MS = 60_000;

/** One keep-alive connection pool to the API, sized to the load generator's concurrency. */
export class ApiClient {
  private readonly pool: Pool;
  private readonly base: string;

  constructor(
    readonly url: URL,
    connections: number,
  ) {
    this.pool = new Pool(url.origin, {
      connections,
      pipelining: 1,
      connect: { timeout: 5_000 },
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    this.base = url.pathname.replace(/\/+$/, '');
  }

  async send(method: 'GET' | 'POST', path: string, o: SendOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    const res = await this.pool.request({
      origin: this.url.origin,
      path: `${this.base}${path}`,
      method,
      headers,
      body,
      ...(o.timeoutMs ? { headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs } : {}),
    });
    let bytes = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (o.parse) chunks.push(chunk);
    }
    let json: unknown = undefined;
    if (o.parse && bytes) {
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        json = undefined;
      }
    }
    return { status: res.statusCode, headers: res.headers, bytes, json };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The error's code for a request that got no HTTP answer (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT…). */
export function networkErrorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; name?: unknown };
  const code = e?.code ?? e?.cause?.code ?? e?.name;
  return typeof code === 'string' && code ? code : 'error';
}

/** `code: detail` of a problem+json body, for messages about a failed setup call. */
export function describeAnswer(answer: Answer): string {
  const p = answer.json as { code?: unknown; detail?: unknown } | undefined;
  const parts = [`HTTP ${answer.status}`];
  if (p && typeof p.code === 'string') parts.push(p.code);
  if (p && typeof p.detail === 'string') parts.push(p.detail);
  return parts.join(' ');
}
