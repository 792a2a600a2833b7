import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { labelFiles } from '../../db/schema.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

// Issue 11: the durable path is lean. One dispatch to a worker (the carrier's queue) between the
// request and the answer; the label render (in the capture's worker) and the webhook fan-out come
// after the answer.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('the lean purchase path', () => {
  it('answers 201 with one carrier dispatch and local transactions on the way; the label files follow, with no render activity', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const a = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'lean' },
    });
    expect(a.status, a.text).toBe(201);
    expect(a.body.tracking.number).toBeTruthy();
    const handle = stack.temporal.workflow.getHandle(`shipment/${a.body.id}`);
    // The capture starts the render in its worker once its transaction has committed; the answer
    // goes out with that transaction, so the files land after it (and a download renders its own).
    const files = await eventually(async () => {
      const rows = await stack.database.db.select({ format: labelFiles.format }).from(labelFiles).where(eq(labelFiles.shipmentId, a.body.id));
      return rows.length === 3 ? rows.map((r) => r.format).sort() : undefined;
    });
    expect(files).toEqual(['pdf_6x4', 'pdf_a4', 'zpl']);
    const events = (await handle.fetchHistory()).events ?? [];
    const answered = events.findIndex((e) => !!e.workflowExecutionUpdateCompletedEventAttributes);
    expect(answered).toBeGreaterThan(0);
    const dispatched = events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    // The one dispatch through the server is the carrier's buy: no render activity, no announcement
    // (no webhook endpoint takes this account's events).
    expect(dispatched, 'activities dispatched through the server').toEqual(['buyLabel']);
    expect(events.slice(0, answered).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(2);
    // Two workflow tasks in all: the first (begin) and the one that answers; none for a render.
    expect(events.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(2);
    // One path and no patch on it: no patch marker, and so no TemporalChangeVersion upsert (an event
    // and a visibility write more on every purchase).
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')).toEqual([]);
    const upserted = events.flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
    expect(upserted).not.toContain('TemporalChangeVersion');
    expect(upserted).toContain('ShipmentStatus');
  });
});
