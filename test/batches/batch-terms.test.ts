// Batch items carry the whole purchase body (contract: Batches; International, returns, address
// checks, options): customs, options, is_return and the addresses' contacts, checked as a single
// purchase checks them. A schema error refuses the batch with its item's path; every other refusal
// fails its item only. Through the API on live acme and in the sandbox, against the simulator.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntriesOf } from '../../db/index.js';
import { parseAmount } from '../../domain/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack();
  sim = simControl(stack.simUrl);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const SENDER = address({ company: 'Widgets Ltd', phone: '+44 20 7946 0000', email: 'ship@widgets.example' });
const FRANCE = { name: 'Rémi Destinataire', line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR', phone: '+33 1 23 45 67 89', email: 'remi@example.fr' };
const LEEDS = address({ name: 'Leeds Shop', city: 'Leeds', postcode: 'LS1 4AP' });
const customs = (over: Record<string, unknown> = {}) => ({
  contents_type: 'merchandise',
  signer: 'Ann Shipper',
  items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'pt', sku: 'TS-01' }],
  ...over,
});
const abroad = (reference: string, over: Record<string, unknown> = {}) => ({ service: 'acme_express', from: SENDER, to: FRANCE, parcel: parcel(), customs: customs(), reference, ...over });
const domestic = (reference: string, over: Record<string, unknown> = {}) => ({ service: 'acme_ground', from: SENDER, to: LEEDS, parcel: parcel(), reference, ...over });
const OPTIONS = { saturday_delivery: true, signature: 'adult', declared_value: '250.00' };

const keyOf = (acct: TestAccount, live: boolean) => (live ? acct.liveKey : acct.testKey);

async function completedItems(key: string, id: string) {
  await eventually(async () => ((await call(stack, 'GET', `/api/v1/batches/${id}`, { key })).body.status === 'completed' ? true : undefined), 120_000, `batch ${id}`);
  const page = await call(stack, 'GET', `/api/v1/batches/${id}/shipments?limit=100`, { key });
  expect(page.status, page.text).toBe(200);
  return page.body.data as any[];
}

/** The gross price a quote gives this service for the route and terms: what a purchase of it must charge. */
async function quotedGross(key: string, body: Record<string, unknown>): Promise<string> {
  const { service, reference: _r, customs: _c, ...route } = body as { service: string; reference: string; customs?: unknown };
  const q = await call(stack, 'POST', '/api/v1/quotes', { key, body: route });
  expect(q.status, q.text).toBe(200);
  return q.body.data.find((d: any) => d.service.code === service).price.gross;
}

/** Acme's own record of a label, as its API answers it (is_return among its fields). */
async function acmeLabel(reference: string) {
  const res = await request(`${stack.simUrl}/acme/v2/labels?reference=${encodeURIComponent(reference)}`);
  return ((await res.body.json()) as { data: Array<{ is_return: boolean; status: string }> }).data;
}

