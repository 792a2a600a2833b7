// POST /addresses/verify through the API, as a customer calls it: live keys against the simulator's
// USPS Addresses API and UPS Address Validation (USPS first, UPS when USPS faults, times out or is not
// enabled), a no-match, countries no carrier checks, and the sandbox's rule.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierRegistryFor } from '../../workers/activities.js';
import type { Config } from '../../config/index.js';
import { simControl } from '../support/sim.js';
import { call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let acct: TestAccount;
let sim: ReturnType<typeof simControl>;

beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
  sim = simControl(stack.simUrl);
  acct = await createAccount(stack);
});
afterAll(async () => {
  await stack?.stop();
});

/** A word no other test's request holds, so a fault matched on it touches this request alone. */
const marker = () => `Mk${randomBytes(5).toString('hex')}`;
const US = (over: Record<string, string> = {}) => ({ name: 'Nick Fury', line1: '2700 S Jefferson Avenue', city: 'St. Louis', state: 'MO', postcode: '63104', country: 'US', ...over });
const verify = (key: string, body: unknown, on: { url: string } = stack) => call(on, 'POST', '/api/v1/addresses/verify', { key, body });

describe('address checks with a live key', () => {
  it('a US address is checked by USPS: standardized, ZIP+4, residential', async () => {
    const res = await verify(acct.liveKey, US());
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['address', 'carrier', 'livemode', 'messages', 'object', 'residential', 'verified']);
    expect(res.body).toMatchObject({
      object: 'address_verification',
      livemode: true,
      verified: true,
      carrier: 'usps',
      residential: true,
      messages: [],
      address: { name: 'Nick Fury', line1: '2700 S JEFFERSON AVE', line2: null, city: 'ST LOUIS', state: 'MO', country: 'US' },
    });
    expect(res.body.address.postcode).toMatch(/^63104-\d{4}$/);
  });

  it('a suite is commercial; Puerto Rico is checked too', async () => {
    const office = await verify(acct.liveKey, US({ line2: 'Suite 150' }));
    expect(office.body).toMatchObject({ verified: true, residential: false, carrier: 'usps', address: { line2: 'STE 150' } });
    const pr = await verify(acct.liveKey, { name: 'Ana Ruiz', line1: '1 Calle Luna', city: 'San Juan', postcode: '00901', country: 'PR' });
    expect(pr.status, pr.text).toBe(200);
    expect(pr.body).toMatchObject({ verified: true, carrier: 'usps', address: { country: 'PR', state: null, city: 'SAN JUAN' } });
    expect(pr.body.address.postcode).toMatch(/^00901-\d{4}$/);
  });

  it('an address the carrier cannot match is verified: false with its messages', async () => {
    const none = await verify(acct.liveKey, US({ line1: '1 Undeliverable Way' }));
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({
      verified: false,
      carrier: 'usps',
      residential: null,
      address: { line1: '1 Undeliverable Way', postcode: '63104' },
      messages: [{ code: 'address_not_found', message: 'There is no match for the address requested.' }],
    });
    const several = await verify(acct.liveKey, US({ line1: 'Jefferson Avenue' }));
    expect(several.body).toMatchObject({ verified: false, carrier: 'usps', messages: [{ code: 'multiple_matches' }] });
  });

  it('USPS failing (a 503, or no answer in time) is passed over: UPS answers', async () => {
    const failing = marker();
    await sim.fault({ carrier: 'usps', operation: 'address', mode: 'error', status: 503, match: failing, times: 1 });
    const res = await verify(acct.liveKey, US({ line1: `2700 ${failing} Avenue` }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ verified: true, carrier: 'ups', residential: true, address: { line1: `2700 ${failing.toUpperCase()} AVE` } });
    expect(res.body.address.postcode).toMatch(/^63104-\d{4}$/);
    expect(await sim.faults(failing)).toEqual([]);

    const silent = marker();
    await sim.fault({ carrier: 'usps', operation: 'address', mode: 'timeout', match: silent, times: 1 });
    const late = await verify(acct.liveKey, US({ line1: `1 ${silent} St`, line2: 'Ste 5' }));
    expect(late.status, late.text).toBe(200);
    expect(late.body).toMatchObject({ verified: true, carrier: 'ups', residential: false });
  });

  it('neither carrier answering is 503 carrier_unavailable', async () => {
    const both = marker();
    await sim.fault({ carrier: 'usps', operation: 'address', mode: 'error', status: 503, match: both, times: 1 });
    await sim.fault({ carrier: 'ups', operation: 'address', mode: 'error', status: 503, match: both, times: 1 });
    const res = await verify(acct.liveKey, US({ line1: `9 ${both} Rd` }));
    expect(res.status, res.text).toBe(503);
    expect(res.body.code).toBe('carrier_unavailable');
  });

  it('an address USPS cannot look up goes to UPS; one neither can take is 422 verification_not_available, naming why', async () => {
    const islands = await verify(acct.liveKey, US({ state: 'UM', city: 'Wake Island', postcode: '96898' }));
    expect(islands.status, islands.text).toBe(200);
    expect(islands.body).toMatchObject({ verified: true, carrier: 'ups' });
    const long = await verify(acct.liveKey, US({ state: 'UM', line1: `1 ${'Long '.repeat(21)}Rd` }));
    expect(long.status, long.text).toBe(422);
    expect(long.body.code).toBe('verification_not_available');
    expect(long.body.detail).toMatch(/USPS state code.*100 characters/);
  });

  it('other countries are 422 verification_not_available; an invalid address is 422 validation_failed', async () => {
    const gb = await verify(acct.liveKey, { name: 'A', line1: '1 High St', city: 'London', postcode: 'N1 9GU', country: 'GB' });
    expect(gb.status).toBe(422);
    expect(gb.body.code).toBe('verification_not_available');
    const bad = await verify(acct.liveKey, US({ state: 'ZZ' }));
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'state' }] });
  });
});

