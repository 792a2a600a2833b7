import { CancellationScope, log, setCurrentDetails, sleep } from '@temporalio/workflow';
import { failureMessage } from './failures.js';
import type { CarrierCalls } from './proxies.js';

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

/** The label a failed purchase may have left: our reference at its carrier. */
type Target = { carrier: string; livemode: boolean; reference: string };

/**
 * After a failed purchase that may have bought: if the carrier made a label under our reference,
 * cancel it. A carrier may still be committing a purchase whose answer timed out, so a "not found"
 * is not final: keep looking over a settle window longer than the carrier's processing time, and
 * cancel whatever turns up. A carrier that refuses to answer (any 4xx, a cancellation it refuses)
 * never fails the workflow: the shipment has already failed, and the check ends by naming what could
 * not be checked, for an operator. Runs even when an operator cancels the workflow.
 */
export async function cancelStrayLabel(calls: CarrierCalls, target: Target, settleMs = STRAY_LABEL_SETTLE_MS): Promise<StrayCheck> {
  return await CancellationScope.nonCancellable(async () => {
    const check: StrayCheck = {};
    const until = Date.now() + settleMs;
    let refusedFinals = 0;
    for (let look = 1; ; look++) {
      setCurrentDetails(`failed; looking for a stray label of ${target.reference} at ${target.carrier} (look ${look})`);
      // The window's last look is marked: a carrier whose every call spends a small quota (USPS)
      // answers the earlier ones without asking, and on the last cancels whatever its key bought.
      const final = Date.now() >= until;
      const answered = await lookOnce(calls, target, final, check);
      if (answered) delete check.unchecked;
      if (final && (answered || ++refusedFinals > STRAY_LABEL_REFUSED_LOOKS)) return check;
      // A look that ran past the window is not the last: the last is the one marked so, at once.
      const wait = final ? STRAY_LABEL_CHECK_EVERY_MS : Math.min(STRAY_LABEL_CHECK_EVERY_MS, until - Date.now());
      if (wait > 0) await sleep(wait, { summary: `look again for a stray label of ${target.reference} at ${target.carrier}` });
    }
  });
}

/**
 * One look for a stray label, and its cancellation when one is live. Returns whether the carrier
 * answered (a label, or none); a refusal, of the lookup or of the cancellation, is kept in
 * `check.unchecked` and answers false. Retryable failures are retried by the activity until the
 * carrier answers: a label left bought would be a label without a charge.
 */
async function lookOnce(calls: CarrierCalls, target: Target, final: boolean, check: StrayCheck): Promise<boolean> {
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
