import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARRIER_MODULES, CarrierError, defaultCarrierBaseUrls, type CarrierAdapter } from '../../carriers/index.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addFault, memoryLedger, purchaseRequest, simCall, simPurchases } from './sim-helpers.js';

// Fault 2: SwiftPost has no idempotency keys. A booking whose answer is lost may still be committing
// when a lookup by our reference says "nothing"; a second booking must never be sent meanwhile.
const TIMEOUT_MS = 400;
const SETTLE_MS = 2_500;
const CARRIER_COMMITS_AFTER_MS = 1_200; // after our deadline, within the settle window

let sim: CarrierSimulator;
let swiftpost: CarrierAdapter;
beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
  const module = CARRIER_MODULES.find((m) => m.definition.code === 'swiftpost')!;
  swiftpost = module.createHttpAdapter({ baseUrl: defaultCarrierBaseUrls(sim.url).swiftpost, timeoutMs: TIMEOUT_MS, settleMs: SETTLE_MS });
});
afterAll(async () => {
  await sim.close();
});

/** Our retry loop, as the activity's retry policy runs it: again after any failure, as a later attempt. */
async function buyRetrying(request: ReturnType<typeof purchaseRequest>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await swiftpost.buy({ ...request, earlierAttempt: attempt > 1 });
    } catch (err) {
      if (attempt >= 4) throw err;
    }
  }
}

const settled = () => new Promise((r) => setTimeout(r, SETTLE_MS));

function rawBooking(reference: string) {
  return {
    productCode: 'swiftpost_standard',
    customerReference: reference,
    sender: { contactName: 'A', addressLine1: '1 St', town: 'London', postcode: 'E1', countryCode: 'GB' },
    recipient: { contactName: 'B', addressLine1: '2 St', town: 'Leeds', postcode: 'LS1', countryCode: 'GB' },
    item: { weightGrams: 500, lengthMm: 100, widthMm: 100, heightMm: 100 },
  };
}

describe('swiftpost: a booking that commits after our deadline (fault 2)', () => {
  it('the simulator can commit after the answer deadline', async () => {
    const request = purchaseRequest('swiftpost_standard');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'late_commit', delay_ms: 300, match: request.reference });
    const booking = simCall(sim.url, 'POST', '/swiftpost/api/consignments', rawBooking(request.reference));
    expect(await simPurchases(sim.url, request.reference)).toHaveLength(0);
    expect((await booking).status).toBe(201);
    expect(await simPurchases(sim.url, request.reference)).toHaveLength(1);
  });

  it('sells one label when the booking times out and commits late: the adapter settles instead of booking again', async () => {
    const request = purchaseRequest('swiftpost_standard');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'late_commit', delay_ms: CARRIER_COMMITS_AFTER_MS, match: request.reference });
    const bought = await buyRetrying(request);
    await settled();
    const labels = await simPurchases(sim.url, request.reference);
    expect(labels.filter((l) => !l.cancelled)).toHaveLength(1);
    expect(bought.trackingNumber).toBe(labels.find((l) => !l.cancelled)!.tracking_number);
  });

  it('a retried attempt waits out an earlier attempt\'s booking that is still committing', async () => {
    const request = purchaseRequest('swiftpost_standard');
    // The earlier attempt's booking, sent by a worker that then died: the carrier commits it shortly.
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'late_commit', delay_ms: CARRIER_COMMITS_AFTER_MS, match: request.reference });
    const earlier = simCall(sim.url, 'POST', '/swiftpost/api/consignments', rawBooking(request.reference));
    const bought = await swiftpost.buy({ ...request, earlierAttempt: true });
    await earlier;
    await settled();
    const labels = await simPurchases(sim.url, request.reference);
    expect(labels.filter((l) => !l.cancelled)).toHaveLength(1);
    expect(bought.trackingNumber).toBe(labels[0].tracking_number);
  });

  it('settles an earlier attempt over the window from when it was given up on: a window passed is not waited again', async () => {
    // The workflow's earlier attempt was given up on long ago (its own settle came to nothing):
    // nothing of it can commit any more, so this attempt books at once.
    const past = purchaseRequest('swiftpost_standard');
    let started = Date.now();
    await swiftpost.buy({ ...past, earlierAttempt: true, earlierAttemptAt: new Date(Date.now() - SETTLE_MS - 1_000).toISOString() });
    expect(Date.now() - started).toBeLessThan(SETTLE_MS / 2);
    // Given up on a second ago: only the rest of its window is waited out.
    const recent = purchaseRequest('swiftpost_standard');
    started = Date.now();
    await swiftpost.buy({ ...recent, earlierAttempt: true, earlierAttemptAt: new Date(Date.now() - 1_000).toISOString() });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(SETTLE_MS - 1_000 - 100);
    expect(took).toBeLessThan(SETTLE_MS);
    for (const r of [past, recent]) expect(await simPurchases(sim.url, r.reference)).toHaveLength(1);
  });

  it('cancels any extra consignment found under our reference and keeps the first', async () => {
    const request = purchaseRequest('swiftpost_standard');
    for (let i = 0; i < 2; i++) expect((await simCall(sim.url, 'POST', '/swiftpost/api/consignments', rawBooking(request.reference))).status).toBe(201);
    const bought = await swiftpost.buy(request);
    const labels = await simPurchases(sim.url, request.reference);
    expect(labels).toHaveLength(2);
    expect(labels.filter((l) => !l.cancelled).map((l) => l.tracking_number)).toEqual([bought.trackingNumber]);
    expect(bought.trackingNumber).toBe(labels[0].tracking_number);
  });

  it('a booking that never commits is retried only after the settle window: still one label', async () => {
    const request = purchaseRequest('swiftpost_standard');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'timeout', match: request.reference });
    const bought = await buyRetrying(request);
    const labels = await simPurchases(sim.url, request.reference);
    expect(labels).toHaveLength(1);
    expect(bought.trackingNumber).toBe(labels[0].tracking_number);
  });
});

