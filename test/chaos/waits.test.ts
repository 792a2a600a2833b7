import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { formatWaits, readPurchase, WAIT_KINDS, waitsOf } from '../../tools/chaos/waits.js';

/** A history event at `s` seconds, with its attributes. */
let nextId = 1;
const at = (s: number, attributes: Record<string, unknown>) => ({ eventId: nextId++, eventTime: { seconds: Math.floor(s), nanos: Math.round((s % 1) * 1e9) }, ...attributes });
const status = (value: string) => ({
  upsertWorkflowSearchAttributesEventAttributes: { searchAttributes: { indexedFields: { ShipmentStatus: defaultPayloadConverter.toPayload(value) } } },
});

describe('where a chaos purchase waited, read from its history', () => {
  it('puts each span of a task in its kind, up to the outcome', () => {
    nextId = 1;
    const events = [
      at(0, { workflowExecutionStartedEventAttributes: {} }),
      at(0, { workflowTaskScheduledEventAttributes: {} }),
      at(0.5, { workflowTaskStartedEventAttributes: {} }),
      at(1, { workflowTaskCompletedEventAttributes: {} }), // 0.5 s waiting, 0.5 s running
    ];
    const buy = at(1, { activityTaskScheduledEventAttributes: { taskQueue: { name: 'carrier-acme' } } });
    events.push(
      buy,
      at(2, { activityTaskStartedEventAttributes: { scheduledEventId: buy.eventId, identity: '101@vm' } }),
      at(7, { activityTaskTimedOutEventAttributes: { scheduledEventId: buy.eventId } }), // its worker died
      at(7, { workflowTaskScheduledEventAttributes: { taskQueue: { name: `202@vm-${'ab12'.repeat(8)}`, kind: 2 } } }),
      at(9, { workflowTaskTimedOutEventAttributes: { timeoutType: 2 } }), // stuck to a dead worker's queue
      at(9, { workflowTaskScheduledEventAttributes: {} }),
      at(9, { workflowTaskStartedEventAttributes: { identity: '202@vm' } }),
      at(19, { workflowTaskTimedOutEventAttributes: { timeoutType: 1 } }), // taken, then its worker died
      at(19, { workflowTaskScheduledEventAttributes: {} }),
      at(19.5, { workflowTaskStartedEventAttributes: {} }),
      at(20, { workflowTaskCompletedEventAttributes: {} }),
      at(20, { timerStartedEventAttributes: {} }),
      at(21, { timerFiredEventAttributes: {} }),
    );
    const capture = at(21, { activityTaskScheduledEventAttributes: { taskQueue: { name: 'shipments' } } });
    events.push(
      capture,
      at(21.5, { activityTaskStartedEventAttributes: { scheduledEventId: capture.eventId } }),
      at(22, { activityTaskCompletedEventAttributes: { scheduledEventId: capture.eventId } }),
      at(22, status('purchased')),
      // After the outcome: tracking, not the purchase.
      at(60, { timerStartedEventAttributes: {} }),
      at(3600, { timerFiredEventAttributes: {} }),
    );
    // Plain numbers where the proto types hold Longs: the reader takes them as numbers.
    const history = events as unknown as Parameters<typeof waitsOf>[0];
    const waits = Object.fromEntries(waitsOf(history));
    expect(waits).toEqual({
      [WAIT_KINDS.wftWait]: 1000,
      [WAIT_KINDS.wftRun]: 1000,
      [WAIT_KINDS.carrierWait]: 1000,
      [WAIT_KINDS.carrierLost]: 5000,
      [WAIT_KINDS.wftSticky]: 2000,
      [WAIT_KINDS.wftLost]: 10_000,
      [WAIT_KINDS.timer]: 1000,
      [WAIT_KINDS.stepWait]: 500,
      [WAIT_KINDS.stepRun]: 500,
    });
    const table = formatWaits(waitsOf(history));
    expect(table.split('\n')[2]).toBe(`| ${WAIT_KINDS.wftLost} | 10.0 | 45% |`);
    // Three tasks went with dead workers (the carrier call with one, the sticky task and the taken
    // task with another: two kills); no carrier call failed.
    expect(readPurchase(history).touches).toEqual({ lostTasks: 3, lostWith: 2, failedCarrierCalls: 0, failedCardCalls: 0 });
    // Its workflow's start and its outcome, to tell the API's part of the request from the workflow's.
    expect(readPurchase(history)).toMatchObject({ startedAt: 0, outcomeAt: 22_000 });
  });

  it('counts the retried workflow task attempts the history does not show as lost with other workers', () => {
    nextId = 1;
    // As a chaos run wrote it: the first task went with a killed worker; its retry (attempt 2, never
    // written) went with the next worker killed; attempt 3 completed.
    const events = [
      at(0, { workflowExecutionStartedEventAttributes: {} }),
      at(0, { workflowTaskScheduledEventAttributes: { attempt: 1 } }),
      at(0.1, { workflowTaskStartedEventAttributes: { identity: '101@vm' } }),
      at(5.1, { workflowTaskTimedOutEventAttributes: { timeoutType: 1 } }),
      at(14.6, { workflowTaskScheduledEventAttributes: { attempt: 3 } }),
      at(14.7, { workflowTaskStartedEventAttributes: { identity: '303@vm' } }),
      at(16, { workflowTaskCompletedEventAttributes: {} }),
      at(16, status('purchased')),
    ] as unknown as Parameters<typeof readPurchase>[0];
    const read = readPurchase(events);
    expect(read.touches).toEqual({ lostTasks: 2, lostWith: 2, failedCarrierCalls: 0, failedCardCalls: 0 });
    // Both losses are the lost tasks' time: 5 s of the first, 9.5 s of the unseen attempt.
    expect(read.waits.get(WAIT_KINDS.wftLost)).toBeCloseTo(14_500, -1);
  });

  it('finds nothing unseen when a sticky task moved on, or after a task completed', () => {
    nextId = 1;
    const events = [
      at(0, { workflowTaskScheduledEventAttributes: { attempt: 1 } }),
      at(0.1, { workflowTaskStartedEventAttributes: { identity: '101@vm' } }),
      at(0.5, { workflowTaskCompletedEventAttributes: {} }),
      at(1, { workflowTaskScheduledEventAttributes: { attempt: 1, taskQueue: { name: `101@vm-${'ab12'.repeat(8)}`, kind: 2 } } }),
      at(2, { workflowTaskTimedOutEventAttributes: { timeoutType: 2 } }),
      at(2, { workflowTaskScheduledEventAttributes: { attempt: 1 } }),
      at(2.1, { workflowTaskStartedEventAttributes: { identity: '202@vm' } }),
      at(2.5, { workflowTaskCompletedEventAttributes: {} }),
      at(2.5, status('purchased')),
    ] as unknown as Parameters<typeof readPurchase>[0];
    expect(readPurchase(events).touches).toEqual({ lostTasks: 1, lostWith: 1, failedCarrierCalls: 0, failedCardCalls: 0 });
  });

  it('reads a step Temporal retried by the failure before its last attempt: a lost worker, or a fault on that call', () => {
    nextId = 1;
    const authorize = at(0, { activityTaskScheduledEventAttributes: { activityType: { name: 'authorizeCard' }, taskQueue: { name: 'shipments' } } });
    const lookup = at(2, { activityTaskScheduledEventAttributes: { activityType: { name: 'findPurchase' }, taskQueue: { name: 'carrier-ups' } } });
    const capture = at(4, { activityTaskScheduledEventAttributes: { activityType: { name: 'captureCard' }, taskQueue: { name: 'shipments' } } });
    const events = [
      authorize,
      // Its first attempt went with a killed worker (heartbeat time-out), its second ran.
      at(1, { activityTaskStartedEventAttributes: { scheduledEventId: authorize.eventId, attempt: 2, lastFailure: { timeoutFailureInfo: { timeoutType: 4 } } } }),
      at(2, { activityTaskCompletedEventAttributes: { scheduledEventId: authorize.eventId } }),
      lookup,
      at(3, { activityTaskStartedEventAttributes: { scheduledEventId: lookup.eventId, attempt: 2, lastFailure: { applicationFailureInfo: {} } } }),
      at(4, { activityTaskCompletedEventAttributes: { scheduledEventId: lookup.eventId } }),
      capture,
      // The card processor answered 503 to its first attempt.
      at(5, { activityTaskStartedEventAttributes: { scheduledEventId: capture.eventId, attempt: 2, lastFailure: { applicationFailureInfo: {} } } }),
      at(6, { activityTaskCompletedEventAttributes: { scheduledEventId: capture.eventId } }),
      at(6, status('purchased')),
    ] as unknown as Parameters<typeof readPurchase>[0];
    expect(readPurchase(events).touches).toEqual({ lostTasks: 1, lostWith: 0, failedCarrierCalls: 1, failedCardCalls: 1 });
  });

  it('counts the carrier calls that failed before the outcome, not a step that failed or a call after it', () => {
    nextId = 1;
    const buy = at(0, { activityTaskScheduledEventAttributes: { taskQueue: { name: 'carrier-ups' } } });
    const capture = at(3, { activityTaskScheduledEventAttributes: { taskQueue: { name: 'shipments' } } });
    const lookup = at(5, { activityTaskScheduledEventAttributes: { taskQueue: { name: 'carrier-ups' } } });
    const events = [
      buy,
      at(0, { activityTaskStartedEventAttributes: { scheduledEventId: buy.eventId } }),
      at(1, { activityTaskFailedEventAttributes: { scheduledEventId: buy.eventId } }), // the planted 503
      capture,
      at(3, { activityTaskStartedEventAttributes: { scheduledEventId: capture.eventId } }),
      at(4, { activityTaskFailedEventAttributes: { scheduledEventId: capture.eventId } }), // not a carrier call
      at(4, status('purchased')),
      lookup,
      at(5, { activityTaskStartedEventAttributes: { scheduledEventId: lookup.eventId } }),
      at(6, { activityTaskFailedEventAttributes: { scheduledEventId: lookup.eventId } }), // after the outcome
    ] as unknown as Parameters<typeof readPurchase>[0];
    expect(readPurchase(events).touches).toEqual({ lostTasks: 0, lostWith: 0, failedCarrierCalls: 1, failedCardCalls: 0 });
  });
});
