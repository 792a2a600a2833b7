import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { FailureType } from '../domain/workflow.js';

/**
 * Temporal's side of the failure vocabulary (domain/failures.ts): the ApplicationFailures our
 * activities and workflows throw, typed by that vocabulary, and the type read back from one.
 * `@temporalio/common` only, which workflows may import.
 */

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
