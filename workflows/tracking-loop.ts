import { allHandlersFinished, CancellationScope, condition, isCancellation, log, patched, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { CODE, isTerminal, SUBSCRIPTION_RENEW_MARGIN_MS, TRACKING_UNKNOWN_STOP_MS } from '../domain/workflow.js';
import type { ShipmentWorkflowInput, ShipmentWorkflowResult } from '../contract/index.js';
import { failureMessage, failureType } from './failures.js';
import { carrierCalls, followScans, nextWaitMs, parcelMs, POLL_LIMIT_MS, quietStopMs, workflowMs, type TrackingState } from './tracking.js';

/**
 * A tracking run continues as new once its history has this many events (about twenty polls): a
 * worker that no longer has the workflow cached replays it from its history at the next timer, so
 * a short history keeps that replay cheap whatever the parcel's age.
 */
export const TRACKING_HISTORY_EVENTS = 200;
/** Runs after it continue as new at TRACKING_HISTORY_EVENTS (workflows/patches.ts). */
const HISTORY_BOUND = 'tracking-history-bound';
/** Runs after it stop tracking a number the carrier never reported after TRACKING_UNKNOWN_STOP_MS (workflows/patches.ts). */
const UNKNOWN_STOP = 'tracking-unknown-stop';
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
      const pushed = await condition(() => state.pushed.length > 0 || isTerminal(state.status), state.pollMs, {
        summary: `next poll of carrier ${state.carrier} for ${state.trackingNumber}, unless a scan is pushed first`,
      });
      if (isTerminal(state.status)) break; // voided by the update handler
      await condition(() => !state.busy); // a void in progress owns the scans
      if (isTerminal(state.status)) break;
      state.busy = true;
      try {
        await followScans(input, state, pushed ? 'pushed' : 'poll');
      } finally {
        state.busy = false;
      }
      polls++;
      const limit = input.tracking.continueAsNewAfterPolls;
      const info = workflowInfo();
      const longHistory = info.historyLength >= TRACKING_HISTORY_EVENTS && patched(HISTORY_BOUND);
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
