// Webhook endpoints over HTTP, as a customer registers them: the secret shown once and stored
// encrypted, the URL rules, scopes, pagination, deletion and the separation of accounts and modes.
// Private addresses are not allowed here (the default configuration).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptWebhookSecret, findWebhookEndpoint } from '../../db/index.js';
import { EVENT_TYPES } from '../../domain/index.js';
import { call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

// A public address literal needs no DNS, so these tests run without the internet.
const PUBLIC_URL = 'https://93.184.215.14/hooks';
const create = (key: string, body: unknown) => call(stack, 'POST', '/api/v1/webhook_endpoints', { key, body });
const list = (key: string, query = '') => call(stack, 'GET', `/api/v1/webhook_endpoints${query}`, { key });

describe('POST /webhook_endpoints', () => {
  it('creates an endpoint and shows its whsec_ secret once; only ciphertext is stored', async () => {
    const acct = await createAccount(stack);
    const res = await create(acct.testKey, { url: PUBLIC_URL, events: ['shipment.purchased', 'tracking.updated'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^we_[0-9a-z]{26}$/),
      object: 'webhook_endpoint',
      url: PUBLIC_URL,
      events: ['shipment.purchased', 'tracking.updated'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{27,}$/),
      created_at: expect.stringMatching(/Z$/),
      livemode: false,
    });
    const secret: string = res.body.secret;
    const row = (await findWebhookEndpoint(stack.database.db, res.body.id))!;
    expect(row.secretCiphertext).not.toContain(secret.slice('whsec_'.length));
    expect(decryptWebhookSecret(row.secretCiphertext, stack.config.webhookSecretKey, row.id)).toBe(secret);

    const listed = await list(acct.testKey);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).not.toHaveProperty('secret');
    expect(listed.text).not.toContain(secret);
  });

  it('takes an Idempotency-Key: a retry after a lost answer replays it, secret included, and creates nothing more', async () => {
    const acct = await createAccount(stack);
    const key = `we-${Date.now()}`;
    const body = { url: `${PUBLIC_URL}/idem`, events: ['shipment.purchased'] };
    const first = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(201);
    // The same request again (its first answer lost on the way, say): the same endpoint and secret.
    const again = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { events: ['shipment.purchased'], url: body.url }, headers: { 'idempotency-key': key } });
    expect(again.status, again.text).toBe(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await list(acct.testKey)).body.data).toHaveLength(1);
    // The secret is not kept with the stored answer: it is read back from the endpoint, encrypted at rest.
    const stored = await stack.database.db.execute(`select response_body::text as body from idempotency_keys where key = '${key}'`);
    expect(JSON.stringify(stored.rows)).not.toContain(first.body.secret.slice('whsec_'.length));
    // Another request under the key is refused; without a key, the same URL is the duplicate it is.
    const other = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url: `${PUBLIC_URL}/other` }, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect((await create(acct.testKey, body)).body.code).toBe('webhook_endpoint_exists');
  });

  it('replays the first answer, secret included, after the endpoint is deleted (the document says the secret is a string)', async () => {
    const acct = await createAccount(stack);
    const key = `we-del-${Date.now()}`;
    const body = { url: `${PUBLIC_URL}/idem-deleted` };
    const first = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(201);
    const deleted = await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${first.body.id}`, { key: acct.testKey });
    expect(deleted.status, deleted.text).toBe(200);
    const again = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body, headers: { 'idempotency-key': key } });
    expect(again.status, again.text).toBe(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // Another account replaying the same key has a key of its own: nothing of the first is shown.
    const other = await createAccount(stack);
    const theirs = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: other.testKey, body, headers: { 'idempotency-key': key } });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers['idempotency-replayed']).toBeUndefined();
    expect(theirs.body.secret).not.toBe(first.body.secret);
  });

  it('frees the key of a refused create, so the corrected request runs', async () => {
    const acct = await createAccount(stack);
    const key = `we-bad-${Date.now()}`;
    const refused = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url: 'http://93.184.215.14/x' }, headers: { 'idempotency-key': key } });
    expect(refused.status).toBe(422);
    const fixed = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url: `${PUBLIC_URL}/fixed` }, headers: { 'idempotency-key': key } });
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.body.secret).toMatch(/^whsec_/);
  });

  it('subscribes to every event type when events is omitted, in live mode for a live key', async () => {
    const acct = await createAccount(stack);
    const res = await create(acct.liveKey, { url: PUBLIC_URL });
    expect(res.status, res.text).toBe(201);
    expect(res.body.events).toEqual([...EVENT_TYPES]);
    expect(res.body.livemode).toBe(true);
  });

  it('refuses a URL that is not https or not on a public address with 422 validation_failed', async () => {
    const acct = await createAccount(stack);
    for (const [url, message] of [
      ['http://93.184.215.14/hooks', 'must use https'],
      ['https://127.0.0.1/hooks', 'must resolve to a public address'],
      ['https://localhost:8443/hooks', 'must resolve to a public address'],
      ['https://10.1.2.3/hooks', 'must resolve to a public address'],
      ['https://192.168.0.10/hooks', 'must resolve to a public address'],
      ['https://169.254.169.254/latest/meta-data', 'must resolve to a public address'],
      ['https://[::1]/hooks', 'must resolve to a public address'],
      ['https://[fd00::1]/hooks', 'must resolve to a public address'],
      ['https://user:pw@93.184.215.14/hooks', 'must not contain credentials'],
      ['hooks.example.com/in', 'must be an absolute URL'],
    ]) {
      const res = await create(acct.testKey, { url });
      expect(res.status, url).toBe(422);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toEqual([{ path: 'url', message }]);
    }
    expect((await list(acct.testKey)).body.data).toEqual([]);
  });

  it('refuses unknown event types, an empty list, duplicates and unknown fields', async () => {
    const acct = await createAccount(stack);
    const unknown = await create(acct.testKey, { url: PUBLIC_URL, events: ['shipment.purchased', 'shipment.teleported'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ path: 'events[1]', message: 'is not one of the allowed values' }]);
    for (const body of [
      { url: PUBLIC_URL, events: [] },
      { url: PUBLIC_URL, events: ['tracking.updated', 'tracking.updated'] },
      { url: PUBLIC_URL, secret: 'whsec_mine' },
      { events: ['tracking.updated'] },
    ]) {
      const res = await create(acct.testKey, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
  });
});

describe('GET /webhook_endpoints', () => {
  it('lists newest first, page by page', async () => {
    const acct = await createAccount(stack);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(acct.testKey, { url: `${PUBLIC_URL}/${i}` })).body.id);
    const first = await list(acct.testKey, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.object).toBe('list');
    expect(first.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await list(acct.testKey, `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect((await list(acct.testKey, '?cursor=bm90LWFuLWlk')).status).toBe(422);
    expect((await list(acct.testKey, '?limit=0')).status).toBe(422);
  });

  it('shows an account only its own endpoints, and a mode only its own', async () => {
    const a = await createAccount(stack);
    const b = await createAccount(stack);
    await create(a.testKey, { url: PUBLIC_URL });
    expect((await list(b.testKey)).body.data).toEqual([]);
    expect((await list(a.liveKey)).body.data).toEqual([]);
  });
});

