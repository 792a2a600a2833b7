import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Scan } from '../carriers/index.js';
import { FAILURE, isTerminal, nonRetryableFailure, isVoidable, PURCHASE_PATH, SA } from '../domain/workflow.js';
import { purchaseUpdate, scansSignal, stateQuery, voidUpdate, type PurchaseOutcome } from './definitions.js';
import { purchase, purchaseLean, cancelStrayLabel, type PurchaseResult } from './purchase.js';
import { shipmentActivities } from './proxies.js';
import { emitEvent, emitStatusEvent } from './events.js';
import { followScans, quietStopMs, type TrackingState } from './tracking.js';
import type { ShipmentWorkflowInput, ShipmentWorkflowResult } from './shipment-types.js';
import { settleVoidOfStoppedRun, voidLabel } from './void.js';
import { settleStoppedPurchase, stoppedBy } from './settle.js';

export type { ShipmentWorkflowInput, ShipmentWorkflowResult, StoppedRun } from './shipment-types.js';

/**
 * Whether this run takes the branch of `patchId`. A run whose input names the current purchase path
 * takes it and records no marker. A worker build from before `purchasePath` ignores the field and
 * records the marker instead (a new API beside an old build: a ramp, a rollback), and a replay of
 * that history by this code must meet the patched() call the marker answers, or it is a
 * nondeterminism error. So on replay, and only then, the call is made: it consumes a marker that is
 * there and, where there is none, returns false and records nothing.
 */
function takesPath(input: ShipmentWorkflowInput, patchId: string): boolean {
  if (input.purchasePath !== PURCHASE_PATH) return patched(patchId);
  if (workflowInfo().unsafe.isReplaying) patched(patchId);
  return true;
}

/** The purchase path of `purchaseLean` (local transactions, render after the answer). */
export const PATCH_LEAN_PURCHASE = 'lean-purchase';
/**
 * `purchaseLean` whose capture also starts the label render in its worker, with no activity of its
 * own (a download renders what is not there yet), and tracking that stops when quiet. One marker for
 * a new shipment where there were two, and two tasks through the server fewer.
 */
export const PATCH_RENDER_WITH_CAPTURE = 'lean-purchase-render-with-capture';

/**
 * After the purchase has been answered: start the webhook deliveries of the events the purchase
 * stored and, unless the capture's worker already renders them (`rendered`), render the label files
 * in an activity (a download that comes first renders its own file, once).
 */
async function afterPurchase(input: ShipmentWorkflowInput, result: PurchaseResult, rendered: boolean): Promise<void> {
  const acts = shipmentActivities();
  if (rendered && !result.events?.length) return;
  setCurrentDetails(rendered ? 'purchased; announcing the events' : 'purchased; rendering the label files and announcing the events');
  await Promise.all([
    rendered ? Promise.resolve() : acts.storeLabels({ shipmentId: input.shipmentId, trackingNumber: result.trackingNumber! }),
    result.events?.length
      ? acts.announceEvents({ accountId: input.accountId, livemode: input.livemode, events: result.events })
      : Promise.resolve(),
  ]);
}

/**
 * One shipment's whole life, `shipment/<shp_id>` on the `shipments` queue: the purchase saga, then
 * tracking until delivered, or a void. Reads top to bottom as the business process.
 */
