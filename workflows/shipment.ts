import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Scan } from '../carriers/index.js';
import { CODE, isTerminal, isVoidable } from '../domain/workflow.js';
import {
  nonRetryableFailure,
  purchaseUpdate,
  SA,
  scansSignal,
  stateQuery,
  voidUpdate,
  type PurchaseOutcome,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
} from '../contract/index.js';
import { cancelStrayLabel, purchaseLabel } from './purchase.js';
import type { PurchaseResult } from './purchase-types.js';
import { shipmentActivities } from './proxies.js';
import { followScans, quietStopMs, type TrackingState } from './tracking.js';
import { settleVoidOfStoppedRun, voidLabel } from './void.js';
import { settleStoppedPurchase, stoppedBy } from './settle.js';

/**
 * One shipment's whole life, `shipment/<shp_id>` on the `shipments` queue, as the business process:
 * the handlers, the purchase, tracking until delivered or voided, and a fresh run of the same
 * workflow when its history has grown long. A run that resumes (continue-as-new, or tracking started
 * again after a quiet stop) goes straight to tracking.
 */
export async function shipmentWorkflow(input: ShipmentWorkflowInput): Promise<ShipmentWorkflowResult> {
  const state = trackingStateOf(input);
  const answerPurchase = setUpHandlers(input, state);

  if (!input.resume) {
    const failed = await purchase(input, state, answerPurchase);
    if (failed) return failed;
  }
  if (input.settle?.status === 'voiding') await settleVoidOfStoppedRun(input, state, stoppedBy(input.settle));

  const tracked = await trackUntilDone(input, state);
  if ('continueWith' in tracked) return await continueAsNew<typeof shipmentWorkflow>(tracked.continueWith);
  return tracked.result;
}

/** The run's state: a new shipment's, or what the run before carried over. */
function trackingStateOf(input: ShipmentWorkflowInput): TrackingState {
  return {
    status: input.resume?.status ?? 'pending',
    carrier: input.resume?.carrier ?? null,
    trackingNumber: input.resume?.trackingNumber ?? null,
    seenScanIds: new Set(input.resume?.seenScanIds ?? []),
    pushed: [...(input.resume?.pushed ?? [])],
    pollMs: input.resume?.pollMs ?? input.tracking.minPollMs,
    busy: false,
    latest: input.resume?.latestScan,
  };
}

/**
 * The purchase and void updates, the scans signal and the state query. Returns how the purchase's
 * outcome is given to the purchase update, which only waits for it: every retry of the same request
 * (same update id) and every duplicate request gets the one outcome.
 */
function setUpHandlers(input: ShipmentWorkflowInput, state: TrackingState): (outcome: PurchaseOutcome) => void {
  let purchaseOutcome: PurchaseOutcome | undefined = input.resume ? { ok: true } : undefined;
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
        throw nonRetryableFailure(CODE.shipment_not_voidable, `A ${state.status} shipment cannot be voided.`);
      }
    },
  });
  return (outcome) => {
    purchaseOutcome = outcome;
  };
}

/**
 * The purchase saga; in a run the sweep started for a run stopped mid-purchase, the settling of what
 * that run left (it buys nothing). Its outcome answers the purchase update. A failed purchase ends
 * the workflow (returned); a bought label's events go to the webhook endpoints.
 */
async function purchase(
  input: ShipmentWorkflowInput,
  state: TrackingState,
  answerPurchase: (outcome: PurchaseOutcome) => void,
): Promise<ShipmentWorkflowResult | undefined> {
  const result = input.settle ? await settleStoppedPurchase(input, input.settle) : await purchaseLabel(input);
  state.carrier = result.carrier;
  state.trackingNumber = result.trackingNumber;
  state.status = result.outcome.ok ? 'purchased' : 'failed';
  answerPurchase(result.outcome);
  upsertSearchAttributes([
    { key: SA.ShipmentStatus, value: state.status },
    ...(result.carrier ? [{ key: SA.Carrier, value: result.carrier }] : []),
    ...(result.trackingNumber ? [{ key: SA.TrackingNumber, value: result.trackingNumber }] : []),
  ]);
  if (!result.outcome.ok) return await endFailedPurchase(input, result, result.outcome);
  // A settling run's purchase was captured by the stopped run: its events are stored (the sweep
  // starts the deliveries no announcement started) and a download renders a label file not rendered yet.
  if (!input.settle) await announceEvents(input, result);
  return undefined;
}

/** A failed purchase: a stray label the carrier may have made is looked for and cancelled, then the workflow ends. */
async function endFailedPurchase(
  input: ShipmentWorkflowInput,
  result: PurchaseResult,
  outcome: Extract<PurchaseOutcome, { ok: false }>,
): Promise<ShipmentWorkflowResult> {
  const failed = `failed: ${outcome.code}: ${outcome.message}`;
  setCurrentDetails(failed);
  if (result.strayLabelCheck && result.carrier) {
    setCurrentDetails(`failed; checking carrier ${result.carrier} for a stray label to cancel`);
    const stray = await cancelStrayLabel(input, result.carrier);
    // What an operator reads once it is over: the failure, and a label the carrier made late.
    if (stray.unchecked) {
      log.error('a stray label could not be checked at the carrier: check it there', { carrier: result.carrier, why: stray.unchecked });
      setCurrentDetails(`${failed}; a stray label could not be checked at ${result.carrier} (${stray.unchecked}): look up reference ${input.shipmentId} there and cancel any label`);
    } else {
      setCurrentDetails(stray.cancelled ? `${failed}; a stray label ${stray.cancelled} turned up at ${result.carrier} and was cancelled` : `${failed}; no stray label at ${result.carrier}`);
    }
  }
  await condition(allHandlersFinished);
  return { status: 'failed' };
}

/**
 * After the purchase has been answered: start the webhook deliveries of the events the purchase
 * stored. The label files need no step here: the capture's worker renders them.
 */
async function announceEvents(input: ShipmentWorkflowInput, result: PurchaseResult): Promise<void> {
  if (!result.events?.length) return;
  setCurrentDetails('purchased; announcing the events');
  await shipmentActivities().announceEvents({ accountId: input.accountId, livemode: input.livemode, events: result.events });
}

/** How tracking ended: with the workflow's result, or with the input of the run that goes on with it. */
type Tracked = { result: ShipmentWorkflowResult } | { continueWith: ShipmentWorkflowInput };

/**
 * Follows the parcel: pushed scans as they arrive, carrier polls in between (less often while nothing
 * moves), until its status is final or a void ends it. Tracking stops after a quiet period, and
 * after enough polls (or when the server suggests it) the next run takes over with a fresh history.
 */
async function trackUntilDone(input: ShipmentWorkflowInput, state: TrackingState): Promise<Tracked> {
  let polls = 0;
  let quietSince = input.resume?.quietSince ?? Date.now();
  try {
    while (!isTerminal(state.status)) {
      const quietForMs = Date.now() - quietSince;
      if (quietForMs >= quietStopMs(input) && !state.pushed.length && !state.busy) {
        const stopped = await stopTracking(input, state, quietForMs);
        if (stopped) return { result: stopped };
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
        // Weeks of polling: a fresh history, after every handler has finished.
        await condition(allHandlersFinished);
        if (!isTerminal(state.status)) {
          log.info('continuing as new to keep the history small', { polls });
          return { continueWith: { ...carriedOver(input), resume: { ...resumeOf(state), pollMs: state.pollMs, pushed: state.pushed, quietSince } } };
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