describe('swiftpost: with the purchase’s ledger of sends', () => {
  it('books at once after an attempt whose worker was lost before it sent: nothing can be committing', async () => {
    const request = purchaseRequest('swiftpost_standard');
    const ledger = memoryLedger();
    // The first attempt started (its worker then died before booking); it was given up on just now.
    await ledger.attempt(1).start();
    const started = Date.now();
    const bought = await swiftpost.buy({ ...request, earlierAttempt: true, earlierAttemptAt: new Date().toISOString() }, ledger.attempt(2));
    expect(Date.now() - started).toBeLessThan(SETTLE_MS / 2);
    expect(ledger.marks).toEqual([2]);
    expect((await simPurchases(sim.url, request.reference)).map((l) => l.tracking_number)).toEqual([bought.trackingNumber]);
  });

  it('waits out a booking an earlier attempt sent that is still committing, from its send: still one label', async () => {
    const request = purchaseRequest('swiftpost_standard');
    const ledger = memoryLedger();
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'late_commit', delay_ms: CARRIER_COMMITS_AFTER_MS, match: request.reference });
    // The first attempt marks its send and books; its worker dies before the answer.
    const first = ledger.attempt(1);
    await first.start();
    expect(await first.markSend()).toBe(true);
    const earlier = simCall(sim.url, 'POST', '/swiftpost/api/consignments', rawBooking(request.reference));
    const bought = await swiftpost.buy({ ...request, earlierAttempt: true }, ledger.attempt(2));
    await earlier;
    await settled();
    const labels = await simPurchases(sim.url, request.reference);
    expect(labels.filter((l) => !l.cancelled).map((l) => l.tracking_number)).toEqual([bought.trackingNumber]);
    expect(ledger.marks).toEqual([1]);
  });

  it('an attempt that a later one has overtaken sends nothing: it fails as retryable, no booking', async () => {
    const request = purchaseRequest('swiftpost_standard');
    const ledger = memoryLedger();
    await ledger.attempt(2).start();
    const late = await swiftpost.buy(request, ledger.attempt(1)).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(CarrierError);
    expect((late as CarrierError).kind).toBe('retryable');
    expect(await simPurchases(sim.url, request.reference)).toHaveLength(0);
  });
});