describe('DELETE /webhook_endpoints/{id}', () => {
  it('deletes the endpoint; then and for anyone else it is 404', async () => {
    const a = await createAccount(stack);
    const b = await createAccount(stack);
    const id = (await create(a.testKey, { url: PUBLIC_URL })).body.id;
    expect((await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${id}`, { key: b.testKey })).status).toBe(404);
    expect((await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${id}`, { key: a.liveKey })).status).toBe(404);
    const del = await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${id}`, { key: a.testKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, object: 'webhook_endpoint', livemode: false, deleted: true });
    expect((await list(a.testKey)).body.data).toEqual([]);
    const again = await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${id}`, { key: a.testKey });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
    expect((await call(stack, 'GET', `/api/v1/webhook_endpoints/${id}/deliveries`, { key: a.testKey })).status).toBe(404);
  });
});

describe('GET /webhook_endpoints/{id}/deliveries', () => {
  it('is an empty list for a new endpoint and 404 for another account or mode', async () => {
    const a = await createAccount(stack);
    const b = await createAccount(stack);
    const id = (await create(a.testKey, { url: PUBLIC_URL })).body.id;
    const own = await call(stack, 'GET', `/api/v1/webhook_endpoints/${id}/deliveries`, { key: a.testKey });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect((await call(stack, 'GET', `/api/v1/webhook_endpoints/${id}/deliveries`, { key: b.testKey })).status).toBe(404);
    expect((await call(stack, 'GET', `/api/v1/webhook_endpoints/${id}/deliveries`, { key: a.liveKey })).status).toBe(404);
  });
});

describe('scopes', () => {
  async function keyWith(acct: TestAccount, scopes: string) {
    return (await stack.admin.createKey(acct.id, { mode: 'test', scopes })).key;
  }

  it('needs webhooks:write to create or delete and webhooks:read to list', async () => {
    const acct = await createAccount(stack);
    const reader = await keyWith(acct, 'webhooks:read');
    const writer = await keyWith(acct, 'webhooks:write');
    const refused = await create(reader, { url: PUBLIC_URL });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    expect(refused.body.detail).toContain('webhooks:write');
    const made = await create(writer, { url: PUBLIC_URL });
    expect(made.status).toBe(201);
    expect((await list(writer)).status).toBe(403);
    expect((await list(reader)).status).toBe(200);
    expect((await call(stack, 'GET', `/api/v1/webhook_endpoints/${made.body.id}/deliveries`, { key: writer })).status).toBe(403);
    expect((await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${made.body.id}`, { key: reader })).status).toBe(403);
    expect((await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${made.body.id}`, { key: writer })).status).toBe(200);
    expect((await create('svc_test_nope00000000000000000000', { url: PUBLIC_URL })).status).toBe(401);
  });

  it('documents the endpoints in the OpenAPI document', async () => {
    const doc = await call(stack, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/api/v1/webhook_endpoints', '/api/v1/webhook_endpoints/{id}', '/api/v1/webhook_endpoints/{id}/deliveries']),
    );
  });
});
