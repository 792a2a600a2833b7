import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { classifyAnswer, type CarrierErrorInfo, type CarrierOperation, type ErrorDeclaration, type ErrorHint, type FailedCall } from '../kit/index.js';
import type { CarrierError } from '../types.js';

/** What a UPS call does, by UPS's own names, and what it is to the shared client (a lost write's answer may mean it happened). */
export const UPS_OPERATIONS = {
  rate: 'quote',
  ship: 'buy',
  void: 'cancel',
  recover: 'lookup',
  reference: 'lookup',
  track: 'track',
  pickup: 'buy',
  pickup_cancel: 'cancel',
  pickup_pending: 'lookup',
  address: 'lookup',
} as const satisfies Record<string, CarrierOperation>;

export type UpsOperation = keyof typeof UPS_OPERATIONS;

/** UPS's error body: `{ response: { errors: [{ code, message }] } }` (every API alike). */
export function readUpsError(body: unknown): CarrierErrorInfo {
  const errors = isRecord(body) && isRecord(body.response) && Array.isArray(body.response.errors) ? body.response.errors : [];
  const first = errors.find(isRecord);
  if (!first) return {};
  const code = typeof first.code === 'string' && first.code !== '' ? first.code : undefined;
  const message = typeof first.message === 'string' && first.message !== '' ? first.message : undefined;
  return { code, message };
}

/**
 * UPS documents no error code for voiding a label it has scanned, so the refusal is known by its
 * words: the package "has been picked up", "is in transit", "was delivered" or "has been scanned".
 */
const ALREADY_SCANNED = /\b(picked up|in transit|delivered|(origin )?scan(ned)?|tendered)\b/i;

export function isAlreadyScannedMessage(message: string | undefined): boolean {
  return message !== undefined && ALREADY_SCANNED.test(message);
}

/**
 * UPS's word on a failed answer, beside what its status says (the shared client's rules: 409, 429
 * and 5xx retryable, a write's gateway failure ambiguous, any other refusal definitive): a 404 is
 * `not_found`, and a void refused in words of a scan is `already_scanned`. A 401 reaches here only
 * after the client renewed its token once: definitive, as any refusal.
 */
export function upsErrorHint(failure: FailedCall): ErrorHint | undefined {
  if (failure.status === 404) return { reason: CARRIER_REASON.notFound };
  const refusal = failure.status >= 400 && failure.status < 500 && failure.status !== 409 && failure.status !== 429;
  if (failure.name === 'void' && refusal && isAlreadyScannedMessage(failure.info.message)) return { reason: CARRIER_REASON.alreadyScanned };
  return undefined;
}

/** How UPS's failures are read and classified: the part of its client's declaration the classification takes. */
export const UPS_ERRORS: ErrorDeclaration = { carrierCode: 'ups', name: 'UPS', readError: readUpsError, hint: upsErrorHint };

/** A UPS answer's failure as its client classifies it (canned-payload tests read UPS's answers through it). */
export function classifyUpsAnswer(status: number, body: unknown, operation: UpsOperation): CarrierError {
  const request = { operation: UPS_OPERATIONS[operation], name: operation, method: 'POST' as const, path: '/' };
  return classifyAnswer(UPS_ERRORS, request, { status, headers: {}, body, text: body === undefined ? '' : JSON.stringify(body) }, Date.now());
}
