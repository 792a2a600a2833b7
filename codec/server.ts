/**
 * The codec endpoint the Temporal UI calls (its "codec server", `--ui-codec-endpoint` on the dev
 * server, TEMPORAL_CODEC_ENDPOINT on the UI image) so operators read shipments decoded in their own
 * browser: POST /decode and POST /encode with `{"payloads": [{metadata, data}]}` in protobuf JSON
 * (base64 bytes). It decrypts whatever it is given, so it listens on 127.0.0.1 by default and only
 * answers browsers on the UI's origin (CORS); put it behind the same access as the UI.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const MAX_BODY = 4 * 1024 * 1024;

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: p.data === undefined ? undefined : Buffer.from(p.data, 'base64'),
});

const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  port?: number;
  host?: string;
  /** Origins of the Temporal UI allowed to call from a browser (CORS). */
  allowedOrigins: readonly string[];
}

export async function startCodecServer(o: CodecServerOptions): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const origin = req.headers.origin;
    if (origin && o.allowedOrigins.includes(origin)) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      res.setHeader('vary', 'origin');
    } else if (origin) {
      return send(res, 403, { error: 'origin not allowed' });
    }
    if (req.method === 'OPTIONS') return send(res, 204);
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/decode' && path !== '/encode')) return send(res, 404, { error: 'POST /decode or /encode' });
    readBody(req)
      .then(async (raw) => {
        const body = JSON.parse(raw) as { payloads?: JsonPayload[] } | null;
        // Protobuf JSON leaves an empty list out: the Temporal CLI sends `{}` for no payloads.
        const list = body && typeof body === 'object' ? (body.payloads ?? []) : undefined;
        if (!Array.isArray(list)) return send(res, 400, { error: 'expected {"payloads": [...]}' });
        const payloads = list.map(fromJson);
        const out = path === '/decode' ? await o.codec.decode(payloads) : await o.codec.encode(payloads);
        send(res, 200, { payloads: out.map(toJson) });
      })
      .catch((err: Error & { status?: number }) => send(res, err.status ?? 400, { error: err.message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host && o.host !== '0.0.0.0' ? o.host : '127.0.0.1';
  return {
    url: `http://${host}:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
