import type { CarrierError } from './carrier-error.js';
import type { ScanStatus } from '../domain/index.js';

/** One scan of a parcel, as an adapter reads it from its carrier. */
export interface Scan {
  /** The carrier's stable id for the scan, so a scan seen twice is stored once. */
  id: string;
  occurredAt: string;
  status: ScanStatus;
  /**
   * The carrier's own status code as it sent it, or null when it sends none. Every adapter sets it
   * (the contract kit checks); scans the platform records itself (sandbox, pushes) may leave it out.
   */
  carrierCode?: string | null;
  description: string;
  location: { city: string; postcode: string; country: string } | null;
}

/** What a carrier offers beyond one poll per tracking number (CarrierCapabilities takes these in). */
export interface TrackingCapabilities {
  /**
   * How many tracking numbers one call of `CarrierAdapter.scansBatch` takes (FedEx's
   * trackingnumbers: 30): the polls a worker runs at once are then sent together. Absent: one a call.
   */
  trackingBatch?: number;
  /**
   * The carrier pushes the scans of each package subscribed with `CarrierAdapter.subscribeTracking`
   * (UPS Track Alert), for `lifetimeMs` after the subscription, `perCall` numbers at most in one
   * call; polls are then a safety net.
   */
  trackingSubscription?: { lifetimeMs: number; perCall: number };
}

/** The adapter's side of them (CarrierAdapter takes these in). */
export interface TrackingOperations {
  /**
   * The scans of several tracking numbers in one call (at most `capabilities.trackingBatch`), each
   * oldest first, or the CarrierError of that number alone (a number the carrier does not know is a
   * `not_found` one). A fault of the whole call is thrown.
   */
  scansBatch?(trackingNumbers: readonly string[]): Promise<Map<string, Scan[] | CarrierError>>;
  /**
   * Subscribes packages to the scans the carrier pushes (`capabilities.trackingSubscription`): the
   * numbers it took, and those it refused.
   */
  subscribeTracking?(trackingNumbers: readonly string[]): Promise<{ subscribed: string[]; refused: string[] }>;
}
