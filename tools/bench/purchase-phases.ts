import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { toDate } from '../../admin/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One timed purchase: when its request was sent and its final answer read, epoch ms, and its shipment. */
export interface TimedPurchase {
  shipmentId: string;
  sentAt: number;
  answeredAt: number;
}

/**
 * Where a purchase's time went, in ms, from its workflow's history (Update-With-Start: the request
 * is answered when the purchase update completes):
 * - `to_start`: from the request to the workflow's start event (the API's checks and writes, the call to Temporal);
 * - `workflow_task_wait` / `workflow_task_run`: its workflow tasks queued, then run by a worker (with
 *   the local activities they run: their markers' times are not comparable with the events');
 * - `activity_wait:<type>` / `activity_run:<type>`: each activity queued, then run;
 * - `between`: the rest of the update's span, the server's own steps between those;
 * - `to_answer`: from the update's completion to the client reading the answer.
 */
export type Phases = Record<string, number>;

/** A purchase's phases from its history; undefined when the history has no completed update. */
export function phasesOf(p: TimedPurchase, events: HistoryEvent[]): Phases | undefined {
  const at = (e: HistoryEvent | undefined) => toDate(e?.eventTime)?.getTime() ?? NaN;
  const start = events.find((e) => e.workflowExecutionStartedEventAttributes);
  const done = events.find((e) => e.workflowExecutionUpdateCompletedEventAttributes);
  if (!start || !done) return undefined;
  const until = Number(done.eventId);
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  const phases: Phases = { to_start: at(start) - p.sentAt };
  const add = (name: string, v: number) => (phases[name] = (phases[name] ?? 0) + v);
  for (const e of events) {
    if (Number(e.eventId) > until) break;
    const activity = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (e.workflowTaskStartedEventAttributes) {
      add('workflow_task_wait', at(e) - at(byId.get(Number(e.workflowTaskStartedEventAttributes.scheduledEventId))));
    } else if (e.workflowTaskCompletedEventAttributes) {
      add('workflow_task_run', at(e) - at(byId.get(Number(e.workflowTaskCompletedEventAttributes.startedEventId))));
    } else if (e.activityTaskStartedEventAttributes) {
      const scheduled = byId.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId));
      add(`activity_wait:${scheduled?.activityTaskScheduledEventAttributes?.activityType?.name}`, at(e) - at(scheduled));
    } else if (activity) {
      const scheduled = byId.get(Number(activity.scheduledEventId));
      add(`activity_run:${scheduled?.activityTaskScheduledEventAttributes?.activityType?.name}`, at(e) - at(byId.get(Number(activity.startedEventId))));
    }
  }
  const counted = Object.entries(phases).reduce((sum, [k, v]) => (k === 'to_start' ? sum : sum + v), 0);
  phases.between = at(done) - at(start) - counted;
  phases.to_answer = p.answeredAt - at(done);
  phases.total = p.answeredAt - p.sentAt;
  return phases;
}

/**
 * The mean of each phase over the purchases (a purchase without a phase counts 0 for it, so the means
 * add up to the mean total), read from their workflows' histories a few at a time.
 */
export async function purchasePhases(client: Client, purchases: TimedPurchase[], concurrency = 4): Promise<Phases> {
  const all: Phases[] = [];
  let next = 0;
  const reader = async () => {
    while (next < purchases.length) {
      const p = purchases[next++];
      const history = await client.workflow.getHandle(shipmentWorkflowId(p.shipmentId)).fetchHistory();
      const phases = phasesOf(p, history.events ?? []);
      if (phases) all.push(phases);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, reader));
  return meanPhases(all);
}

export function meanPhases(all: Phases[]): Phases {
  const sums: Phases = {};
  for (const phases of all) for (const [k, v] of Object.entries(phases)) sums[k] = (sums[k] ?? 0) + v;
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, Math.round((v / Math.max(1, all.length)) * 10) / 10]));
}
