import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { toDate } from '../../admin/index.js';
import { SA, shipmentWorkflowId } from '../../contract/index.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * What a purchase's workflow waited on, as its history shows it: where a slow purchase's seconds
 * went. Every span between two events of one task falls in one kind, so the kinds of a purchase add
 * up to about its time from the workflow's start to its outcome.
 */
export const WAIT_KINDS = {
  wftLost: 'a workflow task lost with its worker (start-to-close time-out)',
  wftSticky: "a workflow task stuck to a dead worker's sticky queue",
  wftWait: 'a workflow task waiting to start',
  wftRun: 'a workflow task running (its local steps included)',
  carrierWait: 'a carrier call waiting to start',
  carrierLost: 'a carrier call lost with its worker (heartbeat time-out)',
  carrierRun: 'a carrier call running',
  stepWait: 'another step waiting to start',
  stepLost: 'another step lost with its worker (heartbeat time-out)',
  stepRun: 'another step running',
  timer: 'a retry wait (timer)',
} as const;
type WaitKind = (typeof WAIT_KINDS)[keyof typeof WAIT_KINDS];

const ms = (e: HistoryEvent) => toDate(e.eventTime)?.getTime() ?? 0;

/** The time of the first search attribute update that set the shipment's status to an outcome. */
function outcomeAt(events: readonly HistoryEvent[]): number | undefined {
  for (const e of events) {
    const payload = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[SA.ShipmentStatus.name];
    // A keyword's value, or a list of one from servers that store them as lists.
    const status = payload ? [defaultPayloadConverter.fromPayload<string | string[]>(payload)].flat()[0] : undefined;
    if (status === 'purchased' || status === 'failed') return ms(e);
  }
  return undefined;
}

/**
 * What touched a purchase, as its history shows it up to its outcome: tasks a dead worker took with
 * it (a workflow task's start-to-close or sticky time-out, an activity's heartbeat time-out), and the
 * carrier calls that failed (its planted fault's, and any fault on another of its calls).
 */
export interface Touches {
  lostTasks: number;
  /** The worker processes those tasks were lost with (their identities): two are two kills. */
  lostWith: number;
  failedCarrierCalls: number;
  /** Calls to the card processor that failed (its planted faults): faults on another of its calls. */
  failedCardCalls: number;
}

/** The steps that call the card processor (activities/payments.ts). */
const CARD_STEPS = new Set(['authorizeCard', 'captureCard', 'voidCard', 'refundCard']);

/** The worker whose sticky queue this is: its name is the worker's identity and a 32-digit id. */
const stickyOwner = (queue: string | null | undefined) => (queue ?? '').replace(/-[0-9a-f]{32}$/, '');

/** A purchase's waits by kind (ms), from its workflow's start to its outcome (or the history's end). */
export function waitsOf(events: readonly HistoryEvent[]): Map<WaitKind, number> {
  return readPurchase(events).waits;
}

/** A purchase as its history shows it: its waits by kind, and what touched it. */
export interface PurchaseRead {
  waits: Map<WaitKind, number>;
  touches: Touches;
  /** When its workflow started, and when it reached its outcome (epoch ms; undefined: not in the history). */
  startedAt?: number;
  outcomeAt?: number;
}

