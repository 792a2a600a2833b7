import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUpsClient, type UpsClientConfig } from '../../../carriers/ups/client.js';
import { CarrierError } from '../../../carriers/types.js';
import { startUpsSimulator } from '../../../tools/carrier-sim/ups/index.js';
import { ACCOUNT, PARCEL, US_FROM, US_TO } from './payloads.js';

const START = Date.parse('2026-07-11T12:00:00Z');
const HOUR = 3_600_000;
let nowMs = START;
let server: Awaited<ReturnType<typeof startUpsSimulator>>;
let sleeps: number[] = [];
let counter = 0;
const shipmentId = () => `shp_01jz8q3v5k9m2n4p6r8s${String(++counter).padStart(6, '0')}`;

function client(overrides: Partial<UpsClientConfig> = {}) {
  return createUpsClient({
    url: server.url,
    clientId: 'sim-client-id',
    clientSecret: 'sim-client-secret',
    accountNumber: ACCOUNT,
    now: () => nowMs,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
}

const buyInput = (reference: string) => ({ reference, serviceCode: 'ups_ground', from: US_FROM, to: US_TO, parcel: PARCEL, labelFormat: 'zpl' as const });

async function rejection(promise: Promise<unknown>): Promise<CarrierError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CarrierError) return error;
    throw error;
  }
  throw new Error('expected a CarrierError');
}

beforeAll(async () => {
  server = await startUpsSimulator({
    accountNumber: ACCOUNT,
    clock: () => nowMs,
  });
});
afterAll(() => server.close());
beforeEach(() => {
  nowMs = START;
  sleeps = [];
  server.sim.faults.length = 0;
  server.sim.log.length = 0;
});

