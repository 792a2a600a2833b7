import type { VoidOutcome } from './messages.js';
import type { Scan } from '../carriers/index.js';
import type { Address, Customs, FundingSource, Parcel, ShipmentOptions, ShipmentStatus } from '../domain/workflow.js';

/** What a shipment's workflow (workflows/shipment.ts) is started with and ends with. */

/** What the purchase saga needs: the shipment as the API priced and stored it. */
export interface PurchaseInput {
  shipmentId: string;
  accountId: string;
  livemode: boolean;
  fundingSource: FundingSource;
  currency: string;
  vatRateBp: number;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  reference: string | null;
  /** The shipment's terms, each absent when not asked for (and in runs started before they existed). */
  customs?: Customs;
  options?: ShipmentOptions;
  isReturn?: boolean;
  queuePrefix: string;
  /** How long the purchase may keep trying an unreachable carrier before failing cleanly. */
  purchaseDeadlineMs: number;
  /** How long to keep looking for a stray label after a purchase that may have bought failed. */
  strayLabelSettleMs?: number;
}

/** A scan's time (ISO 8601) and status, enough to tell whether a later arrival is older. */
export interface LatestScan {
  occurredAt: string;
  status: Scan['status'];
}

export interface ShipmentWorkflowInput extends PurchaseInput {
  /** `quietStopMs`: tracking stops after this long without a new scan (default TRACKING_QUIET_STOP_MS). */
  tracking: {
    minPollMs: number;
    maxPollMs: number;
    continueAsNewAfterPolls?: number;
    quietStopMs?: number;
    /** Polls share the carrier's one queue with purchases (CARRIER_TRACKING_SHARE=0). */
    sharedCarrierQueue?: boolean;
    /**
     * The carriers whose parcels are subscribed to pushed scans when their tracking starts (UPS Track
     * Alert), each with how long a subscription lasts; absent: every carrier is polled.
     */
    push?: Record<string, { lifetimeMs: number }>;
    /**
     * Parcel time runs this many times faster than the workflow's clock (the tracking bench, whose
     * simulated week passes in minutes); every duration of the schedule is parcel time. Absent: 1.
     */
    timeScale?: number;
  };
  /**
   * Set on a run the sweep starts for a shipment whose last run stopped (an operator's Terminate) while
   * it was `pending` or `voiding` (activities/sweep.ts): this run settles what that one left, then
   * goes on as the shipment's workflow. A settling void's run also carries `resume`.
   */
  settle?: StoppedRun;
  /** Carried over by continue-as-new once the label is bought, and by a resumption after a quiet stop. */
  resume?: {
    status: ShipmentStatus;
    carrier: string;
    trackingNumber: string;
    seenScanIds: string[];
    pollMs: number;
    /** Scans pushed after the last step of the previous run: carried over, never dropped. */
    pushed?: Scan[];
    /** Workflow time (ms) of the last new scan, or of the purchase; absent: the run's start. */
    quietSince?: number;
    /** The newest scan applied so far; absent: none. */
    latestScan?: LatestScan;
    /** Polls in a row that failed; absent: none. */
    failures?: number;
    /** False while the carrier has never reported the tracking number; absent (runs before it was kept): true. */
    known?: boolean;
    /** The carrier's push subscription: workflow time (ms) it lapses at, or when to ask again after a failure. */
    push?: PushSubscription;
    /** The previous run's wait ended on its timer: this run polls at once instead of waiting again. */
    pollDue?: boolean;
    /**
     * The outcomes of the voids the runs before answered, by update id: Temporal knows an update id
     * only within its run, and a retry of a void (its Idempotency-Key) must get the first answer.
     */
    voids?: Record<string, VoidOutcome>;
  };
}

/** A parcel's subscription to the scans its carrier pushes, in workflow time (ms). */
export type PushSubscription = { until: number } | { retryAt: number } | { refused: true };

/** A shipment's run that closed while its purchase or its void was under way. */
export interface StoppedRun {
  runId: string;
  /** How it closed: `TERMINATED`, `FAILED` or `TIMED_OUT`. */
  closedAs: string;
  /** What it was under way on. */
  status: 'pending' | 'voiding';
  /** The carrier the purchase was priced with, once it was priced. */
  carrier: string | null;
}

/**
 * What a shipment's status says to its customer when its run was stopped under it: an operator's
 * Terminate, or a run that failed (a defect) or timed out.
 */
export function stoppedBy(stopped: StoppedRun): string {
  return stopped.closedAs === 'TERMINATED' ? 'stopped by an operator' : 'interrupted by an internal error';
}

/** What the workflow ends with; `trackingStopped` when it stopped after a quiet period (resumable). */
export interface ShipmentWorkflowResult {
  status: ShipmentStatus;
  trackingStopped?: { quietForMs: number; resumeWith: ShipmentWorkflowInput };
}
