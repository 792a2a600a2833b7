import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dhlExpressCarrier } from '../../carriers/dhl-express/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { startDhlSimulator } from '../../tools/carrier-sim/dhl-express/index.js';
import type { SimDhlExtraCheckpoint } from '../../tools/carrier-sim/dhl-express/state.js';
import { compileDhlValidators, DHL_DOCUMENT_VALIDATION } from '../../tools/carrier-sim/dhl-express/validation.js';
import { download, openPdf } from '../support/files.js';
import { eventually } from '../support/sim.js';
import { call, createAccount, expectLedgerConsistent, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

/**
 * DHL Express end to end through the public API with live keys, against a DHL simulator of its own
 * (the stack pointed at it by CARRIER_DHL_EXPRESS_URL, as a deployment would be), which checks every
 * request against the schemas generated from the MyDHL API document: dhl_express_worldwide GB to DE
 * with customs quoted, bought, its invoice served, its three label files, tracked to delivered with
 * DHL's checkpoint codes; a void by the contract's rule for a carrier without a cancel operation;
 * a pickup booked and cancelled. Checkpoints come from the test, as DHL's scans would.
 */

const checkpoints = new Map<string, SimDhlExtraCheckpoint[]>();
let dhl: Awaited<ReturnType<typeof startDhlSimulator>>;
let stack: TestStack;

const simulatorValue = (suffix: string) => dhlExpressCarrier.settings!.find((s) => s.suffix === suffix)!.simulatorValue;

beforeAll(async () => {
  compileDhlValidators();
  dhl = await startDhlSimulator({
    apiKey: simulatorValue('API_KEY'),
    apiSecret: simulatorValue('API_SECRET'),
    accountNumber: simulatorValue('ACCOUNT_NUMBER'),
    extraCheckpoints: (trackingNumber) => checkpoints.get(trackingNumber) ?? [],
    validate: DHL_DOCUMENT_VALIDATION,
  });
  stack = await startTestStack({
    carrierUrls: { dhl_express: dhl.url },
    // Tracking polls soon after a scan, so that a parcel walks to delivered within the test.
    trackingPollMinMs: 300,
    trackingPollMaxMs: 1_500,
  });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await dhl?.close();
});

let lastAt = 0;
/** DHL scans the parcel now, with one of its checkpoint codes. */
function checkpoint(trackingNumber: string, typeCode: string, description: string) {
  const at = (lastAt = Math.max(Date.now() - 10_000, lastAt + 1_000));
  checkpoints.set(trackingNumber, [...(checkpoints.get(trackingNumber) ?? []), { at, typeCode, description, area: 'BERLIN-DE' }]);
}

const unique = (prefix: string) => `${prefix} ${randomBytes(4).toString('hex')}`;
const GB_FROM = () => ({ name: unique('Ann Shipper'), company: 'Tower Books Ltd', line1: '1 Tower Bridge Rd', city: 'London', postcode: 'SE1 2UP', country: 'GB', phone: '+44 20 7946 0958' });
const DE_TO = { name: 'Bert Empfänger', line1: 'Friedrichstraße 43', city: 'Berlin', postcode: '10117', country: 'DE', phone: '+49 30 1234567' };
const PARCEL = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };
const CUSTOMS = {
  contents_type: 'merchandise',
  signer: 'Ann Shipper',
  currency: 'GBP',
  items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT', sku: 'TS-01' }],
};

