import { allHandlersFinished, condition, continueAsNew, log, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Scan } from '../carriers/index.js';
import { CODE, isVoidable } from '../domain/workflow.js';
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
import type { TrackingState } from './tracking.js';
import { trackUntilDone } from './tracking-loop.js';
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
    movedAt: input.resume?.quietSince ?? Date.now(),
    failures: input.resume?.failures ?? 0,
    // A run resumed from before this was kept says nothing: it is taken as known (tracked as it was).
    known: input.resume ? (input.resume.known ?? true) : false,
    ...(input.resume?.push ? { push: input.resume.push } : {}),
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