describe('UPS client against the simulator', () => {
  it('quotes every service with one token for many calls', async () => {
    const ups = client();
    const issued = server.sim.tokensIssued();
    const services = await ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    expect(services.map((s) => s.serviceCode)).toEqual(['ups_ground', 'ups_next_day_air', 'ups_2nd_day_air', 'ups_3_day_select']);
    // US_TO has no company: a residential address, its 4.50 surcharge priced in (negotiated at 90 %).
    expect(services[0]).toEqual({ serviceCode: 'ups_ground', carrierServiceCode: '03', net: 1733, currency: 'USD', estimatedDeliveryDays: null });
    const one = await ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'ups_ground' });
    expect(one).toEqual([services[0]]);
    expect(server.sim.tokensIssued() - issued).toBe(1);
  });

  it('renews a token shortly before it expires, without a failed call', async () => {
    const ups = client();
    await ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    const issued = server.sim.tokensIssued();
    nowMs += 14_399_000 - 30_000; // inside the last minute of the token's life
    await ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    expect(server.sim.tokensIssued() - issued).toBe(1);
    expect(server.sim.log.filter((l) => l.status === 401)).toEqual([]);
  });

  it('a token UPS stops accepting costs one refresh and one retry', async () => {
    const ups = client();
    await ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    server.sim.expireTokens();
    const issued = server.sim.tokensIssued();
    await ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    expect(server.sim.tokensIssued() - issued).toBe(1);
    expect(server.sim.log.filter((l) => l.status === 401)).toHaveLength(1);
  });

  it('wrong credentials are a definitive error that does not show the secret', async () => {
    const error = await rejection(client({ clientSecret: 'not-the-secret-xyz' }).rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' }));
    expect(error.kind).toBe('definitive');
    expect(error.details.status).toBe(401);
    expect(error.message).toMatch(/refused the client credentials/);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('not-the-secret-xyz');
  });

  it('backs off on 429 on its own schedule (exponential, jittered, capped) and then succeeds', async () => {
    server.sim.faults.push({ operation: 'rate', kind: 'error', status: 429, code: '10429', message: 'Too Many Requests', times: 2 });
    const services = await client().rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    expect(services.length).toBeGreaterThan(0);
    expect(sleeps).toEqual([250, 500]);
  });

  it('gives up after its attempts with a retryable error', async () => {
    server.sim.faults.push({ operation: 'rate', kind: 'error', status: 429, code: '10429', message: 'Too Many Requests', times: 10 });
    const error = await rejection(client({ backoff: { attempts: 3, baseMs: 1000, maxMs: 1500 } }).rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' }));
    expect(error.kind).toBe('retryable');
    expect(error.details.carrierErrorCode).toBe('10429');
    expect(sleeps).toEqual([500, 750, 750]);
  });

  it('buys a ZPL label, billed at the account price, and recovers it as a GIF', async () => {
    const ups = client();
    const reference = shipmentId();
    const bought = await ups.buy(buyInput(reference));
    expect(bought.trackingNumber).toMatch(/^1ZA1B2C303\d{8}$/);
    expect(bought.carrierShipmentId).toBe(bought.trackingNumber);
    expect(bought.billed).toEqual({ amount: 1733, currency: 'USD' });
    expect(Buffer.from(bought.label.contentBase64, 'base64').toString()).toMatch(/^\^XA[\s\S]*\^XZ$/);
    const gif = await ups.recoverLabel({ trackingNumber: bought.trackingNumber, reference, labelFormat: 'gif' });
    expect(gif.format).toBe('gif');
    expect(Buffer.from(gif.contentBase64, 'base64').subarray(0, 6).toString()).toBe('GIF89a');
  });

  it('settles a lost answer by reference: the purchase found is the purchase, nothing bought twice', async () => {
    const ups = client();
    const reference = shipmentId();
    server.sim.faults.push({ operation: 'ship', kind: 'lose_answer' });
    const lost = await rejection(ups.buy(buyInput(reference)));
    expect(lost.kind).toBe('ambiguous');
    const before = server.sim.packages.size;
    const settled = await ups.buy({ ...buyInput(reference), earlierAttempt: true });
    expect(server.sim.packages.size).toBe(before);
    const original = [...server.sim.packages.values()].find((p) => p.references.includes(reference));
    expect(settled.trackingNumber).toBe(original?.trackingNumber);
    expect(settled.label.format).toBe('zpl');
    expect(settled.billed).toBeNull();

    // Not found by reference: buying again is safe, and happens.
    const fresh = shipmentId();
    const bought = await ups.buy({ ...buyInput(fresh), earlierAttempt: true });
    expect(server.sim.packages.size).toBe(before + 1);
    expect(bought.billed).not.toBeNull();
  });

  it('a time-out is retryable on a quote and ambiguous on a purchase', async () => {
    const ups = client({ timeoutMs: 300 });
    server.sim.faults.push({ operation: 'rate', kind: 'timeout', holdMs: 2_000 });
    expect((await rejection(ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' }))).kind).toBe('retryable');
    server.sim.faults.push({ operation: 'ship', kind: 'timeout', holdMs: 2_000 });
    expect((await rejection(ups.buy(buyInput(shipmentId())))).kind).toBe('ambiguous');
  });

  it('waits for a slow but live ship call beyond the other calls\' deadline: UPS can take 10 s to ship', async () => {
    const ups = client({ timeoutMs: 300 });
    server.sim.faults.push({ operation: 'rate', kind: 'slow', delayMs: 1_000 });
    expect((await rejection(ups.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' }))).kind).toBe('retryable');
    // Well past the client's deadline, within the ship call's own (UPS_SHIP_TIMEOUT_MS): a label, not a time-out.
    server.sim.faults.push({ operation: 'ship', kind: 'slow', delayMs: 1_000 });
    const bought = await ups.buy(buyInput(shipmentId()));
    expect(bought.trackingNumber).toMatch(/^1Z/);
  });

  it('voids before pickup; refuses a void after a scan as already_scanned', async () => {
    const ups = client();
    const early = await ups.buy(buyInput(shipmentId()));
    expect(await ups.cancel(early.carrierShipmentId)).toEqual({ kind: 'cancelled' });
    expect(await ups.cancel(early.carrierShipmentId)).toEqual({ kind: 'cancelled' }); // "Voided or Already Voided"
    expect((await ups.track(early.trackingNumber)).map((s) => s.status)).toEqual(['label_created', 'cancelled']);

    const late = await ups.buy(buyInput(shipmentId()));
    nowMs += 2 * HOUR;
    const refused = await ups.cancel(late.carrierShipmentId);
    expect(refused).toMatchObject({ kind: 'refused', reason: 'already_scanned' });
    expect(await ups.cancel('1ZA1B2C30399999999')).toMatchObject({ kind: 'refused', reason: 'not_cancellable' });
  });

  it('tracks a package through transit, an exception and delivery as time passes', async () => {
    const ups = client();
    const bought = await ups.buy(buyInput(shipmentId()));
    nowMs += 7 * HOUR;
    expect((await ups.track(bought.trackingNumber)).map((s) => s.carrierCode)).toEqual(['M', 'P', 'I']);
    nowMs += 24 * HOUR;
    const scans = await ups.track(bought.trackingNumber);
    expect(scans.map((s) => [s.carrierCode, s.status])).toEqual([
      ['M', 'label_created'],
      ['P', 'in_transit'],
      ['I', 'in_transit'],
      ['X', 'exception'],
      ['O', 'out_for_delivery'],
      ['D', 'delivered'],
    ]);
    expect(scans[5].occurredAt).toBe(new Date(START + 30 * HOUR).toISOString().replace('.000Z', 'Z'));
    const unknown = await rejection(ups.track('1ZA1B2C30399999999'));
    expect(unknown).toMatchObject({ kind: 'definitive' });
    expect(unknown.details).toMatchObject({ reason: 'not_found', carrierErrorCode: 'TW0001' });
  });

  it('the simulator refuses a request that breaks the document schema (UPS example shapes)', async () => {
    const tokenAnswer = await fetch(`${server.url}/security/v1/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('sim-client-id:sim-client-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token } = (await tokenAnswer.json()) as { access_token: string };
    const violationsBefore = server.sim.violations.length;
    const answer = await fetch(`${server.url}/api/rating/v2409/Shop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ RateRequest: { Request: {}, Shipment: { Shipper: { Address: { AddressLine: '1 Main St', CountryCode: 'US' } }, ShipTo: { Address: { AddressLine: ['x'], CountryCode: 'US' } }, Package: { PackagingType: { Code: '02' } } } } }),
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as any).response.errors[0].code).toBe('9370701');
    expect(server.sim.violations.length).toBeGreaterThan(violationsBefore);
    server.sim.violations.splice(violationsBefore);
  });

  it('every request the client sent and every answer the simulator gave matched the schemas', () => {
    expect(server.sim.violations).toEqual([]);
  });
});
