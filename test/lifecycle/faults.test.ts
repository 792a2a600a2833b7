import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntriesOf } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// Issue 12: faults found by reading the code, each shown here on the real server.
let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack({ purchaseWaitMs: 4000, trackingPollMinMs: 500, trackingPollMaxMs: 2000, strayLabelSettleMs: 3000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const order = (marker: string, service = 'acme_ground') => ({ service, from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker });

async function purchased(acct: TestAccount, marker = `f-${randomUUID()}`, service = 'acme_ground') {
  const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order(marker, service) });
  expect(a.status, a.text).toBe(201);
  return a.body;
}
const voidIt = (acct: TestAccount, id: string, key?: string) =>
  call(stack, 'POST', `/api/v1/shipments/${id}/void`, { key: acct.liveKey, headers: key ? { 'idempotency-key': key } : {} });

describe('faults on the purchase and void paths', () => {
  it('4: an operator’s Cancel during a purchase still releases the hold, fails the shipment and frees its key', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `cancel-${randomUUID()}`;
    // The carrier never answers, so the purchase is mid-buy (retrying) when the operator cancels it.
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'timeout', match: marker, times: -1 });
    const key = randomUUID();
    const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: order(marker) });
    expect(a.status, a.text).toBe(202);
    await stack.temporal.workflow.getHandle(`shipment/${a.body.id}`).cancel();
    const failed = await eventually(async () => {
      const s = await call(stack, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
      return s.body.status === 'failed' ? s.body : undefined;
    }, 60_000, 'the cancelled purchase to be failed');
    expect(failed.failure.code).toBe('internal_error');
    await sim.clearFaults(marker);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.pending).toBe(0);
    expect(account.balance).toBe(5000);
    // The label the slow carrier made meanwhile is found and cancelled: no label without a charge.
    await eventually(async () => {
      const labels = await sim.purchases(a.body.id);
      return labels.every((l) => l.cancelled) ? true : undefined;
    }, 60_000, 'the stray label to be cancelled');
    // The key is free again: the same request buys anew.
    const again = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: order(marker) });
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).not.toBe(a.body.id);
  });

  it('11: a shipment answered as purchased can be voided at once', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    const v = await voidIt(acct, s.id);
    expect([200, 202], v.text).toContain(v.status);
    const done = await eventually(async () => {
      const g = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
      return g.body.status === 'voided' ? g.body : undefined;
    });
    expect(done.status).toBe('voided');
    await expectLedgerConsistent(stack, acct.id);
  });

  it('8: a cancellation the carrier refuses because the label was just scanned answers 409 label_already_scanned', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `scanned-${randomUUID()}`;
    const s = await purchased(acct, marker);
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 422, match: s.id, times: 1, code: 'already_scanned' });
    const v = await voidIt(acct, s.id);
    expect(v.status, v.text).toBe(409);
    expect(v.body.code).toBe('label_already_scanned');
  });

  it('13: a carrier time-out on the cancellation is retried, not taken as a refusal; 7: the 202 says voiding and a replay returns the final answer', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'timeout', match: s.id, times: 1 });
    const key = randomUUID();
    const first = await voidIt(acct, s.id, key);
    expect([200, 202], first.text).toContain(first.status);
    if (first.status === 202) expect(first.body.status).toBe('voiding');
    await eventually(async () => {
      const g = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
      return g.body.status === 'voided' ? true : undefined;
    }, 60_000, 'the void to finish');
    const replay = await voidIt(acct, s.id, key);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body.status).toBe('voided');
    const kinds = (await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'refund')).toHaveLength(1);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('a void answered 202 that the carrier then refuses frees its key: a retry reports the refusal, and the same key then runs anew (contract: Idempotency rule 4)', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    // Unreachable for longer than the wait (retried), then a definitive refusal.
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 503, match: s.id, times: 3 });
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 400, match: s.id, times: 1 });
    const key = randomUUID();
    const first = await voidIt(acct, s.id, key);
    expect(first.status, first.text).toBe(202);
    expect(first.body.status).toBe('voiding');
    // Where to follow it, as a purchase's 202 says (it had no Location; found by a black-box audit).
    expect(first.headers.location).toBe(`/api/v1/shipments/${s.id}`);
    await eventually(async () => {
      if ((await sim.faults(s.id)).length) return undefined;
      const g = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
      return g.body.status === 'purchased' ? true : undefined;
    }, 60_000, 'the refused void to leave the shipment purchased');
    // The first attempt's answer as it stands now: the refusal.
    const replay = await voidIt(acct, s.id, key);
    expect(replay.status, replay.text).toBe(502);
    expect(replay.body.code).toBe('carrier_error');
    expect(replay.headers['idempotency-replayed']).toBe('true');
    // It failed, so the key is free: the same key voids anew (it replayed the 502 for good before).
    const again = await voidIt(acct, s.id, key);
    expect(again.status, again.text).toBe(200);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
    expect(again.body.status).toBe('voided');
    expect((await sim.purchases(s.id))[0].cancelled).toBe(true);
    const kinds = (await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'refund')).toHaveLength(1);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('1: a 4xx from the carrier on a tracking read never ends the shipment: tracking goes on and a later void works', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    await sim.fault({ carrier: 'acme', operation: 'track', mode: 'error', status: 400, match: s.tracking.number, times: 3 });
    const handle = stack.temporal.workflow.getHandle(`shipment/${s.id}`);
    // The polls fail with a definitive error; the workflow keeps running and its details say why.
    await eventually(async () => {
      const d = await handle.describe();
      expect(d.status.name).toBe('RUNNING');
      const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return currentDetails?.includes('the last poll of carrier acme failed') ? true : undefined;
    }, 30_000, 'the failed poll in the current details');
    await sim.scan(s.tracking.number, 'in_transit');
    await eventually(async () => {
      const g = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
      return g.body.status === 'in_transit' ? true : undefined;
    }, 60_000, 'tracking to go on after the failed polls');
  });
});
