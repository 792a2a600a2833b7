import { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../domain/index.js';

/** SQLSTATE of the error or of its cause (drizzle wraps the driver's error). */
function sqlState(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/**
 * Whether retrying can never succeed: PostgreSQL refused the data itself (class 22, data exception:
 * a NUL in text, a value out of range; class 23, integrity violation), or the input is not even a
 * valid value (RangeError: an invalid date). A database that is down or busy is retried as before.
 */
export function isPermanentDataError(err: unknown): boolean {
  if (err instanceof RangeError) return true;
  const state = sqlState(err);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23'));
}

/**
 * Wraps a factory's activities so that input which can never be stored fails at once, non-retryably
 * (type `invalid_data`, the database's message kept for operators), instead of retrying forever
 * under the unlimited retry policy our own database steps have.
 */
export function failFastOnBadData<T extends Record<string, unknown>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    if (typeof fn !== 'function') {
      wrapped[name] = fn;
      continue;
    }
    const activity = fn as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = {
      async [name](...args: unknown[]) {
        try {
          return await activity(...args);
        } catch (err) {
          if (err instanceof ApplicationFailure || !isPermanentDataError(err)) throw err;
          throw ApplicationFailure.create({
            type: FAILURE.invalidData,
            nonRetryable: true,
            message: `${name}: the data cannot be stored (${(err as Error).message})`,
            cause: err as Error,
          });
        }
      },
    }[name];
  }
  return wrapped as T;
}
