import { randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { insertShipment, ledgerEntriesOf } from '../../db/index.js';
import { pickups } from '../../db/schema-forms.js';
import { insertUser } from '../../db/queries/users.js';
import { makeId } from '../../domain/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { inspectPdf } from '../labels/pdf-inspect.js';
import { simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack();
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const future = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
/** A window on one day (UTC), `days` from today: UPS books a day's ready and close times. */
const dayWindow = (days: number) => {
  const day = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  return { start: `${day}T13:00:00.000Z`, end: `${day}T21:00:00.000Z` };
};
/** The first such window on a day USPS collects (Monday to Saturday), at least a day ahead. */
const uspsWindow = () => {
  for (let days = 2; ; days++) if (new Date(dayWindow(days).start).getUTCDay() !== 0) return dayWindow(days);
};

async function purchased(acct: TestAccount, o: { live?: boolean; from?: Record<string, string>; service?: string } = {}) {
  const marker = `sf-${randomUUID()}`;
  const a = await call(stack, 'POST', '/api/v1/shipments', {
    key: o.live === false ? acct.testKey : acct.liveKey,
    body: { service: o.service ?? 'acme_ground', from: address(o.from), to: address({ name: marker }), parcel: parcel(), reference: marker },
  });
  expect(a.status, a.text).toBe(201);
  return a.body as { id: string; tracking: { number: string } };
}

async function fileOf(acct: TestAccount, formId: string) {
  const res = await request(`${stack.url}/api/v1/scan_forms/${formId}/file`, { headers: { authorization: `Bearer ${acct.liveKey}` } });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, type: res.headers['content-type'], bytes };
}

describe('SCAN forms (acme manifest on the simulator)', () => {
  it('puts purchased shipments of one sender on a form, serves its PDF, and refuses their void', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const a = await purchased(acct);
    const b = await purchased(acct);
    const key = randomUUID();
    const created = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: { shipment_ids: [a.id, b.id] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ object: 'scan_form', livemode: true, carrier: 'acme', shipment_ids: [a.id, b.id] });
    expect(created.body.id).toMatch(/^sf_[0-9a-z]{26}$/);
    expect(Object.keys(created.body).sort()).toEqual(['carrier', 'created_at', 'id', 'livemode', 'object', 'shipment_ids']);

    const replay = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: { shipment_ids: [a.id, b.id] } });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body).toEqual(created.body);

    const read = await call(stack, 'GET', `/api/v1/scan_forms/${created.body.id}`, { key: acct.liveKey });
    expect(read.body).toEqual(created.body);
    const list = await call(stack, 'GET', '/api/v1/scan_forms?limit=1', { key: acct.liveKey });
    expect(list.body.data).toEqual([created.body]);

    const file = await fileOf(acct, created.body.id);
    expect(file.status).toBe(200);
    expect(file.type).toBe('application/pdf');
    const pdf = await inspectPdf(new Uint8Array(file.bytes));
    expect(pdf.pageCount).toBe(1);
    expect(pdf.text).toContain(a.tracking.number);
    expect(pdf.text).toContain(b.tracking.number);

    // The same file behind a signed link, as labels are: no key needed; any edit of the link refused.
    const link = await call(stack, 'GET', `/api/v1/scan_forms/${created.body.id}/file/signed`, { key: acct.liveKey });
    expect(link.status, link.text).toBe(200);
    expect(link.body).toMatchObject({ object: 'file_link', livemode: true, url: expect.stringContaining('/api/v1/scan-form-files/') });
    const signed = await request(link.body.url);
    expect(signed.statusCode).toBe(200);
    expect(signed.headers['content-type']).toBe('application/pdf');
    expect(Buffer.from(await signed.body.arrayBuffer()).equals(file.bytes)).toBe(true);
    const tampered = await request(link.body.url.replace(/sig=./, (m: string) => (m.endsWith('0') ? 'sig=1' : 'sig=0')));
    expect(tampered.statusCode).toBe(403);
    await tampered.body.dump();

    const v = await call(stack, 'POST', `/api/v1/shipments/${a.id}/void`, { key: acct.liveKey });
    expect(v.status, v.text).toBe(409);
    expect(v.body.code).toBe('shipment_not_voidable');
    expect((await sim.purchases(a.id))[0].cancelled).toBe(false);

    // Another account sees nothing of it.
    const other = await createAccount(stack);
    expect((await call(stack, 'GET', `/api/v1/scan_forms/${created.body.id}`, { key: other.liveKey })).status).toBe(404);
    expect((await call(stack, 'GET', `/api/v1/scan_forms/${created.body.id}`, { key: acct.testKey })).status).toBe(404);
  });

  it('lets a SCAN form or a void win, never both, when the two are sent at once', async () => {
    const acct = await createAccount(stack, { topUp: '200.00' });
    const rounds = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const s = await purchased(acct);
        const [voided, form] = await Promise.all([
          call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey }),
          call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [s.id] } }),
        ]);
        const now = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
        const [atCarrier] = await sim.purchases(s.id);
        return { voided, form, status: now.body.status as string, cancelled: atCarrier.cancelled };
      }),
    );
    for (const r of rounds) {
      if (r.form.status === 201) {
        // The form won: the void is refused and the label stays bought, at the carrier too.
        expect(r.voided.status, r.voided.text).toBe(409);
        expect(r.voided.body.code).toBe('shipment_not_voidable');
        expect(r.status).toBe('purchased');
        expect(r.cancelled).toBe(false);
      } else {
        expect(r.form.status, r.form.text).toBe(422);
        expect(r.form.body.code).toBe('validation_failed');
        expect(r.voided.status, r.voided.text).toBe(200);
        expect(r.status).toBe('voided');
      }
    }
    expect(await expectLedgerConsistent(stack, acct.id)).toBeTruthy();
  });

  it('names each shipment at fault: another sender, not purchased, already on a form, unknown', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const a = await purchased(acct);
    const b = await purchased(acct, { from: { line1: '9 Other Road' } });
    const voided = await purchased(acct);
    expect((await call(stack, 'POST', `/api/v1/shipments/${voided.id}/void`, { key: acct.liveKey })).status).toBe(200);
    const onForm = await purchased(acct);
    expect((await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [onForm.id] } })).status).toBe(201);

    const refused = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [a.id, b.id, voided.id, onForm.id, 'shp_nope'] } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe('validation_failed');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['shipment_ids[1]', 'shipment_ids[2]', 'shipment_ids[3]', 'shipment_ids[4]']);
    // Nothing was put on a form: a is still free.
    expect((await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [a.id] } })).status).toBe(201);
  });

  it('refuses mixed carriers and carriers without forms', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const a = await purchased(acct);
    const s = await purchased(acct, { service: 'swiftpost_standard' });
    const refused = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [a.id, s.id] } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ path: 'shipment_ids[1]', message: expect.stringContaining('swiftpost') }]);
    const neither = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: {} });
    expect(neither.status).toBe(422);
    const both = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [a.id], batch_id: 'bat_x' } });
    expect(both.status).toBe(422);
  });

  it('answers a form by a batch that is not the caller\'s with 422 naming batch_id', async () => {
    const acct = await createAccount(stack);
    const byBatch = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { batch_id: 'bat_01j00000000000000000000000' } });
    expect(byBatch.status, byBatch.text).toBe(422);
    expect(byBatch.body.code).toBe('validation_failed');
    expect(byBatch.body.errors).toEqual([{ path: 'batch_id', message: expect.any(String) }]);
  });

  it('puts the purchased shipments of a batch on one form, in item order, leaving its failed items out', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const item = (service: string) => ({ service, from: address(), to: address({ name: `sf-batch-${randomUUID()}` }), parcel: parcel() });
    const batch = await call(stack, 'POST', '/api/v1/batches', { key: acct.liveKey, body: { shipments: [item('acme_ground'), item('no_such_service'), item('acme_ground')] } });
    expect(batch.status, batch.text).toBe(202);
    let done = batch.body;
    for (let i = 0; i < 120 && done.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      done = (await call(stack, 'GET', `/api/v1/batches/${batch.body.id}`, { key: acct.liveKey })).body;
    }
    expect(done.counts).toMatchObject({ total: 3, purchased: 2, failed: 1 });
    const items = (await call(stack, 'GET', `/api/v1/batches/${batch.body.id}/shipments`, { key: acct.liveKey })).body.data as Array<{ id: string; status: string }>;
    const form = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { batch_id: batch.body.id } });
    expect(form.status, form.text).toBe(201);
    expect(form.body.shipment_ids).toEqual(items.filter((s) => s.status !== 'failed').map((s) => s.id));
    const again = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { batch_id: batch.body.id } });
    expect(again.status).toBe(422);
  });

  it('makes sandbox forms locally, in the same shape', async () => {
    const acct = await createAccount(stack);
    const a = await purchased(acct, { live: false });
    const created = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.testKey, body: { shipment_ids: [a.id] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ object: 'scan_form', livemode: false, carrier: 'acme', shipment_ids: [a.id] });
    const res = await request(`${stack.url}/api/v1/scan_forms/${created.body.id}/file`, { headers: { authorization: `Bearer ${acct.testKey}` } });
    expect(res.statusCode).toBe(200);
    await PDFDocument.load(Buffer.from(await res.body.arrayBuffer()));
  });
});

