// Item 5 of issue 13: one key cannot multiply every event into thousands of deliveries. At most 16
// endpoints per account and mode (the 17th is 422 limit_exceeded), the same URL twice is 409
// webhook_endpoint_exists, and the OpenAPI document lists both codes on the route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAccount, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

const URL_BASE = 'https://93.184.215.14/hooks';
const create = (key: string, url: string) => call(stack, 'POST', '/api/v1/webhook_endpoints', { key, body: { url } });

describe('webhook endpoint limits', () => {
  it('allows 16 endpoints per account and mode; the 17th is 422 limit_exceeded, even when requests race', async () => {
    const acct = await createAccount(stack);
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => create(acct.testKey, `${URL_BASE}/${i}`)));
    expect(first.filter((r) => r.status === 201)).toHaveLength(16);
    const refused = first.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(4);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.headers['content-type']).toContain('application/problem+json');
      expect(r.body.code).toBe('limit_exceeded');
      expect(r.body.detail).toContain('16');
    }
    const listed = await call(stack, 'GET', '/api/v1/webhook_endpoints?limit=100', { key: acct.testKey });
    expect(listed.body.data).toHaveLength(16);
    // The other mode has its own 16; deleting one frees a place.
    expect((await create(acct.liveKey, `${URL_BASE}/live`)).status).toBe(201);
    const one = listed.body.data[0].id;
    expect((await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${one}`, { key: acct.testKey })).status).toBeLessThan(300);
    expect((await create(acct.testKey, `${URL_BASE}/again`)).status).toBe(201);
  });

  it('refuses the same URL twice with 409 webhook_endpoint_exists, in any spelling of it', async () => {
    const acct = await createAccount(stack);
    expect((await create(acct.testKey, `${URL_BASE}/same`)).status).toBe(201);
    // `…/same?` is the same request to the receiver (an empty query is sent as none): it was a second
    // endpoint there, each event delivered twice (found by a black-box audit).
    for (const url of [`${URL_BASE}/same`, 'HTTPS://93.184.215.14:443/hooks/same', `${URL_BASE}/same?`]) {
      const again = await create(acct.testKey, url);
      expect(again.status, url).toBe(409);
      expect(again.body.code).toBe('webhook_endpoint_exists');
    }
    // Another account, or the other mode, may register it.
    expect((await create(acct.liveKey, `${URL_BASE}/same`)).status).toBe(201);
    expect((await create((await createAccount(stack)).testKey, `${URL_BASE}/same`)).status).toBe(201);
  });

  it('lists both codes on POST /webhook_endpoints in the OpenAPI document', async () => {
    const doc = (await call(stack, 'GET', '/api/v1/openapi.json')).body;
    const responses = doc.paths['/api/v1/webhook_endpoints'].post.responses;
    expect(JSON.stringify(responses['409'])).toContain('webhook_endpoint_exists');
    expect(JSON.stringify(responses['422'])).toContain('limit_exceeded');
  });
});
