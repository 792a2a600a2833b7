// USPS's lost answers are settled as its document intends: the same request again under the same
// X-Idempotency-Key (never label-reprint polling: three reprints a label, none once cancelled, each
// a call of the 60 an hour). The stray-label looks after a failed purchase spend nothing until the
// last, which cancels by the key. Every call is counted against the quota before it is sent. The
// mailing date is the sender's own, fixed by the purchase's instant, so a retry is byte-identical.
import { afterEach, describe, expect, it } from 'vitest';
import type { PurchaseRequest } from '../../../carriers/types.js';
import { CarrierError } from '../../../carriers/types.js';
import { carrierRates, createPriceCache } from '../../../carriers/index.js';
import { uspsAdapterOn } from '../../../carriers/usps/adapter.js';
import { createUspsClient, type UspsClientConfig } from '../../../carriers/usps/client.js';
import { startUspsSimulator } from '../../../tools/carrier-sim/usps/index.js';
import { FROM_US, PARCEL_US, TO_US } from './payloads.js';

const CREDENTIALS = { clientId: 'sim-client', clientSecret: 'sim-secret' };
let clock = Date.parse('2026-07-01T14:00:00Z');
const closers: Array<() => Promise<void>> = [];
let serial = 0;

async function harness(clientOptions: Partial<UspsClientConfig> = {}) {
  const started = await startUspsSimulator({ ...CREDENTIALS, now: () => clock });
  closers.push(started.close);
  const client = clientOn(started.url, clientOptions);
  return { adapter: uspsAdapterOn(client), client, sim: started.simulator, url: started.url };
}

/** A client of the simulator at `url`; a second one stands for a new process, with nothing of the first in memory. */
function clientOn(url: string, options: Partial<UspsClientConfig> = {}) {
  return createUspsClient({
    url,
    ...CREDENTIALS,
    crid: '12345678',
    mid: '123456',
    manifestMid: '123456',
    accountNumber: '1000000000',
    labelFormat: 'png',
    now: () => clock,
    sleep: async (ms) => void (clock += ms),
    ...options,
  });
}

const request = (over: Partial<PurchaseRequest> = {}): PurchaseRequest => ({
  reference: `shp_01j0000000bbbbbbbbbbbbbb${String(++serial).padStart(2, '0')}`,
  serviceCode: 'usps_priority_mail',
  from: FROM_US,
  to: TO_US,
  parcel: PARCEL_US,
  at: new Date(clock).toISOString(),
  ...over,
});

async function carrierError(p: Promise<unknown>): Promise<CarrierError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(CarrierError);
  return e as CarrierError;
}

afterEach(async () => {
  clock = Date.parse('2026-07-01T14:00:00Z');
  for (const close of closers.splice(0)) await close();
});

describe('USPS lost answers and stray labels', () => {
  it('settles a lost buy answer with the same request under the same key: the same label, no reprint', async () => {
    const { adapter, sim, url } = await harness();
    const r = request();
    sim.inject('label', { kind: 'lost' });
    expect((await carrierError(adapter.buy(r))).kind).toBe('ambiguous');
    // A later attempt, after UTC's midnight: the request is the same bytes, so USPS answers the label made first.
    clock += 11 * 3_600_000;
    const fresh = uspsAdapterOn(clientOn(url));
    const found = await fresh.findPurchase(r.reference, { request: r });
    expect(found).toMatchObject({ reference: r.reference, trackingNumber: sim.labels()[0].trackingNumber, cancelled: false });
    expect(sim.labels()).toHaveLength(1);
    expect(sim.calls.reprint).toBe(0);
    expect(sim.requestProblems).toEqual([]);
  });

  it('spends no call on the early stray looks, and cancels by the key on the last', async () => {
    const { adapter, sim } = await harness();
    const r = request();
    sim.inject('label', { kind: 'lost' });
    await carrierError(adapter.buy(r));
    const before = { ...sim.calls };
    for (let look = 0; look < 12; look++) expect(await adapter.findPurchase(r.reference, { stray: { final: false } })).toBeNull();
    expect(sim.calls).toEqual(before);
    const last = await adapter.findPurchase(r.reference, { stray: { final: true } });
    expect(last).toMatchObject({ reference: r.reference, trackingNumber: sim.labels()[0].trackingNumber, cancelled: true });
    expect(sim.labels()[0].status).toBe('canceled');
    expect(sim.calls.reprint).toBe(0);
    expect(sim.calls.cancel).toBe(before.cancel + 1);
    // No label under the key: the last look finds nothing, and nothing is bought to find it.
    expect(await adapter.findPurchase(request().reference, { stray: { final: true } })).toBeNull();
    expect(sim.labels()).toHaveLength(1);
  });
});

