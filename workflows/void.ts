import {
  ActivityFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { CARRIER_REASON, CODE, type ShipmentStatus } from '../domain/workflow.js';
import type { CarrierActivities } from '../activities/index.js';
import { applicationFailureOf, carrierCallQueue, SA, stoppedBy, type ShipmentWorkflowInput, type StoppedRun, type VoidOutcome } from '../contract/index.js';
import { pollScans, type TrackingState } from './tracking.js';
import { applyScans, emitStatusEvent } from './tracking-writes.js';
import { CARRIER_CALL, paymentActivities, shipmentActivities, type CarrierCalls } from './proxies.js';

/** How long a void keeps trying an unreachable carrier before it gives up and the label stays bought. */
const VOID_CALL_LIMIT_MS = 5 * 60_000;

type Refusal = Extract<VoidOutcome, { ok: false }>;
/**
 * Why a void that has begun stops: the refusal its customer reads, and the status the shipment goes
 * back to (bought, or where its scans put it) with the error it keeps.
 */
type Stop = { refusal: Refusal; status: ShipmentStatus; lastVoidError?: string };
const backToPurchased = (refusal: Refusal, lastVoidError = refusal.message): Stop => ({ refusal, status: 'purchased', lastVoidError });

/**
 * The void: ask the carrier for scans now (a scanned label cannot be voided, spec §3 rule 2), cancel
 * at the carrier, and only then reverse the charge (spec §3 rule 3). A refund never happens
 * without the carrier's cancellation.
 */
export async function voidLabel(input: ShipmentWorkflowInput, state: TrackingState): Promise<VoidOutcome> {
  // A void accepted while the purchase was still running waits for its end (failed: refused below).
  await condition(() => state.status !== 'pending' && !state.busy);
  if (state.status !== 'purchased') {
    return { ok: false, code: CODE.shipment_not_voidable, message: `A ${state.status} shipment cannot be voided.` };
  }
  state.busy = true;
  let markedVoiding = false;
  try {
    const onForm = await beginVoiding(input, state);
    if (onForm) {
      return notCarriedOut(state, { ok: false, code: CODE.shipment_not_voidable, message: `The shipment is on SCAN form ${onForm}, handed over to the carrier: it can no longer be voided.` });
    }
    markedVoiding = true;

    // Each step lets the void go on, or says why it stops.
    const stop = (await refusalByScans(input, state)) ?? (await cancelAtCarrier(input, state)) ?? (await refusalBySandboxScans(input, state));
    if (stop) return await backOut(input, state, stop);

    // Cancelled at the carrier: the refund and the voided status follow even if an operator cancels
    // the workflow now (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui).
    await CancellationScope.nonCancellable(() => finishVoid(input, state));
    return { ok: true };
  } catch (err) {
    // An operator cancelled the workflow while the void was under way and the shipment reads
    // `voiding`: the carrier's record decides, so it is never left `voiding` with no workflow.
    if (markedVoiding && isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        if (await settleStoppedVoid(input, state)) await finishVoid(input, state);
      });
    }
    throw err;
  } finally {
    state.busy = false;
  }
}

/**
 * Marks the shipment voiding, unless a SCAN form holds it: the activity locks the shipment's row in
 * the transaction that checks for a form, as the form's own transaction does, so a form and a void
 * of one shipment never both happen, however they race. Returns the form that holds it. The
 * workflow's status follows the row only once it is marked.
 */
async function beginVoiding(input: ShipmentWorkflowInput, state: TrackingState): Promise<string | undefined> {
  const marked = await shipmentActivities().markShipment({ shipmentId: input.shipmentId, changes: { status: 'voiding', lastVoidError: null } });
  if (marked?.onForm) return marked.onForm;
  state.status = 'voiding';
  upsertSearchAttributes([{ key: SA.ShipmentStatus, value: 'voiding' }]);
  return undefined;
}

/**
 * The carrier's scans, asked for now, and any pushed ones, applied as to the bought label. Returns
 * why the void cannot go on: the carrier would not tell (without its scans a void is not safe), or
 * the label is scanned. The label then stays bought, in the status its scans made.
 */
