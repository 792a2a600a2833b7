// A batch whose workflow an operator terminated mid-way, on the real stack (API, Temporal dev
// server, PostgreSQL, workers, the carrier simulator): the orphan sweep's batch step fails the items
// the stopped run never reached (nothing bought or charged), leaves those whose purchase had begun to
// end on their own, and then completes the batch, with its merged file and batch.completed once.
import { randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleStoppedBatches } from '../../activities/sweep-batches.js';
import { batchWorkflowId, shipmentWorkflowId } from '../../contract/index.js';
import { ledgerEntriesOf } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack();
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const item = (reference: string) => ({
  service: 'acme_ground',
  from: address(),
  to: address({ name: `To ${reference}`, city: 'Leeds', postcode: 'LS1 4AP' }),
  parcel: parcel(),
  reference,
});

/** Whether a shipment's workflow was ever started. */
async function started(shipmentId: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(shipmentWorkflowId(shipmentId)).describe();
    return true;
  } catch {
    return false;
  }
}

/** The batch's pending items and what their workflows are doing: what a time-out reports. */
async function pendingItems(batchId: string, key: string) {
  const page = await call(stack, 'GET', `/api/v1/batches/${batchId}/shipments?limit=100`, { key });
  const pending = (page.body.data as any[]).filter((s) => s.status === 'pending');
  return Promise.all(
    pending.map(async (s) => {
      try {
        const d = await stack.temporal.workflow.getHandle(shipmentWorkflowId(s.id)).describe();
        const activities = (d.raw.pendingActivities ?? []).map((a) => ({ type: a.activityType?.name, attempt: a.attempt, state: a.state, failure: a.lastFailure?.message }));
        return { id: s.id, workflow: d.status.name, activities };
      } catch (err) {
        return { id: s.id, workflow: String(err) };
      }
    }),
  );
}

describe('a batch whose workflow was terminated', () => {
  it('ends its unreached items failed (internal_error, nothing charged), and completes with counts that add up and batch.completed once', async () => {
    const acct = await createAccount(stack, { topUp: '200.00' });
    const slow = `stopped-${randomUUID()}`;
    // Slow carrier answers: the first items are still in flight, the later ones unreached, when it stops.
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 2500, match: slow, times: -1 });
    const total = 40;
    const a = await call(stack, 'POST', '/api/v1/batches', { key: acct.liveKey, body: { shipments: Array.from({ length: total }, (_, i) => item(`${slow}-${i}`)) } });
    expect(a.status, a.text).toBe(202);
    const batchId: string = a.body.id;
    const handle = stack.temporal.workflow.getHandle(batchWorkflowId(batchId));
    // Stop it once an item's purchase has begun: a pending step alone may still be the one that looks
    // for the batch's row, and then no item would have been reached.
    await eventually(async () => {
      const page = await call(stack, 'GET', `/api/v1/batches/${batchId}/shipments?limit=100`, { key: acct.liveKey });
      const begun = await Promise.all((page.body.data as any[]).map((s) => started(s.id)));
      return begun.some(Boolean) ? true : undefined;
    }, 60_000, 'the batch to start its items');
    await handle.terminate('terminated mid-way, as an operator would in the UI');

    // The sweep step, as the Schedule runs it (olderThanMs 0: the run has just closed): it fails the
    // unreached items at once, and completes the batch once the items in flight have ended.
    const sweep = () => settleStoppedBatches(stack.database.db, stack.temporal, { olderThanMs: 0, queuePrefix: stack.config.taskQueuePrefix, accountId: acct.id });
    const first = await sweep();
    expect(first.settling.map((s) => s.batch_id)).toEqual([batchId]);
    expect(first.settling[0].closed_as).toBe('TERMINATED');
    const unreached = first.settling[0].failed;
    expect(unreached.length).toBeGreaterThan(0);
    // On a slow machine the items in flight may all have ended by the first sweep, which then starts
    // the completing run itself; a later sweep finds that run going and leaves it be.
    if (!first.settling[0].completing) {
      await eventually(async () => ((await sweep()).settling.some((s) => s.batch_id === batchId && s.completing) ? true : undefined), 240_000, 'the batch to be completing').catch(
        async (err: Error) => {
          throw new Error(`${err.message}; items still pending: ${JSON.stringify(await pendingItems(batchId, acct.liveKey))}`);
        },
      );
    }

    const done = await eventually(async () => {
      const b = await call(stack, 'GET', `/api/v1/batches/${batchId}`, { key: acct.liveKey });
      return b.body.status === 'completed' ? b.body : undefined;
    }, 60_000, 'the batch to complete');
    await sim.clearFaults(slow);
    expect(done.counts.pending).toBe(0);
    expect(done.counts.purchased + done.counts.failed).toBe(total);
    expect(done.counts.failed).toBe(unreached.length);
    expect(done.counts.purchased).toBeGreaterThan(0);

    const page = await call(stack, 'GET', `/api/v1/batches/${batchId}/shipments?limit=100`, { key: acct.liveKey });
    const items: any[] = page.body.data;
    expect(items).toHaveLength(total);
    for (const s of items) {
      if (unreached.includes(s.id)) {
        expect([s.id, s.status, s.failure?.code]).toEqual([s.id, 'failed', 'internal_error']);
        expect(s.failure.message).toContain('stopped by an operator');
        // Never started, never at the carrier.
        expect(await started(s.id)).toBe(false);
        expect(await sim.purchases(s.id)).toEqual([]);
      } else {
        expect([s.id, s.status]).toEqual([s.id, 'purchased']);
      }
    }
    // Charged for the purchased items only; no hold left open.
    const captures = (await ledgerEntriesOf(stack.database.db, acct.id)).filter((e) => e.kind === 'capture');
    expect(captures).toHaveLength(done.counts.purchased);
    expect((await expectLedgerConsistent(stack, acct.id)).pending).toBe(0);
    // The merged file holds every purchased label; batch.completed once.
    const file = await request(`${stack.url}/api/v1/batches/${batchId}/label`, { headers: { authorization: `Bearer ${acct.liveKey}` } });
    expect(file.statusCode).toBe(200);
    expect((await PDFDocument.load(Buffer.from(await file.body.arrayBuffer()))).getPageCount()).toBe(done.counts.purchased);
    const events = await call(stack, 'GET', '/api/v1/events?type=batch.completed', { key: acct.liveKey });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data.object).toMatchObject({ id: batchId, status: 'completed', counts: done.counts });
    // A completed batch is no longer the sweep's.
    expect((await sweep()).settling).toEqual([]);
  }, 420_000);
});
