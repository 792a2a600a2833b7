// The carrier kit's shared HTTP client on its own, against a real HTTP server answering as the
// OAuth 2.0 (RFC 6749) and HTTP Basic (RFC 7617) documents say, with the behaviours the carriers'
// documents give: a form-body token endpoint (FedEx's), a `Message-Reference` on each request
// (DHL Express's), 429 with and without `Retry-After`, an hourly quota (USPS's).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CarrierError } from '../../../carriers/index.js';
import { createCarrierClient, type CarrierClientDeclaration } from '../../../carriers/kit/index.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What the server answers next for a path, in order; then 200 `{ok: true}`. */
const scripted = new Map<string, Array<{ status: number; body?: unknown; headers?: Record<string, string>; holdMs?: number }>>();
const seen: Seen[] = [];
let tokensIssued = 0;
let server: Server;
let base: string;

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      seen.push({ method: req.method ?? '', path, headers: req.headers, body });
      const next = scripted.get(path)?.shift();
      if (next) {
        setTimeout(() => answer(res, next.status, next.body, next.headers), next.holdMs ?? 0);
        return;
      }
      if (path === '/oauth/token') {
        // RFC 6749 §4.4: the client credentials in a form body.
        const form = new URLSearchParams(body);
        if (req.headers['content-type'] !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'client_credentials') return answer(res, 400, { error: 'unsupported_grant_type' });
        if (form.get('client_id') !== 'id-1' || form.get('client_secret') !== 'secret-1') return answer(res, 401, { error: 'invalid_client', error_description: `client secret-1 is not known` });
        tokensIssued++;
        return answer(res, 200, { access_token: `token-${tokensIssued}`, token_type: 'bearer', expires_in: 3600 });
      }
      if (req.headers.authorization?.startsWith('Bearer ') && req.headers.authorization !== `Bearer token-${tokensIssued}`) return answer(res, 401, { errors: [{ code: 'NOT.AUTHORIZED', message: 'expired token' }] });
      return answer(res, 200, { ok: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  scripted.clear();
  seen.length = 0;
});

const readError = (body: unknown) => {
  const first = (body as { errors?: Array<{ code?: string; message?: string }> }).errors?.[0];
  return { ...(first?.code ? { code: first.code } : {}), ...(first?.message ? { message: first.message } : {}) };
};

function declaration(overrides: Partial<CarrierClientDeclaration> = {}): CarrierClientDeclaration {
  return {
    carrierCode: 'courier',
    name: 'Courier',
    baseUrl: base,
    timeoutMs: 1_000,
    auth: { kind: 'oauth_client_credentials', tokenPath: '/oauth/token', clientId: 'id-1', clientSecret: 'secret-1', credentialsIn: 'form' },
    readError,
    ...overrides,
  };
}

const ok = { operation: 'quote' as const, method: 'POST' as const, path: '/rates', body: { a: 1 }, decode: (b: unknown) => b as { ok: boolean } };

async function failure(promise: Promise<unknown>): Promise<CarrierError> {
  const error = await promise.then(() => new Error('expected a CarrierError'), (e: unknown) => e);
  expect(error).toBeInstanceOf(CarrierError);
  return error as CarrierError;
}

describe('OAuth client credentials in a form body (POST /oauth/token)', () => {
  it('gets one token for concurrent calls, caches it, and sends it as a bearer', async () => {
    const client = createCarrierClient(declaration());
    const before = tokensIssued;
    await Promise.all([client.call(ok), client.call(ok), client.call(ok)]);
    await client.call(ok);
    expect(tokensIssued - before).toBe(1);
    const tokenRequests = seen.filter((s) => s.path === '/oauth/token');
    expect(tokenRequests).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(tokenRequests[0].body))).toEqual({ grant_type: 'client_credentials', client_id: 'id-1', client_secret: 'secret-1' });
    expect(seen.filter((s) => s.path === '/rates').every((s) => s.headers.authorization === `Bearer token-${tokensIssued}`)).toBe(true);
  });

  it('renews a token the carrier turned down (401) once, and sends the call once more', async () => {
    const client = createCarrierClient(declaration());
    await client.call(ok);
    tokensIssued++; // the carrier revoked the token this client holds
    expect(await client.call(ok)).toEqual({ ok: true });
    expect(seen.map((s) => s.path)).toEqual(['/oauth/token', '/rates', '/rates', '/oauth/token', '/rates']);
  });

  it('renews a token before it expires', async () => {
    let clock = 1_000_000;
    const client = createCarrierClient(declaration({ now: () => clock }));
    await client.call(ok);
    clock += 3_600_000 - 59_000; // within the last minute of its hour
    await client.call(ok);
    expect(seen.filter((s) => s.path === '/oauth/token')).toHaveLength(2);
  });

  it('refused credentials are definitive, named as such, and never show the secret', async () => {
    const client = createCarrierClient(declaration({ auth: { kind: 'oauth_client_credentials', tokenPath: '/oauth/token', clientId: 'id-1', clientSecret: 'wrong', credentialsIn: 'form' } }));
    scripted.set('/oauth/token', [{ status: 401, body: { errors: [{ code: 'NOT.AUTHORIZED', message: 'client wrong is not known' }] } }]);
    const error = await failure(client.call(ok));
    expect(error.kind).toBe('definitive');
    expect(error.message).toMatch(/^Courier refused the client credentials/);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('wrong');
    expect(seen.map((s) => s.path)).toEqual(['/oauth/token']);
  });

  it("a token endpoint's fault is retryable: asking for a token buys nothing", async () => {
    scripted.set('/oauth/token', [{ status: 503, body: {} }]);
    expect((await failure(createCarrierClient(declaration()).call({ ...ok, operation: 'buy' }))).kind).toBe('retryable');
  });
});

