import { describe, expect, it } from 'vitest';
import { meanPhases, phasesOf } from '../../tools/bench/purchase-phases.js';

const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
const T0 = 1_800_000_000_000;

/** A purchase's history as the server writes it, each event at T0 + ms (event ids as plain numbers, where the protobuf type has Long). */
const history = [
  { eventId: 1, eventTime: at(T0 + 30), workflowExecutionStartedEventAttributes: {} },
  { eventId: 2, eventTime: at(T0 + 30), workflowTaskScheduledEventAttributes: {} },
  { eventId: 3, eventTime: at(T0 + 50), workflowTaskStartedEventAttributes: { scheduledEventId: 2 } },
  { eventId: 4, eventTime: at(T0 + 250), workflowTaskCompletedEventAttributes: { scheduledEventId: 2, startedEventId: 3 } },
  { eventId: 5, eventTime: at(T0 + 250), activityTaskScheduledEventAttributes: { activityType: { name: 'buyLabel' } } },
  { eventId: 6, eventTime: at(T0 + 270), activityTaskStartedEventAttributes: { scheduledEventId: 5 } },
  { eventId: 7, eventTime: at(T0 + 300), activityTaskCompletedEventAttributes: { scheduledEventId: 5, startedEventId: 6 } },
  { eventId: 8, eventTime: at(T0 + 305), workflowTaskScheduledEventAttributes: {} },
  { eventId: 9, eventTime: at(T0 + 315), workflowTaskStartedEventAttributes: { scheduledEventId: 8 } },
  { eventId: 10, eventTime: at(T0 + 355), workflowTaskCompletedEventAttributes: { scheduledEventId: 8, startedEventId: 9 } },
  { eventId: 11, eventTime: at(T0 + 355), workflowExecutionUpdateCompletedEventAttributes: {} },
  // After the answer: not the purchase's time.
  { eventId: 12, eventTime: at(T0 + 900), activityTaskScheduledEventAttributes: { activityType: { name: 'storeLabels' } } },
] as unknown as Parameters<typeof phasesOf>[1];

describe("the tracking bench: where a purchase's time went", () => {
  it('splits a purchase from its request to its answer by the steps of its history, up to the purchase update', () => {
    const phases = phasesOf({ shipmentId: 'shp_1', sentAt: T0, answeredAt: T0 + 380 }, history);
    expect(phases).toEqual({
      to_start: 30,
      workflow_task_wait: 30,
      workflow_task_run: 240,
      'activity_wait:buyLabel': 20,
      'activity_run:buyLabel': 30,
      between: 5,
      to_answer: 25,
      total: 380,
    });
    const sum = Object.entries(phases!).reduce((s, [k, v]) => (k === 'total' ? s : s + v), 0);
    expect(sum).toBe(phases!.total);
  });

  it('has nothing to say of a history whose purchase update never completed, and averages a step a purchase lacks as 0', () => {
    expect(phasesOf({ shipmentId: 'shp_2', sentAt: T0, answeredAt: T0 + 1 }, history.slice(0, 5))).toBeUndefined();
    expect(meanPhases([{ total: 100, 'activity_run:buyLabel': 30 }, { total: 200 }])).toEqual({ total: 150, 'activity_run:buyLabel': 15 });
  });
});
