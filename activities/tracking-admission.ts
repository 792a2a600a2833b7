import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RateDecision, RatePolicy } from '../db/index.js';
import { CODE } from '../domain/index.js';

/**
 * The carrier's tracking share of its rate, held across the whole fleet for the tracking calls a
 * workflow's own worker makes (the tracking loop's poll, a local activity), which Temporal's
 * task-queue rate limit does not reach: each call to the carrier first takes a place in a sliding
 * window kept in PostgreSQL (db/queries/rate-limits.ts, one row per carrier), and waits for one while
 * the window is full. The sandbox touches no carrier and takes none.
 */
export function createTrackingAdmission(deps: {
  take(keyId: string, policy: RatePolicy): Promise<RateDecision>;
  /** The carrier's tracking calls a second across the fleet (contract: splitCarrierRate). */
  perSecond(carrier: string): number;
  /** The window's row: one per carrier, shared by every worker of the fleet. */
  keyOf(carrier: string): string;
  /** How long a call may wait for its place before the poll gives way (TRACKING_ADMISSION_WAIT_MS). */
  maxWaitMs?: number;
  sleep?(ms: number): Promise<void>;
}): (t: { carrier: string; livemode: boolean }) => Promise<void> {
  const sleep = deps.sleep ?? activitySleep;
  const maxWaitMs = deps.maxWaitMs ?? TRACKING_ADMISSION_WAIT_MS;
  return async (t) => {
    if (!t.livemode) return;
    const perSecond = deps.perSecond(t.carrier);
    if (!(perSecond > 0)) {
      // No tracking share (CARRIER_TRACKING_SHARE=0): new parcels poll on the carrier's purchase
      // queue instead (contract: sharedCarrierQueue); one begun before the change polls later.
      throw ApplicationFailure.create({ type: CODE.rate_limited, message: `carrier ${t.carrier} has no tracking share of its rate`, nonRetryable: true });
    }
    const policy = trackingRatePolicy(perSecond);
    let waited = 0;
    for (;;) {
      const decision = await deps.take(deps.keyOf(t.carrier), policy);
      if (decision.allowed) return;
      const waitMs = Math.max(1, Math.ceil(decision.untilSlotUs / 1000));
      if (waited + waitMs > maxWaitMs) {
        // Not retried here: the loop counts a failed poll, which doubles the parcel's next wait, so
        // polls beyond the share thin out until they fit it, as on a queue whose polls time out.
        throw ApplicationFailure.create({
          type: CODE.rate_limited,
          message: `carrier ${t.carrier}'s tracking share (${perSecond} calls a second) is spent: polling later`,
          nonRetryable: true,
        });
      }
      await sleep(waitMs);
      waited += waitMs;
    }
  };
}

/**
 * How long a poll waits for its place in the carrier's tracking share. It waits inside its workflow's
 * task, the workflow held in the worker's cache: Temporal extends a task still open at 80% of its
 * 10 s time-out with more events, so a poll gives way well before that, and a backlog of polls becomes
 * parcels waiting on their timers, not workflows held in memory.
 */
export const TRACKING_ADMISSION_WAIT_MS = 5_000;

/**
 * A rate a second as a window of whole calls: 2.5 a second is 2 calls in any 0.8 s, 0.5 a second one
 * call in any 2 s. So a fractional share is neither rounded away nor up.
 */
export function trackingRatePolicy(perSecond: number): RatePolicy {
  const count = Math.max(1, Math.floor(perSecond));
  return { count, seconds: count / perSecond };
}

/** The activity's cancellable sleep; a plain timer outside one (unit tests). */
function activitySleep(ms: number): Promise<void> {
  try {
    return Context.current().sleep(ms);
  } catch {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
