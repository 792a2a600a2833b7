// Text that JSON can carry but Unicode cannot: an unpaired surrogate (`"\ud800"`). A shipment's
// addresses are stored as jsonb, which refuses the escape, so a purchase with one in a name answered
// 500 (found by test/edges/fuzz.test.ts); elsewhere it became U+FFFD without a word. Every such
// string is now refused at the door with 422, naming the field; real surrogate pairs (emoji) are text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let acct: TestAccount;
beforeAll(async () => {
  stack = await startTestStack();
  acct = await createAccount(stack, { topUp: '100.00' });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const buy = (body: unknown) => call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body });

describe('unpaired surrogates in a request', () => {
  it('refuses a purchase with one in an address or the reference, naming the field, and charges nothing', async () => {
    for (const [body, path] of [
      [{ service: 'acme_ground', from: address({ name: 'Ann \ud800' }), to: address(), parcel: parcel() }, 'from.name'],
      [{ service: 'acme_ground', from: address(), to: address({ city: '\udfffLeeds' }), parcel: parcel() }, 'to.city'],
      [{ service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'PO-\ud83d' }, 'reference'],
    ] as const) {
      const answer = await buy(body);
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors).toContainEqual({ path, message: expect.stringContaining('unpaired surrogate') });
    }
    const listed = await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey });
    expect(listed.body.data).toEqual([]);
    const balance = await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey });
    expect(balance.body.available).toBe('100.00');
  });

  it('takes real surrogate pairs (an emoji) as the text they are', async () => {
    const answer = await buy({ service: 'acme_ground', from: address({ name: 'Ann 🙂' }), to: address(), parcel: parcel(), reference: '📦 1' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.reference).toBe('📦 1');
    const read = await call(stack, 'GET', `/api/v1/shipments/${answer.body.id}`, { key: acct.liveKey });
    expect(read.body.reference).toBe('📦 1');
  });

  it('refuses one in a quote request and in a webhook endpoint too (the same rule for every body)', async () => {
    const quote = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address({ line1: '\ud800' }), to: address(), parcel: parcel() } });
    expect(quote.status, quote.text).toBe(422);
    expect(quote.body.errors).toContainEqual({ path: 'from.line1', message: expect.stringContaining('unpaired surrogate') });
    const hook = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url: 'https://example.com/\ud800' } });
    expect(hook.status, hook.text).toBe(422);
  });
});

// C1 controls (U+0080–U+009F, such as NEL and CSI) are control characters as much as NUL or ESC are
// (Unicode category Cc): they were stored and served back, where C0 and DEL were refused.
describe('C1 control characters in a request', () => {
  it('refuses them in a purchase, a quote and a query string, naming the field, and charges nothing', async () => {
    const before = await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey });
    for (const [body, path] of [
      [{ service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'c1\u0085ref' }, 'reference'],
      [{ service: 'acme_ground', from: address({ name: 'Ann\u009b' }), to: address(), parcel: parcel() }, 'from.name'],
      [{ service: 'acme_ground', from: address(), to: address({ line1: '\u0080 High St' }), parcel: parcel() }, 'to.line1'],
    ] as const) {
      const answer = await buy(body);
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors).toContainEqual({ path, message: expect.stringContaining('control characters') });
    }
    const quote = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address({ city: 'Leeds\u009f' }), to: address(), parcel: parcel() } });
    expect(quote.status, quote.text).toBe(422);
    const listed = await call(stack, 'GET', `/api/v1/shipments?reference=${encodeURIComponent('a\u0085b')}`, { key: acct.liveKey });
    expect(listed.status, listed.text).toBe(422);
    const after = await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey });
    expect(after.body.available).toBe(before.body.available);
  });

  it('still takes the characters just above them (U+00A0 and on: a no-break space, é, ß, ©)', async () => {
    const answer = await buy({ service: 'acme_ground', from: address({ name: 'Zoë\u00a0Straße ©' }), to: address(), parcel: parcel(), reference: 'Ref © 1' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.reference).toBe('Ref © 1');
  });
});
