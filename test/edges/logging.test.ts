import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { redactUrl } from '../../api/logging.js';
import { createLogger } from '../../runtime/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { address, call, parcel, startTestStack, type Answer, type TestStack } from '../support/stack.js';

/** Logs an operator can use: JSON lines with request id, key and account; never a secret. */

let stack: TestStack;
let app: FastifyInstance;
let api: { url: string };
const lines: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ webhookAllowPrivate: true });
  // The production logger (redaction included), at debug level, writing to memory.
  const logger = createLogger({ ...stack.config, logLevel: 'debug' }, 'api', { write: (line: string) => void lines.push(line) });
  app = await createApp({ config: stack.config, db: stack.database.db, temporal: stack.temporal, catalog: carrierRegistryFor(stack.config), logger });
  api = { url: await app.listen({ port: 0, host: '127.0.0.1' }) };
});
afterAll(async () => {
  await app?.close();
  await stack?.stop();
});

describe('request logging', () => {
  it('runs a purchase, label link, void and webhook flow at debug level without a key, secret or signature in any line', async () => {
    const { id: accountId } = await stack.admin.createAccount({ name: 'Logs Ltd', funding: 'wallet' });
    await stack.admin.enableApi(accountId);
    const { id: keyId, key } = await stack.admin.createKey(accountId, { mode: 'test' });
    const openapi = await call(api, 'GET', '/api/v1/openapi.json');
    const paths = Object.keys(openapi.body.paths);
    const authenticated: Answer[] = [];
    const secrets: string[] = [key];
    const authed = async (method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const a = await call(api, method, path, { key, ...o });
      authenticated.push(a);
      return a;
    };

    if (paths.some((p) => p.endsWith('/webhook_endpoints'))) {
      const endpoint = await authed('POST', '/api/v1/webhook_endpoints', { body: { url: 'http://127.0.0.1:9/hook' } });
      expect(endpoint.status, endpoint.text).toBe(201);
      expect(endpoint.body.secret).toMatch(/^whsec_/);
      secrets.push(endpoint.body.secret);
    }
    const quote = await authed('POST', '/api/v1/quotes', { body: { from: address(), to: address(), parcel: parcel() } });
    const buy = await authed('POST', '/api/v1/shipments', {
      body: { service: quote.body.data[0].service.code, from: address(), to: address(), parcel: parcel(), reference: 'log-1' },
      headers: { 'idempotency-key': 'log-flow-1' },
    });
    expect(buy.status, buy.text).toBe(201);
    const shipment = buy.body.id;

    if (paths.some((p) => p.endsWith('/label/{format}'))) {
      const link = await authed('GET', `/api/v1/shipments/${shipment}/label/zpl`);
      expect(link.status, link.text).toBe(200);
      const signed = new URL(link.body.url);
      secrets.push(signed.searchParams.get('sig')!);
      // The link works without the bearer key: its signature is the credential.
      const file = await call(api, 'GET', `${signed.pathname}${signed.search}`);
      expect(file.status).toBe(200);
      const tampered = await call(api, 'GET', `${signed.pathname}${signed.search.replace(/sig=[0-9a-f]+/, `sig=${'0'.repeat(64)}`)}`);
      expect(tampered.status).toBe(403);
    }
    const voided = await authed('POST', `/api/v1/shipments/${shipment}/void`);
    expect(voided.status, voided.text).toBe(200);
    await authed('GET', `/api/v1/shipments/${shipment}`);
    await authed('GET', '/api/v1/shipments/shp_00000000000000000000000000');

    // Keys where they must never be: a query string (refused with 401) and a path.
    expect((await call(api, 'GET', `/api/v1/account/balance?api_key=${key}`)).status).toBe(401);
    expect((await call(api, 'GET', `/api/v1/account/balance?x=${encodeURIComponent(key)}`)).status).toBe(401);
    await authed('GET', `/api/v1/shipments/${key}`);
    expect((await call(api, 'GET', '/api/v1/account/balance', { headers: { authorization: `Bearer ${key}x` } })).status).toBe(401);

    await app.close(); // flush: every request-completed line is written
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.length).toBeGreaterThan(authenticated.length);

    const text = lines.join('\n');
    for (const s of secrets) expect(text.includes(s), `a secret ${s.slice(0, 8)}… in the logs`).toBe(false);
    expect(text).not.toMatch(/svc_(test|live)_/);
    expect(text).not.toMatch(/whsec_/);
    expect(text).not.toMatch(/sig=(?!\[redacted\])/);
    expect(text).not.toMatch(/authorization/i);

    // Every line of an authenticated request carries its request id, key and account.
    for (const a of authenticated) {
      const requestId = a.headers['request-id'];
      const mine = parsed.filter((p) => p.request_id === requestId);
      expect(mine.length, `lines of ${requestId}`).toBeGreaterThan(0);
      for (const p of mine) expect(p, JSON.stringify(p)).toMatchObject({ key_id: keyId, account_id: accountId });
      const done = mine.find((p) => p.msg === 'request completed');
      expect(done, `request-completed line of ${requestId}`).toMatchObject({ res: { statusCode: a.status }, req: { method: expect.any(String) } });
    }
    // One line per request, at completion, with what an operator needs.
    const completed = parsed.filter((p) => p.msg === 'request completed');
    for (const p of completed) {
      expect(p).toMatchObject({ level: 30, name: 'api', request_id: expect.stringMatching(/^req_/), response_time_ms: expect.any(Number) });
    }
    expect(parsed.some((p) => p.msg === 'incoming request')).toBe(false);
  });
});

describe('redactUrl', () => {
  it('cuts credentials out of URLs, whatever their encoding', () => {
    const key = 'svc_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    expect(redactUrl('/api/v1/label-files/shp_1/zpl?expires=1&sig=abcdef')).toBe('/api/v1/label-files/shp_1/zpl?expires=1&sig=[redacted]');
    expect(redactUrl(`/api/v1/account/balance?api_key=${key}`)).toBe('/api/v1/account/balance?api_key=[redacted]');
    expect(redactUrl(`/x?q=${encodeURIComponent(key)}`)).toBe('/x?q=[redacted]');
    expect(redactUrl(`/x?${encodeURIComponent(key)}`)).toBe('/x?[redacted]');
    expect(redactUrl(`/api/v1/shipments/${key}/void`)).toBe('/api/v1/shipments/[redacted]/void');
    expect(redactUrl('/api/v1/shipments/svc%5Flive%5Fabc?limit=2')).toBe('/api/v1/shipments/[redacted]?limit=2');
    expect(redactUrl('/hook?secret=whsec_abc&Sig=1')).toBe('/hook?secret=[redacted]&Sig=[redacted]');
    expect(redactUrl('/api/v1/shipments?limit=2&status=purchased')).toBe('/api/v1/shipments?limit=2&status=purchased');
  });
});