describe('address checks with a sandbox key', () => {
  it('verifies any address without the word UNDELIVERABLE in its first line, at no carrier', async () => {
    const ok = await verify(acct.testKey, US({ line1: '1 Deliverable Undeliverables Rd' }));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({
      object: 'address_verification',
      livemode: false,
      verified: true,
      address: { name: 'Nick Fury', line1: '1 Deliverable Undeliverables Rd', line2: null, city: 'St. Louis', state: 'MO', postcode: '63104', country: 'US' },
      residential: null,
      carrier: 'usps',
      messages: [],
    });
    for (const line1 of ['1 UNDELIVERABLE St', '1 undeliverable st', '2 Main St, Undeliverable']) {
      const no = await verify(acct.testKey, US({ line1 }));
      expect(no.body, line1).toMatchObject({ verified: false, livemode: false, messages: [{ code: 'address_not_found' }] });
    }
    // The word in a second line does not count: the rule reads the first.
    expect((await verify(acct.testKey, US({ line2: 'UNDELIVERABLE' }))).body.verified).toBe(true);
  });

  it('answers 422 verification_not_available for other countries, as a live key would', async () => {
    const res = await verify(acct.testKey, { name: 'A', line1: '1 Rue X', city: 'Paris', postcode: '75001', country: 'FR' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('verification_not_available');
  });
});

describe('address checks by the carriers enabled', () => {
  /** A stack whose real carriers are only these (the simulated ones stay). */
  async function stackWith(carriers: string[]) {
    const only = (config: Config): Config => ({
      ...config,
      carrierCredentials: Object.fromEntries(Object.entries(config.carrierCredentials).filter(([code]) => carriers.includes(code))),
    });
    const s = await startTestStack({}, { workers: false, registry: (config) => carrierRegistryFor(only(config)) });
    return { s, acct: await createAccount(s) };
  }

  it('UPS checks when USPS is not enabled; neither enabled is 422 verification_not_available', async () => {
    const upsOnly = await stackWith(['ups']);
    const none = await stackWith([]);
    try {
      const res = await verify(upsOnly.acct.liveKey, US(), upsOnly.s);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ verified: true, carrier: 'ups', residential: true, address: { line1: '2700 S JEFFERSON AVE' } });
      expect((await verify(upsOnly.acct.testKey, US(), upsOnly.s)).body).toMatchObject({ verified: true, carrier: 'ups', livemode: false });

      for (const key of [none.acct.liveKey, none.acct.testKey]) {
        const refused = await verify(key, US(), none.s);
        expect(refused.status).toBe(422);
        expect(refused.body.code).toBe('verification_not_available');
      }
    } finally {
      await upsOnly.s.stop();
      await none.s.stop();
    }
  });
});
