import {
  captureIn,
  findPickup,
  holdIn,
  InsufficientFundsError,
  markPickupScheduled,
  markPickupUnsettled,
  type PickupRow,
} from '../../db/index.js';
import { CarrierError, type BookedPickup, type CarrierAdapter, type CarrierCapabilities, type PickupRequest } from '../../carriers/index.js';
import { ApiError, CODE, priceWithVat, type FieldError } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth.js';
import { IN_FLIGHT_WAIT_MS, keyInUse } from '../idempotency.js';
import { carrierFailure, liveAdapter } from './carrier-ops.js';

/**
 * Booking a pickup so that it is never lost nor charged without a record: the pickup is recorded
 * `requested` (its Idempotency-Key bound to it, db/queries/pickups.ts) before the carrier is asked,
 * and marked `scheduled` with its confirmation in the transaction that charges its fee.
 */

type Log = { error(o: object, m: string): void };

const DAY_MS = 24 * 3600_000;

type PickupWindow = NonNullable<CarrierCapabilities['pickupWindow']>;

/** A year ahead and one day long, where a carrier declares no pickup window of its own (`capabilities.pickupWindow`). */
const DEFAULT_PICKUP_WINDOW = { aheadDays: 365, lengthHours: 24 };

/**
 * What is wrong with a pickup's window for this carrier, as 422 field errors (`window.start`,
 * `window.end`): the limits are what the carrier's own document accepts, as it declares them.
 */
export function pickupWindowErrors(carrier: { code: string; pickupWindow?: PickupWindow }, window: { start: Date; end: Date }, now: Date): FieldError[] {
  const { start, end } = window;
  const limits = carrier.pickupWindow ?? DEFAULT_PICKUP_WINDOW;
  const errors: FieldError[] = [];
  if (!(start.getTime() > now.getTime())) errors.push({ path: 'window.start', message: 'must be in the future' });
  else if (start.getTime() - now.getTime() > limits.aheadDays * DAY_MS) {
    errors.push({ path: 'window.start', message: `must be at most ${limits.aheadDays} days ahead: ${carrier.code} books pickups up to ${limits.aheadDays} days in advance` });
  }
  if (!(end.getTime() > start.getTime())) errors.push({ path: 'window.end', message: 'must be after window.start' });
  else if (end.getTime() - start.getTime() > limits.lengthHours * 3600_000) {
    errors.push({ path: 'window.end', message: `must be at most ${limits.lengthHours} hours after window.start: ${carrier.code} books a pickup for ${limits.lengthHours} hours at most` });
  }
  return errors;
}

/** A booking still `requested` this long after it was recorded was abandoned (its request stopped): longer than any carrier call's deadline. */
export const PICKUP_IN_FLIGHT_MS = 2 * 60_000;

/**
 * Carriers whose booking is keyed by our reference: asked again with it, they answer the same
 * booking (Acme: `pu_<reference>`). UPS's Pickup Creation and USPS's carrier-pickup POST take no key
 * of ours, and neither can be searched by one (UPS's Pickup Pending Status lists PRNs by account,
 * with no reference; USPS reads a pickup only by its confirmation number): asking them again could
 * book a second collection, and cancelling "any booking found" could cancel another one. For them a
 * booking whose answer was lost is refused clearly and left `unconfirmed` for an operator.
 */
const BOOKS_BY_REFERENCE = new Set(['acme']);

/** Failures after which the key stays bound to its booking: a retry resolves that booking, never books anew. */
const keepsKey = new WeakSet<object>();
const keepingKey = <T extends object>(error: T): T => (keepsKey.add(error), error);
export const pickupKeepsKey = (error: unknown): boolean => typeof error === 'object' && error !== null && keepsKey.has(error);

/**
 * Asks the carrier for a recorded booking, then charges and confirms it. A refusal, or a failure
 * that did nothing, ends it `failed` (502 or 503, nothing charged, the key freed); a failure after
 * which the carrier may have booked ends it `unconfirmed` (503), the key kept for the retry.
 */
export async function bookPickup(ctx: AppContext, caller: Caller, row: PickupRow, request: PickupRequest, log: Log): Promise<PickupRow> {
  const adapter = liveAdapter(ctx, row.carrier);
  let booked: BookedPickup;
  try {
    if (!adapter.schedulePickup) throw new CarrierError('definitive', `${row.carrier} does not book pickups`);
    booked = await adapter.schedulePickup(request);
  } catch (error) {
    const mayHaveBooked = !(error instanceof CarrierError) || error.kind === 'ambiguous';
    await markPickupUnsettled(ctx.db, row.id, mayHaveBooked ? 'unconfirmed' : 'failed');
    if (mayHaveBooked) log.error({ err: error, pickup_id: row.id, carrier: row.carrier }, 'the carrier may have booked this pickup: its answer was lost; a retry with the same key settles it');
    try {
      carrierFailure(error);
    } catch (answer) {
      throw mayHaveBooked && typeof answer === 'object' && answer !== null ? keepingKey(answer) : answer;
    }
  }
  return confirmBooking(ctx, caller, row, adapter, booked, log);
}

