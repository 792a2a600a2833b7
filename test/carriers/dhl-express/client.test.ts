import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDhlExpressAdapter } from '../../../carriers/dhl-express/index.js';
import { CarrierError, type CarrierAdapter } from '../../../carriers/index.js';
import { startDhlSimulator } from '../../../tools/carrier-sim/dhl-express/index.js';
import type { SimDhlExtraCheckpoint } from '../../../tools/carrier-sim/dhl-express/state.js';
import { compileDhlValidators, DHL_DOCUMENT_VALIDATION } from '../../../tools/carrier-sim/dhl-express/validation.js';
import { CUSTOMS, DE_TO, GB_FROM, PARCEL } from './payloads.js';

/**
 * The DHL Express adapter over HTTP against the DHL simulator on a port of its own: what it sends
 * (Basic auth, a Message-Reference per request), what it makes of DHL's answers, its void without a
 * cancel operation, and how it classifies DHL's failures.
 */

const CREDENTIALS = { API_KEY: 'test-key', API_SECRET: 'test-secret', ACCOUNT_NUMBER: '987654321' };
const checkpoints = new Map<string, SimDhlExtraCheckpoint[]>();
let dhl: Awaited<ReturnType<typeof startDhlSimulator>>;
let adapter: CarrierAdapter;
let serial = 0;
const reference = () => `shp_test_${Date.now().toString(36)}_${++serial}`;

beforeAll(async () => {
  compileDhlValidators();
  dhl = await startDhlSimulator({
    apiKey: CREDENTIALS.API_KEY,
    apiSecret: CREDENTIALS.API_SECRET,
    accountNumber: CREDENTIALS.ACCOUNT_NUMBER,
    extraCheckpoints: (trackingNumber) => checkpoints.get(trackingNumber) ?? [],
    validate: DHL_DOCUMENT_VALIDATION,
  });
  // A deadline for a loaded machine (two test files render labels at once); the time-out check has its own.
  adapter = createDhlExpressAdapter({ baseUrl: dhl.url, timeoutMs: 5_000, credentials: CREDENTIALS });
});
afterAll(async () => {
  await dhl?.close();
});

const purchase = (ref = reference()) => ({ reference: ref, serviceCode: 'dhl_express_worldwide', from: GB_FROM, to: DE_TO, parcel: PARCEL, customs: CUSTOMS, at: new Date().toISOString() });

function scan(trackingNumber: string, typeCode: string, description: string) {
  checkpoints.set(trackingNumber, [...(checkpoints.get(trackingNumber) ?? []), { at: Date.now() - 1_000, typeCode, description, area: 'BERLIN-DE' }]);
}

