// Issue 42, items 1, 5, 6 (acme and the sandbox) and 7: addresses with a company, phone and e-mail;
// customs, options and return labels on quotes and purchases; the commercial invoice; returns from a
// shipment; VAT outside GBP. Through the API, on sandbox and live keys, against the simulator.
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shipmentWorkflowId } from '../../contract/index.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const FRANCE = { name: 'Rémi Destinataire', line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR', phone: '+33 1 23 45 67 89', email: 'remi@example.fr' };
const customs = (over: Record<string, unknown> = {}) => ({
  contents_type: 'merchandise',
  signer: 'Ann Shipper',
  items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'pt', sku: 'TS-01' }],
  ...over,
});
const abroad = (over: Record<string, unknown> = {}) => ({
  service: 'acme_express',
  from: address({ company: 'Widgets Ltd', phone: '+44 20 7946 0000', email: 'ship@widgets.example' }),
  to: FRANCE,
  parcel: parcel({ weight_g: 1200 }),
  customs: customs(),
  ...over,
});
const post = (acct: TestAccount, path: string, body: unknown, o: { live?: boolean; key?: string } = {}) =>
  call(stack, 'POST', path, { key: o.live === false ? acct.testKey : acct.liveKey, body, headers: o.key ? { 'idempotency-key': o.key } : {} });
const paths = (a: { body: { errors?: Array<{ path: string }> } }) => [...new Set((a.body.errors ?? []).map((e) => e.path))].sort();

