import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CARRIER_MODULES,
  CarrierError,
  createCarrierHttpClient,
  defaultCarrierBaseUrls,
  parseRetryAfter,
  type CarrierAdapter,
} from '../../carriers/index.js';
import { freePort } from '../../util/index.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addFault, purchaseRequest, simCall, simPurchases, uniqueRef } from './sim-helpers.js';

let sim: CarrierSimulator;
let acme: CarrierAdapter;
let swiftpost: CarrierAdapter;
const TIMEOUT_MS = 400;

beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
  const urls = defaultCarrierBaseUrls(sim.url);
  const adapterFor = (code: string) =>
    CARRIER_MODULES.find((m) => m.definition.code === code)!.createHttpAdapter({ baseUrl: urls[code], timeoutMs: TIMEOUT_MS });
  acme = adapterFor('acme');
  swiftpost = adapterFor('swiftpost');
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  await simCall(sim.url, 'DELETE', '/_sim/faults');
});

async function failure(promise: Promise<unknown>): Promise<CarrierError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a CarrierError, got success');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CarrierError);
  return error as CarrierError;
}

describe('http client: classifying carrier answers', () => {
  it('a 500 is retryable, with the status', async () => {
    const request = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'error', status: 500, match: request.reference });
    const error = await failure(acme.buy(request));
    expect(error).toMatchObject({ kind: 'retryable', details: { status: 500, carrierCode: 'acme' } });
    expect(await simPurchases(sim.url, request.reference)).toEqual([]);
  });

  it('a 503 on a scan read is retryable', async () => {
    const { trackingNumber } = await acme.buy(purchaseRequest('acme_ground'));
    await addFault(sim.url, { carrier: 'acme', operation: 'track', mode: 'error', status: 503, match: trackingNumber });
    expect(await failure(acme.scans(trackingNumber))).toMatchObject({ kind: 'retryable', details: { status: 503 } });
  });

  it('a 409 is retryable', async () => {
    const request = purchaseRequest('swiftpost_standard');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'error', status: 409, match: request.reference });
    expect(await failure(swiftpost.buy(request))).toMatchObject({ kind: 'retryable', details: { status: 409, carrierCode: 'swiftpost' } });
  });

  it('a 400 or 422 is definitive and keeps the carrier message', async () => {
    const a = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'error', status: 400, match: a.reference });
    const error400 = await failure(acme.buy(a));
    expect(error400).toMatchObject({ kind: 'definitive', message: 'Simulated 400 failure of buy.', details: { status: 400 } });
    expect(error400.details.carrierErrorCode).toBe('simulated_error');

    const s = purchaseRequest('swiftpost_standard');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'error', status: 422, match: s.reference });
    const error422 = await failure(swiftpost.buy(s));
    expect(error422).toMatchObject({ kind: 'definitive', message: 'Simulated 422 failure of buy.', details: { status: 422 } });
    expect(error422.details.carrierErrorCode).toBe('SIMULATED_ERROR');
  });

  it("a carrier's own refusal is definitive with its message (parcel too heavy)", async () => {
    const request = { ...purchaseRequest('acme_express'), parcel: { weight_g: 25_000, length_mm: 300, width_mm: 200, height_mm: 100 } };
    const error = await failure(acme.buy(request));
    expect(error).toMatchObject({ kind: 'definitive', details: { status: 422, carrierErrorCode: 'service_unavailable' } });
    expect(error.message).toContain('Acme Express');
  });

  it('a 429 is retryable and carries Retry-After in milliseconds', async () => {
    const request = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'rate_limit', retry_after: 3, match: request.reference });
    expect(await failure(acme.buy(request))).toMatchObject({ kind: 'retryable', details: { status: 429, retryAfterMs: 3000 } });
  });

  it('a time-out is ambiguous for a buy, and the held request bought nothing', async () => {
    const request = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'timeout', match: request.reference });
    const started = Date.now();
    const error = await failure(acme.buy(request));
    expect(error).toMatchObject({ kind: 'ambiguous', details: { carrierCode: 'acme' } });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
    expect(await simPurchases(sim.url, request.reference)).toEqual([]);
  });

  it('a time-out is retryable for a scan read', async () => {
    const { trackingNumber } = await swiftpost.buy(purchaseRequest('swiftpost_standard'));
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'track', mode: 'timeout', match: trackingNumber });
    expect(await failure(swiftpost.scans(trackingNumber))).toMatchObject({ kind: 'retryable' });
  });

  it('a time-out on cancel is ambiguous', async () => {
    const request = purchaseRequest('acme_ground');
    const bought = await acme.buy(request);
    await addFault(sim.url, { carrier: 'acme', operation: 'cancel', mode: 'timeout', match: request.reference });
    expect(await failure(acme.cancel({ reference: request.reference, trackingNumber: bought.trackingNumber, carrierShipmentId: null }))).toMatchObject({ kind: 'ambiguous' });
  });

  it('a lost answer is ambiguous for a buy, though the carrier made the purchase', async () => {
    const request = purchaseRequest('acme_express');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'lost_answer', match: request.reference });
    expect(await failure(acme.buy(request))).toMatchObject({ kind: 'ambiguous', details: { carrierCode: 'acme' } });
    const recorded = await simPurchases(sim.url, request.reference);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ carrier: 'acme', service: 'acme_express', cancelled: false });
  });

  it('a lost answer on a lookup is retryable', async () => {
    const reference = uniqueRef();
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'lookup', mode: 'lost_answer', match: reference });
    expect(await failure(swiftpost.findPurchase(reference))).toMatchObject({ kind: 'retryable' });
  });

  it('a garbage 2xx body is ambiguous for a buy (and nothing was bought), retryable for a read', async () => {
    const request = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'garbage', match: request.reference });
    expect(await failure(acme.buy(request))).toMatchObject({ kind: 'ambiguous', details: { status: 200 } });
    expect(await simPurchases(sim.url, request.reference)).toEqual([]);

    await addFault(sim.url, { carrier: 'acme', operation: 'lookup', mode: 'garbage', match: request.reference });
    expect(await failure(acme.findPurchase(request.reference))).toMatchObject({ kind: 'retryable', details: { status: 200 } });
  });

  it('a slow answer within the deadline succeeds; beyond it, a buy is ambiguous yet made', async () => {
    const quick = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 100, match: quick.reference });
    expect((await acme.buy(quick)).reference).toBe(quick.reference);

    const late = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: TIMEOUT_MS + 600, match: late.reference });
    expect(await failure(acme.buy(late))).toMatchObject({ kind: 'ambiguous' });
    expect(await simPurchases(sim.url, late.reference)).toHaveLength(1);
  });

  it('a refused connection is retryable even for a buy: nothing was sent', async () => {
    const port = await freePort();
    const adapter = CARRIER_MODULES[0].createHttpAdapter({ baseUrl: `http://127.0.0.1:${port}/acme/v2`, timeoutMs: TIMEOUT_MS });
    expect(await failure(adapter.buy(purchaseRequest('acme_ground')))).toMatchObject({ kind: 'retryable', details: { carrierCode: 'acme' } });
  });

  it('an unresolvable host is retryable', async () => {
    const client = createCarrierHttpClient({ carrierCode: 'acme', baseUrl: 'http://carrier.invalid', timeoutMs: 2000 });
    const call = client.call({ operation: 'buy', method: 'POST', path: '/labels', body: {}, decode: () => ({}) });
    expect(await failure(call)).toMatchObject({ kind: 'retryable', details: { carrierCode: 'acme' } });
  });

  it('a 2xx body of the wrong shape is treated like garbage', async () => {
    const client = createCarrierHttpClient({ carrierCode: 'acme', baseUrl: `${sim.url}/acme/v2`, timeoutMs: TIMEOUT_MS });
    const call = client.call({ operation: 'cancel', method: 'GET', path: '/labels', decode: () => undefined });
    expect(await failure(call)).toMatchObject({ kind: 'ambiguous', details: { status: 200 } });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores nonsense', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(['5'])).toBe(5000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

