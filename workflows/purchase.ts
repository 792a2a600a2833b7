import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  sleep,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { Purchase } from '../carriers/index.js';
import { errorCodeOf, FAILURE, type Address, type ErrorCode, type FundingSource, type Parcel } from '../domain/index.js';
import type { EventType } from '../domain/index.js';
import type { PurchaseOutcome } from './definitions.js';
import { workflowId } from './event-ids.js';
import { carrierActivities, paymentActivities, purchaseSteps, shipmentActivities } from './proxies.js';
import { failureMessage, failureType } from './failures.js';

export interface PurchaseInput {
  shipmentId: string;
  accountId: string;
  livemode: boolean;
  fundingSource: FundingSource;
  currency: string;
  vatRateBp: number;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  reference: string | null;
  queuePrefix: string;
  /** How long the purchase may keep trying an unreachable carrier before failing cleanly. */
  purchaseDeadlineMs: number;
  /** How long to keep looking for a stray label after a purchase that may have bought failed. */
  strayLabelSettleMs?: number;
}

export interface PurchaseResult {
  outcome: PurchaseOutcome;
  carrier: string | null;
  trackingNumber: string | null;
  lowBalance: { available: number } | null;
  /** The purchase failed after an ambiguous carrier call: look for a stray label and cancel it. */
  strayLabelCheck: boolean;
  /** Events the lean purchase stored with the purchase, to announce to webhook endpoints after the answer. */
  events?: Array<{ id: string; type: EventType }>;
}

const isTimeout = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;

/** The carrier call gave up under its deadline (time-out, or retries spent on retryable errors). */
function unreachable(carrier: string, err: unknown): PurchaseFailed {
  const last = isTimeout(err) ? 'timed out' : failureMessage(err);
  return new PurchaseFailed(FAILURE.carrierUnavailable, `Carrier ${carrier} could not be reached in time (last error: ${last}).`);
}

/** The failure a caught error stands for; an operator's Cancel fails the purchase cleanly. */
function purchaseFailure(err: unknown): PurchaseFailed {
  if (err instanceof PurchaseFailed) return err;
  if (isCancellation(err)) {
    return new PurchaseFailed(FAILURE.internalError, 'The purchase was cancelled by an operator; nothing was bought or charged.');
  }
  // The card processor refused for a reason other than a decline: the card cannot pay for this label.
  const type = failureType(err);
  if (type === FAILURE.cardProcessorRefused) return new PurchaseFailed(FAILURE.cardDeclined, failureMessage(err));
  // A failure without a type is the carrier's; an internal type never reaches a customer as such.
  return new PurchaseFailed(type === undefined ? FAILURE.carrierRefused : errorCodeOf(type), failureMessage(err));
}

/** A purchase that ended without a label; a stray-label check follows when a buy may have happened. */
function failed(failure: PurchaseFailed, carrier: string | null, maybeBought: boolean): PurchaseResult {
  return {
    outcome: { ok: false, code: failure.code, message: failure.message },
    carrier,
    trackingNumber: null,
    lowBalance: null,
    strayLabelCheck: maybeBought && carrier !== null,
  };
}

/** Why the purchase failed, in the API's words (a failed purchase buys and charges nothing). */
class PurchaseFailed extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The purchase saga on its lean path (architecture.md, "A shipment's life"): one local transaction
 * prices and reserves, the carrier buys on its own queue, one local transaction captures, marks the
 * shipment purchased and stores its events. Two dispatches through the server on the way to the
 * answer; rendering and webhook fan-out come after it. A definitive failure voids any card
 * authorization, then one transaction releases the hold, fails the shipment and frees its keys.
 */
