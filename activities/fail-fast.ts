import { ApplicationFailure } from '@temporalio/common';
import { CODE } from '../domain/index.js';

/** The database's own error: the error or its cause that carries a SQLSTATE (drizzle wraps the driver's error). */
function databaseError(err: unknown): (Error & { code: string }) | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e as Error & { code: string };
  }
  return undefined;
}

const sqlState = (err: unknown) => databaseError(err)?.code;

/**
 * Whether retrying can never succeed: PostgreSQL refused the data itself (class 22, data exception:
 * a NUL in text, a value out of range; class 23, integrity violation), or the input is not even a
 * valid value (RangeError: an invalid date). A database that is down or busy is not: it is retried.
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
          // The database's reason alone: drizzle's error (message and stack) quotes the statement and
          // every value bound to it (an event's shipment: names and addresses), and a failure's
          // message and stack are stored in the workflow's history in clear, outside the payload codec.
          const reason = databaseError(err) ?? (err as Error);
          throw ApplicationFailure.create({
            type: CODE.invalid_data,
            nonRetryable: true,
            message: `${name}: the data cannot be stored (${reason.message})`,
            cause: reason,
          });
        }
      },
    }[name];
  }
  return wrapped as T;
}