describe('DHL Express over HTTP against its simulator', () => {
  it('quotes GB to DE as dutiable products, each request with its own Message-Reference of 36 characters', async () => {
    const before = dhl.sim.log.length;
    const rates = await adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL });
    expect(rates.map((r) => r.serviceCode).sort()).toEqual(['dhl_express_12', 'dhl_express_9', 'dhl_express_economy_select', 'dhl_express_worldwide']);
    for (const rate of rates) expect(rate).toMatchObject({ currency: 'GBP', net: expect.any(Number) });
    const one = await adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL, serviceCode: 'dhl_express_worldwide' });
    expect(one.map((r) => r.serviceCode)).toEqual(['dhl_express_worldwide']);
    const calls = dhl.sim.log.slice(before);
    expect(calls.map((c) => [c.operation, c.status])).toEqual([['rate', 200], ['rate', 200]]);
    expect(calls.every((c) => c.messageReference?.length === 36)).toBe(true);
    expect(new Set(calls.map((c) => c.messageReference)).size).toBe(2);
    expect(dhl.sim.violations).toEqual([]);
  });

  it('buys GB to DE with its label PDF, its commercial invoice and what DHL bills; a retried step gets the same label', async () => {
    const request = purchase();
    const bought = await adapter.buy(request);
    expect(bought).toMatchObject({ reference: request.reference, serviceCode: 'dhl_express_worldwide', cancelled: false, label: { format: 'pdf' }, billed: { currency: 'GBP' } });
    expect(bought.trackingNumber).toMatch(/^\d{10}$/);
    expect(Number(bought.trackingNumber.slice(0, 9)) % 7).toBe(Number(bought.trackingNumber[9]));
    expect(Buffer.from(bought.label!.contentBase64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    expect(bought.documents).toEqual([{ type: 'commercial_invoice', format: 'pdf', contentBase64: expect.stringMatching(/^JVBER/) }]);
    expect(dhl.sim.shipments.get(bought.trackingNumber)?.productCode).toBe('P');
    const again = await adapter.buy({ ...request, earlierAttempt: true });
    expect(again.trackingNumber).toBe(bought.trackingNumber);
    expect([...dhl.sim.shipments.values()].filter((s) => s.references.includes(request.reference))).toHaveLength(1);
  });

  it('makes the ZPL of a bought label: the PDF drawn at 203 dpi on a 4 x 6 label', async () => {
    const request = purchase();
    const bought = await adapter.buy(request);
    const zpl = await adapter.recoverLabel!({ reference: request.reference, trackingNumber: bought.trackingNumber, carrierShipmentId: null }, 'zpl');
    expect(zpl.format).toBe('zpl');
    const text = Buffer.from(zpl.contentBase64, 'base64').toString('latin1');
    expect(text).toMatch(/^\^XA\^PW812\^LL1218\^FO0,0\^GFA,124236,124236,102,/);
    expect(text.trimEnd().endsWith('^FS^XZ')).toBe(true);
    // Dots were drawn: the label is not blank paper.
    expect(text.replace(/[,:]/g, '').length).toBeGreaterThan(2_000);
    // Another process's label cannot be made again: DHL has no operation for it.
    const other = createDhlExpressAdapter({ baseUrl: dhl.url, credentials: CREDENTIALS });
    await expect(other.recoverLabel!({ reference: request.reference, trackingNumber: bought.trackingNumber, carrierShipmentId: null }, 'zpl')).rejects.toMatchObject({ kind: 'definitive' });
  });

  it('tracks: no scans until DHL scans, then its checkpoints mapped, DHL code kept', async () => {
    const bought = await adapter.buy(purchase());
    expect(await adapter.scans(bought.trackingNumber)).toEqual([]);
    scan(bought.trackingNumber, 'PU', 'Shipment picked up');
    scan(bought.trackingNumber, 'WC', 'Shipment is out with courier for delivery');
    const scans = await adapter.scans(bought.trackingNumber);
    expect(scans.map((s) => [s.status, s.carrierCode])).toEqual([
      ['in_transit', 'PU'],
      ['out_for_delivery', 'WC'],
    ]);
    expect(scans[0].location).toEqual({ city: 'BERLIN', postcode: '', country: 'DE' });
  });

  it('voids without a cancel operation (contract: Carriers): done at once unscanned, refused once scanned', async () => {
    const first = await adapter.buy(purchase());
    const stored = { reference: first.reference, trackingNumber: first.trackingNumber, carrierShipmentId: null };
    const before = dhl.sim.log.length;
    expect(await adapter.cancel(stored)).toEqual({ kind: 'cancelled' });
    // Only tracking was asked: DHL has nothing to cancel.
    expect(dhl.sim.log.slice(before).map((c) => c.operation)).toEqual(['track']);
    expect(await adapter.findPurchase(first.reference, { stored })).toMatchObject({ cancelled: true });
    const second = await adapter.buy(purchase());
    scan(second.trackingNumber, 'PU', 'Shipment picked up');
    const refused = await adapter.cancel({ reference: second.reference, trackingNumber: second.trackingNumber, carrierShipmentId: null });
    expect(refused).toMatchObject({ kind: 'refused', reason: 'already_scanned', carrierErrorCode: 'PU' });
  });

  it('finds a shipment by our reference; settling a purchase, one without its label is not taken', async () => {
    const request = purchase();
    dhl.faults.push({ operation: 'ship', kind: 'lose_answer' });
    const lost = await adapter.buy(request).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(CarrierError);
    expect((lost as CarrierError).kind).toBe('ambiguous');
    const found = await adapter.findPurchase(request.reference);
    expect(found).toMatchObject({ reference: request.reference, serviceCode: 'dhl_express_worldwide', cancelled: false });
    expect(await adapter.findPurchase(request.reference, { request })).toBeNull();
    expect(await adapter.findPurchase(reference())).toBeNull();
  });

  it('books a pickup and cancels it; a second cancel is DHL\'s refusal', async () => {
    const booked = await adapter.schedulePickup!({
      reference: 'pck_test_1',
      address: GB_FROM,
      window: { start: new Date(Date.now() + 3_600_000).toISOString(), end: new Date(Date.now() + 5 * 3_600_000).toISOString() },
      parcels: { count: 1, totalWeightG: 1_500, serviceCodes: ['dhl_express_worldwide'], destinationCountries: ['DE'] },
    });
    expect(booked).toEqual({ confirmation: expect.stringMatching(/^PRG\d{12}$/), fee: null });
    await adapter.cancelPickup!(booked.confirmation);
    expect(dhl.sim.pickups.get(booked.confirmation)?.status).toBe('cancelled');
    await expect(adapter.cancelPickup!(booked.confirmation)).rejects.toMatchObject({ kind: 'definitive', details: { status: 400 } });
  });

  it('classifies DHL failures: 500 retryable, 503 to a buy ambiguous, 422 definitive with its code, 429 with Retry-After', async () => {
    dhl.faults.push({ operation: 'rate', kind: 'error', status: 500, message: '999: Process failure occurred' });
    await expect(adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL })).rejects.toMatchObject({ kind: 'retryable', details: { status: 500 } });
    dhl.faults.push({ operation: 'ship', kind: 'error', status: 503 });
    await expect(adapter.buy(purchase())).rejects.toMatchObject({ kind: 'ambiguous', details: { status: 503 } });
    dhl.faults.push({ operation: 'ship', kind: 'error', status: 422, message: '7008: The requested service is not available' });
    await expect(adapter.buy(purchase())).rejects.toMatchObject({ kind: 'definitive', message: 'The requested service is not available', details: { status: 422, carrierErrorCode: '7008' } });
    dhl.faults.push({ operation: 'track', kind: 'error', status: 429, retryAfterS: 2 });
    await expect(adapter.scans('1234567890')).rejects.toMatchObject({ kind: 'retryable', details: { status: 429, retryAfterMs: 2_000 } });
    dhl.faults.push({ operation: 'ship', kind: 'timeout', holdMs: 5_000 });
    const impatient = createDhlExpressAdapter({ baseUrl: dhl.url, timeoutMs: 800, credentials: CREDENTIALS });
    await expect(impatient.buy(purchase())).rejects.toMatchObject({ kind: 'ambiguous' });
  });

  it('refuses wrong credentials definitively, naming the credentials and never the secret', async () => {
    const wrong = createDhlExpressAdapter({ baseUrl: dhl.url, credentials: { ...CREDENTIALS, API_SECRET: 'not-the-secret' } });
    const error = await wrong.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'definitive', details: { status: 401 } });
    expect((error as Error).message).toMatch(/refused the API credentials/);
    expect((error as Error).message).not.toContain('not-the-secret');
  });

  it('refuses before any call what DHL cannot take: a missing phone, an unknown route for the service', async () => {
    const before = dhl.sim.log.length;
    expect(adapter.purchaseProblems!({ ...purchase(), to: { ...DE_TO, phone: undefined } }).map((p) => p.path)).toEqual(['to.phone']);
    await expect(adapter.buy({ ...purchase(), to: { ...DE_TO, phone: undefined } })).rejects.toMatchObject({ kind: 'definitive', message: expect.stringContaining('to.phone') });
    await expect(adapter.buy({ ...purchase(), serviceCode: 'dhl_express_domestic' })).rejects.toMatchObject({ kind: 'definitive' });
    expect(await adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL, serviceCode: 'dhl_express_domestic' })).toEqual([]);
    expect(dhl.sim.log.length).toBe(before);
  });
});

describe('what went to DHL and came back', () => {
  it('fits the MyDHL API document: every request and every answer above checked against its generated schemas', () => {
    expect(dhl.sim.log.length).toBeGreaterThan(15);
    expect(dhl.sim.violations).toEqual([]);
  });
});

describe('DHL Express insurance of a declared value (service II)', () => {
  it('quotes it with its surcharge and buys it at the same price', async () => {
    const plain = await adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL, serviceCode: 'dhl_express_worldwide', currency: 'GBP' });
    const insured = await adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL, serviceCode: 'dhl_express_worldwide', currency: 'GBP', options: { declared_value: '800.00' } });
    expect(insured[0].net - plain[0].net).toBe(800);
    const bought = await adapter.buy({ ...purchase(), options: { declared_value: '800.00' }, currency: 'GBP' });
    expect(bought.billed).toEqual({ amount: insured[0].net, currency: 'GBP' });
    // A signature or Saturday delivery is not asked of DHL here: the quote leaves DHL out.
    expect(await adapter.rate({ from: GB_FROM, to: DE_TO, parcel: PARCEL, options: { signature: 'required' } })).toEqual([]);
  });
});
