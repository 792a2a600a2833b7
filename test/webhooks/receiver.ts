// A customer's webhook receiver for tests, and a signature check written from spec §6 alone
// (deliberately not the project's verifyWebhook), the way a receiver would implement it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Spec §6: raw body bytes; HMAC-SHA256 over `<t>.` followed by the body with the endpoint secret, as
 * hex; constant-time compare with `v1`; reject a `t` more than 300 seconds old.
 */
export function specVerify(raw: Buffer, header: string | undefined, secret: string, nowSeconds: number): boolean {
  if (!header) return false;
  const fields = new Map(header.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const t = fields.get('t');
  const v1 = fields.get('v1');
  if (!t || !/^\d+$/.test(t) || !v1) return false;
  if (nowSeconds - Number(t) > 300) return false;
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), raw])).digest('hex');
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(v1, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export const signatureTime = (header: string | undefined) => Number(/(?:^|,)t=(\d+)/.exec(header ?? '')?.[1]);

export interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
  /** Parsed body (the receiver verifies `raw`, never this). */
  body: any;
  /** The receiver's clock when the request arrived, in ms. */
  at: number;
}

/** What to answer: a status, or `hold` to keep the request open (the test ends it via `res`). */
export type Answer = number | { hold: (res: ServerResponse) => void };

export interface Receiver {
  url: string;
  received: Received[];
  /** Received requests for one event id. */
  of(eventId: string): Received[];
  close(): Promise<void>;
}

/**
 * An HTTP receiver on 127.0.0.1. `answer` sees each request (in arrival order, counted from 1) and
 * says what to reply; `clock` is the receiver's notion of now (a time-skipping test passes the
 * test server's clock).
 */
export async function startReceiver(
  answer: (r: Received, n: number) => Answer | Promise<Answer> = () => 200,
  clock: () => Promise<number> | number = () => Date.now(),
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        let body: unknown = undefined;
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = undefined;
        }
        const r: Received = { raw, headers: req.headers, body, at: await clock() };
        received.push(r);
        const what = await answer(r, received.length);
        if (typeof what === 'number') res.writeHead(what, { 'content-type': 'text/plain' }).end('ok');
        else what.hold(res);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    of: (eventId) => received.filter((r) => r.headers['x-svc-event-id'] === eventId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
