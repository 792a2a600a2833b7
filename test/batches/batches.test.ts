// Batches end to end on the real stack (API, Temporal dev server, PostgreSQL, workers, carrier
// simulator), driven over HTTP as a customer's system would: a day's orders bought in one request.
import { randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWorkflowId, shipmentWorkflowId } from '../../contract/index.js';
import { ledgerEntriesOf } from '../../db/index.js';
import { parseAmount } from '../../domain/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
const receivers: Receiver[] = [];
beforeAll(async () => {
  stack = await startTestStack({ webhookAllowPrivate: true });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
});

const item = (reference: string, service = 'acme_ground', over: Record<string, unknown> = {}) => ({
  service,
  from: address(),
  to: address({ name: `To ${reference}`, city: 'Leeds', postcode: 'LS1 4AP' }),
  parcel: parcel(),
  reference,
  ...over,
});

type Batch = { id: string; status: string; label_format: string; livemode: boolean; counts: { total: number; pending: number; purchased: number; failed: number }; completed_at: string | null };

const postBatch = (key: string, body: unknown, headers: Record<string, string> = {}) => call(stack, 'POST', '/api/v1/batches', { key, body, headers });

const completed = (key: string, id: string, ms = 120_000) =>
  eventually(async () => {
    const b = await call(stack, 'GET', `/api/v1/batches/${id}`, { key });
    return b.body.status === 'completed' ? (b.body as Batch) : undefined;
  }, ms, `batch ${id} to complete`);

/** Every shipment of a batch, through its paged list (item order). */
async function itemsOf(key: string, id: string, limit = 10) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await call(stack, 'GET', `/api/v1/batches/${id}/shipments?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status, page.text).toBe(200);
    out.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

async function download(key: string | undefined, url: string) {
  const res = await request(url.startsWith('http') ? url : `${stack.url}${url}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.statusCode, type: String(res.headers['content-type']), bytes: Buffer.from(await res.body.arrayBuffer()) };
}

async function grossOf(acct: TestAccount, service: string): Promise<number> {
  const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from: address(), to: address({ city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel() } });
  expect(q.status, q.text).toBe(200);
  return parseAmount(q.body.data.find((d: any) => d.service.code === service).price.gross)!;
}

