import { CancellationScope, isCancellation, log, setCurrentDetails, sleep } from '@temporalio/workflow';
import { CODE } from '../domain/workflow.js';
import { workflowId } from './event-ids.js';
import { failureMessage, failureType } from './failures.js';
import { carrierActivities, paymentActivities, purchaseSteps } from './proxies.js';
import { buyAtCarrier, failed, purchaseFailure } from './purchase-carrier.js';
import type { PurchaseInput } from '../contract/index.js';
import type { PurchaseResult } from './purchase-types.js';

/**
 * The purchase saga (docs/architecture.md#a-shipments-life): one local transaction prices and
 * reserves, the carrier buys on its own queue, one local transaction captures, marks the shipment
 * purchased, stores its events and starts the label render in its worker. Two dispatches through the
 * server on the way to the answer; the webhook fan-out comes after it. A definitive failure voids
 * any card authorization, then one transaction releases the hold, fails the shipment and frees its keys.
 */
export async function purchaseLabel(input: PurchaseInput): Promise<PurchaseResult> {
  const steps = purchaseSteps();
  const pay = paymentActivities();
  const money = { accountId: input.accountId, shipmentId: input.shipmentId };
  // The sandbox never moves money (contract: Sandbox).
  const movesMoney = input.livemode;
  const card = movesMoney && input.fundingSource === 'card';
  const compensations: Array<{ what: string; run: () => Promise<unknown> }> = [];
  let carrier: string | null = null;
  const unsure = { maybeBought: false };

  try {
    setCurrentDetails('pricing the service and reserving the price');
    const begun = await steps.beginPurchase({
      shipmentId: input.shipmentId,
      accountId: input.accountId,
      serviceCode: input.serviceCode,
      from: input.from,
      to: input.to,
      parcel: input.parcel,
      vatRateBp: input.vatRateBp,
      currency: input.currency,
      hold: movesMoney,
      ...(input.options ? { options: input.options } : {}),
      ...(input.isReturn ? { isReturn: true } : {}),
    });
    if (!begun.ok) {
      // Failed before it began (the orphan sweep): nothing was held, its keys are already free.
      return { outcome: begun, carrier: null, trackingNumber: null, lowBalance: null, strayLabelCheck: false };
    }
    carrier = begun.carrier;
    if (card) {
      setCurrentDetails(`authorizing ${begun.gross} ${begun.currency} on the card`);
      await pay.authorizeCard({ ...money, amount: begun.gross, currency: begun.currency });
      compensations.push({ what: 'void the card authorization', run: () => voidAuthorization(pay, money) });
    }

    const label = await buyAtCarrier(input, begun.carrier, unsure);
    compensations.length = 0; // bought: from now on we only move forward

    if (card) {
      setCurrentDetails('capturing the card payment');
      try {
        await pay.captureCard(money);
      } catch (err) {
        // A capture refused after the label was bought: the label must not stay bought unpaid.
        if (!isCancellation(err)) {
          compensations.push({ what: `cancel the unpaid label at carrier ${carrier}`, run: () => cancelUnpaidLabel(input, begun.carrier) });
        }
        throw err;
      }
    }
    setCurrentDetails('capturing the charge and recording the purchase');
    const events = await steps.completePurchase({
      shipmentId: input.shipmentId,
      accountId: input.accountId,
      livemode: input.livemode,
      capture: movesMoney,
      trackingNumber: label.trackingNumber,
      purchasedEventId: workflowId('evt'),
      lowBalanceEventId: workflowId('evt'),
      // A download that comes before the render renders its own file, once.
      renderLabels: true,
    });
    return { outcome: { ok: true }, carrier, trackingNumber: label.trackingNumber, lowBalance: null, strayLabelCheck: false, events };
  } catch (err) {
    const failure = purchaseFailure(err);
    if (isCancellation(err)) unsure.maybeBought = carrier !== null; // a buy may have been in flight
    log.warn('purchase failed; compensating', { code: failure.code, message: failure.message });
    // Compensation runs even when an operator cancels the workflow (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui):
    // nothing may stay held, authorized or marked pending.
    await CancellationScope.nonCancellable(async () => {
      for (const step of compensations.reverse()) {
        setCurrentDetails(`compensating: ${step.what}`);
        await step.run();
      }
      setCurrentDetails('compensating: release the hold, mark the shipment failed, free its keys');
      await steps.failPurchase({
        shipmentId: input.shipmentId,
        accountId: input.accountId,
        livemode: input.livemode,
        code: failure.code,
        message: failure.message,
      });
    });
    return failed(failure, carrier, unsure.maybeBought);
  }
}

/**
 * Voids the card authorization of a purchase that failed before its capture. A void the processor
 * refuses (it has expired, say) is logged for operators and the saga goes on: never captured, it
 * charges nothing, and the hold must still be released and the customer told why the purchase failed
 * (thrown, it would fail the run: 500 without shipment_id, the shipment pending until the sweep).
 */