export async function shipmentWorkflow(input: ShipmentWorkflowInput): Promise<ShipmentWorkflowResult> {
  const state: TrackingState = {
    status: input.resume?.status ?? 'pending',
    carrier: input.resume?.carrier ?? null,
    trackingNumber: input.resume?.trackingNumber ?? null,
    seenScanIds: new Set(input.resume?.seenScanIds ?? []),
    pushed: [...(input.resume?.pushed ?? [])],
    pollMs: input.resume?.pollMs ?? input.tracking.minPollMs,
    busy: false,
    latest: input.resume?.latestScan,
  };
  let purchaseOutcome: PurchaseOutcome | undefined = input.resume ? { ok: true } : undefined;

  // The purchase update only waits for the saga, so every retry of the same request (same update
  // id) and every duplicate request gets the one outcome.
  setHandler(purchaseUpdate, async () => {
    await condition(() => purchaseOutcome !== undefined);
    return purchaseOutcome!;
  });
  setHandler(scansSignal, (scans: Scan[]) => {
    state.pushed.push(...scans);
  });
  setHandler(stateQuery, () => ({
    status: state.status,
    trackingNumber: state.trackingNumber,
    pollMs: state.pollMs,
    scansSeen: state.seenScanIds.size,
  }));
  setHandler(voidUpdate, () => voidLabel(input, state), {
    validator: () => {
      // Validators run before the update is accepted: a refused void leaves no trace in history.
      // A purchase still pending here may already be purchased in the database (its capture has
      // committed, and the workflow task that carries it was lost with its worker and runs again):
      // the customer may have been told so. The void is accepted and waits for the purchase to end.
      if (!isVoidable(state.status) && state.status !== 'pending') {
        throw nonRetryableFailure(FAILURE.shipmentNotVoidable, `A ${state.status} shipment cannot be voided.`);
      }
    },
  });

  // Shipments whose purchase began before a path keep the command sequence they recorded.
  // A new shipment names its path in its input (no marker); older runs decide by their markers.
  // A run settling a stopped purchase takes no path: it buys nothing.
  const settling = input.settle;
  const renderWithCapture = !input.resume && !settling && takesPath(input, PATCH_RENDER_WITH_CAPTURE);
  if (!input.resume) {
    const lean = !settling && (renderWithCapture || patched(PATCH_LEAN_PURCHASE));
    const result = settling
      ? await settleStoppedPurchase(input, settling)
      : lean
        ? await purchaseLean(input, { renderWithCapture })
        : await purchase(input);
    state.carrier = result.carrier;
    state.trackingNumber = result.trackingNumber;
    state.status = result.outcome.ok ? 'purchased' : 'failed';
    purchaseOutcome = result.outcome;
    upsertSearchAttributes([
      { key: SA.ShipmentStatus, value: state.status },
      ...(result.carrier ? [{ key: SA.Carrier, value: result.carrier }] : []),
      ...(result.trackingNumber ? [{ key: SA.TrackingNumber, value: result.trackingNumber }] : []),
    ]);
    if (!result.outcome.ok) {
      const failed = `failed: ${result.outcome.code}: ${result.outcome.message}`;
      setCurrentDetails(failed);
      if (result.strayLabelCheck && result.carrier) {
        setCurrentDetails(`failed; checking carrier ${result.carrier} for a stray label to cancel`);
        const stray = await cancelStrayLabel(input, result.carrier);
        // What an operator reads once it is over: the failure, and a label the carrier made late.
        setCurrentDetails(stray ? `${failed}; a stray label ${stray} turned up at ${result.carrier} and was cancelled` : `${failed}; no stray label at ${result.carrier}`);
      }
      await condition(allHandlersFinished);
      return { status: 'failed' };
    }
    if (settling) {
      // The stopped run's capture committed: its events are stored (the sweep starts the deliveries
      // no announcement started) and a download renders a label file not rendered yet.
    } else if (lean) {
      await afterPurchase(input, result, renderWithCapture);
    } else {
      await emitStatusEvent(input, 'purchased');
      if (result.lowBalance) {
        // The payload is the balance as it stands when the event is stored.
        await emitEvent(input, 'wallet.low_balance', null);
      }
    }
  }

  if (settling?.status === 'voiding') await settleVoidOfStoppedRun(input, state, stoppedBy(settling));

  let polls = 0;
  // Tracking stops after a quiet period (issue 13); histories from before keep polling as they did.
  // A run whose input names the current purchase path was started by code that stops when quiet.
  const stopsWhenQuiet = renderWithCapture || takesPath(input, QUIET_STOP_PATCH);
  let quietSince = input.resume?.quietSince ?? Date.now();
  try {
    while (!isTerminal(state.status)) {
      const quietForMs = Date.now() - quietSince;
      if (stopsWhenQuiet && quietForMs >= quietStopMs(input) && !state.pushed.length && !state.busy) {
        const stopped = await stopTracking(input, state, quietForMs);
        if (stopped) return stopped;
        continue;
      }
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
        if ((await followScans(input, state, pushed ? 'pushed' : 'poll')) > 0) quietSince = Date.now();
      } finally {
        state.busy = false;
      }
      polls++;
      const limit = input.tracking.continueAsNewAfterPolls;
      if (workflowInfo().continueAsNewSuggested || (limit !== undefined && polls >= limit)) {
        // Weeks of polling: start a fresh history, after every handler has finished.
        await condition(allHandlersFinished);
        if (!isTerminal(state.status)) {
          log.info('continuing as new to keep the history small', { polls });
          await continueAsNew<typeof shipmentWorkflow>({
            ...carriedOver(input),
            resume: { ...resumeOf(state), pollMs: state.pollMs, pushed: state.pushed, ...(stopsWhenQuiet ? { quietSince } : {}) },
          });
        }
      }
    }
  } catch (err) {
    // Cancelled by an operator: a void under way settles by the carrier's record first (its
    // handler, PATCH_CANCEL_DURING_VOID), so the shipment is never left `voiding` with no workflow.
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    throw err;
  }
  setCurrentDetails(`${state.status}; finished`);
  await condition(allHandlersFinished);
  return { status: state.status };
}

/** The input a next run of this shipment's workflow starts from: what this one settled stays settled. */
function carriedOver(input: ShipmentWorkflowInput): ShipmentWorkflowInput {
  const { settle: _settled, ...next } = input;
  return next;
}

/** What a next run of this shipment's workflow carries over of the tracking state. */
function resumeOf(state: TrackingState) {
  return {
    status: state.status,
    carrier: state.carrier!,
    trackingNumber: state.trackingNumber!,
    seenScanIds: [...state.seenScanIds],
    ...(state.latest ? { latestScan: state.latest } : {}),
  };
}

const QUIET_STOP_PATCH = 'tracking-stops-when-quiet';

/**
 * Ends the workflow after a quiet period, leaving the shipment's status as it is; the result carries
 * what a later scan or a void needs to start tracking again (api/resume.ts). Undefined when a scan or
 * an update arrived meanwhile: tracking goes on.
 */
async function stopTracking(
  input: ShipmentWorkflowInput,
  state: TrackingState,
  quietForMs: number,
): Promise<ShipmentWorkflowResult | undefined> {
  const days = Math.round((quietForMs / 86_400_000) * 10) / 10;
  await condition(allHandlersFinished);
  if (state.pushed.length || state.busy || isTerminal(state.status)) return undefined;
  setCurrentDetails(`${state.status}; tracking stopped: no new scan for ${days} d. A pushed or sandbox scan, or a void, resumes it.`);
  log.info('tracking stopped after a quiet period', { quietForMs, status: state.status });
  return {
    status: state.status,
    trackingStopped: {
      quietForMs,
      resumeWith: {
        ...carriedOver(input),
        // A resumed run gets a whole quiet period of its own (its start time).
        resume: { ...resumeOf(state), pollMs: input.tracking.minPollMs },
      },
    },
  };
}
