import { log, setCurrentDetails } from '@temporalio/workflow';
import { CODE } from '../domain/workflow.js';
import { failureType } from './failures.js';
import { failed, PurchaseFailed } from './purchase-carrier.js';
import { paymentActivities, shipmentActivities } from './proxies.js';
import type { PurchaseResult } from './purchase-types.js';
import type { ShipmentWorkflowInput, StoppedRun } from '../contract/index.js';

/**
 * What a shipment's status says to its customer when its run was stopped under it: an operator's
 * Terminate, or a run that failed (a defect) or timed out.
 */
export function stoppedBy(stopped: StoppedRun): string {
  return stopped.closedAs === 'TERMINATED' ? 'stopped by an operator' : 'interrupted by an internal error';
}

/**
 * A purchase whose run stopped before it ended (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui),
 * settled by the run the sweep started for it as a Cancel would have: the hold released, the
 * shipment failed and its keys freed (one transaction), any card authorization voided (refunded,
 * if the stopped run had captured it), and, when the purchase was priced with a carrier, any label
 * the carrier made under our reference looked for and cancelled (the caller's stray-label check).
 * A row that turns out purchased (the stopped run's capture committed as it stopped) is left so:
 * the answer is a purchase, and tracking follows.
 */
export async function settleStoppedPurchase(input: ShipmentWorkflowInput, stopped: StoppedRun): Promise<PurchaseResult> {
  const why = `run ${stopped.runId} ${stopped.closedAs.toLowerCase()} while purchasing`;
  const message = `The purchase was ${stoppedBy(stopped)}; nothing was bought or charged.`;
  setCurrentDetails(`settling: ${why}; releasing the hold, failing the shipment and freeing its keys`);
  const row = await shipmentActivities().settleStoppedPurchase({
    shipmentId: input.shipmentId,
    accountId: input.accountId,
    livemode: input.livemode,
    code: CODE.internal_error,
    message,
  });
  if (row.status === 'purchased' && row.trackingNumber) {
    log.warn('the stopped run had captured the purchase; it stands', { shipmentId: input.shipmentId, runId: stopped.runId });
    return { outcome: { ok: true }, carrier: row.carrier, trackingNumber: row.trackingNumber, lowBalance: null, strayLabelCheck: false };
  }
  if (input.livemode && input.fundingSource === 'card') {
    setCurrentDetails(`settling: ${why}; voiding the card authorization`);
    const pay = paymentActivities();
    const money = { accountId: input.accountId, shipmentId: input.shipmentId };
    try {
      await pay.voidCard(money);
    } catch (err) {
      // Refused: the stopped run had captured it (its last step before the ledger's capture).
      if (failureType(err) !== CODE.card_processor_error) throw err;
      setCurrentDetails(`settling: ${why}; refunding the card payment the stopped run captured`);
      await pay.refundCard(money);
    }
  }
  return failed(new PurchaseFailed(CODE.internal_error, message), stopped.carrier, stopped.carrier !== null);
}
