import { CarrierError } from '../carrier-error.js';
import type { CarrierCallLimits } from './types.js';

const HOUR_MS = 3_600_000;

/**
 * A carrier's quota of calls an hour, counted before each call is sent so that none is spent on a
 * call the carrier would refuse: every call of the last hour, tokens included. A call beyond it is
 * refused as retryable, after the moment one is free again. Counted per process: the queue's
 * fleet-wide rate limit and the carrier's own 429 cover the rest.
 */
export function createCallBudget(o: { callsPerHour: number; now: () => number; name: string; carrierCode: string }) {
  const sent: number[] = [];
  return {
    /** Counts one call, or throws when the hour's quota is spent. */
    spend(what: string): void {
      const t = o.now();
      while (sent.length && sent[0] <= t - HOUR_MS) sent.shift();
      if (sent.length >= o.callsPerHour) {
        const retryAfterMs = sent[0] + HOUR_MS - t;
        throw new CarrierError(
          'retryable',
          `${o.name} quota: the ${o.callsPerHour} calls an hour are spent; ${what} not sent, the next call is free in ${Math.ceil(retryAfterMs / 1000)} s`,
          { carrierCode: o.carrierCode, retryAfterMs },
        );
      }
      sent.push(t);
    },
    /** Calls counted in the last hour. */
    spent(): number {
      const t = o.now();
      return sent.filter((at) => at > t - HOUR_MS).length;
    },
  };
}

export type CallBudget = ReturnType<typeof createCallBudget>;

/**
 * What a 429 does to the calls after it. With `Retry-After` and a carrier that declares
 * `maxRetryAfterWaitMs`, nothing more is sent until then: a short wait is waited in place once, a
 * longer one is thrown with it. Without one, the carrier's backoff (when it declares one) spaces the attempts out on our own
 * schedule, exponential with full jitter; otherwise the caller's retry policy does.
 */
export function createRateLimitGate(limits: CarrierCallLimits, o: { now: () => number; sleep: (ms: number) => Promise<void>; random: () => number; name: string; carrierCode: string }) {
  const holds = limits.maxRetryAfterWaitMs !== undefined;
  const maxWait = limits.maxRetryAfterWaitMs ?? 0;
  let blockedUntil = 0;
  return {
    /** Waits for a short block to pass, or throws a long one; `attempt` counts the sends of this call. */
    async pass(attempt: number): Promise<void> {
      const wait = blockedUntil - o.now();
      if (wait <= 0) return;
      if (wait > maxWait || attempt > 1) {
        throw new CarrierError('retryable', `${o.name} rate limit: next call allowed in ${Math.ceil(wait / 1000)} s`, { status: 429, carrierCode: o.carrierCode, retryAfterMs: wait });
      }
      await o.sleep(wait);
    },
    /** After a 429: whether to send once more (having waited as it says), or false to throw it. */
    async again(retryAfterMs: number | undefined, attempt: number): Promise<boolean> {
      if (retryAfterMs !== undefined) {
        if (!holds) return false;
        blockedUntil = Math.max(blockedUntil, o.now() + retryAfterMs);
        return retryAfterMs <= maxWait && attempt < 1;
      }
      const backoff = limits.backoff;
      if (!backoff || attempt >= backoff.attempts) return false;
      await o.sleep(Math.floor(o.random() * Math.min(backoff.maxMs, backoff.baseMs * 2 ** attempt)));
      return true;
    },
  };
}
