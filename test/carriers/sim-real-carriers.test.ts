import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierError } from '../../carriers/types.js';
import { createUpsClient } from '../../carriers/ups/client.js';
import { createUspsClient, type UspsClientConfig } from '../../carriers/usps/client.js';
import { upsClientConfig } from '../../carriers/ups/index.js';
import { SIMULATOR_CREDENTIALS, SIMULATOR_SETTINGS, startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addFault, addSimScan, simCall, simPurchases } from './sim-helpers.js';
import { PARCEL, US_FROM, US_TO } from './ups/payloads.js';
import { FROM_US, PARCEL_US, TO_US } from './usps/payloads.js';

// The real carriers' clients against the SHARED simulator, under `<sim>/ups` and `<sim>/usps`, with
// faults through its control API, as `npm start`, the test stack and the chaos run use them.

let sim: CarrierSimulator;
let counter = 0;
/** Shipment ids are 30 characters, as ours are; unique per run so references never collide. */
const shipmentId = () => `shp_${Date.now().toString(36).padStart(10, '0')}${String(++counter).padStart(16, '0')}`.slice(0, 30);

beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

async function carrierError(promise: Promise<unknown>): Promise<CarrierError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CarrierError);
  return error as CarrierError;
}

/** A label image drawn as a 4 × 6 in label: about 800 × 1200 px. */
async function expectFourBySix(base64: string, format: 'gif' | 'png') {
  const meta = await sharp(Buffer.from(base64, 'base64')).metadata();
  expect(meta.format).toBe(format);
  expect(meta.width).toBeGreaterThanOrEqual(750);
  expect((meta.height ?? 0) / (meta.width ?? 1)).toBeCloseTo(1.5, 1);
}

describe('UPS in the shared simulator', () => {
  const sleeps: number[] = [];
  const ups = () =>
    createUpsClient({
      ...upsClientConfig({ baseUrl: sim.carrierUrls.ups, credentials: SIMULATOR_SETTINGS.ups }),
      timeoutMs: 2_000,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
  const buyInput = (reference: string, labelFormat: 'gif' | 'zpl') => ({ reference, serviceCode: 'ups_ground', from: US_FROM, to: US_TO, parcel: PARCEL, labelFormat });

  it('answers at <sim>/ups as at UPS\'s origin: quotes, a 4 × 6 GIF label, ZPL on request, recorded for the control API', async () => {
    expect(sim.carrierUrls.ups).toBe(`${sim.url}/ups`);
    const client = ups();
    const rates = await client.rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'all' });
    expect(rates.map((r) => r.serviceCode)).toContain('ups_ground');

    const reference = shipmentId();
    const bought = await client.buy(buyInput(reference, 'gif'));
    expect(bought.trackingNumber).toMatch(/^1ZA1B2C303\d{8}$/);
    expect(bought.label.format).toBe('gif');
    await expectFourBySix(bought.label.contentBase64, 'gif');
    // Drawn once per tracking number: a recovery answers the same file.
    const recovered = await client.recoverLabel({ trackingNumber: bought.trackingNumber, reference, labelFormat: 'gif' });
    expect(recovered.contentBase64).toBe(bought.label.contentBase64);
    expect(await simPurchases(sim.url, reference)).toEqual([
      expect.objectContaining({ carrier: 'ups', reference, tracking_number: bought.trackingNumber, service: 'ups_ground', cancelled: false }),
    ]);

    const zpl = await client.buy(buyInput(shipmentId(), 'zpl'));
    const text = Buffer.from(zpl.label.contentBase64, 'base64').toString('utf8');
    expect(text).toMatch(/^\^XA[\s\S]*\^XZ$/);
    expect(text).toContain(zpl.trackingNumber);
    expect(text).toContain('HAPPY DOG PET SUPPLY');
  });

  it('settles a purchase whose answer the control API lost, by reference, without buying twice', async () => {
    const client = ups();
    const reference = shipmentId();
    await addFault(sim.url, { carrier: 'ups', operation: 'buy', mode: 'lost_answer', match: reference });
    expect((await carrierError(client.buy(buyInput(reference, 'zpl')))).kind).toBe('ambiguous');
    const [bought] = await simPurchases(sim.url, reference);
    expect(bought).toMatchObject({ carrier: 'ups', cancelled: false });
    const settled = await client.buy({ ...buyInput(reference, 'zpl'), earlierAttempt: true });
    expect(settled.trackingNumber).toBe(bought.tracking_number);
    expect(await simPurchases(sim.url, reference)).toHaveLength(1);
  });

  it('answers an injected 429 without Retry-After, as UPS does; the client backs off and succeeds', async () => {
    await addFault(sim.url, { carrier: 'ups', operation: 'quote', mode: 'rate_limit' });
    const raw = await fetch(`${sim.carrierUrls.ups}/api/rating/v2409/Shop`, { method: 'POST', body: '{}' });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBeNull();
    expect(await raw.json()).toEqual({ response: { errors: [{ code: 'rate_limited', message: 'Too many requests.' }] } });

    await addFault(sim.url, { carrier: 'ups', operation: 'quote', mode: 'rate_limit' });
    sleeps.length = 0;
    expect(await ups().rate({ from: US_FROM, to: US_TO, parcel: PARCEL, service: 'ups_ground' })).toHaveLength(1);
    expect(sleeps).toHaveLength(1);
  });

  it('tracks scans added through the control API, and refuses a void once scanned', async () => {
    const client = ups();
    const bought = await client.buy(buyInput(shipmentId(), 'zpl'));
    expect((await client.track(bought.trackingNumber)).map((s) => s.status)).toEqual(['label_created']);
    await addSimScan(sim.url, bought.trackingNumber, 'in_transit');
    await addSimScan(sim.url, bought.trackingNumber, 'delivered');
    expect((await client.track(bought.trackingNumber)).map((s) => s.status)).toEqual(['label_created', 'in_transit', 'delivered']);
    expect(await client.cancel(bought.trackingNumber)).toMatchObject({ kind: 'refused', reason: 'already_scanned' });

    const voidable = await client.buy(buyInput(shipmentId(), 'zpl'));
    expect(await client.cancel(voidable.trackingNumber)).toEqual({ kind: 'cancelled' });
    const listed = (await simCall(sim.url, 'GET', '/_sim/purchases?carrier=ups')).body.data as Array<{ tracking_number: string; cancelled: boolean }>;
    expect(listed.find((p) => p.tracking_number === voidable.trackingNumber)?.cancelled).toBe(true);
  });
});

