import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { CarrierErrorKind, CarrierErrorReason } from '../types.js';

/** What a FedEx call does; decides whether a lost or gateway-failed answer may have had an effect. */
export type FedexOperation = 'rate' | 'ship' | 'cancel' | 'track' | 'reference' | 'pickup' | 'pickup_cancel';

const WRITES: ReadonlySet<FedexOperation> = new Set(['ship', 'cancel', 'pickup', 'pickup_cancel']);

/** FedEx's error body (carrier-specs README): `{ transactionId, errors: [{ code, message, parameterList }] }`. */
export function readFedexError(body: unknown): { code?: string; message?: string } {
  const first = isRecord(body) && Array.isArray(body.errors) ? body.errors.find(isRecord) : undefined;
  if (!first) return {};
  const code = typeof first.code === 'string' && first.code !== '' ? first.code : undefined;
  const message = typeof first.message === 'string' && first.message !== '' ? first.message : undefined;
  return { code, message };
}

/**
 * FedEx's error codes that mean something beyond their HTTP status, each with why. `refresh`: the
 * token is no longer taken; the client gets a new one and tries once more, then it is definitive.
 */
export const FEDEX_ERROR_CODES: Readonly<Record<string, { kind: CarrierErrorKind | 'refresh'; reason?: CarrierErrorReason; why: string }>> = {
  'NOT.AUTHORIZED.ERROR': { kind: 'refresh', why: 'the access token expired (carrier-specs README): one new token, one more try' },
  'LOGIN.REAUTHENTICATE.ERROR': { kind: 'refresh', why: 'FedEx asks to authenticate again: the same as an expired token' },
  'FORBIDDEN.ERROR': { kind: 'definitive', why: 'our credentials lack the permission: an operator must correct them, retrying cannot' },
  'UNAUTHORIZED.USAGE': { kind: 'definitive', why: 'the project is not entitled to the API: a configuration matter' },
  'SHIPMENT.USER.UNAUTHORIZED': { kind: 'definitive', why: 'the user may not act on this shipment: retrying cannot change it' },
  'ACCOUNTNUMBER.REGISTRATION.REQUIRED': { kind: 'definitive', why: 'the shipper account is not valid: CARRIER_FEDEX_ACCOUNT_NUMBER is wrong' },
  'ACCOUNT.NUMBER.MISMATCH': { kind: 'definitive', why: 'the account does not match the payment: a configuration matter' },
  'NOT.FOUND.ERROR': { kind: 'definitive', reason: CARRIER_REASON.notFound, why: 'no such resource at FedEx' },
  'TRACKING.TRACKINGNUMBER.NOTFOUND': { kind: 'definitive', reason: CARRIER_REASON.notFound, why: 'FedEx does not know the tracking number' },
  'TRACKINGNUMBER.ENTERED.INVALID': { kind: 'definitive', reason: CARRIER_REASON.notFound, why: 'a cancel of a tracking number FedEx does not know' },
  'PICKUP.NUMBER.EXPIRED': { kind: 'definitive', why: 'a pickup of a previous day cannot be cancelled or changed' },
  'PICKUP.REQUESTED.PREVIOUS.DAY': { kind: 'definitive', why: 'a pickup cannot be booked for a day gone by' },
  'INTERNAL.SERVER.ERROR': { kind: 'retryable', why: 'FedEx failed before doing anything it reports: tried again (a write behind a gateway status is ambiguous, below)' },
  'SERVICE.UNAVAILABLE.ERROR': { kind: 'retryable', why: 'FedEx is down for a while: tried again later (a write is ambiguous, below)' },
};

export interface FedexErrorClass {
  kind: CarrierErrorKind | 'refresh';
  message: string;
  carrierErrorCode?: string;
  reason?: CarrierErrorReason;
}

/**
 * How a failed FedEx call ends, from its HTTP status and FedEx's code (the style guide's rule, as
 * Stripe's client does it):
 * - a 429, 409 or 5xx did nothing: retryable; except a write's 502, 503 or 504, which a gateway may
 *   send after forwarding it: ambiguous (the purchase may exist; it is looked up before buying again);
 * - a 401, or a code of the table that says so, is a token to renew once;
 * - a code of the table decides; a 404 is `not_found`; any other 4xx is FedEx's final word.
 */
export function classifyFedexError(status: number, info: { code?: string; message?: string }, operation: FedexOperation): FedexErrorClass {
  const carrier = info.code === undefined ? {} : { carrierErrorCode: info.code };
  const message = info.message ?? `FedEx answered HTTP ${status}`;
  if (status === 409 || status === 429 || status >= 500) {
    const kind = WRITES.has(operation) && (status === 502 || status === 503 || status === 504) ? 'ambiguous' : 'retryable';
    return { kind, message, ...carrier };
  }
  const known = info.code === undefined ? undefined : FEDEX_ERROR_CODES[info.code];
  if (status === 401 || known?.kind === 'refresh') return { kind: 'refresh', message, ...carrier };
  if (known) return { kind: known.kind, message, ...carrier, ...(known.reason ? { reason: known.reason } : {}) };
  if (status === 404) return { kind: 'definitive', message, reason: CARRIER_REASON.notFound, ...carrier };
  return { kind: 'definitive', message, ...carrier };
}
