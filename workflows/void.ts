import { ActivityFailure, ApplicationFailure, condition, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { FAILURE, SA, type ShipmentStatus } from '../domain/index.js';
import type { VoidOutcome } from './definitions.js';
import { emitStatusEvent } from './events.js';
import type { ShipmentWorkflowInput } from './shipment.js';
import { applyScans, pollScans, type TrackingState } from './tracking.js';
import { carrierActivities, paymentActivities, shipmentActivities } from './proxies.js';

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

const message = (err: unknown) => (err instanceof ActivityFailure && err.cause ? err.cause.message : String(err));

/**
 * The void: ask the carrier for scans now (a scanned label cannot be voided, spec §3 rule 2), cancel
 * at the carrier, and only then reverse the charge (spec §3 rule 3). A refund never happens
 * without the carrier's cancellation.
 */
export async function voidLabel(input: ShipmentWorkflowInput, state: TrackingState): Promise<VoidOutcome> {
  const acts = shipmentActivities();
  const pay = paymentActivities();
  await condition(() => !state.busy);
  if (state.status !== 'purchased') {
    return { ok: false, code: FAILURE.shipmentNotVoidable, message: `A ${state.status} shipment cannot be voided.` };
  }
  state.busy = true;
  try {
    await moveTo(input, state, 'voiding', { lastVoidError: null });

    setCurrentDetails('void: asking the carrier for scans');
    const scans = [...state.pushed.splice(0), ...(await pollScans(input, state))];
    state.status = 'purchased';
    await applyScans(input, state, scans);
    if (state.seenScanIds.size > 0) {
      // Scanned: the status is what the scans made it; the label stays bought and charged.
      await moveTo(input, state, state.status);
      return { ok: false, code: 'label_already_scanned', message: 'The carrier has already scanned this label.' };
    }
    state.status = 'voiding';

    setCurrentDetails(`void: cancelling at carrier ${state.carrier}`);
    const calls = carrierActivities(input, state.carrier!, undefined, `void: cancel ${input.shipmentId} at ${state.carrier}`);
    const target = { carrier: state.carrier!, livemode: input.livemode, reference: input.shipmentId };
    try {
      await calls.cancelLabel(target);
    } catch (err) {
      const type = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause.type : null;
      if (type !== FAILURE.carrierRefused && type !== FAILURE.carrierAmbiguous) throw err;
      // An unanswered cancellation may still have happened: the carrier's record decides.
      const settled = type === FAILURE.carrierAmbiguous && (await calls.findPurchase(target))?.cancelled === true;
      if (!settled) {
        await moveTo(input, state, 'purchased', { lastVoidError: message(err) });
        return { ok: false, code: 'carrier_error', message: `The carrier refused the cancellation: ${message(err)}` };
      }
    }

    if (input.livemode) {
      setCurrentDetails('void: reversing the charge');
      const money = { accountId: input.accountId, shipmentId: input.shipmentId };
      if (input.fundingSource === 'card') await pay.refundCard(money);
      await acts.refundFunds(money);
    }
    await moveTo(input, state, 'voided', { trackingStatus: 'cancelled' });
    await emitStatusEvent(input, 'voided');
    return { ok: true };
  } finally {
    state.busy = false;
  }
}
