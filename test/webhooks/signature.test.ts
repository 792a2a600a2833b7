// Webhook signatures (spec §6): the project's signer and verifier against an implementation written
// from the spec alone, and the ways a verification must fail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../../domain/webhook-signature.js';
import { specVerify } from './receiver.js';

const secret = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const body = '{"id":"evt_01","type":"shipment.purchased","data":{"object":{"name":"Zoë"}}}';
const t = 1_760_000_000;

describe('signWebhook', () => {
  it('makes t=<unix>,v1=<hex> that a receiver built from the spec accepts', () => {
    const header = signWebhook(body, secret, t);
    expect(header).toMatch(/^t=1760000000,v1=[0-9a-f]{64}$/);
    expect(specVerify(Buffer.from(body, 'utf8'), header, secret, t + 1)).toBe(true);
  });

  it('signs a string as its UTF-8 bytes, and whole seconds only', () => {
    expect(signWebhook(Buffer.from(body, 'utf8'), secret, t)).toBe(signWebhook(body, secret, t));
    expect(signWebhook(body, secret, t + 0.9)).toBe(signWebhook(body, secret, t));
  });

  it('agrees with the spec implementation for any body, secret and time', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 4_000_000_000 }), (bytes, key, time) => {
        const raw = Buffer.from(bytes);
        const header = signWebhook(raw, key, time);
        return specVerify(raw, header, key, time) && verifyWebhook(raw, header, key, 300, time);
      }),
    );
  });
});

describe('verifyWebhook', () => {
  const header = signWebhook(body, secret, t);

  it('accepts the raw body as a string or a Buffer', () => {
    expect(verifyWebhook(body, header, secret, 300, t)).toBe(true);
    expect(verifyWebhook(Buffer.from(body, 'utf8'), header, secret, 300, t)).toBe(true);
  });

  it('allows five minutes and no more (spec §6 rule 4), with the tolerance adjustable', () => {
    expect(verifyWebhook(body, header, secret, 300, t + 300)).toBe(true);
    expect(verifyWebhook(body, header, secret, 300, t + 301)).toBe(false);
    expect(verifyWebhook(body, header, secret, 600, t + 500)).toBe(true);
    // A sender's clock ahead of the receiver's gets the same margin, and no more.
    expect(verifyWebhook(body, header, secret, 300, t - 300)).toBe(true);
    expect(verifyWebhook(body, header, secret, 300, t - 301)).toBe(false);
  });

  it('uses the current time by default', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(body, signWebhook(body, secret, now), secret)).toBe(true);
    expect(verifyWebhook(body, signWebhook(body, secret, now - 3600), secret)).toBe(false);
  });

  it('refuses any change to the bytes, including a re-encoding of the same JSON', () => {
    const flipped = Buffer.from(body, 'utf8');
    flipped[10] ^= 1;
    expect(verifyWebhook(flipped, header, secret, 300, t)).toBe(false);
    expect(verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), header, secret, 300, t)).toBe(false);
    expect(verifyWebhook(`${body}\n`, header, secret, 300, t)).toBe(false);
  });

  it('refuses another secret, another time in the header, and a signature of another body', () => {
    expect(verifyWebhook(body, header, `${secret}x`, 300, t)).toBe(false);
    expect(verifyWebhook(body, header.replace(`t=${t}`, `t=${t + 1}`), secret, 300, t)).toBe(false);
    const other = signWebhook('{}', secret, t);
    expect(verifyWebhook(body, other, secret, 300, t)).toBe(false);
  });

  it('refuses malformed headers without throwing', () => {
    const v1 = header.split('v1=')[1];
    for (const bad of [
      '',
      'nonsense',
      `v1=${v1}`,
      `t=${t}`,
      `t=abc,v1=${v1}`,
      `t=${t},v1=${v1.slice(0, 63)}`,
      `t=${t},v1=${v1}00`,
      `t=${t},v0=${v1}`,
      `t=-${t},v1=${v1}`,
    ]) {
      expect(verifyWebhook(body, bad, secret, 300, t), bad).toBe(false);
    }
    expect(verifyWebhook(body, undefined, secret, 300, t)).toBe(false);
    expect(verifyWebhook(body, header, '', 300, t)).toBe(false);
  });

  it('accepts a header that carries several v1 values when one of them matches', () => {
    const v1 = header.split('v1=')[1];
    expect(verifyWebhook(body, `t=${t},v1=${'0'.repeat(64)},v1=${v1}`, secret, 300, t)).toBe(true);
    expect(verifyWebhook(body, ` t=${t}, v1=${v1} `, secret, 300, t)).toBe(true);
  });
});