async function confirmBooking(ctx: AppContext, caller: Caller, row: PickupRow, adapter: CarrierAdapter, booked: BookedPickup, log: Log): Promise<PickupRow> {
  const account = caller.account;
  const price = booked.fee && booked.fee.amount > 0 ? priceWithVat(booked.fee.amount, account.vatRateBp / 100, account.currency) : null;
  try {
    // The carrier's fee in another currency than the account's cannot be charged: the booking is undone.
    if (booked.fee && booked.fee.amount > 0 && booked.fee.currency !== account.currency) {
      throw new ApiError(CODE.carrier_error, `The carrier charges its pickup fee in ${booked.fee.currency}; this account is in ${account.currency}.`);
    }
    // A card is charged through the card processor as a purchase is; pickups are charged to a wallet or a credit line only.
    if (price && account.fundingSource === 'card') {
      throw new ApiError(CODE.validation_failed, 'A pickup with a fee cannot be charged to a card account.', { errors: [{ path: 'carrier', message: `${row.carrier} charges a pickup fee, which a card account cannot pay here` }] });
    }
    return await ctx.db.transaction(async (tx) => {
      const locked = await findPickup(tx, row.id, true);
      // A retry of the same key confirmed this same booking meanwhile: it is charged once, by that retry.
      if (locked?.status === 'scheduled' || locked?.status === 'cancelled') return locked;
      if (locked?.status !== 'requested' && locked?.status !== 'unconfirmed') throw new Error(`pickup ${row.id} is ${locked?.status ?? 'gone'}, not awaiting its booking`);
      if (price) {
        // The fee is charged as a label is: held and captured under the pickup's id.
        await holdIn(tx, { accountId: row.accountId, shipmentId: row.id, amount: price.gross });
        await captureIn(tx, { accountId: row.accountId, shipmentId: row.id });
      }
      return markPickupScheduled(tx, row.id, { confirmation: booked.confirmation, priceNet: price?.net ?? null, priceVat: price?.vat ?? null, currency: price?.currency ?? null });
    });
  } catch (error) {
    const answer = error instanceof InsufficientFundsError ? new ApiError(CODE.insufficient_funds, 'The balance does not cover the pickup fee.') : error;
    const undone = await undoBooking(ctx, adapter, row.id, booked, log);
    throw !undone && typeof answer === 'object' && answer !== null ? keepingKey(answer) : answer;
  }
}

/**
 * A booking we cannot keep is cancelled at the carrier and ends `failed`; if the cancellation fails
 * too, it stays `unconfirmed` with its confirmation, logged for an operator. Whether it was undone.
 */
async function undoBooking(ctx: AppContext, adapter: CarrierAdapter, id: string, booked: BookedPickup, log: Log): Promise<boolean> {
  let undone = true;
  try {
    await adapter.cancelPickup?.(booked.confirmation);
  } catch (error) {
    undone = false;
    log.error({ err: error, pickup_id: id, confirmation: booked.confirmation }, 'a pickup booked at the carrier could not be cancelled after its charge failed');
  }
  try {
    await markPickupUnsettled(ctx.db, id, undone ? 'failed' : 'unconfirmed', booked.confirmation);
  } catch (error) {
    log.error({ err: error, pickup_id: id, confirmation: booked.confirmation }, 'a pickup the carrier booked could not be recorded as undone');
  }
  return undone;
}

/**
 * A retry of a key whose first request left no answer: the booking bound to the key, resolved.
 * Scheduled (the first request's answer was lost after its commit): that pickup. Still `requested`
 * and recent: the first request is still at the carrier, waited for (then 409 `idempotency_key_in_use`). Abandoned
 * or `unconfirmed`: a carrier that books by our reference is asked again with it (the same booking,
 * charged once); any other is refused with 502 `carrier_error`, nothing charged and nothing booked
 * again, the booking left `unconfirmed` for an operator and every retry of the key answered so.
 */
export async function resumePickup(
  ctx: AppContext,
  caller: Caller,
  pickupId: string | null,
  requestFor: (reference: string) => Promise<PickupRequest>,
  log: Log,
): Promise<PickupRow> {
  const inFlight = (r: PickupRow | undefined) => r?.status === 'requested' && ctx.now().getTime() - r.createdAt.getTime() < PICKUP_IN_FLIGHT_MS;
  let row = pickupId ? await findPickup(ctx.db, pickupId) : undefined;
  // As every keyed route does (api/idempotency.ts), a retry waits a while for the first request's outcome.
  for (const until = Date.now() + IN_FLIGHT_WAIT_MS; inFlight(row) && Date.now() < until; row = await findPickup(ctx.db, row!.id)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // No booking yet, one still at the carrier, or a failed one whose request is about to free the key.
  if (!row || row.status === 'failed' || inFlight(row)) throw keepingKey(keyInUse());
  if (row.status === 'scheduled' || row.status === 'cancelled') return row;
  if (BOOKS_BY_REFERENCE.has(row.carrier)) return bookPickup(ctx, caller, row, await requestFor(row.id), log);
  await markPickupUnsettled(ctx.db, row.id, 'unconfirmed');
  log.error({ pickup_id: row.id, carrier: row.carrier }, 'a pickup whose booking answer was lost needs an operator: ask the carrier whether it was booked');
  throw keepingKey(
    new ApiError(
      CODE.carrier_error,
      `The carrier's answer to this booking was lost, and ${row.carrier.toUpperCase()} cannot be asked again without risking a second collection. Nothing was charged; check with the carrier before booking again with a new Idempotency-Key.`,
    ),
  );
}
