import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  log,
  setCurrentDetails,
  sleep,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { Purchase, PurchaseRequest } from '../carriers/index.js';
import { CODE, errorCodeOf, type ErrorCode } from '../domain/workflow.js';
import { carrierActivities } from './proxies.js';
import { failureMessage, failureType } from './failures.js';
import type { PurchaseInput } from '../contract/index.js';
import type { PurchaseResult } from './purchase-types.js';

export const isTimeout = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;

/** The carrier call gave up under its deadline (time-out, or retries spent on retryable errors). */
export function unreachable(carrier: string, err: unknown): PurchaseFailed {
  const last = isTimeout(err) ? 'timed out' : failureMessage(err);
  return new PurchaseFailed(CODE.carrier_unavailable, `Carrier ${carrier} could not be reached in time (last error: ${last}).`);
}

/** The failure a caught error stands for; an operator's Cancel fails the purchase cleanly. */
export function purchaseFailure(err: unknown): PurchaseFailed {
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
export function failed(failure: PurchaseFailed, carrier: string | null, maybeBought: boolean): PurchaseResult {
  return {
    outcome: { ok: false, code: failure.code, message: failure.message },
    carrier,
    trackingNumber: null,
    lowBalance: null,
    strayLabelCheck: maybeBought && carrier !== null,
  };
}

/** Why the purchase failed, in the API's words (a failed purchase buys and charges nothing). */
export class PurchaseFailed extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Buys the label. The workflow runs the retries itself, one carrier call per activity, so operators
 * see each attempt and its error in the current details and each wait is a timer with a summary.
 * An ambiguous outcome (a time-out or a lost answer) is settled by asking the carrier for our
 * reference before buying again: never two labels for one shipment.
 */
export async function buyAtCarrier(input: PurchaseInput, carrier: string, unsure: { maybeBought: boolean }): Promise<Purchase> {
  const deadline = workflowInfo().startTime.getTime() + input.purchaseDeadlineMs;
  const request = {
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
  const target = { carrier, livemode: input.livemode };
  // Each attempt may last no longer than the deadline leaves, so funds are never held past it.
  const buyLabel = (request: Parameters<ReturnType<typeof carrierActivities>['buyLabel']>[0]) =>
    carrierActivities(input, carrier, {
      summary: `buy the label from carrier ${carrier} for ${input.shipmentId}`,
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
    try {
      const earlier = unknownSince === undefined ? {} : { earlierAttempt: true, earlierAttemptAt: new Date(unknownSince).toISOString() };
      return await buyLabel({ ...target, request: { ...request, ...earlier } });
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
    const delay = Math.min(retryAfterMs ?? buyBackoffMs(attempt), Math.max(deadline - Date.now(), 0));
    if (delay > 0) await sleep(delay, { summary: `retry carrier ${carrier} after attempt ${attempt} (${lastError})` });
  }
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

/**
 * The purchase the carrier made under our reference, asked with retries until the deadline. The
 * request goes along: a carrier with idempotency keys (USPS) settles by sending it again under its key.
 */
async function lookUp(input: PurchaseInput, carrier: string, deadline: number, lastError: string, request: PurchaseRequest): Promise<Purchase | null> {
  setCurrentDetails(`asking carrier ${carrier} whether ${input.shipmentId} was bought (last error: ${lastError})`);
  try {
    const found = await carrierActivities(input, carrier, {
      summary: `ask carrier ${carrier} whether ${input.shipmentId} was bought`,
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
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const details = cause instanceof ApplicationFailure ? (cause.details?.[0] as { retryAfterMs?: number | null } | undefined) : undefined;
  return typeof details?.retryAfterMs === 'number' ? details.retryAfterMs : null;
}