describe('HTTP Basic with a Message-Reference on each request (MyDHL API)', () => {
  it('sends the credentials and a fresh 36-character reference on every request', async () => {
    const client = createCarrierClient(
      declaration({ auth: { kind: 'basic', username: 'key-1', password: 'secret-2' }, headers: () => ({ 'Message-Reference': randomUUID() }) }),
    );
    await client.call(ok);
    await client.call(ok);
    const references = seen.map((s) => s.headers['message-reference'] as string);
    expect(seen.map((s) => s.headers.authorization)).toEqual([`Basic ${Buffer.from('key-1:secret-2').toString('base64')}`, `Basic ${Buffer.from('key-1:secret-2').toString('base64')}`]);
    for (const r of references) expect(r.length).toBeGreaterThanOrEqual(28), expect(r.length).toBeLessThanOrEqual(36);
    expect(new Set(references).size).toBe(2);
  });

  it('a 401 is definitive at once: there is no token to renew', async () => {
    scripted.set('/rates', [{ status: 401, body: { errors: [{ code: '401', message: 'Unauthorized' }] } }]);
    const client = createCarrierClient(declaration({ auth: { kind: 'basic', username: 'key-1', password: 'secret-2' } }));
    expect(await failure(client.call(ok))).toMatchObject({ kind: 'definitive', message: 'Unauthorized', details: { status: 401, carrierErrorCode: '401' } });
    expect(seen).toHaveLength(1);
  });
});

describe('the one classification', () => {
  const none = () => declaration({ auth: { kind: 'none' } });

  it.each([
    [409, 'quote', 'retryable'],
    [429, 'buy', 'retryable'],
    [500, 'buy', 'retryable'],
    [502, 'quote', 'retryable'],
    [502, 'buy', 'ambiguous'],
    [503, 'cancel', 'ambiguous'],
    [504, 'track', 'retryable'],
    [400, 'buy', 'definitive'],
    [404, 'lookup', 'definitive'],
  ] as const)('HTTP %i on a %s is %s', async (status, operation, kind) => {
    scripted.set('/rates', [{ status, body: { errors: [{ code: 'E1', message: 'the words' }] } }]);
    const error = await failure(createCarrierClient(none()).call({ ...ok, operation }));
    expect(error).toMatchObject({ kind, details: { status, carrierCode: 'courier', carrierErrorCode: 'E1' } });
    expect(error.message).toContain('the words');
  });

  it("takes the carrier's hint: its reason, and its kind where the status misleads", async () => {
    const hinted = declaration({
      auth: { kind: 'none' },
      hint: ({ info, status }) => (info.code === 'SCANNED' ? { reason: 'already_scanned' } : info.code === 'BUSY' && status === 400 ? { kind: 'retryable' } : undefined),
    });
    scripted.set('/rates', [
      { status: 400, body: { errors: [{ code: 'SCANNED', message: 'in transit' }] } },
      { status: 400, body: { errors: [{ code: 'BUSY', message: 'system busy, try later' }] } },
    ]);
    expect(await failure(createCarrierClient(hinted).call({ ...ok, operation: 'cancel' }))).toMatchObject({ kind: 'definitive', details: { reason: 'already_scanned' } });
    expect(await failure(createCarrierClient(hinted).call(ok))).toMatchObject({ kind: 'retryable', details: { status: 400 } });
  });

  it('a 2xx it cannot read is ambiguous for a write and retryable for a read; a lost answer likewise', async () => {
    scripted.set('/rates', [{ status: 200, body: { unexpected: true } }, { status: 200, body: { unexpected: true } }]);
    const strict = { ...ok, decode: (b: unknown) => ((b as { ok?: boolean }).ok ? b : undefined) };
    expect((await failure(createCarrierClient(none()).call({ ...strict, operation: 'buy' }))).kind).toBe('ambiguous');
    expect((await failure(createCarrierClient(none()).call(strict))).kind).toBe('retryable');
    scripted.set('/rates', [{ status: 200, holdMs: 1_500 }, { status: 200, holdMs: 1_500 }]);
    expect(await failure(createCarrierClient(none()).call({ ...ok, operation: 'buy' }))).toMatchObject({ kind: 'ambiguous', message: /no answer within 1000 ms; it may have been carried out/ });
    expect((await failure(createCarrierClient(none()).call(ok))).kind).toBe('retryable');
  });

  it('nothing sent is retryable, whatever the call', async () => {
    const closed = createCarrierClient(declaration({ auth: { kind: 'none' }, baseUrl: 'http://127.0.0.1:1' }));
    expect(await failure(closed.call({ ...ok, operation: 'buy' }))).toMatchObject({ kind: 'retryable', message: /nothing was sent/ });
  });
});

