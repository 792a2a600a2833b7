import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierError, type CarrierAdapter, type PurchaseRequest } from '../../../carriers/index.js';
import { createUpsAdapter } from '../../../carriers/ups/index.js';
import { SIMULATOR_SETTINGS, startCarrierSimulator, type CarrierSimulator } from '../../../tools/carrier-sim/index.js';
import { addFault, memoryLedger, simPurchases } from '../sim-helpers.js';
import { PARCEL, US_FROM, US_TO } from './payloads.js';

// UPS takes no idempotency key, and its ship call can take 10 s: a ship an attempt sent just before
// its worker died may still be making its label when the next attempt looks our reference up.
const SETTLE_MS = 2_500;
const UPS_COMMITS_AFTER_MS = 1_200; // after the next attempt's first lookup, within the window

let sim: CarrierSimulator;
let ups: CarrierAdapter;
let counter = 0;
/** Shipment ids are 30 characters, as ours are; unique per run so references never collide. */
const shipmentId = () => `shp_${Date.now().toString(36).padStart(10, '0')}${String(++counter).padStart(16, '0')}`.slice(0, 30);
const request = (): PurchaseRequest => ({ reference: shipmentId(), serviceCode: 'ups_ground', from: US_FROM, to: US_TO, parcel: PARCEL });

beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
  ups = createUpsAdapter({ baseUrl: sim.carrierUrls.ups, credentials: SIMULATOR_SETTINGS.ups, timeoutMs: 2_000, settleMs: SETTLE_MS });
});
afterAll(async () => {
  await sim.close();
});

describe('ups: with the purchase’s ledger of sends', () => {
  it('waits out a ship an earlier attempt sent that UPS is still making: one label, the earlier one', async () => {
    const purchase = request();
    const ledger = memoryLedger();
    await addFault(sim.url, { carrier: 'ups', operation: 'buy', mode: 'late_commit', delay_ms: UPS_COMMITS_AFTER_MS, match: purchase.reference });
    // The first attempt marks its send and ships; its worker dies before the answer, and the next
    // attempt starts at once.
    const first = ups.buy(purchase, ledger.attempt(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await ups.buy({ ...purchase, earlierAttempt: true, earlierAttemptAt: new Date().toISOString() }, ledger.attempt(2));
    await first;
    const labels = await simPurchases(sim.url, purchase.reference);
    expect(labels.map((l) => l.tracking_number)).toEqual([second.trackingNumber]);
    expect(ledger.marks).toEqual([1]);
  });

  it('ships at once after an attempt whose worker was lost before it shipped: nothing can be in the making', async () => {
    const purchase = request();
    const ledger = memoryLedger();
    await ledger.attempt(1).start();
    const started = Date.now();
    const bought = await ups.buy({ ...purchase, earlierAttempt: true, earlierAttemptAt: new Date().toISOString() }, ledger.attempt(2));
    expect(Date.now() - started).toBeLessThan(SETTLE_MS / 2);
    expect(ledger.marks).toEqual([2]);
    expect((await simPurchases(sim.url, purchase.reference)).map((l) => l.tracking_number)).toEqual([bought.trackingNumber]);
  });

  it('an attempt that a later one has overtaken ships nothing: it fails as retryable', async () => {
    const purchase = request();
    const ledger = memoryLedger();
    await ledger.attempt(2).start();
    const late = await ups.buy(purchase, ledger.attempt(1)).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(CarrierError);
    expect((late as CarrierError).kind).toBe('retryable');
    expect(await simPurchases(sim.url, purchase.reference)).toHaveLength(0);
  });

  it('after a fault UPS answered, the next attempt looks our reference up and ships at once, as before the ledger', async () => {
    const purchase = request();
    const ledger = memoryLedger();
    await addFault(sim.url, { carrier: 'ups', operation: 'buy', mode: 'error', status: 503, match: purchase.reference });
    const failed = await ups.buy(purchase, ledger.attempt(1)).catch((err: unknown) => err);
    expect(failed).toMatchObject({ kind: 'ambiguous', details: { status: 503 } });
    const started = Date.now();
    const bought = await ups.buy({ ...purchase, earlierAttempt: true, earlierAttemptAt: new Date().toISOString() }, ledger.attempt(2));
    expect(Date.now() - started).toBeLessThan(SETTLE_MS / 2);
    expect(ledger.marks).toEqual([1, 2]);
    expect((await simPurchases(sim.url, purchase.reference)).map((l) => l.tracking_number)).toEqual([bought.trackingNumber]);
  });
});