const headers = () => ({ 'idempotency-key': randomBytes(8).toString('hex') });
const post = (acct: TestAccount, path: string, body: unknown) => call(stack, 'POST', path, { key: acct.liveKey, headers: headers(), body });
const balance = async (acct: TestAccount) => (await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body as { available: string; pending: string };

async function waitForStatus(acct: TestAccount, id: string, status: string) {
  return eventually(async () => {
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    return s.body.status === status ? s.body : undefined;
  }, 30_000, `${id} to be ${status}`);
}

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

describe('dhl_express_worldwide GB to DE with a live key (contract: Carriers; International)', () => {
  it('is quoted, bought with customs, its invoice served, its three label files served, tracked to delivered, and a void refused once scanned', async () => {
    const acct = await createAccount(stack, { topUp: '300.00' });
    const from = GB_FROM();
    const q = await post(acct, '/api/v1/quotes', { from, to: DE_TO, parcel: PARCEL });
    expect(q.status, q.text).toBe(200);
    expect(q.body.unavailable).toEqual([]);
    const item = q.body.data.find((i: any) => i.service.code === 'dhl_express_worldwide');
    expect(item).toMatchObject({ livemode: true, service: { code: 'dhl_express_worldwide', carrier: 'dhl_express' }, price: { currency: 'GBP' } });

    const bought = await post(acct, '/api/v1/shipments', { service: 'dhl_express_worldwide', from, to: DE_TO, parcel: PARCEL, customs: CUSTOMS });
    expect(bought.status, bought.text).toBe(201);
    const shipment = bought.body;
    expect(shipment).toMatchObject({ status: 'purchased', livemode: true, price: item.price, customs: { contents_type: 'merchandise' } });
    expect(shipment.tracking.number).toMatch(/^\d{10}$/);
    // EXPRESS WORLDWIDE across the EU's border is DHL's dutiable product P.
    expect(dhl.sim.shipments.get(shipment.tracking.number)).toMatchObject({ productCode: 'P', invoice: true, references: [shipment.id] });
    const charged = await balance(acct);
    expect(Number(charged.available)).toBeCloseTo(300 - Number(item.price.gross), 2);

    // DHL's commercial invoice, listed and served through its signed link.
    const docs = await call(stack, 'GET', `/api/v1/shipments/${shipment.id}/documents`, { key: acct.liveKey });
    expect(docs.status, docs.text).toBe(200);
    expect(docs.body.data).toEqual([expect.objectContaining({ type: 'commercial_invoice', format: 'pdf', url: expect.stringMatching(/^http/) })]);
    const invoice = await download(docs.body.data[0].url);
    expect(invoice.status).toBe(200);
    expect(invoice.type).toContain('application/pdf');
    // DHL's own invoice, an A4 page, not one drawn by us.
    expect((await openPdf(invoice.body)).width).toBeCloseTo(595.28, 1);

    // DHL's 4 x 8 in label fitted onto our 4 x 6 page and on A4, and its ZPL for a 4 x 6 printer.
    const sixByFour = await labelFile(acct, shipment, 'pdf_6x4');
    expect(await openPdf(sixByFour.body)).toMatchObject({ pages: 1, width: 288, height: 432 });
    const a4 = await labelFile(acct, shipment, 'pdf_a4');
    expect((await openPdf(a4.body)).width).toBeCloseTo(595.28, 1);
    const zpl = await labelFile(acct, shipment, 'zpl');
    expect(zpl.type).toContain('application/zpl');
    expect(zpl.body.toString('latin1')).toMatch(/^\^XA\^PW812\^LL1218/);

    // Scanned by DHL: the void is refused, nothing refunded.
    checkpoint(shipment.tracking.number, 'PU', 'Shipment picked up');
    await waitForStatus(acct, shipment.id, 'in_transit');
    const refused = await post(acct, `/api/v1/shipments/${shipment.id}/void`, undefined);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe('label_already_scanned');
    expect(await balance(acct)).toEqual(charged);

    checkpoint(shipment.tracking.number, 'WC', 'Shipment is out with courier for delivery');
    checkpoint(shipment.tracking.number, 'OK', 'Delivered');
    await waitForStatus(acct, shipment.id, 'delivered');
    const tracking = await call(stack, 'GET', `/api/v1/tracking/${shipment.tracking.number}`, { key: acct.liveKey });
    expect(tracking.status, tracking.text).toBe(200);
    expect(tracking.body).toMatchObject({ carrier: 'dhl_express', shipment_id: shipment.id, status: 'delivered' });
    const walked = (tracking.body.events as Array<{ status: string; carrier_code: string | null }>).filter((e) => e.status !== 'label_created');
    expect(walked.map((e) => [e.status, e.carrier_code])).toEqual([
      ['in_transit', 'PU'],
      ['out_for_delivery', 'WC'],
      ['delivered', 'OK'],
    ]);
    expect(dhl.sim.violations).toEqual([]);
    // The API key's secret never reaches the workflow's history, in clear or as DHL's Basic header.
    const history = JSON.stringify(await stack.temporal.workflow.getHandle(shipmentWorkflowId(shipment.id)).fetchHistory());
    const secret = simulatorValue('API_SECRET');
    expect(history).not.toContain(secret);
    expect(history).not.toContain(Buffer.from(`${simulatorValue('API_KEY')}:${secret}`).toString('base64'));
    await expectLedgerConsistent(stack, acct.id);
  });

  it('voids an unscanned label at once, its charge reversed, with nothing sent to DHL but a tracking read', async () => {
    const acct = await createAccount(stack, { topUp: '300.00' });
    const from = GB_FROM();
    const bought = await post(acct, '/api/v1/shipments', { service: 'dhl_express_worldwide', from, to: DE_TO, parcel: PARCEL, customs: CUSTOMS });
    expect(bought.status, bought.text).toBe(201);
    expect(Number((await balance(acct)).available)).toBeLessThan(300);
    const before = dhl.sim.log.length;
    const voided = await post(acct, `/api/v1/shipments/${bought.body.id}/void`, undefined);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(await balance(acct)).toMatchObject({ available: '300.00', pending: '0.00' });
    expect(new Set(dhl.sim.log.slice(before).map((c) => c.operation))).toEqual(new Set(['track']));
    await expectLedgerConsistent(stack, acct.id);
  });

  it('settles a lost purchase answer by buying again: one label handed out, one charge', async () => {
    const acct = await createAccount(stack, { topUp: '300.00' });
    const from = GB_FROM();
    dhl.faults.push({ operation: 'ship', kind: 'lose_answer' });
    const bought = await post(acct, '/api/v1/shipments', { service: 'dhl_express_worldwide', from, to: DE_TO, parcel: PARCEL, customs: CUSTOMS });
    expect(bought.status, bought.text).toBe(201);
    const made = [...dhl.sim.shipments.values()].filter((s) => s.references.includes(bought.body.id));
    // DHL made two shipments under our reference; the customer holds the label of the second only.
    expect(made).toHaveLength(2);
    expect(made.map((s) => s.trackingNumber)).toContain(bought.body.tracking.number);
    const file = await download(`${stack.url}${bought.body.label.url}?format=pdf_6x4`, { authorization: `Bearer ${acct.liveKey}` });
    expect(file.status).toBe(200);
    const charged = await balance(acct);
    expect(Number(charged.available)).toBeCloseTo(300 - Number(bought.body.price.gross), 2);
    expect(charged.pending).toBe('0.00');
    await expectLedgerConsistent(stack, acct.id);
  });

  it('refuses a purchase without the phones DHL requires, naming them, nothing bought or charged', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const shipped = dhl.sim.shipments.size;
    const refused = await post(acct, '/api/v1/shipments', { service: 'dhl_express_worldwide', from: { ...GB_FROM(), phone: undefined }, to: { ...DE_TO, phone: undefined }, parcel: PARCEL, customs: CUSTOMS });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe('validation_failed');
    expect((refused.body.errors as Array<{ path: string }>).map((e) => e.path).sort()).toEqual(['from.phone', 'to.phone']);
    expect(dhl.sim.shipments.size).toBe(shipped);
    expect(await balance(acct)).toMatchObject({ available: '100.00' });
  });

  it('books a pickup and cancels it', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const start = new Date(Date.now() + 26 * 3_600_000);
    const end = new Date(start.getTime() + 4 * 3_600_000);
    const booked = await post(acct, '/api/v1/pickups', { carrier: 'dhl_express', address: GB_FROM(), window: { start: start.toISOString(), end: end.toISOString() } });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ object: 'pickup', status: 'scheduled', carrier: 'dhl_express', confirmation: expect.stringMatching(/^PRG\d{12}$/), price: null });
    expect(dhl.sim.pickups.get(booked.body.confirmation)?.status).toBe('booked');
    const cancelled = await post(acct, `/api/v1/pickups/${booked.body.id}/cancel`, undefined);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(dhl.sim.pickups.get(booked.body.confirmation)?.status).toBe('cancelled');
  });
});
