import { randomBytes } from 'node:crypto';
import { shipmentWorkflowId } from '../../contract/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_CREDENTIALS } from '../../tools/carrier-sim/index.js';
import { startFedexSimulator } from '../../tools/carrier-sim/fedex/index.js';
import type { FedexExtraScan } from '../../tools/carrier-sim/fedex/state.js';
import { download, openPdf } from '../support/files.js';
import { eventually } from '../support/sim.js';
import { call, createAccount, expectLedgerConsistent, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

/**
 * FedEx end to end through the public HTTP API with live keys, against a FedEx simulator of its own
 * that checks every request and answer against the schemas of FedEx's documents (no field they do
 * not define), the stack pointed at it by CARRIER_FEDEX_URL as a deployment would be: fedex_ground
 * US to US and fedex_international_priority US to Canada with customs and FedEx's commercial
 * invoice; quote, buy, the three label files, tracking to delivered, voids, and a pickup booked and
 * cancelled. Scans come from the test, in FedEx's event types.
 */

const fedexScans = new Map<string, FedexExtraScan[]>();
let fedex: Awaited<ReturnType<typeof startFedexSimulator>>;
let stack: TestStack;

beforeAll(async () => {
  const c = SIMULATOR_CREDENTIALS.fedex!;
  fedex = await startFedexSimulator({ clientId: c.clientId, clientSecret: c.clientSecret, accountNumber: c.accountNumber, extraScans: (n) => fedexScans.get(n) ?? [] });
  stack = await startTestStack({ carrierUrls: { fedex: fedex.url }, trackingPollMinMs: 300, trackingPollMaxMs: 1_500 });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await fedex?.close();
});

type Status = 'in_transit' | 'out_for_delivery' | 'delivered';
const EVENT: Record<Status, Omit<FedexExtraScan, 'at'>> = {
  in_transit: { eventType: 'DP', description: 'Departed FedEx location', city: 'BALTIMORE', postalCode: '21226' },
  out_for_delivery: { eventType: 'OD', description: 'On FedEx vehicle for delivery', city: 'ALPHARETTA', postalCode: '30005' },
  delivered: { eventType: 'DL', description: 'Delivered', city: 'ALPHARETTA', postalCode: '30005' },
};
let lastScanAt = 0;
/** FedEx scans the parcel now; returns the event type it shows with. */
function scan(trackingNumber: string, status: Status): string {
  const at = (lastScanAt = Math.max(Date.now() - 10_000, lastScanAt + 1_000));
  fedexScans.set(trackingNumber, [...(fedexScans.get(trackingNumber) ?? []), { at, ...EVENT[status] }]);
  return EVENT[status].eventType;
}

const unique = (prefix: string) => `${prefix} ${randomBytes(4).toString('hex')}`;
const US_FROM = () => ({ name: unique('Ann Shipper'), company: 'Tower Books', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US', phone: '+1 410 555 0100' });
const US_TO = { name: 'Bob Buyer', company: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US', phone: '404 555 0101' };
const CA_TO = { name: 'Claire Client', line1: '1 Sparks St', city: 'Ottawa', state: 'ON', postcode: 'K1A 0B1', country: 'CA', phone: '613 555 0199' };
const PARCEL = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };
const CUSTOMS = {
  contents_type: 'merchandise',
  signer: 'Ann Shipper',
  currency: 'USD',
  eel_pfc: 'NOEEI 30.37(a)',
  items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT', sku: 'TS-01' }],
};

const headers = () => ({ 'idempotency-key': randomBytes(8).toString('hex') });
const post = (acct: TestAccount, path: string, body: unknown) => call(stack, 'POST', path, { key: acct.liveKey, headers: headers(), body });
const balance = async (acct: TestAccount) => (await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body as { available: string; pending: string };
const quoteItem = (answer: { body: any }, code: string) => answer.body.data.find((i: any) => i.service.code === code);

/** One format of a label, to the bearer and through its signed link: the same file both ways. */
async function labelFile(acct: TestAccount, shipment: { id: string; label: { url: string } }, format: string) {
  const byBearer = await download(`${stack.url}${shipment.label.url}?format=${format}`, { authorization: `Bearer ${acct.liveKey}` });
  expect(byBearer.status, `${format} to the bearer`).toBe(200);
  const link = await call(stack, 'GET', `/api/v1/shipments/${shipment.id}/label/${format}`, { key: acct.liveKey });
  expect(link.status, link.text).toBe(200);
  const signed = await download(link.body.url);
  expect(signed.status, `${format} through the signed link`).toBe(200);
  expect(signed.body.equals(byBearer.body)).toBe(true);
  return byBearer;
}

/** The three files of a FedEx label: its PNG on a 4 × 6 and an A4 page, and its ZPL. */
async function expectLabelFiles(acct: TestAccount, shipment: { id: string; label: { url: string } }) {
  const sixByFour = await labelFile(acct, shipment, 'pdf_6x4');
  expect(sixByFour.type).toContain('application/pdf');
  expect(await openPdf(sixByFour.body)).toMatchObject({ pages: 1, width: 288, height: 432 });
  expect((await openPdf(sixByFour.body)).images).toBeGreaterThan(0);
  const a4 = await openPdf((await labelFile(acct, shipment, 'pdf_a4')).body);
  expect(a4.width).toBeCloseTo(595.28, 1);
  expect(a4.images).toBeGreaterThan(0);
  const zpl = await labelFile(acct, shipment, 'zpl');
  expect(zpl.type).toContain('application/zpl');
  const text = zpl.body.toString('latin1');
  expect(text.startsWith('^XA')).toBe(true);
  // FedEx's own label image, at a thermal printer's 203 dpi on 4 × 6 in.
  expect(text).toMatch(/\^PW812\n\^LL1218\n/);
  expect(text).toMatch(/\^GFA,\d+,\d+,102,:Z64:/);
  expect(text.trimEnd().endsWith('^XZ')).toBe(true);
}

async function waitForStatus(acct: TestAccount, id: string, status: string) {
  return eventually(async () => {
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    return s.body.status === status ? s.body : undefined;
  }, 30_000, `${id} to be ${status}`);
}

describe('fedex_ground US to US with a live key (contract: Carriers)', () => {
  it('is quoted, bought, its three files served, tracked to delivered with FedEx’s codes, refused a void once scanned; a second label voided', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '200.00' });
    const from = US_FROM();
    const q = await post(acct, '/api/v1/quotes', { from, to: US_TO, parcel: PARCEL });
    expect(q.status, q.text).toBe(200);
    expect(q.body.unavailable).toEqual([]);
    const item = quoteItem(q, 'fedex_ground');
    expect(item).toMatchObject({ livemode: true, service: { code: 'fedex_ground', carrier: 'fedex' }, price: { currency: 'USD' } });
    // To a business: Ground, not Home Delivery; no international service within the US.
    expect(quoteItem(q, 'fedex_home_delivery')).toBeUndefined();
    expect(quoteItem(q, 'fedex_international_priority')).toBeUndefined();

    const body = { service: 'fedex_ground', from, to: US_TO, parcel: PARCEL };
    const bought = await post(acct, '/api/v1/shipments', body);
    expect(bought.status, bought.text).toBe(201);
    const shipment = bought.body;
    expect(shipment).toMatchObject({ status: 'purchased', livemode: true, price: item.price });
    expect(shipment.tracking.number).toMatch(/^\d{12}$/);
    const charged = await balance(acct);
    expect(Number(charged.available)).toBeCloseTo(200 - Number(item.price.gross), 2);
    await expectLabelFiles(acct, shipment);

    const first = scan(shipment.tracking.number, 'in_transit');
    await waitForStatus(acct, shipment.id, 'in_transit');
    const refused = await post(acct, `/api/v1/shipments/${shipment.id}/void`, undefined);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe('label_already_scanned');
    expect(await balance(acct)).toEqual(charged);

    const out = scan(shipment.tracking.number, 'out_for_delivery');
    const delivered = scan(shipment.tracking.number, 'delivered');
    await waitForStatus(acct, shipment.id, 'delivered');
    const tracking = await call(stack, 'GET', `/api/v1/tracking/${shipment.tracking.number}`, { key: acct.liveKey });
    expect(tracking.body).toMatchObject({ tracking_number: shipment.tracking.number, carrier: 'fedex', shipment_id: shipment.id, status: 'delivered' });
    const walked = (tracking.body.events as Array<{ status: string; carrier_code: string | null }>).filter((e) => e.status !== 'label_created');
    expect(walked.map((e) => [e.status, e.carrier_code])).toEqual([['in_transit', first], ['out_for_delivery', out], ['delivered', delivered]]);

    const second = await post(acct, '/api/v1/shipments', { ...body, reference: 'second' });
    expect(second.status, second.text).toBe(201);
    const voided = await post(acct, `/api/v1/shipments/${second.body.id}/void`, undefined);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(fedex.sim.packages.get(second.body.tracking.number)?.cancelledAt).not.toBeNull();
    expect(await balance(acct)).toEqual(charged);
    expect(fedex.sim.violations).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });
});

describe('fedex_international_priority US to Canada with customs (contract: International)', () => {
  it('is quoted without customs, bought with them, FedEx’s invoice listed and served, its three files served, and voided', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '300.00' });
    const from = US_FROM();
    const q = await post(acct, '/api/v1/quotes', { from, to: CA_TO, parcel: PARCEL });
    expect(q.status, q.text).toBe(200);
    const item = quoteItem(q, 'fedex_international_priority');
    expect(item).toMatchObject({ service: { code: 'fedex_international_priority', carrier: 'fedex' }, price: { currency: 'USD' } });
    expect(q.body.data.filter((i: any) => i.service.carrier === 'fedex').map((i: any) => i.service.code).sort()).toEqual(['fedex_international_economy', 'fedex_international_priority']);

    // Abroad, the customs are required, then bought at the quoted price.
    const without = await post(acct, '/api/v1/shipments', { service: 'fedex_international_priority', from, to: CA_TO, parcel: PARCEL });
    expect(without.status, without.text).toBe(422);
    const bought = await post(acct, '/api/v1/shipments', { service: 'fedex_international_priority', from, to: CA_TO, parcel: PARCEL, customs: CUSTOMS });
    expect(bought.status, bought.text).toBe(201);
    const shipment = bought.body;
    expect(shipment).toMatchObject({ status: 'purchased', price: item.price, customs: { contents_type: 'merchandise', currency: 'USD' } });

    const docs = await call(stack, 'GET', `/api/v1/shipments/${shipment.id}/documents`, { key: acct.liveKey });
    expect(docs.status, docs.text).toBe(200);
    expect(docs.body.data).toHaveLength(1);
    expect(docs.body.data[0]).toMatchObject({ type: 'commercial_invoice', format: 'pdf', url: expect.stringMatching(/^http/) });
    const invoice = await download(docs.body.data[0].url);
    expect(invoice.status).toBe(200);
    expect(invoice.type).toContain('application/pdf');
    // FedEx's own invoice (a letter page), not one drawn by us.
    expect(await openPdf(invoice.body)).toMatchObject({ pages: 1, width: 612 });
    await expectLabelFiles(acct, shipment);

    const voided = await post(acct, `/api/v1/shipments/${shipment.id}/void`, undefined);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(await balance(acct)).toMatchObject({ available: '300.00', pending: '0.00' });
    expect(fedex.sim.violations).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('refuses a purchase without a phone naming the field, nothing bought or charged', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const { phone: _phone, ...noPhone } = CA_TO;
    const shipped = fedex.sim.packages.size;
    const refused = await post(acct, '/api/v1/shipments', { service: 'fedex_international_priority', from: US_FROM(), to: noPhone, parcel: PARCEL, customs: CUSTOMS });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'to.phone' })] });
    expect(fedex.sim.packages.size).toBe(shipped);
    expect(await balance(acct)).toMatchObject({ available: '50.00' });
  });
});

