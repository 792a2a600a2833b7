import { describe, expect, it } from 'vitest';
import { ParcelShipping } from '../../sdk/src/index.js';

// An Idempotency-Key or API key that no HTTP header can carry made fetch throw before sending
// anything; the SDK took that for a network error, retried it three times and threw
// ParcelShippingConnectionError, "the API could not be reached" (found by a black-box audit).
function counting() {
  let calls = 0;
  const fetch: typeof globalThis.fetch = (input, init) => {
    calls++;
    return globalThis.fetch(input, init);
  };
  return { fetch, calls: () => calls };
}

describe('the SDK with a value no header can carry', () => {
  it('throws a TypeError naming the idempotencyKey at once, sending nothing and retrying nothing', async () => {
    const api = counting();
    const ps = new ParcelShipping({ apiKey: 'svc_test_x', baseUrl: 'http://127.0.0.1:9', fetch: api.fetch, maxRetries: 3 });
    for (const idempotencyKey of ['order-📦', 'a\nb']) {
      const err = await ps.addresses.create({ name: 'A', line1: '1 Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' }, { idempotencyKey }).catch((e: unknown) => e);
      expect(err, idempotencyKey).toBeInstanceOf(TypeError);
      expect(String(err)).toMatch(/idempotencyKey/);
    }
    expect(api.calls()).toBe(0);
  });

  it('throws a TypeError naming the apiKey, as pasted with typographic quotes', async () => {
    const api = counting();
    const ps = new ParcelShipping({ apiKey: '“svc_test_x”', baseUrl: 'http://127.0.0.1:9', fetch: api.fetch, maxRetries: 3 });
    await expect(ps.balance.retrieve()).rejects.toThrow(/apiKey/);
    expect(api.calls()).toBe(0);
  });
});
