import { describe, expect, it } from 'vitest';
import { carrierRates, createPriceCache, createSandboxAdapter, shipmentHash, type CarrierAdapter, type Rate, type RateRequest } from '../../carriers/index.js';
import { upsDefinition } from '../../carriers/ups/index.js';
import { uspsDefinition } from '../../carriers/usps/index.js';
import { CarrierError } from '../../carriers/types.js';
import type { Address, Parcel } from '../../domain/index.js';

const FROM: Address = { name: 'Acme Widgets', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
const TO: Address = { name: 'Happy Dog', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
const PARCEL: Parcel = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };

/** An adapter that prices like a carrier's API and counts the calls it gets. */
function countingAdapter(answer: (request: RateRequest) => Promise<Rate[]>): CarrierAdapter & { calls: number } {
  const sandbox = createSandboxAdapter(upsDefinition);
  const adapter = {
    ...sandbox,
    calls: 0,
    checkAddress: (from: Address, to: Address) => (from.name.length > 35 || to.name.length > 35 ? [{ path: 'to.name', message: 'must be at most 35 characters for UPS' }] : []),
    rate: async (request: RateRequest) => {
      adapter.calls += 1;
      return answer(request);
    },
  };
  return adapter;
}

const usd = (serviceCode: string, net: number): Rate => ({ serviceCode, net, currency: 'USD', estimatedDeliveryDays: 5 });
const request = { parcel: PARCEL, from: FROM, to: TO, currency: 'USD', hash: shipmentHash(PARCEL, FROM, TO) };

describe('the price cache', () => {
  it('serves the same shipment from one carrier call until its TTL passes on its clock', async () => {
    let clock = 1_000_000;
    const cache = createPriceCache({ ttlMs: 60_000, now: () => clock });
    const adapter = countingAdapter(async () => [usd('ups_ground', 1_000)]);
    for (let i = 0; i < 20; i++) expect(await cache.rates(adapter, true, request)).toEqual([usd('ups_ground', 1_000)]);
    expect(adapter.calls).toBe(1);
    clock += 59_999;
    await cache.rates(adapter, true, request);
    expect(adapter.calls).toBe(1);
    clock += 1;
    await cache.rates(adapter, true, request);
    expect(adapter.calls).toBe(2);
  });

  it('keeps modes, currencies and shipments apart, and shares one call between askers at once', async () => {
    const cache = createPriceCache({ now: () => 0 });
    const adapter = countingAdapter(async () => [usd('ups_ground', 1_000)]);
    await Promise.all([cache.rates(adapter, true, request), cache.rates(adapter, true, request)]);
    expect(adapter.calls).toBe(1);
    await cache.rates(adapter, false, request);
    await cache.rates(adapter, true, { ...request, currency: 'GBP' });
    await cache.rates(adapter, true, { ...request, hash: shipmentHash({ ...PARCEL, weight_g: 1_501 }, FROM, TO) });
    expect(adapter.calls).toBe(4);
  });

  it('does not keep a failed call: the next asker asks the carrier again', async () => {
    const cache = createPriceCache({ now: () => 0 });
    let fail = true;
    const adapter = countingAdapter(async () => {
      if (fail) throw new CarrierError('retryable', 'down');
      return [usd('ups_ground', 1_000)];
    });
    await expect(cache.rates(adapter, true, request)).rejects.toThrow('down');
    fail = false;
    expect(await cache.rates(adapter, true, request)).toHaveLength(1);
    expect(adapter.calls).toBe(2);
  });

  it('holds at most maxEntries shipments, dropping the oldest', async () => {
    const cache = createPriceCache({ now: () => 0, maxEntries: 3 });
    const adapter = countingAdapter(async () => []);
    for (let w = 1; w <= 5; w++) await cache.rates(adapter, true, { ...request, hash: `h${w}` });
    expect(cache.size).toBe(3);
  });
});

describe('a carrier priced by its rating API', () => {
  const cache = () => createPriceCache({ now: () => 0 });
  const ask = (adapter: CarrierAdapter, over: Partial<Parameters<typeof carrierRates>[2]> = {}) =>
    carrierRates(adapter, cache(), { livemode: true, parcel: PARCEL, from: FROM, to: TO, currency: 'USD', deadlineMs: 200, ...over });

  it('offers only its rates in the account currency, of services we sell, and abroad only where it ships abroad', async () => {
    const adapter = countingAdapter(async () => [usd('ups_ground', 1_000), { ...usd('ups_2nd_day_air', 2_000), currency: 'CAD' }, usd('ups_next_day_air_saver', 3_000)]);
    expect(await ask(adapter)).toEqual({ ok: true, rates: [usd('ups_ground', 1_000)] });
    const toCanada = { to: { ...TO, country: 'CA', state: 'ON', postcode: 'K1A 0B1' } };
    const domestic = countingAdapter(async () => [usd('ups_standard', 1_000)]);
    const homeOnly = { ...domestic, definition: { ...domestic.definition, capabilities: { ...domestic.definition.capabilities, international: false } } };
    expect(await ask(homeOnly, toCanada)).toEqual({ ok: true, rates: [] });
    expect(domestic.calls).toBe(0);
    expect(await ask(domestic, toCanada)).toEqual({ ok: true, rates: [usd('ups_standard', 1_000)] });
    expect(adapter.calls).toBe(1);
  });

  it('is unavailable when it answers after the deadline, refuses, or cannot take an address', async () => {
    const slow = countingAdapter(() => new Promise((resolve) => setTimeout(() => resolve([usd('ups_ground', 1_000)]), 1_000)));
    const started = Date.now();
    expect(await ask(slow)).toMatchObject({ ok: false, code: 'carrier_unavailable' });
    expect(Date.now() - started).toBeLessThan(900);
    const refusing = countingAdapter(async () => {
      throw new CarrierError('definitive', 'no');
    });
    expect(await ask(refusing)).toMatchObject({ ok: false, code: 'carrier_error' });
    const adapter = countingAdapter(async () => [usd('ups_ground', 1_000)]);
    const long = await ask(adapter, { to: { ...TO, name: 'N'.repeat(40) } });
    expect(long).toMatchObject({ ok: false, code: 'validation_failed' });
    expect(!long.ok && long.message).toContain('to.name must be at most 35 characters');
    expect(adapter.calls).toBe(0);
  });
});

describe('the sandbox', () => {
  it('prices UPS and USPS services by their indicative cards, in the currency of the route, and buys them', async () => {
    const ups = createSandboxAdapter(upsDefinition);
    const usps = createSandboxAdapter(uspsDefinition);
    const us = await ups.rate({ parcel: PARCEL, from: FROM, to: TO });
    expect(us.map((r) => r.serviceCode)).toContain('ups_ground');
    expect(new Set(us.map((r) => r.currency))).toEqual(new Set(['USD']));
    expect(await ups.rate({ parcel: PARCEL, from: FROM, to: TO })).toEqual(us);
    const gb = await ups.rate({ parcel: PARCEL, from: { ...FROM, country: 'GB', state: undefined }, to: { ...TO, country: 'GB', state: undefined } });
    expect(gb.find((r) => r.serviceCode === 'ups_standard')).toMatchObject({ currency: 'GBP' });
    expect((await usps.rate({ parcel: PARCEL, from: FROM, to: TO })).map((r) => r.serviceCode)).toContain('usps_ground_advantage');
    const bought = await ups.buy({ reference: 'shp_sandbox_ups_1', serviceCode: 'ups_ground', parcel: PARCEL, from: FROM, to: TO });
    expect(upsDefinition.isTrackingNumber(bought.trackingNumber)).toBe(true);
    await expect(ups.buy({ reference: 'shp_sandbox_ups_2', serviceCode: 'ups_ground', parcel: { ...PARCEL, weight_g: 40_000 }, from: FROM, to: TO })).rejects.toThrow(CarrierError);
  });
});

describe('the shipment hash', () => {
  it('is the same for the same shipment however it is written, and differs when anything differs', () => {
    const a = shipmentHash(PARCEL, FROM, TO);
    expect(shipmentHash({ height_mm: 100, width_mm: 200, length_mm: 300, weight_g: 1_500 }, { ...FROM, country: 'us' }, TO)).toBe(a);
    expect(shipmentHash(PARCEL, { ...FROM, line2: undefined }, TO)).toBe(a);
    expect(shipmentHash(PARCEL, TO, FROM)).not.toBe(a);
    expect(shipmentHash(PARCEL, FROM, { ...TO, line1: '124 Main St' })).not.toBe(a);
  });
});