/** A purchase's waits by kind and what touched it, from its workflow's start to its outcome. */
export function readPurchase(events: readonly HistoryEvent[]): PurchaseRead {
  const waits = new Map<WaitKind, number>();
  const touches: Touches = { lostTasks: 0, lostWith: 0, failedCarrierCalls: 0, failedCardCalls: 0 };
  const lostWith = new Set<string>();
  const lost = (identity: string | null | undefined) => {
    touches.lostTasks++;
    lostWith.add(identity || 'unknown');
  };
  const add = (kind: WaitKind, from: number | undefined, to: number) => {
    if (from !== undefined) waits.set(kind, (waits.get(kind) ?? 0) + Math.max(0, to - from));
  };
  const end = outcomeAt(events) ?? Infinity;
  const activities = new Map<string, { carrier: boolean; card: boolean; scheduledAt: number; startedAt?: number; identity?: string | null }>();
  const failedCall = (a: { carrier: boolean; card: boolean }) => {
    if (a.carrier) touches.failedCarrierCalls++;
    else if (a.card) touches.failedCardCalls++;
  };
  let task: { scheduledAt: number; attempt: number; startedAt?: number; queue?: string | null; identity?: string | null } | undefined;
  // The last workflow task that failed or timed out (its attempt and when), until one completes.
  let failed: { attempt: number; at: number } | undefined;
  let timerAt: number | undefined;
  for (const e of events) {
    const at = ms(e);
    if (at > end) break;
    const id = String(e.eventId);
    if (e.workflowTaskScheduledEventAttributes) {
      const attempt = Number(e.workflowTaskScheduledEventAttributes.attempt ?? 1) || 1;
      // A retried workflow task's attempts are written to the history only when one completes: the
      // attempts between the last failure written and this one were lost unseen. Each was taken by a
      // process alive after the loss before it (a dead one takes nothing), so each is another
      // process's: a second kill, or a task that ran past its time-out.
      const unseen = failed ? attempt - failed.attempt - 1 : 0;
      if (failed && unseen > 0) {
        add(WAIT_KINDS.wftLost, failed.at, at);
        for (let k = 1; k <= unseen; k++) lost(`unseen attempt ${failed.attempt + k} of the task after event ${id}`);
      }
      task = { scheduledAt: at, attempt, queue: e.workflowTaskScheduledEventAttributes.taskQueue?.name };
    } else if (e.workflowTaskStartedEventAttributes && task) {
      add(WAIT_KINDS.wftWait, task.scheduledAt, at);
      task.startedAt = at;
      task.identity = e.workflowTaskStartedEventAttributes.identity;
    } else if (e.workflowTaskCompletedEventAttributes || e.workflowTaskFailedEventAttributes) {
      add(WAIT_KINDS.wftRun, task?.startedAt, at);
      failed = e.workflowTaskFailedEventAttributes && task ? { attempt: task.attempt, at } : undefined;
    } else if (e.workflowTaskTimedOutEventAttributes && task) {
      failed = { attempt: task.attempt, at };
      // 1: start-to-close (the worker that took it died); 2: schedule-to-start (its sticky queue's worker is gone).
      if (task.startedAt !== undefined) add(WAIT_KINDS.wftLost, task.startedAt, at);
      else add(WAIT_KINDS.wftSticky, task.scheduledAt, at);
      lost(task.startedAt !== undefined ? task.identity : stickyOwner(task.queue));
    } else if (e.activityTaskScheduledEventAttributes) {
      const a = e.activityTaskScheduledEventAttributes;
      activities.set(id, { carrier: (a.taskQueue?.name ?? '').includes('carrier-'), card: CARD_STEPS.has(a.activityType?.name ?? ''), scheduledAt: at });
    } else if (e.activityTaskStartedEventAttributes) {
      const started = e.activityTaskStartedEventAttributes;
      const a = activities.get(String(started.scheduledEventId));
      if (a) {
        add(a.carrier ? WAIT_KINDS.carrierWait : WAIT_KINDS.stepWait, a.scheduledAt, at);
        a.startedAt = at;
        a.identity = started.identity;
        // A step Temporal retried shows only its last attempt, with the failure before it: a
        // time-out is an attempt lost with its worker (which one, the history does not say), an
        // answer is a fault on that call.
        if ((started.attempt ?? 1) > 1 && started.lastFailure) {
          if (started.lastFailure.timeoutFailureInfo) touches.lostTasks++;
          else failedCall(a);
        }
      }
    } else if (e.activityTaskCompletedEventAttributes || e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes) {
      const scheduledEventId = (e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes)!.scheduledEventId;
      const a = activities.get(String(scheduledEventId));
      if (!a) continue;
      if (e.activityTaskTimedOutEventAttributes) {
        add(a.carrier ? WAIT_KINDS.carrierLost : WAIT_KINDS.stepLost, a.startedAt ?? a.scheduledAt, at);
        lost(a.identity);
      } else add(a.carrier ? WAIT_KINDS.carrierRun : WAIT_KINDS.stepRun, a.startedAt, at);
      if (e.activityTaskFailedEventAttributes) failedCall(a);
    } else if (e.timerStartedEventAttributes) timerAt = at;
    else if (e.timerFiredEventAttributes) add(WAIT_KINDS.timer, timerAt, at);
  }
  touches.lostWith = lostWith.size;
  const startedAt = events.length ? ms(events[0]) : undefined;
  return { waits, touches, ...(startedAt !== undefined ? { startedAt } : {}), ...(end !== Infinity ? { outcomeAt: end } : {}) };
}

/** Each shipment's purchase as its first run's history shows it (the shipments whose history could be read). */
export async function readPurchases(temporalAddress: string, shipmentIds: readonly string[]): Promise<Map<string, PurchaseRead>> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = new Client({ connection });
    const read = new Map<string, PurchaseRead>();
    for (const id of shipmentIds) {
      try {
        // The first run is the purchase's (tracking continues as new), so its history from the start.
        const description = await client.workflow.getHandle(shipmentWorkflowId(id)).describe();
        const firstRunId = description.raw.workflowExecutionInfo?.firstRunId ?? description.runId;
        const { events } = await client.workflow.getHandle(shipmentWorkflowId(id), firstRunId).fetchHistory();
        read.set(id, readPurchase(events ?? []));
      } catch {
        // Left out: the callers count the shipments they asked for and did not get.
      }
    }
    return read;
  } finally {
    await connection.close();
  }
}

/** Waits added up by kind. */
export function addWaits<K extends string>(waits: Iterable<ReadonlyMap<K, number>>): Map<K, number> {
  const total = new Map<K, number>();
  for (const w of waits) for (const [kind, waited] of w) total.set(kind, (total.get(kind) ?? 0) + waited);
  return total;
}

/** The waits as a table, largest first, with each kind's share of their sum. */
export function formatWaits(waits: ReadonlyMap<string, number>): string {
  const sum = [...waits.values()].reduce((a, b) => a + b, 0);
  const lines = ['| waited on | s | share |', '|---|---|---|'];
  for (const [kind, waited] of [...waits].sort((a, b) => b[1] - a[1])) {
    lines.push(`| ${kind} | ${(waited / 1000).toFixed(1)} | ${sum ? Math.round((waited / sum) * 100) : 0}% |`);
  }
  return lines.join('\n');
}
