import { request as rawRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeDefinition, ALL_CARRIER_MODULES, swiftpostDefinition, type CarrierAdapter } from '../../carriers/index.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addFault, FROM, httpAdapter, PARCEL, purchaseRequest, simCall, simPurchases, TO, TO_FRANCE, uniqueRef } from './sim-helpers.js';

let sim: CarrierSimulator;
let acme: CarrierAdapter;

beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
  acme = httpAdapter(sim.url, 'acme', 500);
});
afterAll(async () => {
  await sim.close();
});

describe('simulator faults', () => {
  it('apply only to requests whose path or body contains their match', async () => {
    const hit = purchaseRequest('acme_ground');
    const miss = purchaseRequest('acme_ground');
    await addFault(sim.url, { carrier: 'acme', operation: 'buy', mode: 'error', match: hit.reference });
    await expect(acme.buy(miss)).resolves.toMatchObject({ reference: miss.reference });
    await expect(acme.buy(hit)).rejects.toMatchObject({ kind: 'retryable' });
    // Used up (times defaults to 1): the next attempt goes through.
    await expect(acme.buy(hit)).resolves.toMatchObject({ reference: hit.reference });
  });

  it('match also finds a tracking number in the path', async () => {
    const { trackingNumber } = await acme.buy(purchaseRequest('acme_ground'));
    const other = await acme.buy(purchaseRequest('acme_ground'));
    await addFault(sim.url, { carrier: 'acme', operation: 'track', mode: 'error', status: 502, match: trackingNumber });
    await expect(acme.scans(other.trackingNumber)).resolves.toEqual([]);
    await expect(acme.scans(trackingNumber)).rejects.toMatchObject({ details: { status: 502 } });
  });

  it('count down `times`, and -1 lasts until cleared by match', async () => {
    const twice = uniqueRef();
    const forever = uniqueRef();
    await addFault(sim.url, { carrier: 'acme', operation: 'lookup', mode: 'error', times: 2, match: twice });
    await addFault(sim.url, { carrier: 'acme', operation: 'lookup', mode: 'error', times: -1, match: forever });
    await expect(acme.findPurchase(twice)).rejects.toMatchObject({ kind: 'retryable' });
    await expect(acme.findPurchase(twice)).rejects.toMatchObject({ kind: 'retryable' });
    await expect(acme.findPurchase(twice)).resolves.toBeNull();
    for (let i = 0; i < 3; i++) await expect(acme.findPurchase(forever)).rejects.toMatchObject({ kind: 'retryable' });

    const cleared = await simCall(sim.url, 'DELETE', `/_sim/faults?match=${encodeURIComponent(forever)}`);
    expect(cleared).toEqual({ status: 200, body: { deleted: 1 } });
    await expect(acme.findPurchase(forever)).resolves.toBeNull();
  });

  it('DELETE without match clears every fault', async () => {
    await addFault(sim.url, { carrier: 'swiftpost', operation: 'quote', mode: 'error', times: -1 });
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'decline', times: -1 });
    expect((await simCall(sim.url, 'GET', '/_sim/faults')).body.data.length).toBeGreaterThanOrEqual(2);
    expect((await simCall(sim.url, 'DELETE', '/_sim/faults')).status).toBe(200);
    expect((await simCall(sim.url, 'GET', '/_sim/faults')).body.data).toEqual([]);
  });

  it('answer 201 with the fault, defaults filled in', async () => {
    const res = await simCall(sim.url, 'POST', '/_sim/faults', { carrier: 'acme', operation: 'buy', mode: 'error', match: 'only-this' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ carrier: 'acme', operation: 'buy', mode: 'error', status: 500, times: 1, match: 'only-this' });
    await simCall(sim.url, 'DELETE', '/_sim/faults?match=only-this');
  });

  it('refuse malformed faults with a 400 and a JSON error', async () => {
    for (const bad of [
      { carrier: 'nobody', operation: 'buy', mode: 'error' },
      { carrier: 'acme', operation: 'authorize', mode: 'error' },
      { carrier: 'acme', operation: 'buy', mode: 'explode' },
      { carrier: 'acme', operation: 'buy', mode: 'error', times: 0 },
      { carrier: 'acme', operation: 'buy', mode: 'error', status: 200 },
      { carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 'soon' },
      { carrier: 'acme', operation: 'buy', mode: 'error', match: '' },
      { carrier: 'acme', operation: 'buy', mode: 'error', chance: 0 },
      { carrier: 'acme', operation: 'buy', mode: 'error', chance: 1.5 },
      [1, 2, 3],
    ]) {
      const res = await simCall(sim.url, 'POST', '/_sim/faults', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toMatch(/^invalid_(fault|request)$/);
    }
    expect((await simCall(sim.url, 'GET', '/_sim/faults')).body.data).toEqual([]);
  });

  it('a fault with a chance applies to some matching requests, not all (the chaos benchmark\'s carrier faults)', async () => {
    const marker = `chance-${Date.now()}`;
    await addFault(sim.url, { carrier: 'acme', operation: 'lookup', mode: 'error', status: 503, times: -1, chance: 0.5, match: marker });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await simCall(sim.url, 'GET', `/acme/v2/labels?reference=${marker}`)).status);
    await simCall(sim.url, 'DELETE', `/_sim/faults?match=${marker}`);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 503).length).toBeGreaterThan(0);
  });

  it('a held (timeout) request does not keep the simulator from closing', async () => {
    const own = await startCarrierSimulator({ port: 0 });
    await addFault(own.url, { carrier: 'acme', operation: 'lookup', mode: 'timeout' });
    const held = fetch(`${own.url}/acme/v2/labels?reference=x`).catch((e: unknown) => e);
    // The request has arrived and is held once it has taken the (one-time) fault.
    await expect.poll(async () => (await simCall(own.url, 'GET', '/_sim/faults')).body.data, { timeout: 10_000, interval: 20 }).toEqual([]);
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await held).toBeInstanceOf(Error);
  });
});