export async function purchaseLean(input: PurchaseInput): Promise<PurchaseResult> {
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
    });
    if (!begun.ok) {
      // Failed before it began (the orphan sweep): nothing was held, its keys are already free.
      return { outcome: begun, carrier: null, trackingNumber: null, lowBalance: null, strayLabelCheck: false };
    }
    carrier = begun.carrier;
    if (card) {
      setCurrentDetails(`authorizing ${begun.gross} ${begun.currency} on the card`);
      await pay.authorizeCard({ ...money, amount: begun.gross, currency: begun.currency });
      compensations.push({ what: 'void the card authorization', run: () => pay.voidCard(money) });
    }

    const label = await buyAtCarrier(input, begun.carrier, unsure);
    compensations.length = 0; // bought: from now on we only move forward

    if (card) {
      setCurrentDetails('capturing the card payment');
      await pay.captureCard(money);
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
    });
    return { outcome: { ok: true }, carrier, trackingNumber: label.trackingNumber, lowBalance: null, strayLabelCheck: false, events };
  } catch (err) {
    const failure = purchaseFailure(err);
    if (isCancellation(err)) unsure.maybeBought = carrier !== null; // a buy may have been in flight
    log.warn('purchase failed; compensating', { code: failure.code, message: failure.message });
    // Compensation runs even when an operator cancels the workflow (README: Cancel and Terminate):
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
 * The purchase saga as shipments started before the lean path run it (kept so their histories
 * replay): price → reserve → buy at the carrier → capture. Each step that takes something pushes its compensation; a definitive failure runs them in
 * reverse, so nothing stays held and no label stays bought.
 */
export async function purchase(input: PurchaseInput): Promise<PurchaseResult> {
  const acts = shipmentActivities();
  const pay = paymentActivities();
  const compensations: Array<{ what: string; run: () => Promise<unknown> }> = [];
  const money = { accountId: input.accountId, shipmentId: input.shipmentId };
  // The sandbox never moves money (contract: Sandbox).
  const movesMoney = input.livemode;
  let carrier: string | null = null;
  // Set once a carrier call may have bought a label we never heard about.
  const unsure = { maybeBought: false };

  try {
    setCurrentDetails('pricing the service');
    const price = await acts.priceShipment({ ...input });
    carrier = price.carrier;

    if (movesMoney) {
      setCurrentDetails(`reserving ${price.gross} ${price.currency} (${input.fundingSource})`);
      if (input.fundingSource === 'card') {
        await pay.authorizeCard({ ...money, amount: price.gross, currency: price.currency });
        compensations.push({ what: 'void the card authorization', run: () => pay.voidCard(money) });
      }
      await acts.holdFunds({ ...money, amount: price.gross });
      compensations.push({ what: 'release the hold', run: () => acts.releaseFunds(money) });
    }

    const label = await buyAtCarrier(input, price.carrier, unsure);
    compensations.length = 0; // bought: from now on we only move forward

    let lowBalance: PurchaseResult['lowBalance'] = null;
    if (movesMoney) {
      setCurrentDetails('capturing the charge');
      if (input.fundingSource === 'card') await pay.captureCard(money);
      const captured = await acts.captureFunds(money);
      const t = captured.lowBalanceThreshold;
      if (
        captured.captured &&
        t !== null &&
        captured.availableBefore !== null &&
        captured.availableAfter !== null &&
        captured.availableBefore >= t &&
        captured.availableAfter < t
      ) {
        lowBalance = { available: captured.availableAfter };
      }
    }
    setCurrentDetails('storing the label');
    await acts.storeLabels({ shipmentId: input.shipmentId, trackingNumber: label.trackingNumber });
    await acts.markShipment({
      shipmentId: input.shipmentId,
      changes: { status: 'purchased', trackingNumber: label.trackingNumber, trackingStatus: 'label_created' },
    });
    return { outcome: { ok: true }, carrier, trackingNumber: label.trackingNumber, lowBalance, strayLabelCheck: false };
  } catch (err) {
    const failure = purchaseFailure(err);
    log.warn('purchase failed; compensating', { code: failure.code, message: failure.message });
    await CancellationScope.nonCancellable(async () => {
      for (const step of compensations.reverse()) {
        setCurrentDetails(`compensating: ${step.what}`);
        await step.run();
      }
      await acts.failShipment({ shipmentId: input.shipmentId, code: failure.code, message: failure.message });
    });
    return failed(failure, carrier, unsure.maybeBought);
  }
}

/**
 * Buys the label. The workflow runs the retries itself, one carrier call per activity, so operators
 * see each attempt and its error in the current details and each wait is a timer with a summary.
 * An ambiguous outcome (a time-out or a lost answer) is settled by asking the carrier for our
 * reference before buying again: never two labels for one shipment.
 */
async function buyAtCarrier(input: PurchaseInput, carrier: string, unsure: { maybeBought: boolean }): Promise<Purchase> {
  const deadline = workflowInfo().startTime.getTime() + input.purchaseDeadlineMs;
  const request = {
    reference: input.shipmentId,
    serviceCode: input.serviceCode,
    from: input.from,
    to: input.to,
    parcel: input.parcel,
  };
  const target = { carrier, livemode: input.livemode };
  // Each attempt may last no longer than the deadline leaves, so funds are never held past it.
  const buyLabel = (request: Parameters<ReturnType<typeof carrierActivities>['buyLabel']>[0]) =>
    carrierActivities(
      input,
      carrier,
      Math.max(deadline - Date.now(), 1000),
      `buy the label from carrier ${carrier} for ${input.shipmentId}`,
      1,
    ).buyLabel(request);
  let lastError = 'none';
  for (let attempt = 1; ; attempt++) {
    if (Date.now() >= deadline) {
      throw new PurchaseFailed(FAILURE.carrierUnavailable, `Carrier ${carrier} could not be reached in time (last error: ${lastError}).`);
    }
    setCurrentDetails(
      attempt === 1
        ? `buying the label from carrier ${carrier}`
        : `buying the label from carrier ${carrier}, attempt ${attempt}, last error: ${lastError}`,
    );
    let retryAfterMs: number | null = null;
    try {
      // A later attempt tells a carrier without idempotency keys to settle an earlier booking first.
      return await buyLabel({ ...target, request: attempt > 1 ? { ...request, earlierAttempt: true } : request });
    } catch (err) {
      const type = failureType(err);
      if (type === FAILURE.carrierRefused) throw new PurchaseFailed(FAILURE.carrierRefused, failureMessage(err));
      lastError = isTimeout(err) ? 'no answer in time' : failureMessage(err);
      if (type === FAILURE.carrierAmbiguous || isTimeout(err)) {
        // The carrier may have bought it: its record decides before we buy again.
        unsure.maybeBought = true;
        log.warn('carrier outcome ambiguous; looking our reference up', { attempt, message: lastError });
        const found = await lookUp(input, carrier, deadline, lastError);
        if (found) return found;
      } else {
        retryAfterMs = retryAfterOf(err);
      }
    }
    const backoff = retryAfterMs ?? Math.min(1000 * 2 ** (attempt - 1), 30_000);
    const delay = Math.min(backoff, Math.max(deadline - Date.now(), 0));
    setCurrentDetails(`waiting for carrier ${carrier}, attempt ${attempt}, last error: ${lastError}`);
    if (delay > 0) await sleep(delay, { summary: `retry carrier ${carrier} after attempt ${attempt} (${lastError})` });
  }
}

/** The purchase the carrier made under our reference, asked with retries until the deadline. */
async function lookUp(input: PurchaseInput, carrier: string, deadline: number, lastError: string): Promise<Purchase | null> {
  setCurrentDetails(`asking carrier ${carrier} whether ${input.shipmentId} was bought (last error: ${lastError})`);
  try {
    const found = await carrierActivities(
      input,
      carrier,
      Math.max(deadline - Date.now(), 1000),
      `ask carrier ${carrier} whether ${input.shipmentId} was bought`,
    ).findPurchase({ carrier, livemode: input.livemode, reference: input.shipmentId });
    return found && !found.cancelled ? found : null;
  } catch (err) {
    throw unreachable(carrier, err);
  }
}

/** The carrier's Retry-After, carried in the failure's details by the carrier activity. */
function retryAfterOf(err: unknown): number | null {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as { retryAfterMs?: number | null } | undefined) : undefined;
  return typeof details?.retryAfterMs === 'number' ? details.retryAfterMs : null;
}

