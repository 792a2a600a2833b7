import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

// Issue 11: the durable path is lean. One dispatch to a worker (the carrier's queue) between the
// request and the answer; the label render and the webhook fan-out come after the answer.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('the lean purchase path', () => {
  it('answers 201 before the label render, with one carrier dispatch and local transactions on the way', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const a = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'lean' },
    });
    expect(a.status, a.text).toBe(201);
    expect(a.body.tracking.number).toBeTruthy();
    const handle = stack.temporal.workflow.getHandle(`shipment/${a.body.id}`);
    // Until the render has finished (its started event is written with its completion).
    const events = await eventually(async () => {
      const h = (await handle.fetchHistory()).events ?? [];
      const render = h.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'storeLabels');
      return render && h.some((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(render.eventId)) ? h : undefined;
    });
    const index = (pred: (e: (typeof events)[number]) => boolean) => events.findIndex(pred);
    const answered = index((e) => !!e.workflowExecutionUpdateCompletedEventAttributes);
    const renderScheduled = events[index((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'storeLabels')];
    const renderStarted = index((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(renderScheduled.eventId));
    expect(answered).toBeGreaterThan(0);
    // Scheduled by the same workflow task that answers; it only starts once the answer has gone.
    expect(renderStarted, 'the render starts after the answer').toBeGreaterThan(answered);
    const before = events.slice(0, answered).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name !== 'storeLabels' && e.activityTaskScheduledEventAttributes?.activityType?.name !== 'announceEvents');
    const dispatched = before.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(dispatched, 'activities dispatched through the server before the answer').toEqual(['buyLabel']);
    expect(before.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(2);
  });
});
