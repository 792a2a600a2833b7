import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../db/index.js';
import { parseAmount } from '../../domain/index.js';
import { simControl } from '../support/sim.js';
import { call, createAccount, expectLedgerConsistent, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// UPS and USPS are priced by their rating APIs (the shared simulator's): quotes ask them under one
// deadline, record what they answered for 15 minutes, and a purchase charges that price.

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack();
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

/** A name no other test sends: it keys the price cache apart and lets a simulator fault match this test only. */
const unique = (prefix: string) => `${prefix} ${randomBytes(4).toString('hex')}`;
const usFrom = (name = unique('Shipper')) => ({ name, line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' });
const usTo = (over: Record<string, string> = {}) => ({ name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US', ...over });
const gb = (name: string) => ({ name, line1: '1 Tower Bridge Rd', city: 'London', postcode: 'SE1 2UP', country: 'GB' });
const parcel = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };
const minor = (s: string) => parseAmount(s)!;

const quote = (key: string, body: unknown) => call(stack, 'POST', '/api/v1/quotes', { key, body });
const buy = (key: string, body: unknown) => call(stack, 'POST', '/api/v1/shipments', { key, body, headers: { 'idempotency-key': randomBytes(8).toString('hex') } });
const balance = async (acct: TestAccount) => (await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body;
const item = (answer: { body: any }, code: string) => answer.body.data.find((i: any) => i.service.code === code);

/** Sets the recorded quotes of this account's service: a price the carrier no longer asks, or an expiry now past. */
async function changeRecordedQuote(acct: TestAccount, serviceCode: string, change: { gross?: number; expired?: boolean }) {
  const db = stack.database.db;
  await db
    .update(schema.quotes)
    .set({
      ...(change.gross === undefined ? {} : { gross: change.gross, net: sql`${change.gross} - ${schema.quotes.vat}` }),
      ...(change.expired ? { expiresAt: new Date(Date.now() - 1_000) } : {}),
    })
    .where(and(eq(schema.quotes.accountId, acct.id), eq(schema.quotes.serviceCode, serviceCode)));
}

describe('quotes of carriers priced by their rating APIs', () => {
  it('quotes UPS and USPS for a USD live account from US to US, each item expiring 15 minutes on', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '200.00' });
    const before = Date.now();
    const q = await quote(acct.liveKey, { from: usFrom(), to: usTo(), parcel });
    expect(q.status, q.text).toBe(200);
    expect(q.body.unavailable).toEqual([]);
    for (const code of ['ups_ground', 'usps_ground_advantage']) {
      const found = item(q, code);
      expect(found, code).toMatchObject({ object: 'quote', livemode: true, price: { currency: 'USD' } });
      expect(minor(found.price.gross)).toBe(minor(found.price.net) + minor(found.price.vat));
      const expires = Date.parse(found.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1_000);
    }
    expect(q.body.data.every((i: any) => i.price.currency === 'USD')).toBe(true);
    // UPS's GB services are not offered on a US route, nor anything in another currency.
    expect(item(q, 'ups_standard')).toBeUndefined();
  });

  it('charges the quoted price within 15 minutes even when the carrier now asks another', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '200.00' });
    const from = usFrom();
    const q = await quote(acct.liveKey, { from, to: usTo(), parcel });
    const quoted = item(q, 'ups_ground');
    // The carrier's price moved since the quote: the recorded quote is what the customer was promised.
    const promised = minor(quoted.price.gross) - 123;
    await changeRecordedQuote(acct, 'ups_ground', { gross: promised });
    const a = await buy(acct.liveKey, { service: 'ups_ground', from, to: usTo(), parcel });
    expect(a.status, a.text).toBe(201);
    expect(minor(a.body.price.gross)).toBe(promised);
    expect(minor((await balance(acct)).available)).toBe(20_000 - promised);

    const usps = await buy(acct.liveKey, { service: 'usps_ground_advantage', from, to: usTo(), parcel });
    expect(usps.status, usps.text).toBe(201);
    expect(usps.body.price).toEqual(item(q, 'usps_ground_advantage').price);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('after expiry, a higher carrier price fails the purchase with price_changed, nothing bought or charged', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '200.00' });
    const from = usFrom();
    const q = await quote(acct.liveKey, { from, to: usTo(), parcel });
    const quoted = item(q, 'ups_ground');
    await changeRecordedQuote(acct, 'ups_ground', { gross: minor(quoted.price.gross) - 1, expired: true });
    const a = await buy(acct.liveKey, { service: 'ups_ground', from, to: usTo(), parcel });
    expect(a.status, a.text).toBe(422);
    expect(a.body.code).toBe('price_changed');
    const shipment = await call(stack, 'GET', `/api/v1/shipments/${a.body.shipment_id}`, { key: acct.liveKey });
    expect(shipment.body).toMatchObject({ status: 'failed', failure: { code: 'price_changed' } });
    expect(await sim.purchases(a.body.shipment_id)).toEqual([]);
    expect(await balance(acct)).toMatchObject({ available: '200.00', pending: '0.00' });

    // Quoted again, it buys at the carrier's price.
    const again = await quote(acct.liveKey, { from, to: usTo(), parcel });
    const b = await buy(acct.liveKey, { service: 'ups_ground', from, to: usTo(), parcel });
    expect(b.status, b.text).toBe(201);
    expect(b.body.price).toEqual(item(again, 'ups_ground').price);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('after expiry, a price no higher is charged as the carrier answers it now', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '200.00' });
    const from = usFrom();
    const q = await quote(acct.liveKey, { from, to: usTo(), parcel });
    await changeRecordedQuote(acct, 'ups_ground', { expired: true });
    const a = await buy(acct.liveKey, { service: 'ups_ground', from, to: usTo(), parcel });
    expect(a.status, a.text).toBe(201);
    expect(a.body.price).toEqual(item(q, 'ups_ground').price);
  });

  it('lists a carrier that is too slow or refuses under unavailable, and answers within 5 s with the others', async () => {
    const acct = await createAccount(stack, { currency: 'USD' });
    const name = unique('Slow Co');
    // USPS's price search carries only ZIP Codes: this one is this test's.
    const zip = '59901';
    await sim.fault({ carrier: 'usps', operation: 'quote', mode: 'timeout', match: `"originZIPCode":"${zip}"`, times: 50 });
    await sim.fault({ carrier: 'ups', operation: 'quote', mode: 'error', status: 400, code: '111100', match: name, times: 50 });
    try {
      const started = Date.now();
      const q = await quote(acct.liveKey, { from: { ...usFrom(name), city: 'Kalispell', state: 'MT', postcode: zip }, to: usTo(), parcel });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(q.status, q.text).toBe(200);
      expect(q.body.unavailable).toEqual([
        { carrier: 'ups', code: 'carrier_error', message: expect.any(String) },
        { carrier: 'usps', code: 'carrier_unavailable', message: expect.any(String) },
      ]);
      expect(q.body.data.some((i: any) => i.service.carrier === 'acme')).toBe(true);
      expect(q.body.data.some((i: any) => ['ups', 'usps'].includes(i.service.carrier))).toBe(false);

      // Buying without a quote while USPS cannot be reached: 503, nothing charged.
      const funded = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
      const a = await buy(funded.liveKey, { service: 'usps_ground_advantage', from: { ...usFrom(), city: 'Kalispell', state: 'MT', postcode: zip }, to: usTo(), parcel });
      expect(a.status, a.text).toBe(503);
      expect(a.body.code).toBe('carrier_unavailable');
      expect(await balance(funded)).toMatchObject({ available: '50.00', pending: '0.00' });
    } finally {
      await sim.clearFaults(`"originZIPCode":"${zip}"`);
      await sim.clearFaults(name);
    }
  });

  it('serves repeated quotes of one parcel and route from the price cache, without new carrier calls', async () => {
    const acct = await createAccount(stack, { currency: 'USD' });
    const name = unique('Cached Co');
    const first = await quote(acct.liveKey, { from: usFrom(name), to: usTo(), parcel });
    expect(first.body.unavailable).toEqual([]);
    // Any UPS rating call for this shipment would now fail: the next quotes must not make one.
    await sim.fault({ carrier: 'ups', operation: 'quote', mode: 'error', status: 400, match: name, times: 5 });
    try {
      for (let i = 0; i < 5; i++) {
        const again = await quote(acct.liveKey, { from: usFrom(name), to: usTo(), parcel });
        expect(again.body.unavailable).toEqual([]);
        expect(item(again, 'ups_ground').price).toEqual(item(first, 'ups_ground').price);
      }
      expect((await sim.faults(name)).map((f) => f.times)).toEqual([5]);
    } finally {
      await sim.clearFaults(name);
    }
  });

  it('lists a carrier whose address limit is passed as validation_failed naming the field, and refuses that purchase', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const to = usTo({ name: 'Happy Dog Pet Supply And Grooming Co' }); // 36 characters: over UPS's 35, within USPS's 50
    const q = await quote(acct.liveKey, { from: usFrom(), to, parcel });
    expect(q.status, q.text).toBe(200);
    expect(q.body.unavailable).toEqual([{ carrier: 'ups', code: 'validation_failed', message: expect.stringContaining('to.name') }]);
    expect(q.body.unavailable[0].message).toContain('35');
    expect(item(q, 'usps_ground_advantage')).toBeDefined();
    const a = await buy(acct.liveKey, { service: 'ups_ground', from: usFrom(), to, parcel });
    expect(a.status, a.text).toBe(422);
    expect(a.body.code).toBe('validation_failed');
    expect(a.body.errors).toEqual([{ path: 'to.name', message: expect.stringContaining('35') }]);
    expect(await balance(acct)).toMatchObject({ available: '50.00' });
  });

  it('quotes and buys ups_standard for a GBP live account from GB to GB', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const from = gb(unique('Tower Books'));
    const to = gb('Northern Lights Ltd');
    const q = await quote(acct.liveKey, { from, to, parcel });
    expect(q.body.unavailable).toEqual([]);
    const quoted = item(q, 'ups_standard');
    expect(quoted).toMatchObject({ livemode: true, price: { currency: 'GBP' } });
    expect(item(q, 'usps_ground_advantage')).toBeUndefined();
    const a = await buy(acct.liveKey, { service: 'ups_standard', from, to, parcel });
    expect(a.status, a.text).toBe(201);
    expect(a.body.price).toEqual(quoted.price);
    expect(a.body.tracking.number).toMatch(/^1Z/);
    expect((await sim.purchases(a.body.id)).length).toBe(1);
  });

  it('gives sandbox keys the same shapes from indicative prices, without reaching a carrier', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '10.00' });
    const from = usFrom();
    const q = await quote(acct.testKey, { from, to: usTo(), parcel });
    expect(q.body.unavailable).toEqual([]);
    const quoted = item(q, 'usps_ground_advantage');
    expect(quoted).toMatchObject({ livemode: false, price: { currency: 'USD' }, expires_at: expect.any(String) });
    expect(item(q, 'ups_ground')).toMatchObject({ livemode: false });
    const a = await buy(acct.testKey, { service: 'usps_ground_advantage', from, to: usTo(), parcel });
    expect(a.status, a.text).toBe(201);
    expect(a.body.price).toEqual(quoted.price);
    expect(a.body.tracking.number).toMatch(/^9\d{19,21}$/);
    expect(await sim.purchases(a.body.id)).toEqual([]);
    expect((await balance(acct)).available).toBe('10.00');
  });
});
