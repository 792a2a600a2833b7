import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_CREDENTIALS } from '../../tools/carrier-sim/index.js';
import { startUpsSimulator } from '../../tools/carrier-sim/ups/index.js';
import { download, openPdf } from '../support/files.js';
import { call, createAccount, expectLedgerConsistent, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

/**
 * UPS abroad, its return labels and its options end to end: a live key through the public API,
 * Temporal and PostgreSQL, against a UPS simulator of its own that checks every request and answer
 * against the schemas generated from UPS's documents and keeps what it was sent, so that the test can
 * read what went to UPS (contract: International, returns, address checks, options).
 */

let ups: Awaited<ReturnType<typeof startUpsSimulator>>;
let stack: TestStack;
/** Every Rating and Shipping request UPS received, in order. */
const received: Array<{ operation: 'rate' | 'ship'; body: any }> = [];

beforeAll(async () => {
  ups = await startUpsSimulator(SIMULATOR_CREDENTIALS.ups);
  const respond = ups.sim.respond;
  ups.sim.respond = async (req) => {
    const answer = await respond(req);
    if (answer && (answer.operation === 'rate' || answer.operation === 'ship') && req.rawBody) received.push({ operation: answer.operation, body: JSON.parse(req.rawBody) });
    return answer;
  };
  stack = await startTestStack({ carrierUrls: { ups: ups.url } });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await ups?.close();
});

const unique = (prefix: string) => `${prefix} ${randomBytes(4).toString('hex')}`;
const GB_FROM = () => ({ name: unique('Ann Shipper'), company: 'Tower Books Ltd', line1: '1 Tower Bridge Rd', city: 'London', postcode: 'SE1 2UP', country: 'GB', phone: '+44 20 7946 0958' });
const US_TO = { name: 'Bob Buyer', line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US', phone: '+1 212 555 0100' };
const GB_TO = { name: 'Northern Lights Ltd', company: 'Northern Lights Ltd', line1: '12 Quay St', city: 'Manchester', postcode: 'M3 3HN', country: 'GB' };
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
const quoteItem = (answer: { body: any }, code: string) => answer.body.data.find((i: any) => i.service.code === code);
const paths = (a: { body: { errors?: Array<{ path: string }> } }) => [...new Set((a.body.errors ?? []).map((e) => e.path))].sort();
/** The ship requests UPS received for one of our shipments (our id is the package's reference). */
const shipRequestsFor = (shipmentId: string) => received.filter((r) => r.operation === 'ship' && JSON.stringify(r.body).includes(shipmentId)).map((r) => r.body.ShipmentRequest.Shipment);

describe('ups_express GB to US with customs and phones (contract: International)', () => {
  it('is quoted, bought, its invoice listed and served as a PDF, its label files served, and voided', async () => {
    const acct = await createAccount(stack, { topUp: '300.00' });
    const from = GB_FROM();
    const q = await post(acct, '/api/v1/quotes', { from, to: US_TO, parcel: PARCEL });
    expect(q.status, q.text).toBe(200);
    expect(q.body.unavailable).toEqual([]);
    const item = quoteItem(q, 'ups_express');
    expect(item).toMatchObject({ livemode: true, service: { code: 'ups_express', carrier: 'ups' }, price: { currency: 'GBP' } });
    // Only UPS's international services cross the border.
    expect(q.body.data.filter((i: any) => i.service.carrier === 'ups').map((i: any) => i.service.code).sort()).toEqual(['ups_expedited', 'ups_express', 'ups_saver', 'ups_standard']);

    const bought = await post(acct, '/api/v1/shipments', { service: 'ups_express', from, to: US_TO, parcel: PARCEL, customs: CUSTOMS });
    expect(bought.status, bought.text).toBe(201);
    const shipment = bought.body;
    expect(shipment).toMatchObject({ status: 'purchased', livemode: true, price: item.price, customs: { contents_type: 'merchandise', currency: 'GBP' } });
    expect(shipment.tracking.number).toMatch(/^1Z[0-9A-Z]{6}07\d{8}$/);
    expect(Number((await balance(acct)).available)).toBeCloseTo(300 - Number(item.price.gross), 2);

    // What UPS was sent: the phones, attention names and the commercial invoice of the customs.
    const [sent] = shipRequestsFor(shipment.id);
    expect(sent.Shipper.Phone.Number).toBeTruthy();
    expect(sent.ShipTo.Phone.Number).toBeTruthy();
    const forms = sent.ShipmentServiceOptions.InternationalForms;
    expect(forms.FormType).toEqual(['01']);
    expect(forms.Product).toHaveLength(1);
    expect(forms.Product[0]).toMatchObject({ Description: ['Cotton T-shirt'], OriginCountryCode: 'PT', CommodityCode: '610910', PartNumber: 'TS-01' });

    // The carrier's invoice, listed and served through its signed link.
    const docs = await call(stack, 'GET', `/api/v1/shipments/${shipment.id}/documents`, { key: acct.liveKey });
    expect(docs.status, docs.text).toBe(200);
    expect(docs.body.data).toHaveLength(1);
    expect(docs.body.data[0]).toMatchObject({ object: 'shipment_document', type: 'commercial_invoice', format: 'pdf', livemode: true, url: expect.stringMatching(/^http/) });
    const invoice = await download(docs.body.data[0].url);
    expect(invoice.status).toBe(200);
    expect(invoice.type).toContain('application/pdf');
    expect((await openPdf(invoice.body)).pages).toBe(1);
    // UPS's own invoice (a Letter page), not one drawn by us.
    expect((await openPdf(invoice.body)).width).toBe(612);

    // The label files, to the bearer.
    for (const format of ['pdf_6x4', 'pdf_a4', 'zpl']) {
      const file = await download(`${stack.url}${shipment.label.url}?format=${format}`, { authorization: `Bearer ${acct.liveKey}` });
      expect(file.status, format).toBe(200);
      if (format === 'zpl') expect(file.body.toString('latin1').startsWith('^XA')).toBe(true);
      else expect((await openPdf(file.body)).images).toBeGreaterThan(0);
    }

    const voided = await post(acct, `/api/v1/shipments/${shipment.id}/void`, undefined);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(ups.sim.packages.get(shipment.tracking.number)?.voidedAt).not.toBeNull();
    expect(await balance(acct)).toMatchObject({ available: '300.00', pending: '0.00' });
    expect(ups.sim.violations).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });
});

describe('UPS return labels (contract: Returns)', () => {
  it('buys a return label by is_return with ReturnService 9', async () => {
    const acct = await createAccount(stack, { topUp: '200.00' });
    const customer = { ...GB_TO, name: unique('Customer') };
    const shop = GB_FROM();
    const q = await post(acct, '/api/v1/quotes', { from: customer, to: shop, parcel: PARCEL, is_return: true });
    expect(q.status, q.text).toBe(200);
    const item = quoteItem(q, 'ups_standard');
    expect(item).toBeDefined();
    const bought = await post(acct, '/api/v1/shipments', { service: 'ups_standard', from: customer, to: shop, parcel: PARCEL, is_return: true });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body).toMatchObject({ is_return: true, return_of: null, price: item.price, from: { name: customer.name }, to: { name: shop.name } });
    const [sent] = shipRequestsFor(bought.body.id);
    expect(sent.ReturnService).toEqual({ Code: '9' });
    expect(sent.ShipFrom.Address.City).toBe(customer.city);
    expect(sent.ShipTo.Address.City).toBe(shop.city);
    expect(Number((await balance(acct)).available)).toBeCloseTo(200 - Number(item.price.gross), 2);
    expect(ups.sim.violations).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('buys the return of a UPS shipment abroad through /return: addresses swapped, return_of set, returned goods', async () => {
    const acct = await createAccount(stack, { topUp: '400.00' });
    const from = GB_FROM();
    // Duties paid by the sender, with its EORI: billed to our account, as UPS's DDP terms.
    const ddp = { ...CUSTOMS, incoterm: 'DDP', tax_ids: [{ type: 'eori', number: 'GB123456789000', owner: 'sender' }] };
    const out = await post(acct, '/api/v1/shipments', { service: 'ups_express', from, to: US_TO, parcel: PARCEL, customs: ddp });
    expect(out.status, out.text).toBe(201);
    const [outSent] = shipRequestsFor(out.body.id);
    expect(outSent.PaymentInformation.ShipmentCharge.map((c: { Type: string }) => c.Type)).toEqual(['01', '02']);
    expect(outSent.ShipmentServiceOptions.InternationalForms.TermsOfShipment).toBe('DDP');
    expect(outSent.GlobalTaxInformation.AgentTaxIdentificationNumber[0]).toMatchObject({ AgentRole: '20' });

    // The return is quoted from the customer abroad in the account's currency, and charged as quoted.
    const q = await post(acct, '/api/v1/quotes', { from: out.body.to, to: out.body.from, parcel: PARCEL, is_return: true });
    expect(q.status, q.text).toBe(200);
    const item = quoteItem(q, 'ups_express');
    expect(item).toMatchObject({ livemode: true, price: { currency: 'GBP' } });

    const back = await post(acct, `/api/v1/shipments/${out.body.id}/return`, {});
    expect(back.status, back.text).toBe(201);
    expect(back.body.price).toEqual(item.price);
    expect(back.body).toMatchObject({
      status: 'purchased',
      is_return: true,
      return_of: out.body.id,
      service: { code: 'ups_express' },
      from: out.body.to,
      to: out.body.from,
      parcel: out.body.parcel,
      customs: { ...out.body.customs, contents_type: 'returned_goods' },
    });
    const [sent] = shipRequestsFor(back.body.id);
    expect(sent.ReturnService).toEqual({ Code: '9' });
    expect(sent.ShipFrom.Address.CountryCode).toBe('US');
    expect(sent.ShipTo.Address.CountryCode).toBe('GB');
    expect(['05', '10']).toContain(sent.ShipmentServiceOptions.InternationalForms.FormType[0]);
    const docs = await call(stack, 'GET', `/api/v1/shipments/${back.body.id}/documents`, { key: acct.liveKey });
    expect(docs.status, docs.text).toBe(200);
    expect(docs.body.data.map((d: any) => d.type)).toEqual(['commercial_invoice']);
    // Another service, never quoted: UPS is asked at purchase, in the account's currency too.
    const saver = await post(acct, `/api/v1/shipments/${out.body.id}/return`, { service: 'ups_saver' });
    expect(saver.status, saver.text).toBe(201);
    expect(saver.body).toMatchObject({ service: { code: 'ups_saver' }, return_of: out.body.id, price: { currency: 'GBP' } });
    const spent = Number(out.body.price.gross) + Number(back.body.price.gross) + Number(saver.body.price.gross);
    expect(Number((await balance(acct)).available)).toBeCloseTo(400 - spent, 2);
    expect(ups.sim.violations).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });
});

describe('UPS options (contract: Options)', () => {
  it('prices a signature and a declared value in the quote, charges it as quoted, and sends both to UPS', async () => {
    const acct = await createAccount(stack, { topUp: '300.00' });
    const from = GB_FROM();
    const route = { from, to: GB_TO, parcel: PARCEL };
    const options = { signature: 'adult', declared_value: '250.00' };
    const plain = await post(acct, '/api/v1/quotes', route);
    const withOptions = await post(acct, '/api/v1/quotes', { ...route, options });
    expect(withOptions.status, withOptions.text).toBe(200);
    const base = quoteItem(plain, 'ups_standard');
    const item = quoteItem(withOptions, 'ups_standard');
    expect(Number(item.price.net)).toBeGreaterThan(Number(base.price.net));
    // The simulator's surcharges: an adult's signature 7.00 and three started hundreds declared at 1.20, less the account's 10 %.
    expect(Number(item.price.net) - Number(base.price.net)).toBeCloseTo((7 + 3 * 1.2) * 0.9, 1);
    const rated = received.filter((r) => r.operation === 'rate').at(-1)!.body.RateRequest.Shipment;
    expect(rated.Package[0].PackageServiceOptions).toMatchObject({ DeliveryConfirmation: { DCISType: '3' }, DeclaredValue: { CurrencyCode: 'GBP', MonetaryValue: '00250.00' } });

    const bought = await post(acct, '/api/v1/shipments', { service: 'ups_standard', ...route, options });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body).toMatchObject({ price: item.price, options });
    expect(Number((await balance(acct)).available)).toBeCloseTo(300 - Number(item.price.gross), 2);
    const [sent] = shipRequestsFor(bought.body.id);
    expect(sent.Package[0].PackageServiceOptions).toMatchObject({ DeliveryConfirmation: { DCISType: '3' }, DeclaredValue: { CurrencyCode: 'GBP', MonetaryValue: '250.00' } });
    expect(ups.sim.violations).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });
});

describe('UPS refusals with nothing charged (contract: International, Options)', () => {
  it('customs missing, a phone missing abroad, and options the service cannot honour (Saturday on Standard, a signature on a return)', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const shipped = () => ups.sim.log.filter((l) => l.operation === 'ship').length;
    const before = shipped();
    const from = GB_FROM();

    const noCustoms = await post(acct, '/api/v1/shipments', { service: 'ups_express', from, to: US_TO, parcel: PARCEL });
    expect(noCustoms.status, noCustoms.text).toBe(422);
    expect(noCustoms.body.code).toBe('validation_failed');
    expect(paths(noCustoms)).toEqual(['customs']);

    const { phone: _none, ...noPhone } = from;
    const fromPhone = await post(acct, '/api/v1/shipments', { service: 'ups_express', from: noPhone, to: US_TO, parcel: PARCEL, customs: CUSTOMS });
    expect(fromPhone.status, fromPhone.text).toBe(422);
    expect(fromPhone.body.code).toBe('validation_failed');
    expect(paths(fromPhone)).toEqual(['from.phone']);
    const { phone: _to, ...toNoPhone } = US_TO;
    const toPhone = await post(acct, '/api/v1/shipments', { service: 'ups_express', from, to: toNoPhone, parcel: PARCEL, customs: CUSTOMS });
    expect(toPhone.status, toPhone.text).toBe(422);
    expect(toPhone.body.code).toBe('validation_failed');
    expect(paths(toPhone)).toEqual(['to.phone']);

    // Saturday delivery is for UPS's air and express services: left out of the quote, refused on purchase.
    const route = { from, to: GB_TO, parcel: PARCEL };
    const q = await post(acct, '/api/v1/quotes', { ...route, options: { saturday_delivery: true } });
    expect(q.status, q.text).toBe(200);
    expect(quoteItem(q, 'ups_standard')).toBeUndefined();
    const saturday = await post(acct, '/api/v1/shipments', { service: 'ups_standard', ...route, options: { saturday_delivery: true } });
    expect(saturday.status, saturday.text).toBe(422);
    expect(saturday.body.code).toBe('option_not_supported');
    expect(paths(saturday)).toEqual(['options.saturday_delivery']);
    expect(saturday.body.detail).toContain('ups_standard');

    // A signature is for UPS's forward shipments only: a return quote leaves UPS out, and its purchase is refused.
    const returning = { from: { ...GB_TO, name: unique('Customer') }, to: from, parcel: PARCEL, is_return: true, options: { signature: 'required' } };
    const rq = await post(acct, '/api/v1/quotes', returning);
    expect(rq.status, rq.text).toBe(200);
    expect(rq.body.data.filter((i: any) => i.service.carrier === 'ups')).toEqual([]);
    const signed = await post(acct, '/api/v1/shipments', { service: 'ups_standard', ...returning });
    expect(signed.status, signed.text).toBe(422);
    expect(signed.body.code).toBe('option_not_supported');
    expect(paths(signed)).toEqual(['options.signature']);
    expect(signed.body.detail).toContain('ups_standard');

    expect(await balance(acct)).toMatchObject({ available: '100.00', pending: '0.00' });
    expect(shipped()).toBe(before);
    const list = await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey });
    expect(list.body.data.filter((s: any) => s.status === 'purchased')).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });
});
