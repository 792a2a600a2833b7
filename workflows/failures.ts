import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { failureTypeOf } from '../contract/index.js';

/** The `type` of the ApplicationFailure behind an activity's failure, if it has one. */
export const failureType = failureTypeOf;

/** The message of the failure behind an activity's failure. */
export function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(err);
}

/** The first detail of the failure behind an activity's failure: what the activity says beside its message. */
export function failureDetail(err: unknown): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
}
