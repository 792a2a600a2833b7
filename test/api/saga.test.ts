import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // A wait shorter than the slow carrier below, so that purchase answers 202 and the workflow
  // finishes it; long enough for the others on a loaded machine.
  stack = await startTestStack({ purchaseWaitMs: 4000, carrierTimeoutMs: 10_000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const order = (marker: string, service = 'acme_ground') => ({
  service,
  from: address(),
  to: address({ name: marker }),
  parcel: parcel(),
  reference: marker,
});

describe('the purchase saga on the real server', () => {
  it('releases the reserved funds when the carrier refuses the purchase', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `refuse-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 422, match: marker });
    const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order(marker) });
    expect(a.status, a.text).toBe(502);
    expect(a.body.code).toBe('carrier_error');
    expect(a.body.shipment_id).toMatch(/^shp_/);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    expect(account.pending).toBe(0);
    // The hold was made, then released: the ledger shows both.
    const { ledgerEntriesOf } = await import('../../db/index.js');
    const kinds = (await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind);
    expect(kinds).toEqual(['topup', 'hold', 'release']);
    expect(await sim.purchases(a.body.shipment_id)).toEqual([]);
  });

  it('finishes a purchase whose workers were stopped, once a worker is back: never lost, never doubled', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `crash-${randomUUID()}`;
    // The carrier makes the label at once but answers slowly: the workers stop meanwhile.
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 6000, match: marker });
    const pending = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: order(marker),
      headers: { 'idempotency-key': marker },
    });
    expect(pending.status, pending.text).toBe(202);
    expect(pending.body.status).toBe('pending');
    expect(pending.headers.location).toBe(`/api/v1/shipments/${pending.body.id}`);
    await stack.stopWorkers();

    // Nothing is lost while no worker runs: the replay answers as the first would now.
    const replay = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: order(marker),
      headers: { 'idempotency-key': marker },
    });
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body.id).toBe(pending.body.id);

    await stack.startWorkers();
    const done = await eventually(async () => {
      const s = await call(stack, 'GET', `/api/v1/shipments/${pending.body.id}`, { key: acct.liveKey });
      return s.body.status === 'purchased' ? s.body : undefined;
    }, 60_000, 'the purchase to finish');
    expect(done.tracking.number).toMatch(/^ACM/);
    const labels = await sim.purchases(pending.body.id);
    expect(labels.length).toBe(1);
    expect(labels[0].tracking_number).toBe(done.tracking.number);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.pending).toBe(0);
    expect(account.balance).toBe(5000 - Math.round(Number(done.price.gross) * 100));

    const after = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: order(marker),
      headers: { 'idempotency-key': marker },
    });
    expect(after.status).toBe(201);
    expect(after.headers['idempotency-replayed']).toBe('true');
    expect(after.body.id).toBe(pending.body.id);
  });

  it('answers 202 while no worker runs, and the durable workflow completes the purchase later', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    await stack.stopWorkers();
    try {
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order(`later-${randomUUID()}`) });
      expect(a.status, a.text).toBe(202);
      expect(a.body.status).toBe('pending');
      const list = await call(stack, 'GET', '/api/v1/shipments?status=pending', { key: acct.liveKey });
      expect(list.body.data.map((s: any) => s.id)).toEqual([a.body.id]);
      await stack.startWorkers();
      await eventually(async () => {
        const s = await call(stack, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
        return s.body.status === 'purchased' ? true : undefined;
      }, 60_000, 'the purchase to finish');
      expect((await sim.purchases(a.body.id)).length).toBe(1);
    } finally {
      await stack.startWorkers();
    }
    await expectLedgerConsistent(stack, acct.id);
  });
});