describe('pickups (acme on the simulator)', () => {
  const body = (over: Record<string, unknown> = {}) => ({ carrier: 'acme', address: address(), window: { start: future(24), end: future(28) }, instructions: 'Side door', ...over });

  it('books a pickup, charges its fee like a label and reverses it on cancel', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const before = await expectLedgerConsistent(stack, acct.id);
    const booked = await call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body: body() });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ object: 'pickup', livemode: true, status: 'scheduled', carrier: 'acme', price: { net: '3.50', vat: '0.70', gross: '4.20', currency: 'GBP' } });
    expect(booked.body.id).toMatch(/^pck_/);
    expect(booked.body.confirmation).toBeTruthy();
    const charged = await expectLedgerConsistent(stack, acct.id);
    expect(charged.balance).toBe(before.balance - 420);

    const cancelled = await call(stack, 'POST', `/api/v1/pickups/${booked.body.id}/cancel`, { key: acct.liveKey });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toEqual({ ...booked.body, status: 'cancelled' });
    const after = await expectLedgerConsistent(stack, acct.id);
    expect(after.balance).toBe(before.balance);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup', 'hold', 'capture', 'refund']);
    const list = await call(stack, 'GET', '/api/v1/pickups', { key: acct.liveKey });
    expect(list.body.data).toEqual([cancelled.body]);
  });

  it('answers the carrier refusal 502 with nothing charged', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `refuse-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'pickup', mode: 'error', status: 422, match: marker });
    const refused = await call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, body: body({ address: address({ name: marker }) }) });
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.code).toBe('carrier_error');
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup']);
  });

  it('resolves a booking whose answer was lost on the retry with the same key: booked once, charged once, never shown before', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `lost-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'pickup', mode: 'lost_answer', match: marker, times: 1 });
    const key = randomUUID();
    const sent = body({ address: address({ name: marker }) });
    const send = () => call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: sent });
    const first = await send();
    expect(first.status, first.text).toBe(503);
    expect(first.body.code).toBe('carrier_unavailable');
    // Booked at Acme and recorded here before Acme was asked, yet unknown to the customer: neither listed nor charged.
    const recorded = await stack.database.db.select().from(pickups).where(eq(pickups.accountId, acct.id));
    expect(recorded.map((r) => r.status)).toEqual(['unconfirmed']);
    expect((await call(stack, 'GET', `/api/v1/pickups/${recorded[0].id}`, { key: acct.liveKey })).status).toBe(404);
    expect((await call(stack, 'GET', '/api/v1/pickups', { key: acct.liveKey })).body.data).toEqual([]);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup']);

    const retry = await send();
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toMatchObject({ status: 'scheduled', price: { gross: '4.20' } });
    // Acme keys a booking by our reference (the pickup's id): the retry confirmed the first booking.
    expect(retry.body.id).toBe(recorded[0].id);
    expect(retry.body.confirmation).toBe(`pu_${recorded[0].id}`);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup', 'hold', 'capture']);
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(5000 - 420);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
    expect((await call(stack, 'GET', '/api/v1/pickups', { key: acct.liveKey })).body.data).toEqual([retry.body]);
  });

  it('resolves on the retry a booking left requested by a request that stopped (a crash), asking Acme again by the same reference', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `crash-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'pickup', mode: 'lost_answer', match: marker, times: 1 });
    const key = randomUUID();
    const sent = body({ address: address({ name: marker }) });
    const send = () => call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: sent });
    expect((await send()).status).toBe(503);
    // What a process that stopped between Acme's booking and our record leaves: the row still
    // requested, its key held, recorded longer ago than any carrier call lasts.
    const [row] = await stack.database.db
      .update(pickups)
      .set({ status: 'requested', createdAt: new Date(Date.now() - 3 * 60_000) })
      .where(eq(pickups.accountId, acct.id))
      .returning();
    const retry = await send();
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toMatchObject({ id: row.id, status: 'scheduled', confirmation: `pu_${row.id}` });
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup', 'hold', 'capture']);
  });

  it('makes a retry sent while the first request is still at the carrier wait for it and answer the same pickup', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `slow-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'pickup', mode: 'slow', delay_ms: 1_500, match: marker, times: 1 });
    const key = randomUUID();
    const sent = body({ address: address({ name: marker }) });
    const send = () => call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: sent });
    const first = send();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during = await send();
    const answered = await first;
    expect(answered.status, answered.text).toBe(201);
    expect(during.status, during.text).toBe(201);
    expect(during.body).toEqual(answered.body);
    const after = await send();
    expect(after.status).toBe(201);
    expect(after.body).toEqual(answered.body);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup', 'hold', 'capture']);
  });

  it('refuses a window in the past or ending before it starts', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const past = await call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, body: body({ window: { start: future(-1), end: future(2) } }) });
    expect(past.status).toBe(422);
    expect(past.body.errors).toEqual([{ path: 'window.start', message: expect.any(String) }]);
    const backwards = await call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, body: body({ window: { start: future(5), end: future(4) } }) });
    expect(backwards.status).toBe(422);
    expect(backwards.body.errors).toEqual([{ path: 'window.end', message: expect.any(String) }]);
  });

  it('books sandbox pickups locally, moving no money', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const booked = await call(stack, 'POST', '/api/v1/pickups', { key: acct.testKey, body: body() });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ livemode: false, status: 'scheduled', price: null });
    const cancelled = await call(stack, 'POST', `/api/v1/pickups/${booked.body.id}/cancel`, { key: acct.testKey });
    expect(cancelled.body.status).toBe('cancelled');
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(5000);
  });
});