describe("the carrier's limits", () => {
  it("a 429's Retry-After holds every call until then, waited in place when short (USPS)", async () => {
    let clock = 0;
    const waits: number[] = [];
    const client = createCarrierClient(
      declaration({ auth: { kind: 'none' }, limits: { maxRetryAfterWaitMs: 2_000 }, now: () => clock, sleep: async (ms) => void (waits.push(ms), (clock += ms)) }),
    );
    scripted.set('/rates', [{ status: 429, body: {}, headers: { 'retry-after': '1' } }]);
    expect(await client.call(ok)).toEqual({ ok: true });
    expect(waits).toEqual([1_000]);
    scripted.set('/rates', [{ status: 429, body: {}, headers: { 'retry-after': '30' } }]);
    expect(await failure(client.call(ok))).toMatchObject({ kind: 'retryable', details: { status: 429, retryAfterMs: 30_000 } });
    const sent = seen.length;
    // Held: the next call is not sent before its time.
    expect(await failure(client.call(ok))).toMatchObject({ kind: 'retryable', message: /rate limit: next call allowed in 30 s/ });
    expect(seen.length).toBe(sent);
  });

  it('without a hold, a 429 is thrown at once with its Retry-After, for the caller to wait', async () => {
    scripted.set('/rates', [{ status: 429, body: {}, headers: { 'retry-after': '3' } }]);
    const client = createCarrierClient(declaration({ auth: { kind: 'none' } }));
    expect(await failure(client.call(ok))).toMatchObject({ kind: 'retryable', details: { retryAfterMs: 3_000 } });
    expect(await client.call(ok)).toEqual({ ok: true });
  });

  it('a 429 without Retry-After backs off on its own schedule where the carrier says so (UPS)', async () => {
    const sleeps: number[] = [];
    const client = createCarrierClient(
      declaration({ auth: { kind: 'none' }, limits: { backoff: { attempts: 2, baseMs: 100, maxMs: 150 } }, random: () => 0.99, sleep: async (ms) => void sleeps.push(ms) }),
    );
    scripted.set('/rates', [{ status: 429, body: {} }, { status: 429, body: {} }]);
    expect(await client.call(ok)).toEqual({ ok: true });
    expect(sleeps).toEqual([99, 148]);
    scripted.set('/rates', [{ status: 429, body: {} }, { status: 429, body: {} }, { status: 429, body: {} }]);
    expect((await failure(client.call(ok))).details.status).toBe(429);
  });

  it('an hourly quota counts every call, tokens included, and sends none beyond it', async () => {
    let clock = 0;
    const client = createCarrierClient(declaration({ limits: { callsPerHour: 3 }, now: () => clock }));
    await client.call(ok); // a token and a call
    await client.call(ok);
    expect(client.callsSpent()).toBe(3);
    const refused = await failure(client.call(ok));
    expect(refused).toMatchObject({ kind: 'retryable', message: /^Courier quota: the 3 calls an hour are spent/ });
    expect(refused.details.retryAfterMs).toBe(3_600_000);
    expect(seen).toHaveLength(3);
    clock += 3_600_001;
    await client.call(ok);
    // The hour's token expired with it: a new one, and the call.
    expect(seen.slice(3).map((s) => s.path)).toEqual(['/oauth/token', '/rates']);
  });
});