async function refusalByScans(input: ShipmentWorkflowInput, state: TrackingState): Promise<Stop | undefined> {
  setCurrentDetails('void: asking the carrier for scans');
  let polled;
  try {
    polled = await pollScans(input, state, VOID_CALL_LIMIT_MS);
  } catch (err) {
    if (isCancellation(err)) throw err;
    return backToPurchased({ ok: false, code: CODE.carrier_error, message: `The carrier could not confirm the label is unscanned: ${message(err)}` }, message(err));
  }
  const scans = [...state.pushed.splice(0), ...polled];
  state.status = 'purchased';
  await applyScans(input, state, scans);
  if (state.seenScanIds.size > 0) return scanned(state);
  state.status = 'voiding';
  return undefined;
}

/**
 * Cancels the label at the carrier. A refusal is final (and a refusal because the label was just
 * scanned is `label_already_scanned`); an unanswered cancellation may still have happened, so the
 * carrier's record decides, and the cancellation is tried again (it is idempotent by our reference)
 * until the carrier answers or the void's time is up.
 */
async function cancelAtCarrier(input: ShipmentWorkflowInput, state: TrackingState): Promise<Stop | undefined> {
  setCurrentDetails(`void: cancelling at carrier ${state.carrier}`);
  const target = { carrier: state.carrier!, livemode: input.livemode, reference: input.shipmentId };
  const until = Date.now() + VOID_CALL_LIMIT_MS;
  let lastError = '';
  for (let attempt = 1; ; attempt++) {
    const left = Math.max(until - Date.now(), 1000);
    const calls = carrierCalls(input, state.carrier!, `void: cancel ${input.shipmentId} at ${state.carrier}`, left);
    try {
      const outcome = await calls.cancelLabel(target);
      // A refund request accepted voids the label as a cancellation does (contract: Carriers); the
      // carrier settles the refund with us later. A result without a kind is a cancellation.
      if (outcome && outcome.kind === 'refund_requested') log.info('the carrier accepted the refund request', { shipmentId: input.shipmentId, carrier: state.carrier });
      return undefined;
    } catch (err) {
      const failure = applicationFailureOf(err);
      if (failure?.type === CODE.carrier_error) {
        const reason = (failure.details?.[0] as { reason?: string | null } | undefined)?.reason;
        if (reason === CARRIER_REASON.alreadyScanned) {
          return backToPurchased({ ok: false, code: CODE.label_already_scanned, message: 'The carrier has already scanned this label.' });
        }
        return backToPurchased({ ok: false, code: CODE.carrier_error, message: `The carrier refused the cancellation: ${message(err)}` });
      }
      lastError = message(err);
      // Ambiguous, timed out, or retries spent: the carrier's record decides whether it happened.
      try {
        if ((await calls.findPurchase(target))?.cancelled === true) return undefined;
      } catch (lookupError) {
        lastError = message(lookupError);
      }
    }
    if (Date.now() >= until) {
      return backToPurchased({ ok: false, code: CODE.carrier_unavailable, message: `Carrier ${state.carrier} could not be reached to cancel the label (last error: ${lastError}).` });
    }
    setCurrentDetails(`void: cancelling at carrier ${state.carrier}, attempt ${attempt}, last error: ${lastError}`);
    await sleep(Math.min(1000 * 2 ** (attempt - 1), 30_000, Math.max(until - Date.now(), 1)), {
      summary: `retry the cancellation at ${state.carrier} after attempt ${attempt}`,
    });
  }
}

/**
 * A sandbox label's carrier is this platform: a scan recorded while it cancelled came first, as a
 * real carrier would then have refused the cancellation. Recorded, not dropped; not voided.
 */
async function refusalBySandboxScans(input: ShipmentWorkflowInput, state: TrackingState): Promise<Stop | undefined> {
  if (input.livemode || !state.pushed.length) return undefined;
  state.status = 'purchased';
  if ((await applyScans(input, state, state.pushed.splice(0))) > 0) return scanned(state);
  state.status = 'voiding';
  return undefined;
}

/** Scanned: the status is what the scans made it; the label stays bought and charged. */
function scanned(state: TrackingState): Stop {
  return { refusal: { ok: false, code: CODE.label_already_scanned, message: 'The carrier has already scanned this label.' }, status: state.status };
}

/** A void that stopped after it began: the shipment back in the status it keeps, and the refusal told. */
async function backOut(input: ShipmentWorkflowInput, state: TrackingState, stop: Stop): Promise<VoidOutcome> {
  await moveTo(input, state, stop.status, stop.lastVoidError === undefined ? {} : { lastVoidError: stop.lastVoidError });
  return notCarriedOut(state, stop.refusal);
}

