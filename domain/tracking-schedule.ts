/**
 * When a tracked parcel is next asked about: a pure function of where the parcel is and how long it
 * has sat still, so that tracking costs follow the parcels' movements, not their number. Workflows
 * call it with their own clock (docs/architecture.md#tracking-at-scale).
 */

/** Where a parcel is in its life, as far as asking the carrier goes. */
export type TrackingPhase = 'awaiting_first_scan' | 'in_transit' | 'out_for_delivery' | 'exception';

/** How one phase is polled; every figure is parcel time (a bench's scaled clock divides it). */
export interface PhaseCadence {
  /** The wait right after the parcel last moved (or after its label was bought). */
  firstMs: number;
  /** Past that, the wait is this share of the time since the parcel last moved (it backs off)… */
  growth: number;
  /** …up to this. */
  ceilingMs: number;
  /**
   * How long a parcel whose scans the carrier pushes may stay silent before a poll looks: a poll
   * is then only the safety net for a push that never came.
   */
  pushSilenceMs: number;
}

const HOUR = 3_600_000;

/**
 * The cadence of each phase. Rare before the first scan (carriers collect the next working day)
 * and while in transit (a scan there changes no status), often once out for delivery (the parcel
 * is delivered within hours, and that is what the customer waits for).
 */
export const TRACKING_CADENCE: Readonly<Record<TrackingPhase, PhaseCadence>> = {
  awaiting_first_scan: { firstMs: 6 * HOUR, growth: 0.5, ceilingMs: 12 * HOUR, pushSilenceMs: 36 * HOUR },
  in_transit: { firstMs: 6 * HOUR, growth: 0.5, ceilingMs: 12 * HOUR, pushSilenceMs: 36 * HOUR },
  out_for_delivery: { firstMs: HOUR, growth: 0.5, ceilingMs: 2 * HOUR, pushSilenceMs: 12 * HOUR },
  exception: { firstMs: 2 * HOUR, growth: 0.5, ceilingMs: 8 * HOUR, pushSilenceMs: 24 * HOUR },
};

/**
 * A parcel the carrier has never reported (every poll answered "not found", never a scan) stops
 * being tracked after this long: a mistyped or never-used label does not poll for a month. A push
 * or a void resumes it, as after any quiet stop.
 */
export const TRACKING_UNKNOWN_STOP_MS = 10 * 24 * HOUR;

/** A push subscription is renewed this long before it lapses. */
export const SUBSCRIPTION_RENEW_MARGIN_MS = 24 * HOUR;

export interface PollScheduleInput {
  phase: TrackingPhase;
  /** Parcel time since the last new scan, or since the label was bought when there is none. */
  sinceMovementMs: number;
  /** Polls in a row that failed (the carrier erred, or did not know the number): each doubles the wait. */
  failures: number;
  /** The carrier pushes this parcel's scans (a live subscription, or the sandbox, where only pushes come). */
  pushed: boolean;
  /**
   * The deployment's floor and ceiling of a poll's wait (TRACKING_POLL_MIN_MS, TRACKING_POLL_MAX_MS),
   * in the same parcel time. A pushed parcel's silence is bounded by three ceilings, so a test's short
   * ceiling bounds it too.
   */
  bounds: { minMs: number; maxMs: number };
}

/** The phase of a parcel from the status of its newest scan (none yet: awaiting its first). */
export function trackingPhase(latestScanStatus: string | undefined): TrackingPhase {
  switch (latestScanStatus) {
    case 'in_transit':
    case 'out_for_delivery':
    case 'exception':
      return latestScanStatus;
    case undefined:
      return 'awaiting_first_scan';
    default:
      // Delivered ends tracking before any next poll; a status a carrier adds later is treated as moving.
      return 'in_transit';
  }
}

/** How long until the next poll, in parcel time. */
export function nextPollMs(input: PollScheduleInput): number {
  const cadence = TRACKING_CADENCE[input.phase];
  const since = Math.max(0, input.sinceMovementMs);
  const { minMs, maxMs } = input.bounds;
  if (input.pushed && input.failures === 0) {
    // Pushes keep it current: look only once it has been silent longer than this phase expects.
    const silence = Math.min(cadence.pushSilenceMs, 3 * maxMs);
    if (since < silence) return Math.max(minMs, silence - since);
  }
  const polled = Math.min(cadence.ceilingMs, Math.max(cadence.firstMs, cadence.growth * since));
  const backedOff = polled * 2 ** Math.min(input.failures, 16);
  return Math.min(maxMs, Math.max(minMs, backedOff));
}