async function voidAuthorization(pay: ReturnType<typeof paymentActivities>, money: { accountId: string; shipmentId: string }): Promise<void> {
  try {
    await pay.voidCard(money);
  } catch (err) {
    if (failureType(err) !== CODE.card_processor_error) throw err;
    log.error('the card authorization could not be voided: void it at the processor', { shipmentId: money.shipmentId, message: failureMessage(err) });
  }
}

/** Cancels a label bought for a purchase that then failed; a refusal is logged for operators, not thrown. */
async function cancelUnpaidLabel(input: PurchaseInput, carrier: string): Promise<void> {
  const target = { carrier, livemode: input.livemode, reference: input.shipmentId };
  try {
    await carrierActivities(input, carrier, { summary: `cancel the unpaid label of ${input.shipmentId} at ${carrier}` }).cancelLabel(target);
  } catch (err) {
    log.error('the unpaid label could not be cancelled at the carrier: cancel it by hand', { carrier, message: (err as Error).message });
  }
}

/** How long a carrier may still be committing a purchase whose answer we never got. */
export const STRAY_LABEL_SETTLE_MS = 2 * 60_000;
const STRAY_LABEL_CHECK_EVERY_MS = 10_000;
/**
 * Final looks the carrier may answer with a refusal (a 404 on its own lookup, say) before the check
 * is left to an operator: a refusal says nothing about a label. The chaos runs' odd answers came one
 * call at a time, so three more looks 10 s apart see the carrier answer again; a carrier that refuses
 * for half a minute is for an operator to check.
 */
const STRAY_LABEL_REFUSED_LOOKS = 3;

/** What the stray-label check found: the label it cancelled, or why the carrier could not be checked. */
export type StrayCheck = { cancelled?: string; unchecked?: string };

/**
 * After a failed purchase that may have bought: if the carrier made a label under our reference,
 * cancel it. A carrier may still be committing a purchase whose answer timed out, so a "not found"
 * is not final: keep looking over a settle window longer than the carrier's processing time, and
 * cancel whatever turns up. A carrier that refuses to answer (any 4xx, a cancellation it refuses)
 * never fails the workflow: the shipment has already failed, and the check ends by naming what could
 * not be checked, for an operator. Runs even when an operator cancels the workflow.
 */
export async function cancelStrayLabel(input: PurchaseInput, carrier: string): Promise<StrayCheck> {
  return await CancellationScope.nonCancellable(async () => {
    const calls = carrierActivities(input, carrier, { summary: `cancel any stray label of ${input.shipmentId} at ${carrier}` });
    const target = { carrier, livemode: input.livemode, reference: input.shipmentId };
    const check: StrayCheck = {};
    const until = Date.now() + (input.strayLabelSettleMs ?? STRAY_LABEL_SETTLE_MS);
    let refusedFinals = 0;
    for (let look = 1; ; look++) {
      setCurrentDetails(`failed; looking for a stray label of ${input.shipmentId} at ${carrier} (look ${look})`);
      // The window's last look is marked: a carrier whose every call spends a small quota (USPS)
      // answers the earlier ones without asking, and on the last cancels whatever its key bought.
      const final = Date.now() >= until;
      const answered = await lookOnce(calls, target, final, check);
      if (answered) delete check.unchecked;
      if (final && (answered || ++refusedFinals > STRAY_LABEL_REFUSED_LOOKS)) return check;
      // A look that ran past the window is not the last: the last is the one marked so, at once.
      const wait = final ? STRAY_LABEL_CHECK_EVERY_MS : Math.min(STRAY_LABEL_CHECK_EVERY_MS, until - Date.now());
      if (wait > 0) await sleep(wait, { summary: `look again for a stray label of ${input.shipmentId} at ${carrier}` });
    }
  });
}

/**
 * One look for a stray label, and its cancellation when one is live. Returns whether the carrier
 * answered (a label, or none); a refusal, of the lookup or of the cancellation, is kept in
 * `check.unchecked` and answers false. Retryable failures are retried by the activity until the
 * carrier answers: a label left bought would be a label without a charge.
 */
async function lookOnce(
  calls: ReturnType<typeof carrierActivities>,
  target: { carrier: string; livemode: boolean; reference: string },
  final: boolean,
  check: StrayCheck,
): Promise<boolean> {
  let found;
  try {
    found = await calls.findPurchase({ ...target, stray: { final } });
  } catch (err) {
    check.unchecked = `its lookup was refused: ${failureMessage(err)}`;
    log.warn('the carrier refused the lookup of a stray label', { carrier: target.carrier, message: failureMessage(err) });
    return false;
  }
  if (found && !found.cancelled) {
    log.warn('a stray label turned up after the purchase failed; cancelling it');
    try {
      await calls.cancelLabel(target);
    } catch (err) {
      // Refused, or its answer lost: the next look shows whether it was cancelled.
      check.unchecked = `its label ${found.trackingNumber} could not be cancelled: ${failureMessage(err)}`;
      log.warn('the carrier did not cancel a stray label', { carrier: target.carrier, message: failureMessage(err) });
      return false;
    }
    check.cancelled = found.trackingNumber;
  } else if (found?.cancelled && final && !check.cancelled && found.trackingNumber) {
    check.cancelled = found.trackingNumber;
  }
  return true;
}