describe('batch items with customs, options and returns', () => {
  for (const live of [true, false]) {
    it(`decides each item as a single purchase would (${live ? 'live acme' : 'sandbox'}): abroad with customs bought, without customs failed, options priced per item, returns`, async () => {
      const acct = await createAccount(stack, { topUp: '300.00' });
      const key = keyOf(acct, live);
      const orders = [
        abroad('abroad'),
        abroad('no-customs', { service: 'acme_ground', customs: undefined }),
        domestic('all-options', { service: 'acme_express', options: OPTIONS }),
        domestic('saturday-on-ground', { options: { saturday_delivery: true } }),
        domestic('signature', { options: { signature: 'required' } }),
        domestic('return', { from: LEEDS, to: SENDER, is_return: true }),
        domestic('customs-at-home', { customs: customs() }),
        domestic('swiftpost-return', { service: 'swiftpost_standard', from: LEEDS, to: SENDER, is_return: true }),
        abroad('swiftpost-abroad', { service: 'swiftpost_standard' }),
      ];
      const prices = {
        abroad: await quotedGross(key, orders[0]),
        options: await quotedGross(key, orders[2]),
        signature: await quotedGross(key, orders[4]),
        plain: await quotedGross(key, domestic('plain')),
        return: await quotedGross(key, orders[5]),
      };
      // Each item pays for its own options: the same route costs more with them, and differently per item.
      expect(parseAmount(prices.signature)!).toBeGreaterThan(parseAmount(prices.plain)!);

      const a = await call(stack, 'POST', '/api/v1/batches', { key, body: { shipments: orders } });
      expect(a.status, a.text).toBe(202);
      const items = await completedItems(key, a.body.id);
      const by = Object.fromEntries(items.map((s) => [s.reference, s]));
      expect(items.map((s) => [s.reference, s.status, s.failure?.code ?? null])).toEqual([
        ['abroad', 'purchased', null],
        ['no-customs', 'failed', 'validation_failed'],
        ['all-options', 'purchased', null],
        ['saturday-on-ground', 'failed', 'option_not_supported'],
        ['signature', 'purchased', null],
        ['return', 'purchased', null],
        ['customs-at-home', 'failed', 'validation_failed'],
        ['swiftpost-return', 'failed', 'service_not_available'],
        ['swiftpost-abroad', 'failed', 'service_not_available'],
      ]);

      // The refusals a single purchase answers, in the item's failure.
      expect(by['no-customs'].failure.message).toBe('customs is required when from.country and to.country differ');
      expect(by['customs-at-home'].failure.message).toBe('customs must be left out when from.country and to.country are the same');
      expect(by['saturday-on-ground'].failure.message).toContain('options.saturday_delivery');
      expect(by['saturday-on-ground'].failure.message).toContain('acme_ground');

      // The shipments answer with their terms, as a single purchase's do.
      expect(by.abroad).toMatchObject({
        is_return: false,
        return_of: null,
        options: {},
        from: { company: 'Widgets Ltd', phone: '+44 20 7946 0000', email: 'ship@widgets.example' },
        to: { country: 'FR', phone: '+33 1 23 45 67 89' },
        customs: { contents_type: 'merchandise', contents_explanation: null, non_delivery: 'return', incoterm: 'DDU', currency: 'GBP', signer: 'Ann Shipper' },
      });
      expect(by.abroad.customs.items).toEqual([{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, hs_tariff_number: '610910', origin_country: 'PT', sku: 'TS-01' }]);
      expect(by['all-options'].options).toEqual(OPTIONS);
      expect(by.signature.options).toEqual({ signature: 'required' });
      expect(by.return).toMatchObject({ is_return: true, customs: null });
      expect(by['no-customs']).toMatchObject({ customs: null, to: { country: 'FR' } });

      // Priced per item: each purchased item charged exactly its quote, terms included.
      expect(by.abroad.price.gross).toBe(prices.abroad);
      expect(by['all-options'].price.gross).toBe(prices.options);
      expect(by.signature.price.gross).toBe(prices.signature);
      expect(by.return.price.gross).toBe(prices.return);

      // The international item's commercial invoice.
      const docs = await call(stack, 'GET', `/api/v1/shipments/${by.abroad.id}/documents`, { key });
      expect(docs.status, docs.text).toBe(200);
      expect(docs.body.data.map((d: any) => d.type)).toEqual(['commercial_invoice']);

      const bought = items.filter((s) => s.status === 'purchased');
      if (live) {
        // Acme has exactly the purchased labels, the return as a return; nothing for a failed item.
        for (const s of items) expect(await acmeLabel(s.id), s.reference).toHaveLength(s.status === 'purchased' ? 1 : 0);
        expect((await acmeLabel(by.return.id))[0].is_return).toBe(true);
        expect((await acmeLabel(by.abroad.id))[0].is_return).toBe(false);
        const captures = (await ledgerEntriesOf(stack.database.db, acct.id)).filter((e) => e.kind === 'capture');
        expect(captures.map((c) => c.shipmentId).sort()).toEqual(bought.map((s) => s.id).sort());
        for (const s of bought) expect(captures.find((c) => c.shipmentId === s.id)!.amount).toBe(parseAmount(s.price.gross));
        const account = await expectLedgerConsistent(stack, acct.id);
        expect(account.balance).toBe(30_000 - bought.reduce((sum, s) => sum + parseAmount(s.price.gross)!, 0));
      } else {
        for (const s of items) expect(await sim.purchases(s.id)).toHaveLength(0);
        expect((await call(stack, 'GET', '/api/v1/account/balance', { key })).body.available).toBe('300.00');
      }
    }, 240_000);
  }

  it('refuses a batch whose item breaks the schema of customs, options or is_return, naming shipments[i]…, starting nothing', async () => {
    const acct = await createAccount(stack, { topUp: '20.00' });
    const line = (over: Record<string, unknown>) => ({ description: 'Pin', quantity: 1, value: '1.00', weight_g: 1, origin_country: 'GB', ...over });
    const orders = [
      abroad('ok'),
      domestic('bad-signature', { options: { signature: 'maybe' } }),
      abroad('other', { customs: customs({ contents_type: 'other' }) }),
      abroad('zero-value', { customs: customs({ items: [line({ value: '0.00' })] }) }),
      domestic('bad-return', { is_return: 'yes' }),
      abroad('bad-phone', { from: address({ phone: 'call me' }) }),
      abroad('unknown-field', { customs: customs({ items: [line({ colour: 'red' })] }) }),
    ];
    const bad = await call(stack, 'POST', '/api/v1/batches', { key: acct.liveKey, body: { shipments: orders } });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.code).toBe('validation_failed');
    expect([...new Set(bad.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual([
      'shipments[1].options.signature',
      'shipments[2].customs.contents_explanation',
      'shipments[3].customs.items[0].value',
      'shipments[4].is_return',
      'shipments[5].from.phone',
      'shipments[6].customs.items[0].colour',
    ]);
    expect((await call(stack, 'GET', '/api/v1/batches', { key: acct.liveKey })).body.data).toEqual([]);
    expect((await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey })).body.data).toEqual([]);
  });
});