const US_FROM = { name: 'Sam Wilson Supply Co', line1: '45 L St SW', city: 'Washington', state: 'DC', postcode: '20024', country: 'US' };
const US_TO = { name: 'Nick Fury', line1: '2700 S Jefferson Ave', city: 'St. Louis', state: 'MO', postcode: '63104', country: 'US' };
const US_PARCEL = { weight_g: 2000, length_mm: 300, width_mm: 100, height_mm: 200 };

/**
 * Purchased USPS shipments: labels bought from the simulator's USPS with the live adapter, recorded
 * as purchased rows (USPS purchases through the API need carrier pricing, which is not wired here).
 */
async function uspsShipments(acct: TestAccount, n: number): Promise<Array<{ id: string; trackingNumber: string }>> {
  const adapter = carrierRegistryFor(stack.config).adapter('usps', true);
  const out = [];
  for (let i = 0; i < n; i++) {
    const id = makeId('shp', Date.now(), randomBytes(16));
    const label = await adapter.buy({ reference: id, serviceCode: 'usps_ground_advantage', from: US_FROM, to: US_TO, parcel: US_PARCEL });
    await insertShipment(stack.database.db, {
      id,
      accountId: acct.id,
      livemode: true,
      status: 'purchased',
      serviceCode: 'usps_ground_advantage',
      carrier: 'usps',
      serviceName: 'USPS Ground Advantage',
      fromAddress: US_FROM,
      toAddress: US_TO,
      parcel: US_PARCEL,
      priceNet: 500,
      priceVat: 0,
      priceGross: 500,
      currency: 'USD',
      chargedTo: 'wallet',
      trackingNumber: label.trackingNumber,
      trackingStatus: 'label_created',
    });
    out.push({ id, trackingNumber: label.trackingNumber });
  }
  return out;
}

