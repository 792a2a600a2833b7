import { CODE, isErrorCode, type ErrorCode, type InternalFailure } from './errors.js';

/**
 * Why a carrier refused, in our words (an adapter maps the carrier's own codes onto these): the
 * workflows turn them into answers (a cancellation refused as `already_scanned` is the customer's
 * `label_already_scanned`).
 */
export const CARRIER_REASON = { alreadyScanned: 'already_scanned', notFound: 'not_found' } as const;
export type CarrierErrorReason = (typeof CARRIER_REASON)[keyof typeof CARRIER_REASON];

/**
 * The `type` of every ApplicationFailure our activities and workflows throw: a code of the error
 * table (domain/errors.ts), a contract code or an internal one. Pure: workflows use it;
 * contract/failures.ts makes and reads the ApplicationFailures themselves.
 */
export type FailureType = ErrorCode | InternalFailure;

/**
 * The API code a failure stands for: its own type when that is a contract code, else
 * `internal_error` (an internal type never reaches a customer).
 */
export function errorCodeOf(type: string | undefined, fallback: ErrorCode = CODE.internal_error): ErrorCode {
  return isErrorCode(type) ? type : fallback;
}
