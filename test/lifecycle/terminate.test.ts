// An operator's Terminate runs none of the workflow's code: a purchase terminated mid-way left its
// hold, its keys and perhaps a label at the carrier, and a void left the shipment `voiding`, with
// no workflow to settle them and nothing in `ops stuck` (it lists running workflows). The fleet's
// sweep Schedule now starts a run of `shipment/<id>` that settles what the stopped run left
// (activities/sweep.ts: settleStoppedShipments; workflows/purchase.ts and void.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { shipments } from '../../db/schema.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { eventually, simControl } from '../support/sim.js';
import {
  address,
  call,
  createAccount,
  expectLedgerConsistent,
  parcel,
  purchaseToEnd,
  settledTo,
  startTestStack,
  terminateDuring,
  type TestAccount,
  type TestStack,
} from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack({
    purchaseWaitMs: 1000,
    strayLabelSettleMs: 3000,
    orphanSweep: { intervalMs: 1000, olderThanMs: 3000 },
    // The Schedule's delivery sweep looks at every account's events (one fleet per database), so it
    // may start the delivery another file's test is waiting for (to a receiver on 127.0.0.1).
    webhookAllowPrivate: true,
  });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const order = (marker: string) => ({ service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker });

const get = (key: string, id: string) => call(stack, 'GET', `/api/v1/shipments/${id}`, { key });

/** A purchased shipment (the answer may be a 202 on a busy machine). */
async function bought(acct: TestAccount, marker: string): Promise<string> {
  return (await purchaseToEnd(stack, acct.liveKey, order(marker))).id;
}

/** Asks for the void without waiting for its answer: the run is terminated under it. */
function voidInBackground(acct: TestAccount, id: string) {
  const answer = call(stack, 'POST', `/api/v1/shipments/${id}/void`, { key: acct.liveKey });
  answer.catch(() => undefined);
  return answer;
}

/** The shipment's latest run, which the sweep started after the stopped one. */
async function settlingRun(shipmentId: string, stoppedRunId: string) {
  const description = await stack.temporal.workflow.getHandle(shipmentWorkflowId(shipmentId)).describe();
  expect(description.runId).not.toBe(stoppedRunId);
  return description;
}

