import {
  allHandlersFinished,
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import type { CarrierActivities } from '../activities/index.js';
import type { Scan } from '../carriers/index.js';
import {
  CARRIER_REASON,
  CODE,
  isTerminal,
  nextPollMs,
  SUBSCRIPTION_RENEW_MARGIN_MS,
  trackingPhase,
  TRACKING_UNKNOWN_STOP_MS,
  type ShipmentStatus,
} from '../domain/workflow.js';
import {
  applicationFailureOf,
  carrierCallQueue,
  taskQueues,
  TRACKING_QUIET_STOP_MS,
  type LatestScan,
  type PushSubscription,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
  type VoidOutcome,
} from '../contract/index.js';
import { failureMessage, failureType } from './failures.js';
import { CARRIER_CALL, pollTrackingLocally, type CarrierCalls } from './proxies.js';
import { applyScans } from './tracking-writes.js';

/**
 * What a run knows of its shipment once the purchase has its answer: the tracking loop and the void
 * both move it, one at a time (`busy`), and a next run carries it over (`resume`).
 */
export interface TrackingState {
  status: ShipmentStatus;
  carrier: string | null;
  trackingNumber: string | null;
  seenScanIds: Set<string>;
  pushed: Scan[];
  pollMs: number;
  /** A void holds the scans while it checks them, so the loop does not race it. */
  busy: boolean;
  /** Scans the store refused as invalid data: never tried again in this run (not carried over). */
  refusedScanIds?: Set<string>;
  /** The last thing that went wrong, shown to operators in the workflow's current details. */
  problem?: string;
  /** The newest scan applied: its time and status are the parcel's current ones. */
  latest?: LatestScan;
  /** Workflow time (ms) of the last new scan, or of the purchase: how long the parcel has sat still. */
  movedAt: number;
  /** Polls in a row that failed: each doubles the next wait. */
  failures: number;
  /** Whether the carrier has ever reported the tracking number (a poll answered, or a scan came). */
  known: boolean;
  /** The carrier's push subscription, where its parcels have one (`input.tracking.push`). */
  push?: PushSubscription;
  /** The run before ended its wait on the timer: the first turn of this one polls without waiting. */
  pollDue?: boolean;
  /** The voids answered so far, this run's and those carried over, by update id (shipment.ts). */
  voids: Record<string, VoidOutcome>;
}

/**
 * A tracking run recorded before SHORT_HISTORY continues as new once its history has this many
 * events (about twenty polls); runs since, at TRACKING_SHORT_HISTORY_EVENTS.
 */
export const TRACKING_HISTORY_EVENTS = 200;
/**
 * A tracking run continues as new once its history has this many events. A worker that no longer
 * caches the workflow (100,000 parcels in flight meet a cache of a few hundred) replays the whole
 * history at each of its workflow tasks, at about 0.7 ms of CPU an event: 153 ms at 216 events, 33 ms
 * at 16, 10 ms at 2 (docs/benchmarks.md#tracking-at-scale). A poll turn adds some 6 events (its timer,
 * one workflow task, the local poll's marker), 13 when it finds scans (their one write step, its
 * workflow task and the search attribute), and a run starts with about 5. (A run recorded without
 * LOCAL_POLL takes 11 events a turn, 18 with scans.) At 60 a replayed history is about 35 events at the
 * median, some 35 ms of CPU where the 200 bound's median of 160 cost 120 ms. The run that follows
 * starts with a history of a few events: a continue-as-new every five to ten polls costs less than
 * one turn's replays save.
 */
export const TRACKING_SHORT_HISTORY_EVENTS = 60;
/** Runs after it continue as new at TRACKING_HISTORY_EVENTS (workflows/patches.ts). */
const HISTORY_BOUND = 'tracking-history-bound';
/** Runs after it continue as new at TRACKING_SHORT_HISTORY_EVENTS (workflows/patches.ts). */
const SHORT_HISTORY = 'tracking-short-history';
/** Runs after it move to the `tracking` queue after their first wait (workflows/patches.ts). */
const OWN_QUEUE = 'tracking-own-queue';
/** Runs after it stop tracking a number the carrier never reported after TRACKING_UNKNOWN_STOP_MS (workflows/patches.ts). */
const UNKNOWN_STOP = 'tracking-unknown-stop';
/** Runs after it poll as a local activity, one workflow task a turn that finds nothing (workflows/patches.ts). */
const LOCAL_POLL = 'tracking-local-poll';
/** After a failed subscription, the next attempt waits this long (parcel time). */
const SUBSCRIBE_RETRY_MS = 6 * 3_600_000;

/** How tracking ended: with the workflow's result, or with the input of the run that goes on with it. */
export type Tracked = { result: ShipmentWorkflowResult } | { continueWith: ShipmentWorkflowInput };

/**
 * Follows the parcel: pushed scans as they arrive, carrier polls in between on the parcel's schedule
 * (nextWaitMs), until its status is final or a void ends it. Tracking stops after a quiet period
 * (sooner for a number the carrier never reported), and once the history has grown (or the server
 * suggests it) the next run takes over with a fresh one.
 */
export async function trackUntilDone(input: ShipmentWorkflowInput, state: TrackingState): Promise<Tracked> {
  let polls = 0;
  try {
    while (!isTerminal(state.status)) {
      const quietForMs = parcelMs(input, Date.now() - state.movedAt);
      const neverKnown = !state.known && quietForMs >= TRACKING_UNKNOWN_STOP_MS;
      if ((quietForMs >= quietStopMs(input) || (neverKnown && patched(UNKNOWN_STOP))) && !state.pushed.length && !state.busy) {
        const stopped = await stopTracking(input, state, quietForMs);
        if (stopped) return { result: stopped };
        continue;
      }
      await keepSubscribed(input, state);
      state.pollMs = nextWaitMs(input, state);
      setCurrentDetails(
        `${state.status}; next carrier poll in ${Math.round(state.pollMs / 1000)} s` + (state.problem ? `; last problem: ${state.problem}` : ''),
      );
      const pushed = state.pollDue
        ? state.pushed.length > 0
        : await condition(() => state.pushed.length > 0 || isTerminal(state.status), state.pollMs, {
            summary: `next poll of carrier ${state.carrier} for ${state.trackingNumber}, unless a scan is pushed first`,
          });
      state.pollDue = false;
      if (isTerminal(state.status)) break; // voided by the update handler
      await condition(() => !state.busy); // a void in progress owns the scans
      if (isTerminal(state.status)) break;
      if (workflowInfo().taskQueue !== taskQueues(input.queuePrefix).tracking && patched(OWN_QUEUE)) {
        // Its first wait is over (the purchase's answer long given): the rest of the parcel's life
        // runs on the `tracking` queue, so that however many parcels are in flight, their tasks never
        // queue ahead of a purchase's on `shipments`. The next run takes this turn's poll or scans.
        await condition(allHandlersFinished);
        if (isTerminal(state.status)) break;
        return { continueWith: { ...carriedOver(input), resume: { ...resumeOf(state), pollMs: state.pollMs, pushed: state.pushed, quietSince: state.movedAt, ...(pushed ? {} : { pollDue: true }) } } };
      }
      state.busy = true;
      try {
        await followScans(input, state, pushed ? 'pushed' : 'poll');
      } finally {
        state.busy = false;
      }
      polls++;
      const limit = input.tracking.continueAsNewAfterPolls;
      const info = workflowInfo();
      const longHistory = historyAtBound(info.historyLength);
      if (info.continueAsNewSuggested || (limit !== undefined && polls >= limit) || longHistory) {
        // A fresh history, after every handler has finished.
        await condition(allHandlersFinished);
        if (!isTerminal(state.status)) {
          log.info('continuing as new to keep the history small', { polls, historyLength: info.historyLength });
          return { continueWith: { ...carriedOver(input), resume: { ...resumeOf(state), pollMs: state.pollMs, pushed: state.pushed, quietSince: state.movedAt } } };
        }
      }
    }
  } catch (err) {
    // Cancelled by an operator: a void under way settles by the carrier's record first (its
    // handler, void.ts), so the shipment is never left `voiding` with no workflow.
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    throw err;
  }
  setCurrentDetails(`${state.status}; finished`);
  await condition(allHandlersFinished);
  return { result: { status: state.status } };
}

/**
 * Subscribes the parcel to the scans its carrier pushes (`input.tracking.push`: UPS Track Alert), at
 * the start of its tracking and again before the subscription lapses. A failure is retried hours
 * later, polling meanwhile; a number the carrier refuses is polled for the rest of its life.
 */
async function keepSubscribed(input: ShipmentWorkflowInput, state: TrackingState): Promise<void> {
  const lifetimeMs = state.carrier && input.livemode ? input.tracking.push?.[state.carrier]?.lifetimeMs : undefined;
  if (lifetimeMs === undefined || !state.carrier || !state.trackingNumber) return;
  const now = Date.now();
  const push = state.push;
  if (push && 'refused' in push) return;
  if (push && 'until' in push && now < push.until - workflowMs(input, SUBSCRIPTION_RENEW_MARGIN_MS)) return;
  if (push && 'retryAt' in push && now < push.retryAt) return;
  try {
    const answer = await carrierCalls(input, state.carrier, `subscribe ${state.trackingNumber} to the scans ${state.carrier} pushes`, POLL_LIMIT_MS, 'tracking').subscribeTracking({ carrier: state.carrier, livemode: input.livemode, trackingNumbers: [state.trackingNumber] });
    state.push = answer.subscribed.includes(state.trackingNumber) ? { until: now + workflowMs(input, lifetimeMs) } : { refused: true };
    if ('refused' in state.push) state.problem = `carrier ${state.carrier} refused to push the scans of ${state.trackingNumber}: polling instead`;
  } catch (err) {
    // The carrier's refusal (a 4xx) is final for this number; a fault is tried again hours later.
    const refused = failureType(err) === CODE.carrier_error;
    state.push = refused ? { refused: true } : { retryAt: Date.now() + workflowMs(input, SUBSCRIBE_RETRY_MS) };
    state.problem = `the subscription to carrier ${state.carrier}'s pushed scans failed${refused ? ' for good (polling instead)' : ''}: ${failureMessage(err)}`;
    log.warn('push subscription failed; polling meanwhile', { error: failureMessage(err), refused });
  }
}

/** The input a next run of this shipment's workflow starts from: what this one settled stays settled. */
function carriedOver(input: ShipmentWorkflowInput): ShipmentWorkflowInput {
  const { settle: _settled, ...next } = input;
  return next;
}

/**
 * Whether the run's history has reached its bound. Each patch is asked only once the history has
 * reached its own bound, so its marker is recorded in the turn that continues as new, and a replay
 * asks it at the same turn. A run recorded before SHORT_HISTORY replays with it false, up to the old
 * bound; once it runs new tasks, it takes the short bound and goes on as new at its next turn.
 */
function historyAtBound(length: number): boolean {
  if (length >= TRACKING_SHORT_HISTORY_EVENTS && patched(SHORT_HISTORY)) return true;
  return length >= TRACKING_HISTORY_EVENTS && patched(HISTORY_BOUND);
}

/** What a next run of this shipment's workflow carries over of the tracking state (defaults left out). */
function resumeOf(state: TrackingState, o: { failures: boolean } = { failures: true }) {
  return {
    status: state.status,
    carrier: state.carrier!,
    trackingNumber: state.trackingNumber!,
    seenScanIds: [...state.seenScanIds],
    ...(state.latest ? { latestScan: state.latest } : {}),
    ...(o.failures && state.failures ? { failures: state.failures } : {}),
    ...(state.known ? {} : { known: false }),
    ...(state.push ? { push: state.push } : {}),
    ...(Object.keys(state.voids).length ? { voids: state.voids } : {}),
  };
}

/**
 * Ends the workflow after a quiet period, leaving the shipment's status as it is; the result carries
 * what a later scan or a void needs to start tracking again (api/resume.ts). Undefined when a scan or
 * an update arrived meanwhile: tracking goes on.
 */
async function stopTracking(input: ShipmentWorkflowInput, state: TrackingState, quietForMs: number): Promise<ShipmentWorkflowResult | undefined> {
  const days = Math.round((quietForMs / 86_400_000) * 10) / 10;
  await condition(allHandlersFinished);
  if (state.pushed.length || state.busy || isTerminal(state.status)) return undefined;
  const why = state.known ? `no new scan for ${days} d` : `carrier ${state.carrier} has not reported it in ${days} d`;
  setCurrentDetails(`${state.status}; tracking stopped: ${why}. A pushed or sandbox scan, or a void, resumes it.`);
  log.info('tracking stopped after a quiet period', { quietForMs, status: state.status, known: state.known });
  return {
    status: state.status,
    trackingStopped: {
      quietForMs,
      resumeWith: {
        ...carriedOver(input),
        // A resumed run gets a whole quiet period of its own (its start time), and polls afresh.
        resume: { ...resumeOf(state, { failures: false }), pollMs: input.tracking.minPollMs },
      },
    },
  };
}

/** Parcel time (the schedule's) from workflow time: they differ only on a bench's scaled clock. */
export const parcelMs = (input: ShipmentWorkflowInput, workflowMs: number) => workflowMs * (input.tracking.timeScale ?? 1);
/** Workflow time from parcel time; at least a millisecond. */
export const workflowMs = (input: ShipmentWorkflowInput, parcel: number) => Math.max(1, Math.ceil(parcel / (input.tracking.timeScale ?? 1)));

/**
 * How long to wait for a push before the next poll, in workflow time: the schedule's answer for
 * where the parcel is, how long it has sat still and how the last polls went (domain/tracking-schedule.ts).
 */
export function nextWaitMs(input: ShipmentWorkflowInput, state: TrackingState): number {
  const now = Date.now();
  // The sandbox's scans are only ever pushed; a subscribed parcel's are, while its subscription lasts.
  const pushed = !input.livemode || (state.push !== undefined && 'until' in state.push && now < state.push.until);
  const wait = workflowMs(
    input,
    nextPollMs({
      phase: trackingPhase(state.latest?.status),
      sinceMovementMs: parcelMs(input, now - state.movedAt),
      failures: state.failures,
      pushed,
      bounds: { minMs: input.tracking.minPollMs, maxMs: input.tracking.maxPollMs },
    }),
  );
  // A subscription about to lapse is renewed at the loop's next turn: the wait ends in time for it.
  const renewAt = state.push && 'until' in state.push ? state.push.until - workflowMs(input, SUBSCRIPTION_RENEW_MARGIN_MS) : undefined;
  return renewAt === undefined ? wait : Math.max(1, Math.min(wait, renewAt - now));
}

/**
 * Fetches the carrier's scans now, for at most `limitMs`. The tracking loop's polls run on the
 * carrier's tracking queue (its own share of the rate, so they never delay a purchase); the void's
 * scan check, which a customer waits on, stays on the purchases' queue.
 */
export async function pollScans(
  input: ShipmentWorkflowInput,
  state: TrackingState,
  limitMs = POLL_LIMIT_MS,
  queue: 'purchases' | 'tracking' = 'purchases',
): Promise<Scan[]> {
  if (!state.carrier || !state.trackingNumber) return [];
  return carrierCalls(input, state.carrier, `fetch the scans of ${state.trackingNumber} from ${state.carrier}`, limitMs, queue).fetchScans({
    carrier: state.carrier,
    livemode: input.livemode,
    trackingNumber: state.trackingNumber,
  });
}


/** A poll that cannot get an answer in this long gives way; the loop polls again later. */
export const POLL_LIMIT_MS = 2 * 60_000;

/**
 * The loop's poll: a local activity of this worker (pollTrackingLocally), under the carrier's tracking
 * rate held fleet-wide in PostgreSQL; on the carrier's own queue for a run recorded before that, or
 * where tracking has no share of the carrier's rate and its polls share the purchases' queue.
 */
async function loopPoll(input: ShipmentWorkflowInput, state: TrackingState): Promise<Scan[]> {
  if (!state.carrier || !state.trackingNumber) return [];
  if (input.tracking.sharedCarrierQueue || !patched(LOCAL_POLL)) return pollScans(input, state, POLL_LIMIT_MS, 'tracking');
  return pollTrackingLocally(`fetch the scans of ${state.trackingNumber} from ${state.carrier}`, POLL_LIMIT_MS, {
    carrier: state.carrier,
    livemode: input.livemode,
    trackingNumber: state.trackingNumber,
  });
}

/**
 * One step of the tracking loop: take pushed scans or poll. Returns how many scans were new. A
 * carrier that errors on a read (even a 4xx, or "not found" for a label it has not scanned yet)
 * never ends the shipment: the error shows in the current details and each failure in a row doubles
 * the next wait (nextWaitMs).
 */
export async function followScans(input: ShipmentWorkflowInput, state: TrackingState, why: 'pushed' | 'poll'): Promise<number> {
  let scans: Scan[];
  if (why === 'pushed') {
    scans = state.pushed.splice(0);
  } else {
    try {
      scans = await loopPoll(input, state);
      state.failures = 0;
      state.known = true;
    } catch (err) {
      state.failures++;
      const reason = (applicationFailureOf(err)?.details?.[0] as { reason?: string | null } | undefined)?.reason;
      state.problem =
        reason === CARRIER_REASON.notFound
          ? `carrier ${state.carrier} does not know ${state.trackingNumber} (${state.failures} polls in a row)`
          : `the last poll of carrier ${state.carrier} failed: ${failureMessage(err)}`;
      log.warn('tracking poll failed; polling again later', { error: failureMessage(err), failures: state.failures });
      return 0;
    }
  }
  const fresh = await applyScans(input, state, scans);
  if (fresh) {
    state.movedAt = Date.now();
    state.known = true;
  }
  return fresh;
}

/** How long this shipment may go without a new scan before tracking stops. */
export function quietStopMs(input: ShipmentWorkflowInput): number {
  return input.tracking.quietStopMs ?? (input.livemode ? TRACKING_QUIET_STOP_MS.live : TRACKING_QUIET_STOP_MS.sandbox);
}

/**
 * Tracking's carrier calls, within `withinMs`: the loop's on the carrier's tracking queue when live
 * (unless it shares the one queue), the void's scan check on the purchases' queue.
 */
function carrierCalls(input: ShipmentWorkflowInput, carrier: string, summary: string, withinMs: number, queue: 'purchases' | 'tracking'): CarrierCalls {
  return proxyActivities<CarrierActivities>({
    ...CARRIER_CALL,
    summary,
    taskQueue: carrierCallQueue(input, carrier, queue === 'tracking' && !input.tracking.sharedCarrierQueue ? 'tracking' : 'purchases'),
    scheduleToCloseTimeout: withinMs,
  });
}

