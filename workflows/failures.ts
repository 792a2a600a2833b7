import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** The `type` of the ApplicationFailure behind an activity's failure, if it has one. */
export function failureType(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

/** The message of the failure behind an activity's failure. */
export function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(err);
}
