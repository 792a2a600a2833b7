// USPS abroad (customs pages in the label file), return labels and extra
// services, through the API with a live key against the shared carrier simulator, which checks
// every USPS request against our schemas of the documents.
import { randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download } from '../support/files.js';
import { call, createAccount, type TestAccount, type TestStack, startTestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const US_FROM = { name: 'Widget Shop', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US', phone: '410-555-0100', email: 'ship@widgets.example' };
const US_TO = { name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
const CANADA = { name: 'Jean Tremblay', line1: '100 Queen St W', city: 'Toronto', state: 'ON', postcode: 'M5H 2N2', country: 'CA', phone: '+1 416 555 0100' };
const PARCEL = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };
const CUSTOMS = {
  contents_type: 'merchandise',
  signer: 'Ann Shipper',
  currency: 'USD',
  items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT' }],
};

const post = (acct: TestAccount, path: string, body: unknown) => call(stack, 'POST', path, { key: acct.liveKey, body, headers: { 'idempotency-key': randomUUID() } });
const balance = async (acct: TestAccount) => (await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body as { available: string; pending: string };
const quoted = (answer: { body: any }, code: string) => answer.body.data.find((q: any) => q.service.code === code);
const paths = (a: { body: { errors?: Array<{ path: string }> } }) => [...new Set((a.body.errors ?? []).map((e) => e.path))].sort();

async function pdfPages(acct: TestAccount, shipment: { label: { url: string } }, format: string): Promise<number> {
  const file = await download(`${stack.url}${shipment.label.url}?format=${format}`, { authorization: `Bearer ${acct.liveKey}` });
  expect(file.status, `${format}: ${file.body.toString('utf8').slice(0, 200)}`).toBe(200);
  return (await PDFDocument.load(file.body)).getPageCount();
}

describe('USPS with a live key (contract: International, returns, address checks, options)', () => {
  let acct: TestAccount;
  beforeAll(async () => {
    acct = await createAccount(stack, { currency: 'USD', topUp: '500.00' });
  });

  it('ships Priority Mail International to Canada with customs: the label file holds the CN23 page, /documents lists nothing', async () => {
    const q = await post(acct, '/api/v1/quotes', { from: US_FROM, to: CANADA, parcel: PARCEL });
    expect(q.status, q.text).toBe(200);
    const item = quoted(q, 'usps_priority_mail_international');
    expect(item, q.text).toMatchObject({ livemode: true, service: { carrier: 'usps' }, price: { currency: 'USD' } });
    const before = await balance(acct);
    const bought = await post(acct, '/api/v1/shipments', { service: 'usps_priority_mail_international', from: US_FROM, to: CANADA, parcel: PARCEL, customs: CUSTOMS });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body).toMatchObject({ status: 'purchased', price: item.price, customs: { contents_type: 'merchandise' } });
    expect(bought.body.tracking.number).toMatch(/^CP\d{9}US$/);
    expect(Number(before.available) - Number((await balance(acct)).available)).toBeCloseTo(Number(item.price.gross), 2);
    // The label page and the customs form's page, in both PDF formats.
    expect(await pdfPages(acct, bought.body, 'pdf_6x4')).toBe(2);
    expect(await pdfPages(acct, bought.body, 'pdf_a4')).toBe(2);
    // The ZPL, reprinted by international-labels: the label's format and the CN23's.
    const zpl = await download(`${stack.url}${bought.body.label.url}?format=zpl`, { authorization: `Bearer ${acct.liveKey}` });
    expect(zpl.status, zpl.body.toString('utf8').slice(0, 300)).toBe(200);
    expect(zpl.body.toString('utf8').match(/\^XA/g)).toHaveLength(2);
    const documents = await call(stack, 'GET', `/api/v1/shipments/${bought.body.id}/documents`, { key: acct.liveKey });
    expect(documents.status, documents.text).toBe(200);
    expect(documents.body.data).toEqual([]);
  });

  it('prices signature and insurance in the quote and charges what it said', async () => {
    const route = { from: US_FROM, to: US_TO, parcel: PARCEL };
    const options = { signature: 'required', declared_value: '100.00' };
    const plain = quoted(await post(acct, '/api/v1/quotes', route), 'usps_priority_mail');
    const extra = quoted(await post(acct, '/api/v1/quotes', { ...route, options }), 'usps_priority_mail');
    // The simulator's signature confirmation 4.40 and insurance of 100.00 2.85, as its price searches answer.
    expect(Number(extra.price.net) - Number(plain.price.net)).toBeCloseTo(4.4 + 2.85, 2);
    const bought = await post(acct, '/api/v1/shipments', { service: 'usps_priority_mail', ...route, options });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body).toMatchObject({ options: { signature: 'required', declared_value: '100.00' }, price: extra.price });
  });

  it('buys a USPS return label at its return price', async () => {
    const route = { from: US_TO, to: US_FROM, parcel: PARCEL, is_return: true };
    const q = await post(acct, '/api/v1/quotes', route);
    expect(q.status, q.text).toBe(200);
    const item = quoted(q, 'usps_ground_advantage');
    expect(item, q.text).toBeDefined();
    const bought = await post(acct, '/api/v1/shipments', { service: 'usps_ground_advantage', ...route });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body).toMatchObject({ is_return: true, price: item.price });
    expect(await pdfPages(acct, bought.body, 'pdf_6x4')).toBe(1);
  });

  it('refuses customs missing and a signature abroad, charging nothing', async () => {
    const before = await balance(acct);
    const missing = await post(acct, '/api/v1/shipments', { service: 'usps_priority_mail_international', from: US_FROM, to: CANADA, parcel: PARCEL });
    expect(missing.status, missing.text).toBe(422);
    expect(missing.body.code).toBe('validation_failed');
    expect(paths(missing)).toEqual(['customs']);
    const signature = await post(acct, '/api/v1/shipments', { service: 'usps_priority_mail_international', from: US_FROM, to: CANADA, parcel: PARCEL, customs: CUSTOMS, options: { signature: 'required' } });
    expect(signature.status, signature.text).toBe(422);
    expect(signature.body.code).toBe('option_not_supported');
    expect(paths(signature)).toEqual(['options.signature']);
    // USPS's own limits on the declaration, checked before anything is bought: values in USD, and the
    // AES ITN for a line above the low-value exemption.
    const gbp = await post(acct, '/api/v1/shipments', { service: 'usps_priority_mail_international', from: US_FROM, to: CANADA, parcel: PARCEL, customs: { ...CUSTOMS, currency: 'GBP' } });
    expect(gbp.status, gbp.text).toBe(422);
    expect(gbp.body.code).toBe('validation_failed');
    expect(paths(gbp)).toEqual(['customs.currency']);
    const dear = { ...CUSTOMS, items: [{ ...CUSTOMS.items[0], value: '2600.00' }] };
    const exemption = await post(acct, '/api/v1/shipments', { service: 'usps_priority_mail_international', from: US_FROM, to: CANADA, parcel: PARCEL, customs: dear });
    expect(exemption.status, exemption.text).toBe(422);
    expect(paths(exemption)).toEqual(['customs.eel_pfc']);
        // First-Class Package International sells no insurance.
    const insured = await post(acct, '/api/v1/shipments', { service: 'usps_first_class_package_international', from: US_FROM, to: CANADA, parcel: PARCEL, customs: CUSTOMS, options: { declared_value: '50.00' } });
    expect(insured.status, insured.text).toBe(422);
    expect(insured.body.code).toBe('option_not_supported');
    expect(paths(insured)).toEqual(['options.declared_value']);
        // A quote with a signature abroad leaves the USPS international services out.
    const q = await post(acct, '/api/v1/quotes', { from: US_FROM, to: CANADA, parcel: PARCEL, options: { signature: 'required' } });
    expect(q.status, q.text).toBe(200);
    expect(quoted(q, 'usps_priority_mail_international')).toBeUndefined();
    expect(await balance(acct)).toEqual(before);
  });
});
