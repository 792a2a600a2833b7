import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  sleep,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { CarrierActivities } from '../activities/index.js';
import type { Purchase, PurchaseRequest } from '../carriers/index.js';
import { CODE, errorCodeOf, type ErrorCode, type EventType } from '../domain/workflow.js';
import {
  carrierCallQueue,
  isFailedMeanwhile,
  SA,
  stoppedBy,
  type PurchaseInput,
  type PurchaseOutcome,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
  type StoppedRun,
} from '../contract/index.js';
import { workflowId } from './event-ids.js';
import { failureDetail, failureMessage, failureType } from './failures.js';
import { CARRIER_CALL, paymentActivities, purchaseSteps, shipmentActivities, type CarrierCalls } from './proxies.js';
import { cancelStrayLabel } from './stray-label.js';
import type { TrackingState } from './tracking.js';

/** What the purchase saga ends with, for the shipment workflow to answer and go on from. */
interface PurchaseResult {
  outcome: PurchaseOutcome;
  carrier: string | null;
  trackingNumber: string | null;
  lowBalance: { available: number } | null;
  /** The purchase failed after an ambiguous carrier call: look for a stray label and cancel it. */
  strayLabelCheck: boolean;
  /** Events the purchase stored with it, to announce to webhook endpoints after the answer. */
  events?: Array<{ id: string; type: EventType }>;
}

/**
 * The purchase, as the shipment's workflow runs it: the saga (or, in a run the sweep started for a
 * run stopped mid-purchase, the settling of what that run left: it buys nothing), whose outcome
 * answers the purchase update. A bought label's events go to the webhook endpoints; a failed
 * purchase ends the workflow (returned).
 */