describe('simulator control API and robustness', () => {
  it("makes the tracking bench's parcels new, or spread over their week with their scans so far, and reports only scans whose time has come", async () => {
    const now = Date.now();
    const fresh = await simCall(sim.url, 'POST', '/_sim/parcels', { carrier: 'acme', count: 3, scale: 1000, start_ms: now });
    expect(fresh.status).toBe(201);
    expect(fresh.body.tracking_numbers).toHaveLength(3);
    expect(fresh.body.parcels).toBeUndefined();
    for (const n of fresh.body.tracking_numbers) expect(await acme.scans(n)).toEqual([]);

    const spread = await simCall(sim.url, 'POST', '/_sim/parcels', { carrier: 'acme', count: 200, scale: 100, start_ms: now, spread: true, seed: 7 });
    expect(spread.status).toBe(201);
    const parcels = spread.body.parcels as Array<{ tracking_number: string; created_at: string; scans: Array<{ id: string; status: string; occurred_at: string }> }>;
    expect(parcels.map((p) => p.tracking_number)).toEqual(spread.body.tracking_numbers);
    // Somewhere in their week: made before now (up to a week of parcel time, 101 min at this scale), none delivered yet.
    for (const p of parcels) {
      expect(Date.parse(p.created_at)).toBeLessThanOrEqual(now);
      expect(Date.parse(p.created_at)).toBeGreaterThan(now - (7 * 86_400_000) / 100);
      expect(p.scans.every((s) => Date.parse(s.occurred_at) <= now && s.status !== 'delivered')).toBe(true);
    }
    const byScans = new Set(parcels.map((p) => p.scans.length));
    expect(byScans.has(0)).toBe(true);
    expect([...byScans].some((n) => n >= 3)).toBe(true);
    expect(parcels.some((p) => p.scans.at(-1)?.status === 'out_for_delivery')).toBe(true);
    // The carrier reports what the answer says happened so far (the next scan is over a minute away at this scale).
    const moved = parcels.find((p) => p.scans.length >= 2)!;
    const reported = await acme.scans(moved.tracking_number);
    expect(reported.map((s) => s.id)).toEqual(moved.scans.map((s) => s.id));

    const bad = await simCall(sim.url, 'POST', '/_sim/parcels', { carrier: 'acme', count: 1, spread: 'yes' });
    expect(bad).toMatchObject({ status: 400, body: { error: { message: 'spread must be a boolean.' } } });
  });

  it('lists carriers', async () => {
    // Every registered carrier that names a simulator path is simulated, the real ones included.
    const simulated = ALL_CARRIER_MODULES.filter((m) => m.simulatorPath).map((m) => m.definition.code);
    expect(simulated).toEqual(expect.arrayContaining(['acme', 'swiftpost', 'ups', 'usps', 'fedex', 'dhl_express']));
    const listed = await simCall(sim.url, 'GET', '/_sim/carriers');
    expect(listed.status).toBe(200);
    expect([...(listed.body as { data: string[] }).data].sort()).toEqual([...simulated].sort());
  });

  it('lists purchases by reference, and counts buy requests with their times', async () => {
    const request = purchaseRequest('acme_express');
    const before = (await simCall(sim.url, 'GET', '/_sim/stats')).body;
    const purchase = await acme.buy(request);
    expect(await simPurchases(sim.url, request.reference)).toEqual([
      expect.objectContaining({ carrier: 'acme', reference: request.reference, tracking_number: purchase.trackingNumber, service: 'acme_express', cancelled: false }),
    ]);
    const after = (await simCall(sim.url, 'GET', '/_sim/stats')).body;
    expect(after.buy_requests.acme).toBe(before.buy_requests.acme + 1);
    expect(after.buy_requests.swiftpost).toBe(before.buy_requests.swiftpost);
    expect(after.buy_timestamps.acme).toHaveLength(after.buy_requests.acme);
    expect(after.buy_timestamps.acme.at(-1)).toBeGreaterThan(Date.now() - 10_000);
  });

  it('records scans with stable ids and times, and refuses unknown tracking numbers or statuses', async () => {
    const { trackingNumber } = await acme.buy(purchaseRequest('acme_ground'));
    const res = await simCall(sim.url, 'POST', '/_sim/scans', { tracking_number: trackingNumber, status: 'in_transit', description: 'Collected' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tracking_number: trackingNumber, status: 'in_transit', description: 'Collected', location: null, carrier: 'acme' });
    const scans = await acme.scans(trackingNumber);
    expect(scans).toEqual([{ id: res.body.id, occurredAt: res.body.occurred_at, status: 'in_transit', carrierCode: null, description: 'Collected', location: null }]);

    expect((await simCall(sim.url, 'POST', '/_sim/scans', { tracking_number: 'ACM000000000000', status: 'delivered' })).status).toBe(404);
    expect((await simCall(sim.url, 'POST', '/_sim/scans', { tracking_number: trackingNumber, status: 'lost' })).status).toBe(400);
  });

  it('the quote endpoints answer the rate cards', async () => {
    const acmeQuote = await simCall(sim.url, 'POST', '/acme/v2/quotes', { from: FROM, to: TO_FRANCE, parcel: PARCEL });
    expect(acmeQuote.status).toBe(200);
    expect(acmeQuote.body.data).toEqual(
      acmeDefinition.services.map((s) => ({
        service: s.code,
        amount: s.rate(PARCEL, FROM, TO_FRANCE),
        currency: 'GBP',
        estimated_days: s.estimatedDeliveryDays,
      })).sort((a, b) => a.amount! - b.amount!),
    );

    const sp = (a: typeof FROM) => ({ contactName: a.name, addressLine1: a.line1, town: a.city, postcode: a.postcode, countryCode: a.country });
    const item = { weightGrams: PARCEL.weight_g, lengthMm: PARCEL.length_mm, widthMm: PARCEL.width_mm, heightMm: PARCEL.height_mm };
    const domestic = await simCall(sim.url, 'POST', '/swiftpost/api/rates', { sender: sp(FROM), recipient: sp(TO), item });
    expect(domestic.body.rates.map((r: any) => [r.productCode, r.priceMinor])).toEqual(
      swiftpostDefinition.services.map((s) => [s.code, s.rate(PARCEL, FROM, TO)]),
    );
    const abroad = await simCall(sim.url, 'POST', '/swiftpost/api/rates', { sender: sp(FROM), recipient: sp(TO_FRANCE), item });
    // SwiftPost ships domestic only (it takes no customs).
    expect(abroad.body.rates.map((r: any) => r.productCode)).toEqual([]);
  });

  it('answers bad input with a 400 JSON error and keeps running', async () => {
    expect((await simCall(sim.url, 'POST', '/acme/v2/labels', '{not json')).status).toBe(400);
    expect((await simCall(sim.url, 'POST', '/acme/v2/labels', '[]')).status).toBe(400);
    const missing = await simCall(sim.url, 'POST', '/acme/v2/labels', { service: 'acme_ground' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/from/);
    const sp = await simCall(sim.url, 'POST', '/swiftpost/api/consignments', { productCode: 7 });
    expect(sp.status).toBe(400);
    expect(sp.body.errors[0].errorCode).toBe('INVALID_REQUEST');
    expect((await simCall(sim.url, 'POST', '/_sim/scans', 'null')).status).toBe(400);
    expect((await simCall(sim.url, 'GET', '/acme/v2/tracking/%E0%A4%A')).status).toBe(400);
    expect((await simCall(sim.url, 'GET', '/nowhere')).status).toBe(404);
    expect((await simCall(sim.url, 'DELETE', '/acme/v2/labels')).status).toBe(405);
    expect((await simCall(sim.url, 'POST', '/_sim/faults', 'x'.repeat(1024 * 1024 + 10))).status).toBe(413);
    expect((await simCall(sim.url, 'GET', '/_sim/carriers')).status).toBe(200);
  });

  it('survives a client that hangs up mid-body', async () => {
    await new Promise<void>((resolve) => {
      const req = rawRequest(`${sim.url}/acme/v2/labels`, { method: 'POST', headers: { 'content-length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"service":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    expect((await simCall(sim.url, 'GET', '/_sim/carriers')).status).toBe(200);
  });
});