describe('USPS SCAN forms and pickups, UPS pickups (the simulator\'s real-carrier APIs)', () => {
  it('puts 20 USPS shipments on one SCAN form, serves it as a PDF and refuses their voids', async () => {
    const acct = await createAccount(stack, { currency: 'USD' });
    const shipments = await uspsShipments(acct, 20);
    const created = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: shipments.map((s) => s.id) } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ object: 'scan_form', carrier: 'usps', shipment_ids: shipments.map((s) => s.id) });
    const file = await fileOf(acct, created.body.id);
    expect(file.type).toBe('application/pdf');
    const pdf = await inspectPdf(new Uint8Array(file.bytes));
    expect(pdf.text.replace(/\s+/g, ' ')).toContain('PS FORM 5630');
    for (const s of shipments) expect(pdf.text).toContain(s.trackingNumber);
    const v = await call(stack, 'POST', `/api/v1/shipments/${shipments[7].id}/void`, { key: acct.liveKey });
    expect(v.status, v.text).toBe(409);
    expect(v.body.code).toBe('shipment_not_voidable');
    const again = await call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, body: { shipment_ids: [shipments[0].id] } });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual([{ path: 'shipment_ids[0]', message: expect.stringContaining(created.body.id) }]);
  });

  it('books a UPS pickup, charges its rated fee and reverses it on cancel', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const booked = await call(stack, 'POST', '/api/v1/pickups', {
      key: acct.liveKey,
      body: { carrier: 'ups', address: { ...US_FROM, name: 'Sam Wilson' }, window: dayWindow(2), phone: '202 555 0147' },
    });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ carrier: 'ups', status: 'scheduled', price: { net: '7.75', currency: 'USD' } });
    expect(booked.body.confirmation).toMatch(/^\d{11}$/);
    const gross = Math.round(Number(booked.body.price.gross) * 100);
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(5000 - gross);
    const cancelled = await call(stack, 'POST', `/api/v1/pickups/${booked.body.id}/cancel`, { key: acct.liveKey });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(5000);
    const read = await call(stack, 'GET', `/api/v1/pickups/${booked.body.id}`, { key: acct.liveKey });
    expect(read.body).toEqual(cancelled.body);
  });

  it('books UPS and USPS pickups of a request that names no contact with the deployment\'s own phone and e-mail', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const ups = await call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, body: { carrier: 'ups', address: US_FROM, window: dayWindow(2) } });
    expect(ups.status, ups.text).toBe(201);
    expect(ups.body).toMatchObject({ carrier: 'ups', status: 'scheduled' });
    const usps = await call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, body: { carrier: 'usps', address: US_FROM, window: uspsWindow() } });
    expect(usps.status, usps.text).toBe(201);
    expect(usps.body).toMatchObject({ carrier: 'usps', status: 'scheduled', price: null });
  });

  it('a UPS refusal is 502 carrier_error and nothing is charged', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const marker = `R${randomBytes(4).toString('hex')}`;
    await sim.fault({ carrier: 'ups', operation: 'pickup', mode: 'error', status: 400, match: marker });
    const refused = await call(stack, 'POST', '/api/v1/pickups', {
      key: acct.liveKey,
      body: { carrier: 'ups', address: { ...US_FROM, name: marker }, window: dayWindow(2), phone: '2025550147' },
    });
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.code).toBe('carrier_error');
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(5000);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup']);
    expect((await call(stack, 'GET', '/api/v1/pickups', { key: acct.liveKey })).body.data).toEqual([]);
  });

  it('refuses clearly, never booking twice, the retry of a UPS booking whose answer was lost', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const marker = `L${randomBytes(4).toString('hex')}`;
    await sim.fault({ carrier: 'ups', operation: 'pickup', mode: 'lost_answer', match: marker, times: 1 });
    const key = randomUUID();
    const sent = { carrier: 'ups', address: { ...US_FROM, name: marker }, window: dayWindow(2), phone: '2025550147' };
    const send = () => call(stack, 'POST', '/api/v1/pickups', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: sent });
    const first = await send();
    expect(first.status, first.text).toBe(503);
    // A tripwire: used up if UPS is asked to book again.
    await sim.fault({ carrier: 'ups', operation: 'pickup', mode: 'error', status: 400, match: marker, times: 1 });
    for (let i = 0; i < 2; i++) {
      const retry = await send();
      expect(retry.status, retry.text).toBe(502);
      expect(retry.body.code).toBe('carrier_error');
      expect(retry.body.detail).toMatch(/lost.*Nothing was charged/);
    }
    expect(await sim.faults(marker)).toHaveLength(1);
    await sim.clearFaults(marker);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup']);
    expect((await call(stack, 'GET', '/api/v1/pickups', { key: acct.liveKey })).body.data).toEqual([]);
  });

  it('books a free USPS pickup for the account\'s user and cancels it', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '10.00' });
    await insertUser(stack.database.db, { id: makeId('usr', Date.now(), randomBytes(16)), accountId: acct.id, email: `ops-${randomBytes(6).toString('hex')}@example.com`, passwordHash: 'unused' });
    const [s] = await uspsShipments(acct, 1);
    const booked = await call(stack, 'POST', '/api/v1/pickups', {
      key: acct.liveKey,
      body: { carrier: 'usps', address: US_FROM, window: uspsWindow(), shipment_ids: [s.id], instructions: 'Front desk' },
    });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ carrier: 'usps', status: 'scheduled', price: null });
    expect(booked.body.confirmation).toMatch(/^WTC\d{9}$/);
    const cancelled = await call(stack, 'POST', `/api/v1/pickups/${booked.body.id}/cancel`, { key: acct.liveKey });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(1000);
  });
});