describe('a shipment whose run was terminated is settled by the sweep', () => {
  it('a purchase terminated mid-buy: hold released, shipment failed, the late label cancelled, the key free', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `term-${randomUUID()}`;
    // The carrier holds the buy and commits it later, after the run is gone.
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'late_commit', delay_ms: 2500, match: marker, times: 1 });
    const key = randomUUID();
    const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: order(marker) });
    expect(a.status, a.text).toBe(202);
    const stopped = await terminateDuring(stack, a.body.id, 'buyLabel');
    expect((await expectLedgerConsistent(stack, acct.id)).pending).toBeGreaterThan(0);

    const failed = await settledTo(stack, acct.liveKey, a.body.id, 'failed');
    expect(failed.failure.code).toBe('internal_error');
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.pending).toBe(0);
    expect(account.balance).toBe(5000);
    // The label the carrier committed after the run stopped is found and cancelled.
    await eventually(async () => {
      const labels = await sim.purchases(a.body.id);
      return labels.length === 1 && labels[0].cancelled ? true : undefined;
    }, 60_000, 'the late label to be cancelled');
    const run = await settlingRun(a.body.id, stopped);
    expect(await run.staticSummary()).toContain(`run ${stopped} left (terminated)`);
    await expect(stack.temporal.workflow.getHandle(shipmentWorkflowId(a.body.id)).result()).resolves.toEqual({ status: 'failed' });
    // The key is free again: the same request buys anew (answered 202 when the new purchase outlasts
    // this stack's one-second wait, as it may on a busy machine).
    const again = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: order(marker) });
    expect([201, 202], again.text).toContain(again.status);
    expect(again.body.id).not.toBe(a.body.id);
    await settledTo(stack, acct.liveKey, again.body.id, 'purchased');
  }, 180_000);

  it('a card purchase terminated mid-buy: the authorization is voided', async () => {
    const acct = await createAccount(stack, { funding: 'card' });
    const marker = `term-card-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'timeout', match: marker, times: -1 });
    const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order(marker) });
    expect(a.status, a.text).toBe(202);
    await terminateDuring(stack, a.body.id, 'buyLabel');
    expect((await sim.cardCharges(a.body.id)).map((c) => c.status)).toEqual(['authorized']);
    await settledTo(stack, acct.liveKey, a.body.id, 'failed');
    await eventually(async () => ((await sim.cardCharges(a.body.id))[0]?.status === 'voided' ? true : undefined), 30_000, 'the authorization to be voided');
    await sim.clearFaults(marker);
  }, 180_000);

  it('a void terminated before the carrier cancelled: purchased again, saying why, and a later void works', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const id = await bought(acct, `term-void-${randomUUID()}`);
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 500, match: id, times: -1 });
    const voiding = voidInBackground(acct, id);
    const stopped = await terminateDuring(stack, id, 'cancelLabel');
    await sim.clearFaults(id);
    await voiding;

    // Settled once the new run has looked the label up at the carrier: still live there. The sweep
    // that starts that run comes round on its own schedule, and on a busy machine that takes minutes.
    await settledTo(stack, acct.liveKey, id, 'purchased', 150_000);
    const [row] = await stack.database.db.select().from(shipments).where(eq(shipments.id, id));
    expect(row.lastVoidError).toBe('The void was stopped by an operator before the carrier cancelled the label; it stays bought and charged.');
    expect((await settlingRun(id, stopped)).status.name).toBe('RUNNING'); // tracking goes on
    expect((await sim.purchases(id))[0].cancelled).toBe(false);
    // The shipment is voidable again, through its new run.
    const again = await call(stack, 'POST', `/api/v1/shipments/${id}/void`, { key: acct.liveKey });
    expect([200, 202], again.text).toContain(again.status);
    await settledTo(stack, acct.liveKey, id, 'voided');
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
  }, 300_000);

  it('a void terminated after the carrier took the cancellation: refunded and voided by the carrier’s record', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const id = await bought(acct, `term-voided-${randomUUID()}`);
    // The carrier holds the cancellation and carries it out after the run is gone.
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'late_commit', delay_ms: 2000, match: id, times: 1 });
    const voiding = voidInBackground(acct, id);
    // Terminated once the carrier has the cancellation (its fault used up): a run terminated while
    // its cancel call only waited to start never sends it, and the label rightly stays bought.
    await eventually(async () => ((await sim.faults(id)).length === 0 ? true : undefined), 60_000, `carrier acme to receive the cancellation of ${id}`);
    const stopped = await terminateDuring(stack, id, 'cancelLabel');
    await voiding;

    // Settled by the run the sweep starts, on its own schedule: minutes on a busy machine.
    await settledTo(stack, acct.liveKey, id, 'voided', 150_000);
    expect((await sim.purchases(id))[0].cancelled).toBe(true);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    await settlingRun(id, stopped);
    // The run ends once the event is stored (the status is written just before it).
    await expect(stack.temporal.workflow.getHandle(shipmentWorkflowId(id)).result()).resolves.toEqual({ status: 'voided' });
    const events = await call(stack, 'GET', `/api/v1/events?shipment=${id}&type=shipment.voided`, { key: acct.liveKey });
    expect(events.body.data).toHaveLength(1);
  }, 300_000);
});

// A bought label's run stopped by an operator (Terminate or Cancel in the UI) left no workflow: a
// void answered 409 "A purchased shipment cannot be voided." and a pushed scan was answered 202 and
// dropped. The API now starts the shipment's workflow again from its record (api/resume.ts), as it
// does after a quiet stop.
describe('a bought shipment whose run was stopped goes on when it is needed', () => {
  const closed = (id: string) =>
    eventually(async () => {
      const d = await stack.temporal.workflow.getHandle(shipmentWorkflowId(id)).describe();
      return d.status.name === 'RUNNING' ? undefined : d;
    }, 30_000, `${id}'s run to close`);

  it('terminated while tracking: a void resumes it and is carried out, refunded and cancelled at the carrier', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const id = await bought(acct, `term-track-${randomUUID()}`);
    await stack.temporal.workflow.getHandle(shipmentWorkflowId(id)).terminate('an operator stopped its tracking');
    const stopped = await closed(id);

    const v = await call(stack, 'POST', `/api/v1/shipments/${id}/void`, { key: acct.liveKey });
    expect([200, 202], v.text).toContain(v.status);
    await settledTo(stack, acct.liveKey, id, 'voided');
    expect((await sim.purchases(id))[0].cancelled).toBe(true);
    expect((await expectLedgerConsistent(stack, acct.id)).balance).toBe(5000);
    const run = await settlingRun(id, stopped.runId);
    expect(await run.staticSummary()).toBe(`Shipment ${id}: tracking resumed after its run was terminated`);
  });

  it('cancelled while tracking (sandbox): a pushed scan resumes it and is recorded', async () => {
    const acct = await createAccount(stack);
    const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.testKey, body: order(`cancel-track-${randomUUID()}`) });
    // On a busy machine the purchase may answer 202 and end purchased a moment later.
    expect([201, 202], a.text).toContain(a.status);
    const id: string = a.body.id;
    const purchased = await settledTo(stack, acct.testKey, id, 'purchased');
    await stack.temporal.workflow.getHandle(shipmentWorkflowId(id)).cancel();
    expect((await closed(id)).status.name).toBe('CANCELLED');

    const pushed = await call(stack, 'POST', `/api/v1/sandbox/shipments/${id}/scans`, { key: acct.testKey, body: { status: 'in_transit' } });
    expect(pushed.status, pushed.text).toBe(202);
    await eventually(async () => {
      const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.testKey });
      return s.body.status === 'in_transit' ? true : undefined;
    }, 30_000, `${id} to be in transit`);
    const tracking = await call(stack, 'GET', `/api/v1/tracking/${purchased.tracking.number}`, { key: acct.testKey });
    expect(tracking.body.events.map((e: { status: string }) => e.status)).toContain('in_transit');
    // The resumed run answers a void as any would: refused, the label being scanned.
    const v = await call(stack, 'POST', `/api/v1/shipments/${id}/void`, { key: acct.testKey });
    expect(v.status, v.text).toBe(409);
    expect(v.body.code).toBe('label_already_scanned');
  });
});