describe('USPS in the shared simulator', () => {
  const usps = (overrides: Partial<UspsClientConfig> = {}) => createUspsClient({ url: sim.carrierUrls.usps, ...uspsCredentials, timeoutMs: 2_000, ...overrides });
  const { clientId, clientSecret, crid, mid, manifestMid, accountNumber } = SIMULATOR_CREDENTIALS.usps;
  const uspsCredentials = { clientId, clientSecret, crid, mid, manifestMid, accountNumber };
  const purchase = (id = shipmentId()) => ({ shipmentId: id, serviceCode: 'usps_priority_mail', from: FROM_US, to: TO_US, parcel: PARCEL_US });

  it('answers at <sim>/usps as at USPS\'s origin: prices, a 4 × 6 PDF label, PNG and ZPL per imageType', async () => {
    expect(sim.carrierUrls.usps).toBe(`${sim.url}/usps`);
    const client = usps();
    const rates = await client.rate(FROM_US, TO_US, PARCEL_US, 'all');
    expect(rates.map((r) => r.serviceCode)).toEqual(['usps_ground_advantage', 'usps_priority_mail', 'usps_priority_mail_express']);

    const id = shipmentId();
    const pdf = await client.buy(purchase(id));
    expect(pdf.billed).toEqual({ amount: rates[1].net, currency: 'USD' });
    const doc = await PDFDocument.load(Buffer.from(pdf.label.contentBase64, 'base64'));
    expect(doc.getPages().map((p) => p.getSize())).toEqual([{ width: 288, height: 432 }]);
    expect(await simPurchases(sim.url, id)).toEqual([expect.objectContaining({ carrier: 'usps', tracking_number: pdf.trackingNumber, service: 'usps_priority_mail' })]);

    const png = await usps({ labelFormat: 'png' }).buy(purchase());
    await expectFourBySix(png.label.contentBase64, 'png');
    const zpl = await usps({ labelFormat: 'zpl' }).buy(purchase());
    expect(Buffer.from(zpl.label.contentBase64, 'base64').toString('utf8')).toMatch(/^\^XA[\s\S]*\^XZ$/);
  });

  it('settles a purchase whose answer the control API lost by sending it again under the same idempotency key', async () => {
    const client = usps();
    const id = shipmentId();
    await addFault(sim.url, { carrier: 'usps', operation: 'buy', mode: 'lost_answer', match: id });
    expect((await carrierError(client.buy(purchase(id)))).kind).toBe('ambiguous');
    const [bought] = await simPurchases(sim.url, id);
    expect((await client.buy(purchase(id))).trackingNumber).toBe(bought.tracking_number);
    expect(await simPurchases(sim.url, id)).toHaveLength(1);
  });

  it('answers an injected 429 with Retry-After, as USPS documents; the client waits it out once', async () => {
    const waits: number[] = [];
    const client = usps({ sleep: async (ms) => void waits.push(ms) });
    await addFault(sim.url, { carrier: 'usps', operation: 'quote', mode: 'rate_limit', retry_after: 1 });
    expect(await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail')).toHaveLength(1);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(1_000);
  });

  it('times out, answers slowly and fails as the control API says', async () => {
    const client = usps({ timeoutMs: 300 });
    const label = await client.buy(purchase());
    await addFault(sim.url, { carrier: 'usps', operation: 'track', mode: 'timeout', match: label.trackingNumber });
    expect((await carrierError(client.track(label.trackingNumber))).kind).toBe('retryable');
    await addFault(sim.url, { carrier: 'usps', operation: 'track', mode: 'slow', delay_ms: 150, match: label.trackingNumber });
    const started = Date.now();
    expect((await client.track(label.trackingNumber)).map((s) => s.carrierCode)).toEqual(['GX']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await addFault(sim.url, { carrier: 'usps', operation: 'cancel', mode: 'error', status: 503, match: label.trackingNumber });
    const failed = await carrierError(client.cancel(label.trackingNumber));
    expect(failed.details.status).toBe(503);
    // A scan through the control API: USPS has the item, so no refund.
    await addSimScan(sim.url, label.trackingNumber, 'in_transit');
    expect(await client.cancel(label.trackingNumber)).toMatchObject({ kind: 'refused', reason: 'already_scanned' });
  });
});
