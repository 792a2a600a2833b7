import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { classifyAnswer, type CarrierErrorInfo, type CarrierOperation, type ErrorDeclaration, type ErrorHint, type FailedCall } from '../kit/index.js';
import type { CarrierError, CarrierErrorKind, CarrierErrorReason } from '../types.js';

/** What a FedEx call does, by our names for FedEx's operations, and what it is to the shared client (a lost write's answer may mean it happened). */
export const FEDEX_OPERATIONS = {
  rate: 'quote',
  ship: 'buy',
  cancel: 'cancel',
  track: 'track',
  reference: 'lookup',
  pickup: 'buy',
  pickup_cancel: 'cancel',
} as const satisfies Record<string, CarrierOperation>;

export type FedexOperation = keyof typeof FEDEX_OPERATIONS;

/** FedEx's error body (carrier-specs README): `{ transactionId, errors: [{ code, message, parameterList }] }`. */
export function readFedexError(body: unknown): CarrierErrorInfo {
  const first = isRecord(body) && Array.isArray(body.errors) ? body.errors.find(isRecord) : undefined;
  if (!first) return {};
  const code = typeof first.code === 'string' && first.code !== '' ? first.code : undefined;
  const message = typeof first.message === 'string' && first.message !== '' ? first.message : undefined;
  return { code, message };
}

/**
 * FedEx's error codes (its documents' and the carrier-specs README's), each classified with why.
 * A refusal (4xx) follows this table; a 409, 429 or 5xx follows its status whatever its code (the
 * shared client's rule: retryable, a write's gateway failure ambiguous), so the codes FedEx sends
 * with those are listed for the reader, not to change them.
 */
export const FEDEX_ERROR_CODES: Readonly<Record<string, { kind: CarrierErrorKind; reason?: CarrierErrorReason; why: string }>> = {
  'NOT.AUTHORIZED.ERROR': { kind: 'definitive', why: 'the token expired: the client renews it once on the 401 and tries again; a second refusal is the credentials' },
  'LOGIN.REAUTHENTICATE.ERROR': { kind: 'definitive', why: 'FedEx asks to authenticate again: the same as a refused token' },
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
  'INTERNAL.SERVER.ERROR': { kind: 'retryable', why: 'a 500: FedEx failed before doing anything it reports; tried again' },
  'SERVICE.UNAVAILABLE.ERROR': { kind: 'retryable', why: 'a 503: FedEx is down for a while; tried again later, a buy or cancel is ambiguous (a gateway may have forwarded it)' },
};

/**
 * FedEx's word on a failed answer beside its status: a refusal whose code the table knows is
 * classified by it (with its reason), a 404 is `not_found`, any other refusal stays definitive.
 */
export function fedexErrorHint(failure: FailedCall): ErrorHint | undefined {
  const { status } = failure;
  if (status === 409 || status === 429 || status >= 500) return undefined;
  const known = failure.info.code === undefined ? undefined : FEDEX_ERROR_CODES[failure.info.code];
  if (known) return { kind: known.kind, ...(known.reason ? { reason: known.reason } : {}) };
  return status === 404 ? { reason: CARRIER_REASON.notFound } : undefined;
}

/** How FedEx's failures are read and classified: the part of its client's declaration the classification takes. */
export const FEDEX_ERRORS: ErrorDeclaration = { carrierCode: 'fedex', name: 'FedEx', readError: readFedexError, hint: fedexErrorHint };

/** A FedEx answer's failure as its client classifies it (canned-payload tests read FedEx's answers through it). */
export function classifyFedexAnswer(status: number, body: unknown, operation: FedexOperation): CarrierError {
  const request = { operation: FEDEX_OPERATIONS[operation], name: operation, method: 'POST' as const, path: '/' };
  return classifyAnswer(FEDEX_ERRORS, request, { status, headers: {}, body, text: body === undefined ? '' : JSON.stringify(body) }, Date.now());
}