describe('validation (contract: International, returns, address checks, options)', () => {
  let acct: TestAccount;
  beforeAll(async () => {
    acct = await createAccount(stack, { topUp: '100.00' });
  });

  it('refuses each broken rule of an address, customs and options, naming its path', async () => {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['phone with letters', abroad({ from: address({ phone: 'call me' }) }), ['from.phone']],
      ['phone over 20', abroad({ from: address({ phone: '1'.repeat(21) }) }), ['from.phone']],
      ['e-mail', abroad({ to: { ...FRANCE, email: 'not-an-email' } }), ['to.email']],
      ['customs missing abroad', abroad({ customs: undefined }), ['customs']],
      ['customs on a domestic route', { ...abroad(), to: address({ name: 'B' }) }, ['customs']],
      ['other without explanation', abroad({ customs: customs({ contents_type: 'other' }) }), ['customs.contents_explanation']],
      ['explanation over 25', abroad({ customs: customs({ contents_type: 'other', contents_explanation: 'x'.repeat(26) }) }), ['customs.contents_explanation']],
      ['unknown contents type', abroad({ customs: customs({ contents_type: 'weapons' }) }), ['customs.contents_type']],
      ['non_delivery', abroad({ customs: customs({ non_delivery: 'burn' }) }), ['customs.non_delivery']],
      ['incoterm', abroad({ customs: customs({ incoterm: 'EXW' }) }), ['customs.incoterm']],
      ['signer over 35', abroad({ customs: customs({ signer: 's'.repeat(36) }) }), ['customs.signer']],
      ['tax id type', abroad({ customs: customs({ tax_ids: [{ type: 'ssn', number: '1', owner: 'sender' }] }) }), ['customs.tax_ids[0].type']],
      ['tax id owner', abroad({ customs: customs({ tax_ids: [{ type: 'eori', number: 'GB1', owner: 'broker' }] }) }), ['customs.tax_ids[0].owner']],
      ['currency', abroad({ customs: customs({ currency: 'pounds' }) }), ['customs.currency']],
      ['no lines', abroad({ customs: customs({ items: [] }) }), ['customs.items']],
      ['31 lines', abroad({ customs: customs({ items: Array.from({ length: 31 }, () => ({ description: 'Pin', quantity: 1, value: '1.00', weight_g: 1, origin_country: 'GB' })) }) }), ['customs.items']],
      ['description over 35', abroad({ customs: customs({ items: [{ description: 'd'.repeat(36), quantity: 1, value: '1.00', weight_g: 1, origin_country: 'GB' }] }) }), ['customs.items[0].description']],
      ['quantity 0', abroad({ customs: customs({ items: [{ description: 'Pin', quantity: 0, value: '1.00', weight_g: 1, origin_country: 'GB' }] }) }), ['customs.items[0].quantity']],
      ['value 0', abroad({ customs: customs({ items: [{ description: 'Pin', quantity: 1, value: '0.00', weight_g: 1, origin_country: 'GB' }] }) }), ['customs.items[0].value']],
      ['value not money', abroad({ customs: customs({ items: [{ description: 'Pin', quantity: 1, value: '1.234', weight_g: 1, origin_country: 'GB' }] }) }), ['customs.items[0].value']],
      ['hs code of 5 digits', abroad({ customs: customs({ items: [{ description: 'Pin', quantity: 1, value: '1.00', weight_g: 1, hs_tariff_number: '61091', origin_country: 'GB' }] }) }), ['customs.items[0].hs_tariff_number']],
      ['origin country', abroad({ customs: customs({ items: [{ description: 'Pin', quantity: 1, value: '1.00', weight_g: 1, origin_country: 'XX' }] }) }), ['customs.items[0].origin_country']],
      ['lines heavier than the parcel', abroad({ customs: customs({ items: [{ description: 'Pin', quantity: 1, value: '1.00', weight_g: 1201, origin_country: 'GB' }] }) }), ['customs.items']],
      ['signature', abroad({ options: { signature: 'maybe' } }), ['options.signature']],
      ['declared value', abroad({ options: { declared_value: '0' } }), ['options.declared_value']],
      ['saturday', abroad({ options: { saturday_delivery: 'yes' } }), ['options.saturday_delivery']],
      ['is_return', abroad({ is_return: 'yes' }), ['is_return']],
    ];
    for (const [what, body, expected] of cases) {
      const answer = await post(acct, '/api/v1/shipments', body);
      expect(answer.status, `${what}: ${answer.text}`).toBe(422);
      expect(answer.body.code, what).toBe('validation_failed');
      expect(paths(answer), what).toEqual(expected);
    }
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body.available).toBe('100.00');
  });

  it('quotes an international route without customs, and refuses customs on a domestic quote', async () => {
    const { customs: _none, service: _s, ...quote } = abroad();
    const answer = await post(acct, '/api/v1/quotes', quote);
    expect(answer.status, answer.text).toBe(200);
    // Acme, UPS, FedEx and DHL Express (their international services) ship abroad; SwiftPost is domestic, USPS leaves from the US only.
    expect(answer.body.data.map((q: any) => q.service.code).sort()).toEqual([
      'acme_express',
      'acme_ground',
      'dhl_express_12',
      'dhl_express_9',
      'dhl_express_economy_select',
      'dhl_express_worldwide',
      'fedex_international_economy',
      'fedex_international_priority',
      'ups_expedited',
      'ups_express',
      'ups_saver',
      'ups_standard',
    ]);
    const domestic = await post(acct, '/api/v1/quotes', { ...quote, to: address({ name: 'B' }), customs: customs() });
    expect(domestic.status).toBe(422);
    expect(paths(domestic)).toEqual(['customs']);
  });

  it('answers an unknown service code as service_not_available, and state with a tab as validation_failed', async () => {
    const unknown = await post(acct, '/api/v1/shipments', abroad({ service: 'acme_teleport' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('service_not_available');
    expect(paths(unknown)).toEqual(['service']);
    const tab = await post(acct, '/api/v1/quotes', { from: address({ state: 'N\tY' }), to: address(), parcel: parcel() });
    expect(tab.status).toBe(422);
  });
});

describe('options', () => {
  it('leaves out of a quote the services that cannot honour them, prices their surcharges, and refuses such a purchase', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const base = { from: address(), to: address({ name: 'B', city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel() };
    const plain = await post(acct, '/api/v1/quotes', base);
    const saturday = await post(acct, '/api/v1/quotes', { ...base, options: { saturday_delivery: true, signature: 'adult', declared_value: '250.00' } });
    expect(saturday.status, saturday.text).toBe(200);
    // Saturday delivery: acme's express, and UPS's air and express services on this route.
    expect(saturday.body.data.map((q: any) => q.service.code).sort()).toEqual(['acme_express', 'ups_express', 'ups_saver']);
    const net = (a: any, code: string) => Number(a.body.data.find((q: any) => q.service.code === code).price.net);
    // Saturday 8.00, an adult's signature 3.50, 250.00 declared is three started hundreds at 1.00.
    expect(net(saturday, 'acme_express') - net(plain, 'acme_express')).toBeCloseTo(8 + 3.5 + 3, 2);

    const refused = await post(acct, '/api/v1/shipments', { ...base, service: 'acme_ground', options: { saturday_delivery: true } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe('option_not_supported');
    expect(paths(refused)).toEqual(['options.saturday_delivery']);
    expect(refused.body.detail).toContain('acme_ground');

    const bought = await post(acct, '/api/v1/shipments', { ...base, service: 'acme_express', options: { saturday_delivery: true, signature: 'adult', declared_value: '250.00' } });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.price.gross).toBe(saturday.body.data.find((q: any) => q.service.code === 'acme_express').price.gross);
    expect(bought.body.options).toEqual({ saturday_delivery: true, signature: 'adult', declared_value: '250.00' });
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body.available).toBe((100 - Number(bought.body.price.gross)).toFixed(2));
    await expectLedgerConsistent(stack, acct.id);
  });
});

for (const live of [true, false]) {
  describe(`shipping abroad and returns (${live ? 'live acme' : 'sandbox'})`, () => {
    it('buys an international label with customs, serves its invoice, and buys its return', async () => {
      const acct = await createAccount(stack, { topUp: '200.00' });
      const bought = await post(acct, '/api/v1/shipments', abroad(), { live, key: randomUUID() });
      expect(bought.status, bought.text).toBe(201);
      const shipment = bought.body;
      expect(shipment).toMatchObject({
        is_return: false,
        return_of: null,
        options: {},
        from: { company: 'Widgets Ltd', phone: '+44 20 7946 0000', email: 'ship@widgets.example' },
        to: { country: 'FR', phone: '+33 1 23 45 67 89', email: 'remi@example.fr' },
        parcel: { weight_g: 1200 },
        customs: { contents_type: 'merchandise', contents_explanation: null, non_delivery: 'return', incoterm: 'DDU', currency: 'GBP', signer: 'Ann Shipper' },
      });
      expect(shipment.customs.items[0]).toEqual({ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT', sku: 'TS-01' });
      expect((await call(stack, 'GET', `/api/v1/shipments/${shipment.id}`, { key: live ? acct.liveKey : acct.testKey })).body).toEqual(shipment);
      // The webhooks' shipment object is the event's: the same fields.
      const events = await call(stack, 'GET', '/api/v1/events', { key: live ? acct.liveKey : acct.testKey });
      const purchased = events.body.data.find((e: any) => e.type === 'shipment.purchased' && e.data.object.id === shipment.id);
      const { from, to, parcel: box, customs: declared, options, is_return, return_of } = shipment;
      expect(purchased.data.object).toMatchObject({ from, to, parcel: box, customs: declared, options, is_return, return_of });

      const docs = await call(stack, 'GET', `/api/v1/shipments/${shipment.id}/documents`, { key: live ? acct.liveKey : acct.testKey });
      expect(docs.status, docs.text).toBe(200);
      expect(docs.body.data).toHaveLength(1);
      expect(docs.body.data[0]).toMatchObject({ object: 'shipment_document', type: 'commercial_invoice', format: 'pdf', livemode: live });
      const file = await request(docs.body.data[0].url);
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('application/pdf');
      const pdf = Buffer.from(await file.body.arrayBuffer());
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const again = await request(docs.body.data[0].url);
      expect(Buffer.from(await again.body.arrayBuffer()).equals(pdf)).toBe(true);

      const key = randomUUID();
      const back = await post(acct, `/api/v1/shipments/${shipment.id}/return`, {}, { live, key });
      expect(back.status, back.text).toBe(201);
      expect(back.body).toMatchObject({ is_return: true, return_of: shipment.id, service: { code: 'acme_express' }, from: shipment.to, to: shipment.from, parcel: shipment.parcel });
      expect(back.body.customs).toEqual({ ...shipment.customs, contents_type: 'returned_goods' });
      const replay = await post(acct, `/api/v1/shipments/${shipment.id}/return`, {}, { live, key });
      expect(replay.headers['idempotency-replayed']).toBe('true');
      expect(replay.body.id).toBe(back.body.id);
      const ground = await post(acct, `/api/v1/shipments/${shipment.id}/return`, { service: 'acme_ground' }, { live, key: randomUUID() });
      expect(ground.status, ground.text).toBe(201);
      expect(ground.body.service.code).toBe('acme_ground');
      if (live) await expectLedgerConsistent(stack, acct.id);
    });
  });
}

describe('returns', () => {
  it('buys a return label by is_return, domestic, and refuses the return of a shipment without a label with 409', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const body = { service: 'acme_ground', from: address({ name: 'Customer' }), to: address({ name: 'Shop', city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel(), is_return: true };
    const quote = await post(acct, '/api/v1/quotes', { from: body.from, to: body.to, parcel: body.parcel, is_return: true });
    // Acme and UPS make return labels; SwiftPost makes none.
    expect(quote.body.data.map((q: any) => q.service.code).sort()).toEqual(['acme_express', 'acme_ground', 'ups_expedited', 'ups_express', 'ups_saver', 'ups_standard']);
    const bought = await post(acct, '/api/v1/shipments', body);
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body).toMatchObject({ is_return: true, return_of: null, customs: null });
    const refused = await post(acct, '/api/v1/shipments', { ...body, service: 'swiftpost_standard' });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('service_not_available');

    const voided = await call(stack, 'POST', `/api/v1/shipments/${bought.body.id}/void`, { key: acct.liveKey });
    expect(voided.body.status).toBe('voided');
    const noLabel = await post(acct, `/api/v1/shipments/${bought.body.id}/return`, undefined);
    expect(noLabel.status, noLabel.text).toBe(409);
    expect(noLabel.body.code).toBe('label_not_available');
    expect(await post(acct, `/api/v1/shipments/shp_${'0'.repeat(26)}/return`, {})).toMatchObject({ status: 404 });
  });
});

describe('the address book', () => {
  it('stores and answers company, phone and e-mail; an edit clears one with null', async () => {
    const acct = await createAccount(stack);
    const saved = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ company: ' Widgets Ltd ', phone: '+44 (0)20 7946-0000', email: 'a@b.example' }) });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ company: 'Widgets Ltd', phone: '+44 (0)20 7946-0000', email: 'a@b.example' });
    const plain = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address() });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ company: null, phone: null, email: null });
    const edited = await call(stack, 'PATCH', `/api/v1/addresses/${saved.body.id}`, { key: acct.testKey, body: { phone: null, email: 'c@d.example' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ company: 'Widgets Ltd', phone: null, email: 'c@d.example' });
    expect((await call(stack, 'GET', `/api/v1/addresses/${saved.body.id}`, { key: acct.testKey })).body).toEqual(edited.body);
  });
});

