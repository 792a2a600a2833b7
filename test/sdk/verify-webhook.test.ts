import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/src/index.js';

// The SDK's verifyWebhook on its own (from source, as test/sdk/sdk.test.ts takes the SDK): a signature
// made here, as the service makes it.
const secret = 'whsec_test_secret';
const body = JSON.stringify({ id: 'evt_1', type: 'shipment.purchased', created_at: '2026-11-24T00:00:00Z', livemode: false, data: { object: {} } });
const signed = (t: number) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

describe('the SDK verifyWebhook', () => {
  it('takes the tolerance as options or as a number of seconds, as the service helper does', () => {
    const old = Math.floor(Date.now() / 1000) - 400;
    expect(() => verifyWebhook(body, signed(old), secret)).toThrow(/more than 300 s/);
    expect(verifyWebhook(body, signed(old), secret, 600).id).toBe('evt_1');
    expect(verifyWebhook(body, signed(old), secret, { toleranceSeconds: 600 }).id).toBe('evt_1');
    expect(() => verifyWebhook(body, signed(old), secret, 60)).toThrow(WebhookVerificationError);
  });

  // A body already parsed by express.json() threw Buffer.from's TypeError, which a handler that
  // answers WebhookVerificationError with 400 rethrew as a 500 (found by a black-box audit).
  it('refuses a body that was parsed before it, saying so, as a verification error', () => {
    const now = Math.floor(Date.now() / 1000);
    for (const parsed of [JSON.parse(body) as unknown, {}, undefined]) {
      expect(() => verifyWebhook(parsed as string, signed(now), secret)).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(parsed as string, signed(now), secret)).toThrow(/raw request body/);
    }
    expect(verifyWebhook(new Uint8Array(Buffer.from(body)), signed(now), secret).id).toBe('evt_1');
  });

  it('refuses a tolerance that is not a number of seconds instead of ignoring it', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(() => verifyWebhook(body, signed(now), secret, Number.NaN)).toThrow(TypeError);
    expect(() => verifyWebhook(body, signed(now), secret, -1)).toThrow(TypeError);
  });
});

describe('the SDK package', () => {
  it('loads with require() as well as import (CommonJS projects use it too)', async () => {
    // The built package, as an integrator's project resolves it (npm test builds it before vitest runs).
    type Sdk = typeof import('../../sdk/src/index.js');
    const name = 'parcel-shipping-sdk';
    const required = createRequire(import.meta.url)(name) as Sdk;
    const imported = (await import(name)) as Sdk;
    expect(Object.keys(required).sort()).toEqual(Object.keys(imported).sort());
    expect(typeof required.ParcelShipping).toBe('function');
    const now = Math.floor(Date.now() / 1000);
    expect(required.verifyWebhook(body, signed(now), secret).id).toBe('evt_1');
  });
});
