import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../domain/index.js';
import { eventually, simControl } from '../support/sim.js';
import {
  address,
  call,
  createAccount,
  expectLedgerConsistent,
  parcel,
  startTestStack,
  type TestAccount,
  type TestStack,
} from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // A long wait: on a loaded machine twenty concurrent purchases can take a while, and these tests
  // check the synchronous answers.
  stack = await startTestStack({ purchaseWaitMs: 45_000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const body = (over: Record<string, unknown> = {}) => ({
  service: 'acme_ground',
  from: address(),
  to: address({ name: 'Grace Hopper', city: 'Leeds', postcode: 'LS1 4AP' }),
  parcel: parcel(),
  reference: 'order-1',
  ...over,
});
const minor = (s: string) => parseAmount(s)!;
const buy = (acct: TestAccount, b: unknown, headers: Record<string, string> = {}, live = true) =>
  call(stack, 'POST', '/api/v1/shipments', { key: live ? acct.liveKey : acct.testKey, body: b, headers });
const balance = async (acct: TestAccount) => (await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body;

describe('quotes', () => {
  it('lists every eligible service cheapest first, with gross = net + vat', async () => {
    const acct = await createAccount(stack);
    const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address(), to: address(), parcel: parcel() } });
    expect(q.status).toBe(200);
    const items = q.body.data;
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(new Set(items.map((i: any) => i.service.carrier)).size).toBeGreaterThanOrEqual(2);
    for (const item of items) {
      expect(item.livemode).toBe(false);
      expect(minor(item.price.gross)).toBe(minor(item.price.net) + minor(item.price.vat));
      expect(item.price.currency).toBe('GBP');
      expect(item.price.gross).toMatch(/^\d+\.\d{2}$/);
      expect(item.estimated_delivery_days).toBeGreaterThan(0);
    }
    const grosses = items.map((i: any) => minor(i.price.gross));
    expect([...grosses].sort((a, b) => a - b)).toEqual(grosses);
  });

  it('leaves out services a heavy parcel does not fit, and returns an empty list when none does', async () => {
    const acct = await createAccount(stack);
    const light = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address(), to: address(), parcel: parcel() } });
    const heavy = await call(stack, 'POST', '/api/v1/quotes', {
      key: acct.testKey,
      body: { from: address(), to: address(), parcel: parcel({ weight_g: 28_000 }) },
    });
    expect(heavy.body.data.length).toBeLessThan(light.body.data.length);
    const huge = await call(stack, 'POST', '/api/v1/quotes', {
      key: acct.testKey,
      body: { from: address(), to: address(), parcel: parcel({ weight_g: 69_000 }) },
    });
    expect(huge.status).toBe(200);
    expect(huge.body.data).toEqual([]);
  });
});

