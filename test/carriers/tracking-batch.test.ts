// Tracking calls of a carrier whose API takes many numbers in one call (capabilities.trackingBatch:
// FedEx's trackingnumbers takes 30, and so does Acme's POST /tracking): the polls a worker runs at once
// go to the carrier together, each still gets its own scans or its own "not found", and a number the
// carrier does not know is an expected (benign) answer, not a fault.
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrierActivities } from '../../activities/carriers.js';
import { acmeDefinition, CarrierError } from '../../carriers/index.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { CODE } from '../../domain/index.js';
import { addSimScan, httpAdapter, purchaseRequest, simCall } from './sim-helpers.js';
import { createFedexAdapter, fedexDefinition } from '../../carriers/fedex/index.js';
import { startFedexSimulator } from '../../tools/carrier-sim/fedex/index.js';
import { PARCEL as FEDEX_PARCEL, US_FROM, US_TO } from './fedex/payloads.js';

let sim: CarrierSimulator;
beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

const trackCalls = async () => ((await simCall(sim.url, 'GET', '/_sim/stats')).body.calls.acme?.track ?? 0) as number;

describe('batched tracking (Acme: 30 numbers a call)', () => {
  it('declares its batch size, and its adapter answers each number of one call', async () => {
    expect(acmeDefinition.capabilities.trackingBatch).toBe(30);
    const adapter = httpAdapter(sim.url, 'acme');
    const a = await adapter.buy(purchaseRequest('acme_ground'));
    const b = await adapter.buy(purchaseRequest('acme_ground'));
    await addSimScan(sim.url, a.trackingNumber, 'in_transit');
    const unknown = acmeDefinition.trackingNumberFor('never-bought');
    const answer = await adapter.scansBatch!([a.trackingNumber, b.trackingNumber, unknown]);
    expect(answer.get(a.trackingNumber)).toEqual(await adapter.scans(a.trackingNumber));
    expect(answer.get(a.trackingNumber)).toHaveLength(1);
    expect(answer.get(b.trackingNumber)).toEqual([]);
    expect(answer.get(unknown)).toBeInstanceOf(CarrierError);
    expect(answer.get(unknown)).toMatchObject({ kind: 'definitive', details: { reason: 'not_found' } });
  });

  it('sends the polls a worker runs at once together: 36 polls in two calls, each with its own answer', async () => {
    const adapter = httpAdapter(sim.url, 'acme');
    const acts = createCarrierActivities({ adapter: () => adapter });
    const labels = await Promise.all(Array.from({ length: 35 }, () => adapter.buy(purchaseRequest('acme_ground'))));
    await addSimScan(sim.url, labels[7].trackingNumber, 'out_for_delivery');
    const unknown = acmeDefinition.trackingNumberFor('never-bought-either');
    const before = await trackCalls();
    const numbers = [...labels.map((l) => l.trackingNumber), unknown];
    const results = await Promise.allSettled(numbers.map((trackingNumber) => acts.fetchScans({ carrier: 'acme', livemode: true, trackingNumber })));
    // 30 at once, then the 6 left after the batch window.
    expect((await trackCalls()) - before).toBe(2);
    expect(results.slice(0, 35).every((r) => r.status === 'fulfilled')).toBe(true);
    expect((results[7] as PromiseFulfilledResult<unknown[]>).value).toMatchObject([{ status: 'out_for_delivery' }]);
    expect(results.slice(0, 35).filter((r, i) => i !== 7).every((r) => (r as PromiseFulfilledResult<unknown[]>).value.length === 0)).toBe(true);
    // The unknown number: its own non-retryable failure, marked benign (a poll's expected miss).
    const failed = results[35] as PromiseRejectedResult;
    expect(failed.reason).toBeInstanceOf(ApplicationFailure);
    expect(failed.reason).toMatchObject({ type: CODE.carrier_error, nonRetryable: true, category: ApplicationFailureCategory.BENIGN });
    expect((failed.reason as ApplicationFailure).details?.[0]).toMatchObject({ carrier: 'acme', reason: 'not_found' });
  });

  it('a fault of the whole call fails every poll of it, as retryable', async () => {
    const adapter = httpAdapter(sim.url, 'acme');
    const acts = createCarrierActivities({ adapter: () => adapter });
    const labels = await Promise.all(Array.from({ length: 3 }, () => adapter.buy(purchaseRequest('acme_ground'))));
    await simCall(sim.url, 'POST', '/_sim/faults', { carrier: 'acme', operation: 'track', mode: 'error', status: 503, match: labels[0].trackingNumber });
    const results = await Promise.allSettled(labels.map((l) => acts.fetchScans({ carrier: 'acme', livemode: true, trackingNumber: l.trackingNumber })));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toMatchObject({ type: CODE.carrier_retryable, nonRetryable: false });
  });
});

describe('batched tracking (FedEx: trackingnumbers, 30 numbers a call)', () => {
  it('sends 31 polls in two calls, each number with its own scans or its own "not found"', async () => {
    const credentials = { CLIENT_ID: 'client-id', CLIENT_SECRET: 'client-secret', ACCOUNT_NUMBER: '740561073' };
    const fedex = await startFedexSimulator({ clientId: credentials.CLIENT_ID, clientSecret: credentials.CLIENT_SECRET, accountNumber: credentials.ACCOUNT_NUMBER });
    try {
      expect(fedexDefinition.capabilities.trackingBatch).toBe(30);
      const adapter = createFedexAdapter({ baseUrl: fedex.url, timeoutMs: 2_000, credentials });
      const acts = createCarrierActivities({ adapter: () => adapter });
      const bought = await Promise.all(
        [1, 2, 3].map((n) => adapter.buy({ reference: `shp_batchfedex${String(n).padStart(16, '0')}`, serviceCode: 'fedex_ground', from: US_FROM, to: US_TO, parcel: FEDEX_PARCEL, at: new Date().toISOString() })),
      );
      const unknown = Array.from({ length: 28 }, (_, i) => `7999${String(i).padStart(8, '0')}`);
      const numbers = [...bought.map((b) => b.trackingNumber), ...unknown];
      const before = fedex.sim.log.filter((l) => l.operation === 'track').length;
      const results = await Promise.allSettled(numbers.map((trackingNumber) => acts.fetchScans({ carrier: 'fedex', livemode: true, trackingNumber })));
      expect(fedex.sim.log.filter((l) => l.operation === 'track').length - before).toBe(2);
      for (const [i, b] of bought.entries()) expect((results[i] as PromiseFulfilledResult<unknown>).value).toEqual(await adapter.scans(b.trackingNumber));
      for (const r of results.slice(3)) expect((r as PromiseRejectedResult).reason).toMatchObject({ type: CODE.carrier_error, category: ApplicationFailureCategory.BENIGN });
      expect(fedex.sim.violations).toEqual([]);
    } finally {
      await fedex.close();
    }
  });
});