describe('personal data in workflow histories', () => {
  it('holds no phone, e-mail or customs description in clear', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const secret = randomUUID().slice(0, 8);
    const bought = await post(acct, '/api/v1/shipments', abroad({
      from: address({ phone: '+44 1234 567890', email: `${secret}@widgets.example` }),
      customs: customs({ items: [{ description: `Gift ${secret}`, quantity: 1, value: '5.00', weight_g: 100, origin_country: 'GB' }] }),
    }));
    expect(bought.status, bought.text).toBe(201);
    const history = await stack.temporal.workflow.getHandle(shipmentWorkflowId(bought.body.id)).fetchHistory();
    const raw = JSON.stringify(history, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain('1234 567890');
  });
});

describe('accounts outside GBP', () => {
  it('have a VAT rate of 0 unless one is given', async () => {
    const usd = await createAccount(stack, { currency: 'USD' });
    const eur = await createAccount(stack, { currency: 'EUR', vatRate: '21' });
    const gbp = await createAccount(stack);
    const vat = async (acct: TestAccount) =>
      (await post(acct, '/api/v1/quotes', { from: address(), to: address({ name: 'B' }), parcel: parcel() }, { live: false })).body.data[0].price.vat;
    expect(await vat(usd)).toBe('0.00');
    expect(Number(await vat(eur))).toBeGreaterThan(0);
    expect(Number(await vat(gbp))).toBeGreaterThan(0);
  });
});

describe('the OpenAPI document states what validation enforces', () => {
  it('a state without control characters, a SCAN form of shipment_ids or batch_id, the service codes as an enum', async () => {
    const doc = (await call(stack, 'GET', '/api/v1/openapi.json')).body;
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    const state = new RegExp(body('/api/v1/quotes').properties.from.properties.state.pattern);
    expect(state.test('NY')).toBe(true);
    expect(state.test(' NY ')).toBe(true);
    expect(state.test('\tNY')).toBe(false);
    expect(state.test('NY\n')).toBe(false);
    expect(body('/api/v1/scan_forms').oneOf).toEqual([{ required: ['shipment_ids'] }, { required: ['batch_id'] }]);
    expect(body('/api/v1/shipments').properties.service.enum).toEqual(expect.arrayContaining(['acme_ground', 'swiftpost_standard', 'ups_ground', 'usps_ground_advantage']));
    const both = await post(await createAccount(stack), '/api/v1/scan_forms', { shipment_ids: ['shp_x'], batch_id: 'bat_x' }, { live: false });
    expect(both.status).toBe(422);
    expect(paths(both)).toEqual(['(body)']);
  });
});