describe('FedEx pickups (contract: Batches, SCAN forms, pickups)', () => {
  it('books a pickup and cancels it', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const booked = await post(acct, '/api/v1/pickups', { carrier: 'fedex', address: US_FROM(), window: { start: `${day}T14:00:00.000Z`, end: `${day}T21:00:00.000Z` }, instructions: 'Loading dock' });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ carrier: 'fedex', status: 'scheduled', price: null });
    const [code] = String(booked.body.confirmation).split('/');
    expect(fedex.sim.pickups.get(code!)).toMatchObject({ cancelled: false, scheduledDate: day });
    const cancelled = await call(stack, 'POST', `/api/v1/pickups/${booked.body.id}/cancel`, { key: acct.liveKey });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(fedex.sim.pickups.get(code!)?.cancelled).toBe(true);
    expect(fedex.sim.violations).toEqual([]);
  });
});

describe('a deployment with a FedEx secret FedEx did not issue (contract: Carriers)', () => {
  let wrong: TestStack;
  beforeAll(async () => {
    const credentials = { ...stack.config.carrierCredentials, fedex: { ...stack.config.carrierCredentials.fedex, CLIENT_SECRET: 'not-the-fedex-secret' } };
    wrong = await startTestStack({ carrierUrls: { fedex: fedex.url }, carrierCredentials: credentials });
  }, 180_000);
  afterAll(async () => {
    await wrong?.stop();
  });

  it('quotes FedEx as carrier_error and fails the purchase with 502 carrier_error, nothing charged, the secret in no history', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const route = { from: US_FROM(), to: US_TO, parcel: PARCEL };
    const shipped = fedex.sim.packages.size;
    const q = await call(wrong, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: route });
    expect(q.status, q.text).toBe(200);
    expect(q.body.unavailable).toContainEqual({ carrier: 'fedex', code: 'carrier_error', message: expect.stringMatching(/refused this platform's credentials/) });
    const bought = await call(wrong, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body: { service: 'fedex_ground', ...route } });
    expect(bought.status, bought.text).toBe(502);
    expect(bought.body.code).toBe('carrier_error');
    const history = JSON.stringify(await wrong.temporal.workflow.getHandle(shipmentWorkflowId(bought.body.shipment_id)).fetchHistory());
    // The operator reads FedEx's refusal in the shipment's history (its price asked again, or the purchase), never the secret.
    expect(history).toMatch(/FedEx refused (this platform's|the client) credentials/);
    expect(history).not.toContain('not-the-fedex-secret');
    expect(fedex.sim.packages.size).toBe(shipped);
    expect((await call(wrong, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body).toMatchObject({ available: '50.00', pending: '0.00' });
  });
});
