import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
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
 * table (domain/errors.ts), a contract code or an internal one. Pure (`@temporalio/common` only):
 * workflows use it.
 */
export type FailureType = ErrorCode | InternalFailure;

/** A non-retryable ApplicationFailure of a known type. */
export function nonRetryableFailure(type: FailureType, message: string, ...details: unknown[]): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, type, ...details);
}

/** An ApplicationFailure of a known type, with Temporal's options (retryable, delay, details). */
export function typedFailure(
  type: FailureType,
  options: { message: string; nonRetryable?: boolean; details?: unknown[]; nextRetryDelay?: number | string },
): ApplicationFailure {
  return ApplicationFailure.create({ type, ...options });
}

/** The ApplicationFailure behind an error (an activity's failure wraps it), if there is one. */
export function applicationFailureOf(err: unknown): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? cause : undefined;
}

/**
 * The type of the ApplicationFailure behind an error, if it has one: a string, not a FailureType,
 * since a failure from Temporal or a library may carry a type of its own; compare it with `CODE.…`.
 */
export function failureTypeOf(err: unknown): string | undefined {
  return applicationFailureOf(err)?.type ?? undefined;
}

/**
 * The API code a failure stands for: its own type when that is a contract code, else
 * `internal_error` (an internal type never reaches a customer).
 */
export function errorCodeOf(type: string | undefined, fallback: ErrorCode = CODE.internal_error): ErrorCode {
  return isErrorCode(type) ? type : fallback;
}