describe('buying a label', () => {
  it('charges a live wallet exactly the quoted gross and returns the purchased shipment', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from: address(), to: address(), parcel: parcel() } });
    const quoted = q.body.data.find((i: any) => i.service.code === 'acme_ground');
    const a = await buy(acct, body());
    expect(a.status, a.text).toBe(201);
    const s = a.body;
    expect(s.id).toMatch(/^shp_/);
    expect(s.status).toBe('purchased');
    expect(s.livemode).toBe(true);
    expect(s.reference).toBe('order-1');
    expect(s.service).toEqual({ code: 'acme_ground', carrier: 'acme', name: quoted.service.name });
    expect(s.price).toEqual(quoted.price);
    expect(s.charged_to).toBe('wallet');
    expect(s.tracking.number).toMatch(/^ACM\d{12}$/);
    expect(s.tracking.status).toBe('label_created');
    expect(s.label).toEqual({ formats: ['pdf_6x4', 'pdf_a4', 'zpl'], url: `/api/v1/shipments/${s.id}/label` });
    expect(s.created_at).toMatch(/Z$/);
    expect((await balance(acct)).available).toBe((5000 - minor(quoted.price.gross)) / 100 === 0 ? '0.00' : ((5000 - minor(quoted.price.gross)) / 100).toFixed(2));
    expect((await sim.purchases(s.id)).length).toBe(1);
    const read = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
    expect(read.body.id).toBe(s.id);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('leaves the balance untouched for a sandbox purchase, with a carrier-format tracking number', async () => {
    const acct = await createAccount(stack, { topUp: '10.00' });
    const a = await buy(acct, body({ service: 'swiftpost_standard' }), {}, false);
    expect(a.status, a.text).toBe(201);
    expect(a.body.livemode).toBe(false);
    expect(a.body.tracking.number).toMatch(/^SP\d+GB$/);
    expect((await balance(acct)).available).toBe('10.00');
    expect(await sim.purchases(a.body.id)).toEqual([]);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('charges a credit line, reducing the credit still available', async () => {
    const acct = await createAccount(stack, { funding: 'credit_line', creditLimit: '100.00' });
    const a = await buy(acct, body());
    expect(a.status, a.text).toBe(201);
    expect(a.body.charged_to).toBe('credit_line');
    const b = await balance(acct);
    expect(b.funding_source).toBe('credit_line');
    expect(b.credit_limit).toBe('100.00');
    expect(minor(b.available)).toBe(10000 - minor(a.body.price.gross));
    await expectLedgerConsistent(stack, acct.id);
  });

  it('shows a credit line created without a limit as credit_limit null, with no credit to buy on', async () => {
    const acct = await createAccount(stack, { funding: 'credit_line' });
    const b = await balance(acct);
    expect(b).toMatchObject({ funding_source: 'credit_line', credit_limit: null, available: '0.00', pending: '0.00' });
    const a = await buy(acct, body());
    expect(a.status, a.text).toBe(402);
    expect(a.body.code).toBe('insufficient_funds');
    await stack.admin.setAccount(acct.id, { creditLimit: '50.00' });
    expect(await balance(acct)).toMatchObject({ credit_limit: '50.00', available: '50.00' });
  });

  it('charges a card through the processor: authorized, then captured', async () => {
    const acct = await createAccount(stack, { funding: 'card' });
    const a = await buy(acct, body());
    expect(a.status, a.text).toBe(201);
    expect(a.body.charged_to).toBe('card');
    const charges = await sim.cardCharges(a.body.id);
    expect(charges.map((c) => c.status)).toEqual(['captured']);
    expect(charges[0].amount).toBe(minor(a.body.price.gross));
    expect((await balance(acct)).available).toBeNull();
    await expectLedgerConsistent(stack, acct.id);
  });

  it('answers 402 card_declined when the processor declines, buying nothing', async () => {
    const acct = await createAccount(stack, { funding: 'card' });
    await sim.fault({ carrier: 'cardpay', operation: 'authorize', mode: 'decline', match: acct.id });
    const a = await buy(acct, body());
    expect(a.status, a.text).toBe(402);
    expect(a.body.code).toBe('card_declined');
    expect(a.body.shipment_id).toMatch(/^shp_/);
    expect(await sim.purchases(a.body.shipment_id)).toEqual([]);
    const listed = await call(stack, 'GET', `/api/v1/shipments/${a.body.shipment_id}`, { key: acct.liveKey });
    expect(listed.body.status).toBe('failed');
    expect(listed.body.failure.code).toBe('card_declined');
    await expectLedgerConsistent(stack, acct.id);
  });

  it('answers the carrier\'s refusal (502 with shipment_id) even when the processor refuses to void the card authorization', async () => {
    // The refused void failed the purchase's run: 500 internal_error without shipment_id, and the
    // shipment pending with its hold until the sweep failed it as an internal error.
    const acct = await createAccount(stack, { funding: 'card' });
    const slow = `slow-${randomUUID()}`;
    const refuse = `refuse-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 503, match: slow, times: -1 });
    const answer = buy(acct, body({ from: address({ name: slow }), to: address({ name: refuse }) }));
    // While the carrier is down, the authorization is made: refuse its void, then let the carrier refuse the buy.
    const authorization = await eventually(async () => {
      const all = (await (await fetch(`${stack.simUrl}/_sim/card-charges`)).json()) as { data: Array<{ id: string; customer: string }> };
      return all.data.find((c) => c.customer === acct.id);
    });
    await sim.fault({ carrier: 'cardpay', operation: 'void', mode: 'error', status: 422, match: authorization.id });
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 400, match: refuse });
    await sim.clearFaults(slow);
    const a = await answer;
    expect(a.status, a.text).toBe(502);
    expect(a.body.code).toBe('carrier_error');
    expect(a.body.shipment_id).toMatch(/^shp_/);
    const listed = await call(stack, 'GET', `/api/v1/shipments/${a.body.shipment_id}`, { key: acct.liveKey });
    expect(listed.body.status).toBe('failed');
    expect(listed.body.failure.code).toBe('carrier_error');
    expect((await balance(acct)).pending).toBe('0.00');
    await expectLedgerConsistent(stack, acct.id);
  });

  it('answers 402 insufficient_funds, charges nothing, lists the shipment as failed, and frees the key', async () => {
    const acct = await createAccount(stack, { topUp: '1.00' });
    const key = randomUUID();
    const a = await buy(acct, body(), { 'idempotency-key': key });
    expect(a.status, a.text).toBe(402);
    expect(a.body.code).toBe('insufficient_funds');
    expect(a.headers['content-type']).toContain('application/problem+json');
    const failedId = a.body.shipment_id;
    const failed = await call(stack, 'GET', `/api/v1/shipments/${failedId}`, { key: acct.liveKey });
    expect(failed.body.status).toBe('failed');
    // The service it asked for, named in full though nothing was priced or bought (carrier and name were null).
    expect(failed.body.service).toEqual({ code: 'acme_ground', carrier: 'acme', name: expect.any(String) });
    expect(failed.body.service.name.length).toBeGreaterThan(0);
    expect(await sim.purchases(failedId)).toEqual([]);
    expect((await balance(acct)).available).toBe('1.00');
    const list = await call(stack, 'GET', '/api/v1/shipments?status=failed', { key: acct.liveKey });
    expect(list.body.data.map((s: any) => s.id)).toEqual([failedId]);

    await stack.admin.topUp(acct.id, '50.00');
    const again = await buy(acct, body(), { 'idempotency-key': key });
    expect(again.status, again.text).toBe(201);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
    expect(again.body.id).not.toBe(failedId);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('answers 422 service_not_available for an unknown service or one the parcel does not fit', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const unknown = await buy(acct, body({ service: 'no_such_service' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('service_not_available');
    // The document lists the service codes: an unknown one is refused before anything is recorded.
    expect(unknown.body.errors).toEqual([{ path: 'service', message: expect.any(String) }]);
    const tooHeavy = await buy(acct, body({ service: 'acme_express', parcel: parcel({ weight_g: 25_000 }) }));
    expect(tooHeavy.status).toBe(422);
    expect(tooHeavy.body.code).toBe('service_not_available');
    expect((await balance(acct)).available).toBe('50.00');
    await expectLedgerConsistent(stack, acct.id);
  });
});

describe('the address state (contract: Resources → Address)', () => {
  const usWithoutState = address({ name: 'Pat Lee', line1: '350 5th Ave', city: 'New York', postcode: '10118', country: 'US' });
  const us = (over: Record<string, string> = {}) => ({ ...usWithoutState, state: 'NY', ...over });
  const namedPaths = (a: { body: { errors: Array<{ path: string }> } }) => a.body.errors.map((e) => e.path);

  it('refuses a quote or a purchase with a US address without a state, or a bad state, with 422 naming it', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const quote = (b: unknown) => call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: b });
    for (const [from, to, paths] of [
      [address(), usWithoutState, ['to.state']],
      [usWithoutState, address(), ['from.state']],
      [address(), us({ state: 'ZZ' }), ['to.state']],
      [us({ country: 'CA', state: 'NY', postcode: 'H3B 1A7' }), us({ state: ' ' }), ['from.state', 'to.state']],
      [address({ state: 'TOOLONG' }), address(), ['from.state']],
    ] as const) {
      for (const a of [await quote({ from, to, parcel: parcel() }), await buy(acct, body({ from, to }))]) {
        expect(a.status, a.text).toBe(422);
        expect(a.body.code).toBe('validation_failed');
        expect(namedPaths(a)).toEqual(paths);
      }
    }
    expect(minor((await balance(acct)).available)).toBe(5000);
    expect((await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey })).body.data).toEqual([]);
  });

  it('names a missing state in the same 422 as the other bad fields (contract: Errors, errors[] lists each)', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const bad = { from: address(), to: usWithoutState, parcel: { ...parcel(), weight_g: 0 } };
    for (const a of [await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: bad }), await buy(acct, body(bad))]) {
      expect(a.status, a.text).toBe(422);
      expect(namedPaths(a).sort()).toEqual(['parcel.weight_g', 'to.state']);
    }
  });

  it('quotes and buys with a GB address without a state and a US one with a state, which the shipment keeps', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address(), to: us({ state: ' ny ' }), parcel: parcel() } });
    expect(q.status, q.text).toBe(200);
    expect(q.body.data.length).toBeGreaterThan(0);
    const customs = { contents_type: 'merchandise', signer: 'Ann', items: [{ description: 'Mug', quantity: 1, value: '9.00', weight_g: 300, origin_country: 'GB' }] };
    const bought = await buy(acct, body({ to: us({ state: 'ny ' }), customs }));
    expect(bought.status, bought.text).toBe(201);
    const rows = await stack.database.db.execute(sql`select from_address, to_address from shipments where id = ${bought.body.id}`);
    const row = rows.rows[0] as { from_address: Record<string, unknown>; to_address: Record<string, unknown> };
    expect(row.to_address).toMatchObject({ state: 'NY', country: 'US' });
    expect(row.from_address).not.toHaveProperty('state');
  });
});

describe('idempotency (contract: Idempotency)', () => {
  it('replays the first answer for the same key and request, buying and charging once', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const key = randomUUID();
    const first = await buy(acct, body(), { 'idempotency-key': key });
    expect(first.status).toBe(201);
    // Key order does not change the request.
    const reordered = { reference: 'order-1', parcel: parcel(), to: body().to, from: address(), service: 'acme_ground' };
    const again = await buy(acct, reordered, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // The very bytes, keys in the same order (they were stored as jsonb, which sorts keys).
    expect(again.text).toBe(first.text);
    expect((await sim.purchases(first.body.id)).length).toBe(1);
    expect(minor((await balance(acct)).available)).toBe(5000 - minor(first.body.price.gross));
    await expectLedgerConsistent(stack, acct.id);
  });

  it('answers 422 idempotency_key_reused for the same key with a different request', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const key = randomUUID();
    expect((await buy(acct, body(), { 'idempotency-key': key })).status).toBe(201);
    const other = await buy(acct, body({ reference: 'order-2' }), { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
  });

  it('takes a key again once its record is over 24 hours old: a new purchase, never the old answer', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const key = randomUUID();
    const first = await buy(acct, body(), { 'idempotency-key': key });
    expect(first.status).toBe(201);
    await stack.database.db.execute(
      sql`update idempotency_keys set created_at = now() - interval '25 hours' where account_id = ${acct.id} and key = ${key}`,
    );
    const later = await buy(acct, body({ reference: 'order-2' }), { 'idempotency-key': key });
    expect(later.status, later.text).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.headers['idempotency-replayed']).toBeUndefined();
    const replay = await buy(acct, body({ reference: 'order-2' }), { 'idempotency-key': key });
    expect(replay.body.id).toBe(later.body.id);
    expect(replay.headers['idempotency-replayed']).toBe('true');
  });

  it('keeps keys per account and mode', async () => {
    const a = await createAccount(stack, { topUp: '50.00' });
    const b = await createAccount(stack, { topUp: '50.00' });
    const key = randomUUID();
    const one = await buy(a, body(), { 'idempotency-key': key });
    const two = await buy(b, body(), { 'idempotency-key': key });
    const sandbox = await buy(a, body(), { 'idempotency-key': key }, false);
    expect([one.status, two.status, sandbox.status]).toEqual([201, 201, 201]);
    expect(new Set([one.body.id, two.body.id, sandbox.body.id]).size).toBe(3);
    expect(two.headers['idempotency-replayed']).toBeUndefined();
  });

  it('ends ten concurrent identical requests in one purchase and one charge', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => buy(acct, body(), { 'idempotency-key': key })));
    for (const a of answers) expect([201, 409], a.text).toContain(a.status);
    const ok = answers.filter((a) => a.status === 201);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((a) => a.body.id)).size).toBe(1);
    expect((await sim.purchases(ok[0].body.id)).length).toBe(1);
    const list = await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey });
    expect(list.body.data.length).toBe(1);
    expect(minor((await balance(acct)).available)).toBe(5000 - minor(ok[0].body.price.gross));
    await expectLedgerConsistent(stack, acct.id);
  });

  it('charges exactly twenty prices for twenty concurrent purchases without keys', async () => {
    const acct = await createAccount(stack, { topUp: '500.00' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => buy(acct, body({ reference: `bulk-${i}` }))));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(20);
    const spent = answers.reduce((sum, a) => sum + minor(a.body.price.gross), 0);
    expect(minor((await balance(acct)).available)).toBe(50_000 - spent);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    for (const key of ['x'.repeat(256), 'clé', 'tab\there']) {
      const a = await buy(acct, body(), { 'idempotency-key': key });
      expect(a.status, key).toBe(422);
      expect(a.body.code).toBe('validation_failed');
    }
  });

  it('takes any printable ASCII in an Idempotency-Key, spaces inside it included', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const key = `order 42 / ${randomUUID()} ~!`;
    const first = await buy(acct, body(), { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    const again = await buy(acct, body(), { 'idempotency-key': key });
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });
});

describe('reading shipments', () => {
  it('lists newest first with filters and cursor pagination across pages', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const a = await buy(acct, body({ reference: i % 2 ? 'odd' : 'even' }), {}, false);
      ids.push(a.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await call(stack, 'GET', `/api/v1/shipments?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: acct.testKey });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: any) => s.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const odd = await call(stack, 'GET', '/api/v1/shipments?reference=odd', { key: acct.testKey });
    expect(odd.body.data.map((s: any) => s.id)).toEqual([ids[3], ids[1]]);
    const purchased = await call(stack, 'GET', '/api/v1/shipments?status=purchased&limit=100', { key: acct.testKey });
    expect(purchased.body.data.length).toBe(5);
    const none = await call(stack, 'GET', '/api/v1/shipments?status=voided', { key: acct.testKey });
    expect(none.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    const after = await call(stack, 'GET', `/api/v1/shipments?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
      key: acct.testKey,
    });
    expect(after.body.data).toEqual([]);
    // The first and the last instant we take.
    const ever = await call(stack, 'GET', '/api/v1/shipments?created_after=0001-01-01T00:00:00Z&limit=100', { key: acct.testKey });
    expect(ever.body.data.length).toBe(5);
    const never = await call(stack, 'GET', '/api/v1/shipments?created_after=9999-12-31T23:59:59Z', { key: acct.testKey });
    expect(never.body.data).toEqual([]);
    // ISO 8601 beyond RFC 3339's profile: a date alone, a time to the minute, the basic format.
    for (const since of ['2000-01-01', '2000-01-01T00:00Z', '20000101T000000Z', '2000-01-01T01:00+01:00']) {
      const listed = await call(stack, 'GET', `/api/v1/shipments?created_after=${encodeURIComponent(since)}&limit=100`, { key: acct.testKey });
      expect(listed.status, since).toBe(200);
      expect(listed.body.data.length, since).toBe(5);
    }
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await call(stack, 'GET', `/api/v1/shipments?created_after=${tomorrow}`, { key: acct.testKey })).body.data).toEqual([]);
    const live = await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey });
    expect(live.body.data).toEqual([]);
  });

  // A reference sent with spaces around it is stored trimmed, as every body string is, but the
  // ?reference= filter compared the text as sent, so a client looking its order up by exactly the
  // reference it sent found nothing (found by a black-box audit of spec §2: the reference is echoed).
  it('finds a shipment by the reference as it was sent, spaces around it included', async () => {
    const acct = await createAccount(stack);
    const a = await buy(acct, body({ reference: '  order 42 ' }), {}, false);
    expect(a.status, a.text).toBe(201);
    for (const sent of ['  order 42 ', 'order 42']) {
      const listed = await call(stack, 'GET', `/api/v1/shipments?reference=${encodeURIComponent(sent)}`, { key: acct.testKey });
      expect(listed.status, sent).toBe(200);
      expect(listed.body.data.map((s: any) => s.id), JSON.stringify(sent)).toEqual([a.body.id]);
    }
    expect((await call(stack, 'GET', '/api/v1/shipments?reference=order%2042x', { key: acct.testKey })).body.data).toEqual([]);
  });

  it('refuses an event type no event has, on the events list, with 422 like an unknown status', async () => {
    const acct = await createAccount(stack);
    for (const q of ['type=bogus', 'type=shipment', 'type=']) {
      const a = await call(stack, 'GET', `/api/v1/events?${q}`, { key: acct.testKey });
      expect(a.status, q).toBe(422);
      expect(a.body.code, q).toBe('validation_failed');
    }
    expect((await call(stack, 'GET', '/api/v1/events?type=shipment.purchased', { key: acct.testKey })).status).toBe(200);
  });

  it('names a bad query parameter querystring.<name>, the cursor as every other', async () => {
    const acct = await createAccount(stack);
    const limit = await call(stack, 'GET', '/api/v1/shipments?limit=0', { key: acct.testKey });
    expect(limit.body.errors.map((e: any) => e.path)).toEqual(['querystring.limit']);
    const cursor = await call(stack, 'GET', '/api/v1/shipments?cursor=bm9wZQ', { key: acct.testKey });
    expect(cursor.body.errors.map((e: any) => e.path)).toEqual(['querystring.cursor']);
  });

  // A malformed cursor was refused after the schema's pass, so ?status=shipped&cursor=… answered a 422
  // naming the status alone, and the cursor only once the status was fixed (contract: Errors,
  // errors[] lists each bad field; found by a black-box audit).
  it('names a malformed cursor in the same 422 as the other bad list parameters', async () => {
    const acct = await createAccount(stack);
    const a = await call(stack, 'GET', '/api/v1/shipments?status=shipped&cursor=bm9wZQ&limit=0', { key: acct.testKey });
    expect(a.status, a.text).toBe(422);
    expect(a.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'querystring.cursor', message: 'is not a valid cursor' },
        expect.objectContaining({ path: 'querystring.status' }),
        expect.objectContaining({ path: 'querystring.limit' }),
      ]),
    );
    expect(a.body.errors).toHaveLength(3);
    // A cursor of another list is not one of this list's either; an empty one is no cursor at all.
    const addressCursor = Buffer.from('adr_01m8ef87r7bvxt1q5ae4vyjbk3').toString('base64url');
    const other = await call(stack, 'GET', `/api/v1/shipments?cursor=${addressCursor}&status=shipped`, { key: acct.testKey });
    expect(other.body.errors.map((e: any) => e.path).sort()).toEqual(['querystring.cursor', 'querystring.status']);
    expect((await call(stack, 'GET', '/api/v1/shipments?cursor=', { key: acct.testKey })).status).toBe(200);
  });

  // The events list checked its cursor after the schema's pass too: ?type=nope&cursor=…&limit=0 named
  // the type and the limit, and the cursor only once they were fixed (found by a black-box audit).
  it('names a malformed events cursor in the same 422 as the other bad list parameters', async () => {
    const acct = await createAccount(stack);
    const a = await call(stack, 'GET', '/api/v1/events?type=nope&cursor=bm9wZQ&limit=0', { key: acct.testKey });
    expect(a.status, a.text).toBe(422);
    expect(a.body.errors.map((e: any) => e.path).sort()).toEqual(['querystring.cursor', 'querystring.limit', 'querystring.type']);
    expect(a.body.errors).toContainEqual({ path: 'querystring.cursor', message: 'is not a valid cursor' });
    const shipmentCursor = Buffer.from('shp_01m8ef87r7bvxt1q5ae4vyjbk3').toString('base64url');
    const other = await call(stack, 'GET', `/api/v1/events?cursor=${shipmentCursor}`, { key: acct.testKey });
    expect(other.body.errors, other.text).toEqual([{ path: 'querystring.cursor', message: 'is not a valid cursor' }]);
    const eventCursor = Buffer.from('evt_01m8ef87r7bvxt1q5ae4vyjbk3').toString('base64url');
    expect((await call(stack, 'GET', `/api/v1/events?cursor=${eventCursor}`, { key: acct.testKey })).status).toBe(200);
    expect((await call(stack, 'GET', '/api/v1/events?cursor=', { key: acct.testKey })).status).toBe(200);
  });

  it.each([
    ['/api/v1/addresses', 'adr'],
    ['/api/v1/webhook_endpoints', 'we'],
    ['/api/v1/webhook_endpoints/we_01m8ef87r7bvxt1q5ae4vyjbk3/deliveries', 'whd'],
  ])('names a malformed cursor of %s in the same 422 as a bad limit', async (list, prefix) => {
    const acct = await createAccount(stack);
    const a = await call(stack, 'GET', `${list}?cursor=bm9wZQ&limit=0`, { key: acct.testKey });
    expect(a.status, a.text).toBe(422);
    expect(a.body.errors, a.text).toEqual(
      expect.arrayContaining([
        { path: 'querystring.cursor', message: 'is not a valid cursor' },
        expect.objectContaining({ path: 'querystring.limit' }),
      ]),
    );
    // Another list's cursor is not one of this list's; an empty one is the first page.
    const shipmentCursor = Buffer.from('shp_01m8ef87r7bvxt1q5ae4vyjbk3').toString('base64url');
    const other = await call(stack, 'GET', `${list}?cursor=${shipmentCursor}`, { key: acct.testKey });
    expect(other.body.errors, other.text).toEqual([{ path: 'querystring.cursor', message: 'is not a valid cursor' }]);
    const own = Buffer.from(`${prefix}_01m8ef87r7bvxt1q5ae4vyjbk3`).toString('base64url');
    expect((await call(stack, 'GET', `${list}?cursor=${own}`, { key: acct.testKey })).status).not.toBe(422);
    expect((await call(stack, 'GET', `${list}?cursor=`, { key: acct.testKey })).status).not.toBe(422);
  });

  it('refuses bad list parameters with 422', async () => {
    const acct = await createAccount(stack);
    // Date-times that pass RFC 3339 but name no instant we can store or use (a 500 before): year 0,
    // a year past 9999 once in UTC, a leap second.
    const unusable = ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00%2B01:00', '9999-12-31T23:59:59-01:00', '2026-06-30T23:59:60Z'].map((t) => `created_after=${t}`);
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'status=shipped', 'created_after=yesterday', 'created_after=2026-11-24T10:00', ...unusable, 'cursor=%%%', 'cursor=bm9wZQ', 'colour=red']) {
      const a = await call(stack, 'GET', `/api/v1/shipments?${q}`, { key: acct.testKey });
      expect(a.status, q).toBe(422);
      expect(a.body.code, q).toBe('validation_failed');
    }
  });

  it('answers 404 for another account’s or another mode’s shipment', async () => {
    const owner = await createAccount(stack, { topUp: '50.00' });
    const other = await createAccount(stack, { topUp: '50.00' });
    const s = (await buy(owner, body())).body;
    for (const key of [other.liveKey, other.testKey, owner.testKey]) {
      const a = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key });
      expect(a.status).toBe(404);
      expect(a.body.code).toBe('not_found');
    }
    const missing = await call(stack, 'GET', '/api/v1/shipments/shp_nope', { key: owner.liveKey });
    expect(missing.status).toBe(404);
  });
});

describe('validation (contract: Errors)', () => {
  const post = (acct: TestAccount, b: unknown) => buy(acct, b);

  it('lists every invalid field with its path', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const a = await post(acct, {
      service: 'acme_ground',
      from: { ...address(), country: 'ZZ' },
      to: { name: '   ', line1: '1 Main', city: 'X', postcode: 'Y' },
      parcel: { weight_g: 0, length_mm: 2001, width_mm: 1.5, height_mm: '10' },
      reference: 'r'.repeat(101),
      colour: 'blue',
    });
    expect(a.status).toBe(422);
    expect(a.body.code).toBe('validation_failed');
    const paths = a.body.errors.map((e: any) => e.path);
    for (const p of ['to.name', 'to.country', 'parcel.weight_g', 'parcel.length_mm', 'parcel.width_mm', 'parcel.height_mm', 'reference', 'colour']) {
      expect(paths, p).toContain(p);
    }
    const country = await post(acct, { ...body(), from: { ...address(), country: 'ZZ' } });
    expect(country.status).toBe(422);
    expect(country.body.errors).toEqual([{ path: 'from.country', message: expect.any(String) }]);
  });

  // Fastify checks body, query and headers in turn and stops at the first part in error, and the
  // control-character and no-body checks run before all of them, so one 422 named the first part's
  // (or check's) fields alone and the rest came back once those were fixed (contract: Errors,
  // errors[] lists each bad field; found by a black-box audit).
  it('lists every bad field in one 422, whichever check found the first', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const paths = (a: { body: any }) => a.body.errors.map((e: any) => e.path).sort();
    const control = await post(acct, { ...body({ reference: 'a\u0007b' }), service: undefined, parcel: parcel({ weight_g: 0 }) });
    expect(control.status, control.text).toBe(422);
    expect(paths(control)).toEqual(['parcel.weight_g', 'reference', 'service']);
    expect(control.body.errors.find((e: any) => e.path === 'reference').message).toBe('must not contain control characters');
    // The rest is checked as validation would check it, trimmed: 100 characters with spaces around fit.
    const trimmed = await post(acct, { ...body({ reference: ` ${'r'.repeat(100)} ` }), to: address({ name: 'Ada\u0000' }), service: undefined });
    expect(paths(trimmed)).toEqual(['service', 'to.name']);

    const longKey = { 'idempotency-key': 'k'.repeat(256) };
    const keyAndBody = await buy(acct, { ...body(), parcel: undefined }, longKey);
    expect(keyAndBody.status, keyAndBody.text).toBe(422);
    expect(paths(keyAndBody)).toEqual(['headers.idempotency-key', 'parcel']);

    const s = await buy(acct, body());
    expect(s.status, s.text).toBe(201);
    const voidWithField = await call(stack, 'POST', `/api/v1/shipments/${s.body.id}/void`, { key: acct.liveKey, body: { reason: 'x' }, headers: longKey });
    expect(voidWithField.status, voidWithField.text).toBe(422);
    expect(paths(voidWithField)).toEqual(['headers.idempotency-key', 'reason']);

    const list = await call(stack, 'GET', '/api/v1/shipments?reference=a%07b&limit=0', { key: acct.liveKey });
    expect(list.status, list.text).toBe(422);
    expect(paths(list)).toEqual(['querystring.limit', 'querystring.reference']);
    // Nothing was bought or voided by the refused requests.
    expect((await call(stack, 'GET', `/api/v1/shipments/${s.body.id}`, { key: acct.liveKey })).body.status).toBe('purchased');
  });

  it('requires every required field', async () => {
    const acct = await createAccount(stack);
    const a = await post(acct, {});
    expect(a.status).toBe(422);
    expect(a.body.errors.map((e: any) => e.path).sort()).toEqual(['from', 'parcel', 'service', 'to']);
  });

  it('trims strings and upper-cases the country', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const a = await buy(acct, body({ to: address({ name: '  Grace  ', country: ' gb ' }) }), {}, false);
    expect(a.status, a.text).toBe(201);
  });

  it('answers 400 invalid_json, 415 unsupported_media_type and 413 payload_too_large', async () => {
    const acct = await createAccount(stack);
    const bad = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, rawBody: '{"from":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_json');
    const text = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('unsupported_media_type');
    const big = await call(stack, 'POST', '/api/v1/quotes', {
      key: acct.testKey,
      body: { from: address(), to: address(), parcel: parcel(), pad: 'x'.repeat(70_000) },
    });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
  });
});