describe('USPS quota budget', () => {
  it('counts every call, tokens included, and refuses beyond the hour as retryable without sending', async () => {
    const { adapter, client, sim } = await harness({ callsPerHour: 4 });
    await adapter.buy(request()); // token, payment authorization, label
    expect(client.quotaSpent()).toBe(3);
    await adapter.rate({ from: FROM_US, to: TO_US, parcel: PARCEL_US, serviceCode: 'usps_priority_mail' }); // one price search
    const sent = { ...sim.calls };
    const refused = await carrierError(adapter.buy(request()));
    expect(refused.kind).toBe('retryable');
    expect(refused.message).toMatch(/USPS quota: the 4 calls an hour are spent/);
    expect(refused.details.retryAfterMs).toBeGreaterThan(0);
    expect(refused.details.retryAfterMs).toBeLessThanOrEqual(3_600_000);
    expect(sim.calls).toEqual(sent);
    clock += 3_600_000;
    await adapter.buy(request());
    expect(sim.labels()).toHaveLength(2);
  });

  it("counts a label's reprints: a fourth is refused before it is sent", async () => {
    const { adapter, sim } = await harness();
    const r = request();
    const bought = await adapter.buy(r);
    const stored = { reference: r.reference, trackingNumber: bought.trackingNumber, carrierShipmentId: null };
    for (let n = 0; n < 3; n++) expect((await adapter.recoverLabel!(stored, 'zpl')).format).toBe('zpl');
    const sent = sim.calls.reprint;
    expect((await carrierError(adapter.recoverLabel!(stored, 'zpl'))).kind).toBe('definitive');
    expect(sim.calls.reprint).toBe(sent);
  });
});

describe('USPS price refusals', () => {
  it("reach the quote's unavailable with USPS's reason, never an empty answer", async () => {
    const { adapter, sim } = await harness();
    const reason = 'Weight exceeds the maximum for this mail class';
    const refusal = { kind: 'error' as const, status: 400, body: { apiVersion: 'v3', error: { code: '400', message: 'Bad Request', errors: [{ status: '400', code: '010001', title: 'Bad Request', detail: reason }] } } };
    // Refused for every mail class asked (one price search each).
    for (let n = 0; n < 3; n++) sim.inject('rate', refusal);
    const quote = await carrierRates(adapter, createPriceCache(), { livemode: true, parcel: PARCEL_US, from: FROM_US, to: TO_US, currency: 'USD', deadlineMs: 5_000 });
    expect(quote.ok).toBe(false);
    expect(quote).toMatchObject({ code: 'carrier_error', message: expect.stringContaining(reason) });
    expect(sim.calls.rate).toBeGreaterThanOrEqual(1);
  });
});

describe('USPS mailing dates', () => {
  it("sends the sender's local date: Guam's day is ahead of UTC's", async () => {
    const { adapter, sim } = await harness();
    clock = Date.parse('2026-07-01T15:30:00Z'); // 01:30 on 2 July in Guam, 11:30 on 1 July in Washington
    const guam = { name: 'Island Goods', line1: '123 Marine Corps Dr', city: 'Tamuning', state: 'GU', postcode: '96913', country: 'US' } as PurchaseRequest['from'];
    await adapter.buy(request({ from: guam }));
    await adapter.buy(request());
    expect(sim.labels().map((l) => l.mailingDate)).toEqual(['2026-07-02', '2026-07-01']);
  });
});
