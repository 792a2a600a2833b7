import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierError, type CarrierAdapter } from '../../carriers/index.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addFault, buyRequestCount, httpAdapter, purchaseRequest, simCall, simPurchases } from './sim-helpers.js';

let sim: CarrierSimulator;
let acme: CarrierAdapter;
let swiftpost: CarrierAdapter;

beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
  acme = httpAdapter(sim.url, 'acme', 500);
  swiftpost = httpAdapter(sim.url, 'swiftpost', 500);
});
afterAll(async () => {
  await sim.close();
});

describe('swiftpost: no idempotency at the carrier, so the adapter looks before it buys', () => {
  it('a buy whose answer was lost finds the purchase it made instead of buying twice', async () => {
    const request = purchaseRequest('swiftpost_standard');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'buy', mode: 'lost_answer', match: request.reference });
    const before = await buyRequestCount(sim.url, 'swiftpost');

    const bought = await swiftpost.buy(request);
    const retried = await swiftpost.buy({ ...request, earlierAttempt: true });
    const recorded = await simPurchases(sim.url, request.reference);
    expect(recorded).toHaveLength(1);
    for (const answer of [bought, retried]) {
      expect(answer).toEqual({
        reference: request.reference,
        serviceCode: 'swiftpost_standard',
        trackingNumber: recorded[0].tracking_number,
        cancelled: false,
        label: null,
        billed: null,
      });
    }
    // The adapter asked, found, and sent no second booking.
    expect(await buyRequestCount(sim.url, 'swiftpost')).toBe(before + 1);
  });

  it('the carrier itself would book twice: two raw bookings with one reference make two consignments', async () => {
    const request = purchaseRequest('swiftpost_standard');
    const body = {
      productCode: 'swiftpost_standard',
      customerReference: request.reference,
      sender: { contactName: 'A', addressLine1: '1 St', town: 'London', postcode: 'E1', countryCode: 'GB' },
      recipient: { contactName: 'B', addressLine1: '2 St', town: 'Leeds', postcode: 'LS1', countryCode: 'GB' },
      item: { weightGrams: 500, lengthMm: 100, widthMm: 100, heightMm: 100 },
    };
    expect((await simCall(sim.url, 'POST', '/swiftpost/api/consignments', body)).status).toBe(201);
    expect((await simCall(sim.url, 'POST', '/swiftpost/api/consignments', body)).status).toBe(201);
    expect(await simPurchases(sim.url, request.reference)).toHaveLength(2);
  });

  it('a failed lookup before the buy is retryable and buys nothing', async () => {
    const request = purchaseRequest('swiftpost_nextday');
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'lookup', mode: 'error', status: 503, match: request.reference });
    const error = await swiftpost.buy(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'retryable', details: { status: 503 } });
    expect(await simPurchases(sim.url, request.reference)).toEqual([]);
  });

  it('a reference already used for another service is refused definitively', async () => {
    const request = purchaseRequest('swiftpost_standard');
    await swiftpost.buy(request);
    const error = await swiftpost.buy({ ...request, serviceCode: 'swiftpost_nextday' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'definitive' });
  });

  it('scans come back oldest first although SwiftPost lists them newest first', async () => {
    const { trackingNumber } = await swiftpost.buy(purchaseRequest('swiftpost_standard'));
    for (const status of ['in_transit', 'exception', 'in_transit', 'delivered']) {
      await simCall(sim.url, 'POST', '/_sim/scans', { tracking_number: trackingNumber, status, location: { city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' } });
    }
    const raw = await simCall(sim.url, 'GET', `/swiftpost/api/consignments/${trackingNumber}/events`);
    expect(raw.body.events[0].eventCode).toBe('DELIVERED');
    const scans = await swiftpost.scans(trackingNumber);
    expect(scans.map((s) => s.status)).toEqual(['in_transit', 'exception', 'in_transit', 'delivered']);
    expect(scans[0].location).toEqual({ city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' });
  });
});

describe('acme: idempotent purchases by Idempotency-Key', () => {
  it('a buy retried after a lost answer returns the same label, bought once', async () => {
    const request = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'lost_answer', match: request.reference });
    const before = await buyRequestCount(sim.url, 'acme');
    const error = await acme.buy(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'ambiguous' });

    const retried = await acme.buy(request);
    const recorded = await simPurchases(sim.url, request.reference);
    expect(recorded).toHaveLength(1);
    expect(retried.trackingNumber).toBe(recorded[0].tracking_number);
    // Unlike SwiftPost, Acme's retry does send a second buy request: the key makes it harmless.
    expect(await buyRequestCount(sim.url, 'acme')).toBe(before + 2);
  });

  it('the same key replays the label; the same key with another request is refused', async () => {
    const request = purchaseRequest('acme_express');
    const body = { service: 'acme_express', reference: request.reference, from: request.from, to: request.to, parcel: request.parcel };
    const first = await fetchLabel(body, request.reference);
    const replay = await fetchLabel({ ...body, parcel: { ...request.parcel } }, request.reference);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(200);
    expect(replay.replayed).toBe('true');
    expect(replay.body.tracking_number).toBe(first.body.tracking_number);

    const other = await fetchLabel({ ...body, service: 'acme_ground' }, request.reference);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(await simPurchases(sim.url, request.reference)).toHaveLength(1);
  });
});

async function fetchLabel(body: unknown, key: string) {
  const res = await fetch(`${sim.url}/acme/v2/labels`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as any };
}