/** How long a carrier may still be committing a purchase whose answer we never got. */
export const STRAY_LABEL_SETTLE_MS = 2 * 60_000;
const STRAY_LABEL_CHECK_EVERY_MS = 10_000;

/**
 * After a failed purchase that may have bought: if the carrier made a label under our reference,
 * cancel it. A carrier may still be committing a purchase whose answer timed out, so a "not found"
 * is not final: keep looking over a settle window longer than the carrier's processing time, and
 * cancel whatever turns up. Runs even when an operator cancels the workflow.
 */
export async function cancelStrayLabel(input: PurchaseInput, carrier: string): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    const calls = carrierActivities(input, carrier, undefined, `cancel any stray label of ${input.shipmentId} at ${carrier}`);
    const target = { carrier, livemode: input.livemode, reference: input.shipmentId };
    if (!patched(PATCH_STRAY_SETTLE)) {
      // Shipments that failed before the settle window keep their recorded single look.
      const found = await calls.findPurchase(target);
      if (found && !found.cancelled) await calls.cancelLabel(target);
      return;
    }
    const until = Date.now() + (input.strayLabelSettleMs ?? STRAY_LABEL_SETTLE_MS);
    for (let look = 1; ; look++) {
      setCurrentDetails(`failed; looking for a stray label of ${input.shipmentId} at ${carrier} (look ${look})`);
      // Keep asking until the carrier answers: a label left bought would be a label without a charge.
      const found = await calls.findPurchase(target);
      if (found && !found.cancelled) {
        log.warn('a stray label turned up after the purchase failed; cancelling it', { look });
        await calls.cancelLabel(target);
      }
      if (Date.now() >= until) return;
      await sleep(Math.min(STRAY_LABEL_CHECK_EVERY_MS, until - Date.now()), {
        summary: `look again for a stray label of ${input.shipmentId} at ${carrier}`,
      });
    }
  });
}
const PATCH_STRAY_SETTLE = 'stray-label-settle-window';