export async function purchase(
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
  if (result.outcome.ok) {
    // A settling run's purchase was captured by the stopped run: its events are stored (the sweep
    // starts the deliveries no announcement started) and a download renders a label file not rendered yet.
    if (!input.settle) await announceEvents(input, result);
    return undefined;
  }
  return await endFailedPurchase(input, result, result.outcome);
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
    const calls = carrierCalls(input, result.carrier, `cancel any stray label of ${input.shipmentId} at ${result.carrier}`);
    const stray = await cancelStrayLabel(calls, { carrier: result.carrier, livemode: input.livemode, reference: input.shipmentId }, input.strayLabelSettleMs);
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

/** A compensation of the saga: what it undoes, as operators read it, and how. */
type Compensation = { what: string; run: () => Promise<unknown> };
type Money = { accountId: string; shipmentId: string };

/**
 * The purchase saga (docs/architecture.md#a-shipments-life): one local transaction prices and
 * reserves, the carrier buys on its own queue, one local transaction captures, marks the shipment
 * purchased, stores its events and starts the label render in its worker. Two dispatches through the
 * server on the way to the answer; the webhook fan-out comes after it. A definitive failure runs the
 * compensations in reverse (a card authorization voided), then one transaction releases the hold,
 * fails the shipment and frees its keys.
 */
async function purchaseLabel(input: PurchaseInput): Promise<PurchaseResult> {
  const money = { accountId: input.accountId, shipmentId: input.shipmentId };
  // The sandbox never moves money (contract: Sandbox).
  const movesMoney = input.livemode;
  const card = movesMoney && input.fundingSource === 'card';
  const compensations: Compensation[] = [];
  let carrier: string | null = null;
  const unsure = { maybeBought: false };

  try {
    const begun = await priceAndReserve(input, movesMoney);
    if (!begun.ok) {
      // Failed before it began (the orphan sweep): nothing was held, its keys are already free.
      return { outcome: begun, carrier: null, trackingNumber: null, lowBalance: null, strayLabelCheck: false };
    }
    carrier = begun.carrier;
    if (card) await authorizeCard(money, begun, compensations);

    const label = await buyAtCarrier(input, begun.carrier, unsure);
    compensations.length = 0; // bought: from now on we only move forward

    if (card) await captureCard(input, begun.carrier, money, compensations);
    const events = await recordPurchase(input, movesMoney, label.trackingNumber).catch((err: unknown) => {
      if (isFailedMeanwhile(failureDetail(err))) {
        // Another execution of this run failed the shipment meanwhile, and the customer was told so:
        // what this one bought and captured is undone, and the purchase ends as the row says.
        compensations.push({ what: `cancel the label of a purchase failed meanwhile at carrier ${begun.carrier}`, run: () => cancelUnpaidLabel(input, begun.carrier) });
        if (card) compensations.push({ what: 'refund the card payment of a purchase failed meanwhile', run: () => paymentActivities().refundCard(money) });
      }
      throw err;
    });
    return { outcome: { ok: true }, carrier, trackingNumber: label.trackingNumber, lowBalance: null, strayLabelCheck: false, events };
  } catch (err) {
    if (isCancellation(err)) unsure.maybeBought = carrier !== null; // a buy may have been in flight
    return await compensate(input, purchaseFailure(err), compensations, carrier, unsure.maybeBought);
  }
}

/** The saga's first step, one local transaction: the service priced, the price reserved (live). */
async function priceAndReserve(input: PurchaseInput, hold: boolean) {
  setCurrentDetails('pricing the service and reserving the price');
  return await purchaseSteps().beginPurchase({
    shipmentId: input.shipmentId,
    accountId: input.accountId,
    serviceCode: input.serviceCode,
    from: input.from,
    to: input.to,
    parcel: input.parcel,
    vatRateBp: input.vatRateBp,
    currency: input.currency,
    hold,
    ...(input.options ? { options: input.options } : {}),
    ...(input.isReturn ? { isReturn: true } : {}),
  });
}

/** A card account's price authorized on the card; until the label is bought, a failure voids it. */
async function authorizeCard(money: Money, price: { gross: number; currency: string }, compensations: Compensation[]): Promise<void> {
  setCurrentDetails(`authorizing ${price.gross} ${price.currency} on the card`);
  const pay = paymentActivities();
  await pay.authorizeCard({ ...money, amount: price.gross, currency: price.currency });
  compensations.push({ what: 'void the card authorization', run: () => voidAuthorization(pay, money) });
}

/**
 * Voids the card authorization of a purchase that failed before its capture. A void the processor
 * refuses (it has expired, say) is logged for operators and the saga goes on: never captured, it
 * charges nothing, and the hold must still be released and the customer told why the purchase failed
 * (thrown, it would fail the run: 500 without shipment_id, the shipment pending until the sweep).
 */
async function voidAuthorization(pay: ReturnType<typeof paymentActivities>, money: Money): Promise<void> {
  try {
    await pay.voidCard(money);
  } catch (err) {
    if (failureType(err) !== CODE.card_processor_error) throw err;
    log.error('the card authorization could not be voided: void it at the processor', { shipmentId: money.shipmentId, message: failureMessage(err) });
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
  const request = carrierRequest(input);
  const target = { carrier, livemode: input.livemode };
  // Each attempt may last no longer than the deadline leaves, so funds are never held past it.
  const buyLabel = (request: Parameters<CarrierCalls['buyLabel']>[0]) =>
    carrierCalls(input, carrier, `buy the label from carrier ${carrier} for ${input.shipmentId}`, {
      withinMs: Math.max(deadline - Date.now(), 1000),
      attempts: 1,
    }).buyLabel(request);
  let lastError = 'none';
  // When the latest attempt whose outcome is unknown (an ambiguous answer, a time-out, a lost worker)
  // was given up on, after it was last sent: a carrier without idempotency keys lets it settle before
  // booking again. An attempt the carrier answered "retry" (nothing happened) leaves nothing to settle.
  let unknownSince: number | undefined;
  for (let attempt = 1; ; attempt++) {
    if (Date.now() >= deadline) {
      throw new PurchaseFailed(CODE.carrier_unavailable, `Carrier ${carrier} could not be reached in time (last error: ${lastError}).`);
    }
    setCurrentDetails(
      attempt === 1
        ? `buying the label from carrier ${carrier}`
        : `buying the label from carrier ${carrier}, attempt ${attempt}, last error: ${lastError}`,
    );
    let retryAfterMs: number | null = null;
    const sentAt = Date.now();
    try {
      const earlier = unknownSince === undefined ? {} : { earlierAttempt: true, earlierAttemptAt: new Date(unknownSince).toISOString() };
      return await buyLabel({ ...target, attempt, request: { ...request, ...earlier } });
    } catch (err) {
      const type = failureType(err);
      if (type === CODE.carrier_error) throw new PurchaseFailed(CODE.carrier_error, failureMessage(err));
      lastError = isTimeout(err) ? 'no answer in time' : failureMessage(err);
      if (type === CODE.carrier_retryable) {
        retryAfterMs = retryAfterOf(err);
      } else {
        unknownSince = Date.now();
        if (type === CODE.carrier_ambiguous || isTimeout(err)) {
          // The carrier may have bought it: its record decides before we buy again.
          unsure.maybeBought = true;
          log.warn('carrier outcome ambiguous; looking our reference up', { attempt, message: lastError });
          const found = await lookUp(input, carrier, deadline, lastError, request);
          if (found) return found;
        }
      }
    }
    setCurrentDetails(`waiting for carrier ${carrier}, attempt ${attempt}, last error: ${lastError}`);
    const delay = Math.min(retryAfterMs ?? backoffFrom(sentAt, buyBackoffMs(attempt)), Math.max(deadline - Date.now(), 0));
    if (delay > 0) await sleep(delay, { summary: `retry carrier ${carrier} after attempt ${attempt} (${lastError})` });
  }
}

/** What the carrier is asked to buy: the same bytes on every attempt. */
function carrierRequest(input: PurchaseInput): PurchaseRequest {
  return {
    reference: input.shipmentId,
    serviceCode: input.serviceCode,
    from: input.from,
    to: input.to,
    parcel: input.parcel,
    // Absent when not asked for, so a purchase without them sends what it always sent.
    ...(input.customs ? { customs: input.customs } : {}),
    ...(input.options ? { options: input.options } : {}),
    // The declared value's currency (the account's), only where the options carry money.
    ...(input.options?.declared_value !== undefined ? { currency: input.currency } : {}),
    ...(input.isReturn ? { isReturn: true } : {}),
    // Fixed for the purchase: the carrier's dates come from it, so every attempt sends the same bytes.
    at: workflowInfo().startTime.toISOString(),
  };
}

/**
 * The wait before the next attempt at a buy, as Stripe's clients wait: 0.5 s doubling, at most 5 s,
 * with jitter so that purchases failed by one fault do not come back together. A chaos run's carrier
 * faults are single calls (a 5xx, a refused connection): retried after 0.5 s the purchase ends about
 * a second after the fault; through a carrier outage a purchase asks once every 5 s at most, and
 * learns within 5 s that the carrier is back. A carrier's Retry-After, when it sends one, decides instead.
 */
function buyBackoffMs(attempt: number): number {
  const ms = Math.min(500 * 2 ** (attempt - 1), 5_000);
  return Math.round(ms * (0.75 + Math.random() / 4));
}

/** Runs after it count a buy's backoff from when the failed attempt was sent (workflows/patches.ts). */
const BACKOFF_FROM_SEND = 'buy-backoff-from-send';

/**
 * What is left of a backoff once the time since the failed attempt was sent is counted: attempts
 * stay at least the backoff apart, from send to send, as they were. An attempt that waited out its
 * time-out (5 s, UPS's 12 s) or lost its worker (the 5 s heartbeat time-out), and whose lookup then
 * found nothing, has waited longer than any backoff: the next one goes at once, with no timer,
 * which in the chaos runs costs such a purchase about a second (a workflow task, the timer's own
 * latency). A carrier's Retry-After is not shortened: it counts from its answer.
 */
function backoffFrom(sentAt: number, backoffMs: number): number {
  if (!patched(BACKOFF_FROM_SEND)) return backoffMs;
  return Math.max(backoffMs - (Date.now() - sentAt), 0);
}

/**
 * The purchase the carrier made under our reference, asked with retries until the deadline. The
 * request goes along: a carrier with idempotency keys (USPS) settles by sending it again under its key.
 */
async function lookUp(input: PurchaseInput, carrier: string, deadline: number, lastError: string, request: PurchaseRequest): Promise<Purchase | null> {
  setCurrentDetails(`asking carrier ${carrier} whether ${input.shipmentId} was bought (last error: ${lastError})`);
  try {
    const found = await carrierCalls(input, carrier, `ask carrier ${carrier} whether ${input.shipmentId} was bought`, {
      withinMs: Math.max(deadline - Date.now(), 1000),
    }).findPurchase({ carrier, livemode: input.livemode, reference: input.shipmentId, request });
    return found && !found.cancelled ? found : null;
  } catch (err) {
    // An operator's Cancel while the carrier is asked stays a cancellation (the purchase says so).
    if (isCancellation(err)) throw err;
    throw unreachable(carrier, err);
  }
}

/** The carrier's Retry-After, carried in the failure's details by the carrier activity. */
function retryAfterOf(err: unknown): number | null {
  const retryAfterMs = (failureDetail(err) as { retryAfterMs?: number | null } | undefined)?.retryAfterMs;
  return typeof retryAfterMs === 'number' ? retryAfterMs : null;
}

/** The card payment captured once the label is bought; refused, the unpaid label is cancelled. */
async function captureCard(input: PurchaseInput, carrier: string, money: Money, compensations: Compensation[]): Promise<void> {
  setCurrentDetails('capturing the card payment');
  try {
    await paymentActivities().captureCard(money);
  } catch (err) {
    // A capture refused after the label was bought: the label must not stay bought unpaid.
    if (!isCancellation(err)) {
      compensations.push({ what: `cancel the unpaid label at carrier ${carrier}`, run: () => cancelUnpaidLabel(input, carrier) });
    }
    throw err;
  }
}

/** Cancels a label bought for a purchase that then failed; a refusal is logged for operators, not thrown. */
async function cancelUnpaidLabel(input: PurchaseInput, carrier: string): Promise<void> {
  const target = { carrier, livemode: input.livemode, reference: input.shipmentId };
  try {
    await carrierCalls(input, carrier, `cancel the unpaid label of ${input.shipmentId} at ${carrier}`).cancelLabel(target);
  } catch (err) {
    log.error('the unpaid label could not be cancelled at the carrier: cancel it by hand', { carrier, message: (err as Error).message });
  }
}

/** The saga's last step, one local transaction: the charge captured (live), the shipment purchased, its events stored. */
async function recordPurchase(input: PurchaseInput, capture: boolean, trackingNumber: string) {
  setCurrentDetails('capturing the charge and recording the purchase');
  return await purchaseSteps().completePurchase({
    shipmentId: input.shipmentId,
    accountId: input.accountId,
    livemode: input.livemode,
    capture,
    trackingNumber,
    purchasedEventId: workflowId('evt'),
    lowBalanceEventId: workflowId('evt'),
    // A download that comes before the render renders its own file, once.
    renderLabels: true,
  });
}

/**
 * A failed purchase undone: its compensations in reverse, then one transaction releases the hold,
 * marks the shipment failed and frees its keys. It runs even when an operator cancels the workflow
 * (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui): nothing may stay held,
 * authorized or marked pending.
 */
async function compensate(
  input: PurchaseInput,
  failure: PurchaseFailed,
  compensations: Compensation[],
  carrier: string | null,
  maybeBought: boolean,
): Promise<PurchaseResult> {
  log.warn('purchase failed; compensating', { code: failure.code, message: failure.message });
  await CancellationScope.nonCancellable(async () => {
    for (const step of compensations.reverse()) {
      setCurrentDetails(`compensating: ${step.what}`);
      await step.run();
    }
    setCurrentDetails('compensating: release the hold, mark the shipment failed, free its keys');
    await purchaseSteps().failPurchase({
      shipmentId: input.shipmentId,
      accountId: input.accountId,
      livemode: input.livemode,
      code: failure.code,
      message: failure.message,
    });
  });
  return failed(failure, carrier, maybeBought);
}

/**
 * A purchase whose run stopped before it ended (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui),
 * settled by the run the sweep started for it as a Cancel would have: the hold released, the
 * shipment failed and its keys freed (one transaction), any card authorization voided (refunded,
 * if the stopped run had captured it), and, when the purchase was priced with a carrier, any label
 * the carrier made under our reference looked for and cancelled (the stray-label check that follows).
 * A row that turns out purchased (the stopped run's capture committed as it stopped) is left so:
 * the answer is a purchase, and tracking follows.
 */
async function settleStoppedPurchase(input: ShipmentWorkflowInput, stopped: StoppedRun): Promise<PurchaseResult> {
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

/** Why the purchase failed, in the API's words (a failed purchase buys and charges nothing). */
class PurchaseFailed extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const isTimeout = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;

/** The carrier call gave up under its deadline (time-out, or retries spent on retryable errors). */
function unreachable(carrier: string, err: unknown): PurchaseFailed {
  const last = isTimeout(err) ? 'timed out' : failureMessage(err);
  return new PurchaseFailed(CODE.carrier_unavailable, `Carrier ${carrier} could not be reached in time (last error: ${last}).`);
}

/** The failure a caught error stands for; an operator's Cancel fails the purchase cleanly. */
function purchaseFailure(err: unknown): PurchaseFailed {
  if (err instanceof PurchaseFailed) return err;
  if (isCancellation(err)) {
    return new PurchaseFailed(CODE.internal_error, 'The purchase was cancelled by an operator; nothing was bought or charged.');
  }
  // The card processor refused for a reason other than a decline: the card cannot pay for this label.
  const type = failureType(err);
  if (type === CODE.card_processor_error) return new PurchaseFailed(CODE.card_declined, failureMessage(err));
  // A failure without a type is the carrier's; an internal type never reaches a customer as such.
  return new PurchaseFailed(type === undefined ? CODE.carrier_error : errorCodeOf(type), failureMessage(err));
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

/** The purchase's carrier calls: on the carrier's own queue when live, each within what the purchase has left. */
function carrierCalls(input: PurchaseInput, carrier: string, summary: string, o: { withinMs?: number; attempts?: number } = {}): CarrierCalls {
  return proxyActivities<CarrierActivities>({
    ...CARRIER_CALL,
    summary,
    taskQueue: carrierCallQueue(input, carrier),
    ...(o.withinMs ? { scheduleToCloseTimeout: o.withinMs } : {}),
    retry: { ...CARRIER_CALL.retry, maximumAttempts: o.attempts },
  });
}
