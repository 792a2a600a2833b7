import { condition, currentUpdateInfo, makeContinueAsNewFunc, setHandler } from '@temporalio/workflow';
import type { Scan } from '../carriers/index.js';
import { CODE, isVoidable } from '../domain/workflow.js';
import {
  nonRetryableFailure,
  purchaseUpdate,
  scansSignal,
  SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
  stateQuery,
  taskQueues,
  voidUpdate,
  type PurchaseOutcome,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
} from '../contract/index.js';
import { purchase } from './purchase.js';
import { trackUntilDone, type TrackingState } from './tracking.js';
import { settleVoidOfStoppedRun, voidLabel } from './void.js';

/**
 * One shipment's whole life, `shipment/<shp_id>` on the `shipments` queue, as the business process:
 * the handlers, the purchase, tracking until delivered or voided, and a fresh run of the same
 * workflow when its history has grown long. A run that resumes (continue-as-new, or tracking started
 * again after a quiet stop) goes straight to tracking; a run the sweep started for a stopped run
 * settles what that run left first (purchase.ts, void.ts).
 */
export async function shipmentWorkflow(input: ShipmentWorkflowInput): Promise<ShipmentWorkflowResult> {
  const state = trackingStateOf(input);
  const answerPurchase = setUpHandlers(input, state);

  if (input.settle?.status === 'voiding') {
    // The sweep's run for a void that a stopped run left: the label is bought (the run carries its
    // tracking state, activities/sweep.ts), so the void is settled and tracking goes on.
    await settleVoidOfStoppedRun(input, state, input.settle);
  } else if (!input.resume) {
    const failed = await purchase(input, state, answerPurchase);
    if (failed) return failed;
  }

  const tracked = await trackUntilDone(input, state);
  // A next run tracks on the `tracking` queue (tracking.ts), whichever queue this one ran on, with a
  // shipment's task time-out (contract: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS) whoever started this one.
  if ('continueWith' in tracked) {
    const next = makeContinueAsNewFunc<typeof shipmentWorkflow>({ taskQueue: taskQueues(input.queuePrefix).tracking, workflowTaskTimeout: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS });
    return await next(tracked.continueWith);
  }
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
    ...(input.resume?.pollDue ? { pollDue: true } : {}),
    voids: { ...input.resume?.voids },
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
  setHandler(
    voidUpdate,
    async () => {
      // A void a run before this one answered (a retry under the same key): its answer again.
      const id = currentUpdateInfo()?.id;
      const answered = id !== undefined ? state.voids[id] : undefined;
      if (answered) return answered;
      const outcome = await voidLabel(input, state);
      if (id !== undefined) state.voids[id] = outcome;
      return outcome;
    },
    {
      validator: () => {
        // Validators run before the update is accepted: a refused void leaves no trace in history.
        // A purchase still pending here may already be purchased in the database (its capture has
        // committed, and the workflow task that carries it was lost with its worker and runs again):
        // the customer may have been told so. The void is accepted and waits for the purchase to end.
        if (!isVoidable(state.status) && state.status !== 'pending') {
          throw nonRetryableFailure(CODE.shipment_not_voidable, `A ${state.status} shipment cannot be voided.`);
        }
      },
    },
  );
  return (outcome) => {
    purchaseOutcome = outcome;
  };
}