describe('batches', () => {
  it('buys each item as a single purchase does: carriers mixed, funds running out and an unknown service each decided per item; one merged PDF; batch.completed delivered once', async () => {
    const probe = await createAccount(stack, { topUp: '1.00' });
    const acme = await grossOf(probe, 'acme_ground');
    const swift = await grossOf(probe, 'swiftpost_standard');
    const run = randomUUID();
    const orders = Array.from({ length: 30 }, (_, i) => {
      if (i === 5) return item(`${run}-${i}`, 'no_such_service');
      return item(`${run}-${i}`, i % 2 ? 'swiftpost_standard' : 'acme_ground');
    });
    const buyable = orders.reduce((sum, o, i) => (i === 5 ? sum : sum + (o.service === 'acme_ground' ? acme : swift)), 0);
    // About 60% of what the buyable items cost: the account runs out of funds part of the way.
    const topUp = Math.floor(buyable * 0.6);
    const acct = await createAccount(stack, { topUp: (topUp / 100).toFixed(2) });
    const r = await startReceiver();
    receivers.push(r);
    const ep = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.liveKey, body: { url: r.url, events: ['batch.completed'] } });
    expect(ep.status, ep.text).toBe(201);

    const a = await postBatch(acct.liveKey, { shipments: orders });
    expect(a.status, a.text).toBe(202);
    expect(a.body).toMatchObject({ object: 'batch', livemode: true, label_format: 'pdf_6x4', completed_at: null });
    expect(a.body.id).toMatch(/^bat_/);
    expect(a.body.counts.total).toBe(30);
    expect(a.headers.location).toBe(`/api/v1/batches/${a.body.id}`);

    const done = await completed(acct.liveKey, a.body.id);
    expect(done.counts.pending).toBe(0);
    expect(done.counts.purchased + done.counts.failed).toBe(30);
    expect(done.completed_at).not.toBeNull();

    const items = await itemsOf(acct.liveKey, a.body.id);
    expect(items.map((s) => s.reference)).toEqual(orders.map((o) => o.reference));
    expect(items.every((s) => s.batch_id === a.body.id)).toBe(true);
    expect(items.every((s) => s.status === 'purchased' || s.status === 'failed')).toBe(true);
    expect(items[5].failure.code).toBe('service_not_available');
    const others = items.filter((_, i) => i !== 5);
    const failedForFunds = others.filter((s) => s.status === 'failed');
    expect(failedForFunds.length).toBeGreaterThan(0);
    expect(failedForFunds.every((s) => s.failure.code === 'insufficient_funds')).toBe(true);
    const bought = items.filter((s) => s.status === 'purchased');
    expect(bought.length).toBe(done.counts.purchased);
    expect(new Set(bought.map((s) => s.service.carrier))).toEqual(new Set(['acme', 'swiftpost']));

    // Charges match the items: one capture per purchased item, of its price; nothing else moved.
    const entries = await ledgerEntriesOf(stack.database.db, acct.id);
    const captures = entries.filter((e) => e.kind === 'capture');
    expect(captures.map((c) => c.shipmentId).sort()).toEqual(bought.map((s) => s.id).sort());
    for (const s of bought) expect(captures.find((c) => c.shipmentId === s.id)!.amount).toBe(parseAmount(s.price.gross)!);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.pending).toBe(0);
    expect(account.balance).toBe(topUp - bought.reduce((sum, s) => sum + parseAmount(s.price.gross)!, 0));
    // The carrier has exactly one label for each purchased item.
    for (const s of bought.filter((x) => x.service.carrier === 'acme')) expect((await sim.purchases(s.id)).length).toBe(1);

    // The list filter and every shipment's batch_id.
    const listed = await call(stack, 'GET', `/api/v1/shipments?batch_id=${a.body.id}&limit=100`, { key: acct.liveKey });
    expect(listed.body.data).toHaveLength(30);
    // A single purchase outside the batch: bought, or failed for the funds the batch spent; either way a shipment.
    const single = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: item(`single-${run}`, 'acme_ground') });
    const singleId = single.body.id ?? single.body.shipment_id;
    expect(singleId, single.text).toMatch(/^shp_/);
    expect((await call(stack, 'GET', `/api/v1/shipments/${singleId}`, { key: acct.liveKey })).body.batch_id).toBeNull();
    // The batch and its items wait behind single purchases whenever tasks queue (BATCH_PRIORITY); the
    // single purchase keeps the default.
    const priorityOf = async (workflowId: string) => (await stack.temporal.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.priority?.priorityKey ?? 0;
    expect(await priorityOf(batchWorkflowId(a.body.id))).toBe(4);
    expect(await priorityOf(shipmentWorkflowId(bought[0].id))).toBe(4);
    expect(await priorityOf(shipmentWorkflowId(singleId))).toBe(0);

    // One PDF page per purchased label, in item order.
    const file = await download(acct.liveKey, `/api/v1/batches/${a.body.id}/label`);
    expect(file.status).toBe(200);
    expect(file.type).toBe('application/pdf');
    expect((await PDFDocument.load(file.bytes)).getPageCount()).toBe(bought.length);
    const link = await call(stack, 'GET', `/api/v1/batches/${a.body.id}/label/signed`, { key: acct.liveKey });
    expect(link.status, link.text).toBe(200);
    expect(link.body).toMatchObject({ object: 'label_link', format: 'pdf_6x4', livemode: true });
    const signed = await download(undefined, link.body.url);
    expect(signed.status).toBe(200);
    expect(signed.bytes.equals(file.bytes)).toBe(true);
    const tampered = await download(undefined, link.body.url.replace(/sig=./, (m: string) => (m.endsWith('0') ? 'sig=1' : 'sig=0')));
    expect(tampered.status).toBe(403);

    // batch.completed, once, with the batch.
    const event = await eventually(async () => r.received.find((x) => x.body?.type === 'batch.completed'), 30_000, 'batch.completed');
    expect(event.body.data.object).toMatchObject({ id: a.body.id, object: 'batch', status: 'completed', counts: done.counts });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(r.received.filter((x) => x.body?.type === 'batch.completed')).toHaveLength(1);
    const events = await call(stack, 'GET', '/api/v1/events?type=batch.completed', { key: acct.liveKey });
    expect(events.body.data).toHaveLength(1);

    const batches = await call(stack, 'GET', '/api/v1/batches', { key: acct.liveKey });
    expect(batches.body.data.map((b: Batch) => b.id)).toEqual([a.body.id]);
  }, 240_000);

  // Its own account with funds for every item: in a batch whose funds run out, which items get them
  // depends on the order their purchases reach the ledger, and a refused item could lose that race.
  it('decides a carrier refusal per item: the refused item fails with carrier_error and is not charged; the rest are bought', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const run = randomUUID();
    const refused = `refuse-${run}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 400, match: refused, times: -1 });
    const orders = [item(`ok-${run}-0`), item(refused), item(`ok-${run}-2`, 'swiftpost_standard')];
    const a = await postBatch(acct.liveKey, { shipments: orders });
    expect(a.status, a.text).toBe(202);
    const done = await completed(acct.liveKey, a.body.id);
    await sim.clearFaults(refused);
    expect(done.counts).toEqual({ total: 3, pending: 0, purchased: 2, failed: 1 });

    const items = await itemsOf(acct.liveKey, a.body.id);
    expect(items.map((s) => s.reference)).toEqual(orders.map((o) => o.reference));
    expect(items.map((s) => s.status)).toEqual(['purchased', 'failed', 'purchased']);
    expect(items[1].failure.code).toBe('carrier_error');
    expect(await sim.purchases(items[1].id)).toHaveLength(0);
    const captures = (await ledgerEntriesOf(stack.database.db, acct.id)).filter((e) => e.kind === 'capture');
    expect(captures.map((c) => c.shipmentId).sort()).toEqual([items[0].id, items[2].id].sort());
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.pending).toBe(0);
    expect(account.balance).toBe(5000 - parseAmount(items[0].price.gross)! - parseAmount(items[2].price.gross)!);
  }, 240_000);

  it('answers 409 batch_not_completed for the file while processing; sandbox batches merge ZPL and move no money', async () => {
    const acct = await createAccount(stack, { topUp: '20.00' });
    const slow = `slow-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 1500, match: slow, times: -1 });
    const a = await postBatch(acct.liveKey, { shipments: [item(`${slow}-0`), item(`${slow}-1`)], label_format: 'zpl' });
    expect(a.status, a.text).toBe(202);
    expect(a.body.status).toBe('processing');
    const early = await call(stack, 'GET', `/api/v1/batches/${a.body.id}/label`, { key: acct.liveKey });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('batch_not_completed');
    expect((await call(stack, 'GET', `/api/v1/batches/${a.body.id}/label/signed`, { key: acct.liveKey })).body.code).toBe('batch_not_completed');
    await completed(acct.liveKey, a.body.id);
    await sim.clearFaults(slow);

    const sandbox = await postBatch(acct.testKey, { shipments: [item('s-0'), item('s-1', 'swiftpost_standard'), item('s-2')], label_format: 'zpl' });
    expect(sandbox.status, sandbox.text).toBe(202);
    expect(sandbox.body.livemode).toBe(false);
    const done = await completed(acct.testKey, sandbox.body.id);
    expect(done.counts).toEqual({ total: 3, pending: 0, purchased: 3, failed: 0 });
    const zpl = await download(acct.testKey, `/api/v1/batches/${sandbox.body.id}/label`);
    expect(zpl.status).toBe(200);
    expect(zpl.type).toBe('application/zpl');
    const text = zpl.bytes.toString('utf8');
    expect(text.match(/\^XA/g)).toHaveLength(3);
    expect(text.match(/\^XZ/g)).toHaveLength(3);
    // Sandbox and live never mix; the sandbox moved no money.
    expect((await call(stack, 'GET', `/api/v1/batches/${sandbox.body.id}`, { key: acct.liveKey })).status).toBe(404);
    const balance = await call(stack, 'GET', '/api/v1/account/balance', { key: acct.testKey });
    const live = (await itemsOf(acct.liveKey, a.body.id)).reduce((sum, s) => sum + parseAmount(s.price.gross)!, 0);
    expect(parseAmount(balance.body.available)!).toBe(2000 - live);
  }, 240_000);

  it('a ZPL batch with a UPS label whose ZPL the carrier withheld completes, announces batch.completed, and answers 409 label_not_available for its file', async () => {
    const acct = await createAccount(stack, { topUp: '200.00' });
    const r = await startReceiver();
    receivers.push(r);
    const ep = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.liveKey, body: { url: r.url, events: ['batch.completed'] } });
    expect(ep.status, ep.text).toBe(201);
    // UPS refuses to recover the ZPL of the label addressed to this word; every other label has its ZPL.
    const withheld = `NOZPL${randomUUID().slice(0, 8).toUpperCase()}`;
    await sim.fault({ carrier: 'ups', operation: 'lookup', mode: 'error', status: 400, match: withheld, times: -1 });
    // UPS takes names and references of at most 35 characters.
    const run = randomUUID().slice(0, 8);
    const orders = [
      item(`${run}-0`),
      item(`${run}-1`, 'ups_standard', { to: address({ name: `${withheld} Recipient`, city: 'Leeds', postcode: 'LS1 4AP' }) }),
      item(`${run}-2`, 'ups_standard'),
      item(`${run}-3`, 'swiftpost_standard'),
    ];
    const a = await postBatch(acct.liveKey, { shipments: orders, label_format: 'zpl' });
    expect(a.status, a.text).toBe(202);
    const done = await completed(acct.liveKey, a.body.id);
    const items = await itemsOf(acct.liveKey, a.body.id);
    expect(done.counts, JSON.stringify(items.map((s) => [s.service.code, s.status, s.failure]))).toEqual({ total: 4, pending: 0, purchased: 4, failed: 0 });
    // The item's own ZPL is not to be had; its PDF is.
    const single = await download(acct.liveKey, `/api/v1/shipments/${items[1].id}/label?format=zpl`);
    expect(single.status).toBe(409);
    expect((await download(acct.liveKey, `/api/v1/shipments/${items[1].id}/label`)).status).toBe(200);

    // Not every purchased label exists as ZPL: no merged file, and a code the client can act on.
    const file = await call(stack, 'GET', `/api/v1/batches/${a.body.id}/label`, { key: acct.liveKey });
    expect(file.status).toBe(409);
    expect(file.body.code).toBe('label_not_available');
    expect(file.body.detail).toContain(`/api/v1/batches/${a.body.id}/shipments`);
    const link = await call(stack, 'GET', `/api/v1/batches/${a.body.id}/label/signed`, { key: acct.liveKey });
    expect(link.status).toBe(409);
    expect(link.body.code).toBe('label_not_available');
    const event = await eventually(async () => r.received.find((x) => x.body?.type === 'batch.completed'), 30_000, 'batch.completed');
    expect(event.body.data.object).toMatchObject({ id: a.body.id, status: 'completed', counts: done.counts });

    // The same orders without the withheld label: one ZPL file, each item's own ZPL in item order.
    const whole = await postBatch(acct.liveKey, { shipments: [orders[0], orders[2], orders[3]].map((o, i) => ({ ...o, reference: `${run}-whole-${i}` })), label_format: 'zpl' });
    expect(whole.status, whole.text).toBe(202);
    expect((await completed(acct.liveKey, whole.body.id)).counts.purchased).toBe(3);
    const merged = await download(acct.liveKey, `/api/v1/batches/${whole.body.id}/label`);
    expect(merged.status).toBe(200);
    expect(merged.type).toBe('application/zpl');
    const parts = [];
    for (const s of await itemsOf(acct.liveKey, whole.body.id)) {
      const own = await download(acct.liveKey, `/api/v1/shipments/${s.id}/label?format=zpl`);
      expect(own.status).toBe(200);
      parts.push(own.bytes.toString('utf8').trim());
    }
    expect(merged.bytes.toString('utf8')).toBe(`${parts.join('\n')}\n`);
    await sim.clearFaults(withheld);
  }, 240_000);

  it('refuses a batch with a schema-breaking item with 422 and paths like shipments[3].parcel.weight_g, starting nothing; takes 1,000 items over the 64 KiB limit', async () => {
    const acct = await createAccount(stack, { topUp: '20.00' });
    const orders: unknown[] = [item('a'), item('b'), item('c'), item('d', 'acme_ground', { parcel: parcel({ weight_g: 0 }) })];
    delete (orders[1] as Record<string, unknown>).to;
    const bad = await postBatch(acct.liveKey, { shipments: orders });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.code).toBe('validation_failed');
    const paths = bad.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain('shipments[3].parcel.weight_g');
    expect(paths).toContain('shipments[1].to');
    expect((await call(stack, 'GET', '/api/v1/batches', { key: acct.liveKey })).body.data).toEqual([]);
    expect((await call(stack, 'GET', '/api/v1/shipments', { key: acct.liveKey })).body.data).toEqual([]);

    // 1,000 items is some 250 KiB: read and checked, not refused as too large.
    const thousand = Array.from({ length: 1000 }, (_, i) => item(`k-${i}`, 'acme_ground', i === 999 ? { parcel: parcel({ weight_g: 70001 }) } : {}));
    const big = await postBatch(acct.liveKey, { shipments: thousand });
    expect(big.status, big.text.slice(0, 300)).toBe(422);
    expect(big.body.errors).toEqual([expect.objectContaining({ path: 'shipments[999].parcel.weight_g' })]);
    const tooMany = await postBatch(acct.liveKey, { shipments: [...thousand.slice(0, 999), item('x'), item('y')] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.map((e: { path: string }) => e.path)).toContain('shipments');
    const none = await postBatch(acct.liveKey, { shipments: [] });
    expect(none.status).toBe(422);
    const huge = await call(stack, 'POST', '/api/v1/batches', {
      key: acct.liveKey,
      rawBody: JSON.stringify({ shipments: [item('h')], padding: 'a'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ code: 'payload_too_large', detail: 'The body is over 2 MiB.' });
  }, 240_000);

  it('is idempotent: the same key answers the same batch, never a second; another body with it is refused', async () => {
    const acct = await createAccount(stack, { topUp: '20.00' });
    const key = randomUUID();
    const body = { shipments: [item('i-0'), item('i-1', 'swiftpost_standard')] };
    const first = await postBatch(acct.liveKey, body, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(202);
    const again = await postBatch(acct.liveKey, body, { 'idempotency-key': key });
    expect(again.status, again.text).toBe(202);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    await completed(acct.liveKey, first.body.id);
    const later = await postBatch(acct.liveKey, body, { 'idempotency-key': key });
    expect(later.body).toMatchObject({ id: first.body.id, status: 'completed' });
    const other = await postBatch(acct.liveKey, { shipments: [item('i-0')] }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect((await call(stack, 'GET', '/api/v1/batches', { key: acct.liveKey })).body.data).toHaveLength(1);
    expect((await call(stack, 'GET', '/api/v1/shipments?limit=100', { key: acct.liveKey })).body.data).toHaveLength(2);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).filter((e) => e.kind === 'capture')).toHaveLength(2);
  }, 240_000);

  it('resumes after its workers are lost half-way, buying nothing twice and charging no item twice', async () => {
    const acct = await createAccount(stack, { topUp: '200.00' });
    const slow = `resume-${randomUUID()}`;
    // Slow answers keep items in flight when the workers go.
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 1200, match: slow, times: -1 });
    const orders = Array.from({ length: 24 }, (_, i) => item(`${slow}-${i}`));
    const a = await postBatch(acct.liveKey, { shipments: orders });
    expect(a.status, a.text).toBe(202);
    await eventually(async () => {
      const b = await call(stack, 'GET', `/api/v1/batches/${a.body.id}`, { key: acct.liveKey });
      return b.body.counts.purchased >= 1 && b.body.counts.pending > 0 ? true : undefined;
    }, 60_000, 'the batch to be half-way');
    await stack.stopWorkers();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await stack.startWorkers();
    const done = await completed(acct.liveKey, a.body.id, 180_000);
    await sim.clearFaults(slow);
    expect(done.counts).toEqual({ total: 24, pending: 0, purchased: 24, failed: 0 });
    const items = await itemsOf(acct.liveKey, a.body.id, 100);
    for (const s of items) expect((await sim.purchases(s.id)).filter((p) => !p.cancelled)).toHaveLength(1);
    const captures = (await ledgerEntriesOf(stack.database.db, acct.id)).filter((e) => e.kind === 'capture');
    expect(captures).toHaveLength(24);
    expect(new Set(captures.map((c) => c.shipmentId)).size).toBe(24);
    await expectLedgerConsistent(stack, acct.id);
    const file = await download(acct.liveKey, `/api/v1/batches/${a.body.id}/label`);
    expect((await PDFDocument.load(file.bytes)).getPageCount()).toBe(24);
  }, 300_000);
});