/**
 * A void that did not happen: the label stays bought and tracking goes on. The details say so until
 * tracking's next step, instead of the void's last step ("void: cancelling …") for hours.
 */
function notCarriedOut(state: TrackingState, outcome: Refusal): VoidOutcome {
  setCurrentDetails(`${state.status}; void not carried out: ${outcome.code}: ${outcome.message}; tracking goes on`);
  return outcome;
}

/** Moves the shipment to a status: the workflow's state, the read model, then the search attribute. */
async function moveTo(
  input: ShipmentWorkflowInput,
  state: TrackingState,
  status: ShipmentStatus,
  changes: { lastVoidError?: string | null; trackingStatus?: string } = {},
) {
  state.status = status;
  await shipmentActivities().markShipment({ shipmentId: input.shipmentId, changes: { status, ...changes } });
  upsertSearchAttributes([{ key: SA.ShipmentStatus, value: status }]);
}

/** After the carrier cancelled: the refund (live), the voided status and its event. */
async function finishVoid(input: ShipmentWorkflowInput, state: TrackingState): Promise<void> {
  if (input.livemode) {
    setCurrentDetails('void: reversing the charge');
    const money = { accountId: input.accountId, shipmentId: input.shipmentId };
    if (input.fundingSource === 'card') await paymentActivities().refundCard(money);
    await shipmentActivities().refundFunds(money);
  }
  await moveTo(input, state, 'voided', { trackingStatus: 'cancelled' });
  await emitStatusEvent(input, 'voided');
}

/**
 * A void stopped before the carrier answered it: by an operator's Cancel (this run), or with its run
 * (a Terminate: the run that settles it, `o`). Returns whether the carrier's record shows the label
 * cancelled (then the caller finishes the void: refund, voided). Otherwise the label stays bought
 * and charged: the shipment goes back to `purchased`, saying why, and the caller ends the workflow
 * as cancelled or goes on tracking. Where the carrier cannot be asked, the same, with a warning to
 * check it.
 */
async function settleStoppedVoid(
  input: ShipmentWorkflowInput,
  state: TrackingState,
  o: { stopped: string; then: string } = { stopped: 'stopped by an operator', then: 'the workflow ends (cancelled)' },
): Promise<boolean> {
  const target = { carrier: state.carrier!, livemode: input.livemode, reference: input.shipmentId };
  setCurrentDetails(`void ${o.stopped}; asking carrier ${state.carrier} whether it cancelled the label`);
  let lastVoidError = `The void was ${o.stopped} before the carrier cancelled the label; it stays bought and charged.`;
  try {
    const record = await carrierCalls(input, state.carrier!, `void stopped: look up ${input.shipmentId} at ${state.carrier}`, 60_000).findPurchase(target);
    if (record?.cancelled === true) return true;
  } catch (err) {
    lastVoidError = `The void was ${o.stopped} and carrier ${state.carrier} could not be asked whether it cancelled the label (${message(err)}); check it there.`;
    log.warn(`void ${o.stopped}; the carrier could not confirm the label is live`, { shipmentId: input.shipmentId, error: message(err) });
  }
  await moveTo(input, state, 'purchased', { lastVoidError });
  setCurrentDetails(`purchased; the void was ${o.stopped}; ${o.then}`);
  return false;
}

/**
 * The void of a run that stopped while it was under way (an operator's Terminate), settled by the
 * run the sweep started for it (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui): as
 * after a Cancel, the carrier's record decides. Cancelled there: the refund and `voided`. Otherwise
 * the shipment is `purchased` again, bought and charged, saying why, and its tracking goes on.
 */
export async function settleVoidOfStoppedRun(input: ShipmentWorkflowInput, state: TrackingState, stopped: StoppedRun): Promise<void> {
  state.busy = true;
  try {
    if (await settleStoppedVoid(input, state, { stopped: stoppedBy(stopped), then: 'tracking goes on' })) await finishVoid(input, state);
  } finally {
    state.busy = false;
  }
}

/** The void's carrier calls: on the carrier's purchases queue when live (a customer waits on them), within the void's time. */
function carrierCalls(input: ShipmentWorkflowInput, carrier: string, summary: string, withinMs: number): CarrierCalls {
  return proxyActivities<CarrierActivities>({ ...CARRIER_CALL, summary, taskQueue: carrierCallQueue(input, carrier), scheduleToCloseTimeout: withinMs });
}

const message = (err: unknown) => (err instanceof ActivityFailure && err.cause ? err.cause.message : String(err));
