import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { trimBodyText } from '../../api/hardening.js';
import { fingerprintOf } from '../../api/idempotency.js';

const request = (body: unknown, url = '/api/v1/shipments/shp_x/void') => ({ method: 'POST', url, body }) as unknown as FastifyRequest;

// The fuzz test found `POST …/void` with an Idempotency-Key and a body of arrays nested thousands
// deep answering 500: the fingerprint's canonical JSON recursed until the stack overflowed.
describe('the Idempotency-Key fingerprint', () => {
  it('takes a body nested 50,000 deep', () => {
    const deep = JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    expect(fingerprintOf(request(deep))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order at every level, and nothing else', () => {
    const a = fingerprintOf(request({ b: [1, { y: 'z', x: null }], a: true }));
    expect(fingerprintOf(request({ a: true, b: [1, { x: null, y: 'z' }] }))).toBe(a);
    expect(fingerprintOf(request({ a: true, b: [{ x: null, y: 'z' }, 1] }))).not.toBe(a);
    expect(fingerprintOf(request({ a: true, b: [1, { x: null, y: 'z' }] }, '/api/v1/shipments/shp_y/void'))).not.toBe(a);
    // The same canonical text as before the walk became iterative: stored fingerprints still match.
    const text = 'POST /api/v1/shipments/shp_x/void {"a":true,"b":[1,{"x":null,"y":"z"}]}';
    expect(a).toBe(createHash('sha256').update(text).digest('hex'));
  });

  // A black-box audit found `{"name":" X "}` replaying the answer to `{"name":"X"}` under one key:
  // the fingerprint was taken over the body after trimBodyText had rewritten it.
  it('is over the body as parsed: strings as sent, before trimming', async () => {
    const sent = () => ({ name: ' X ', lines: ['  a', 'b'], to: { city: 'Leeds ' } });
    const trimmed = request(sent(), '/api/v1/addresses');
    await trimBodyText(trimmed);
    expect(trimmed.body).toEqual({ name: 'X', lines: ['a', 'b'], to: { city: 'Leeds' } });
    expect(fingerprintOf(trimmed)).toBe(fingerprintOf(request(sent(), '/api/v1/addresses')));
    expect(fingerprintOf(trimmed)).not.toBe(fingerprintOf(request({ name: 'X', lines: ['a', 'b'], to: { city: 'Leeds' } }, '/api/v1/addresses')));
  });
});
