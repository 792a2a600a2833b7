import type { Address, CarrierErrorReason, Minor, Parcel, ScanStatus, ServiceBounds } from '../domain/index.js';

/** One service a carrier sells, with its rate card and bounds. */
export interface ServiceDefinition {
  /** Globally unique service code, prefixed by the carrier code: `acme_ground`. */
  code: string;
  name: string;
  bounds: ServiceBounds;
  estimatedDeliveryDays: number;
  /** The rate card: net price in minor units for this parcel and route, or null where not offered. */
  rate(parcel: Parcel, from: Address, to: Address): Minor | null;
}

/** What a carrier is, independent of how we talk to it. Pure data and functions. */
export interface CarrierDefinition {
  code: string;
  name: string;
  services: ServiceDefinition[];
  /** Purchases per second the carrier allows us, fleet-wide (the queue's rate limit). */
  rateLimitPerSecond: number;
  /** A tracking number in this carrier's own format, derived from a seed (the sandbox uses it). */
  trackingNumberFor(seed: string): string;
  /** Whether a string has this carrier's tracking-number format. */
  isTrackingNumber(value: string): boolean;
}

export interface PurchaseRequest {
  /** Our shipment id: the carrier's reference for the purchase, the same on every retry. */
  reference: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  /**
   * An earlier attempt at this purchase may have reached the carrier and may still be committing (a
   * retried activity). A carrier without idempotency keys must then let it settle before buying again.
   */
  earlierAttempt?: boolean;
}

export interface Purchase {
  reference: string;
  trackingNumber: string;
  serviceCode: string;
  cancelled: boolean;
}

export interface Scan {
  /** The carrier's stable id for the scan, so a scan seen twice is stored once. */
  id: string;
  occurredAt: string;
  status: ScanStatus;
  description: string;
  location: { city: string; postcode: string; country: string } | null;
}

/** The operations every carrier adapter offers. Each may throw a CarrierError. */
export interface CarrierAdapter {
  readonly definition: CarrierDefinition;
  /** Buys a label; idempotent by `reference` where the carrier supports it. */
  buy(request: PurchaseRequest): Promise<Purchase>;
  /** The purchase made with our reference, or null when the carrier has none. */
  findPurchase(reference: string): Promise<Purchase | null>;
  /** Cancels the label bought with our reference; a refusal is a definitive CarrierError. */
  cancel(reference: string): Promise<void>;
  /** Every scan of a tracking number, oldest first. */
  scans(trackingNumber: string): Promise<Scan[]>;
}

/**
 * How a carrier call failed:
 * - `retryable`: nothing happened at the carrier (refused connection, 409, 429, 5xx); try again.
 * - `definitive`: the carrier said no (other 4xx); retrying cannot help.
 * - `ambiguous`: the request may have been carried out (time-out or connection lost after sending);
 *   ask the carrier by reference before trying again.
 */
export type CarrierErrorKind = 'retryable' | 'definitive' | 'ambiguous';

/**
 * Why a definitive refusal happened, where the adapter can tell, so callers can answer precisely:
 * `already_scanned` (a cancel refused because the carrier has scanned the label, spec §3 rule 2),
 * `not_found` (no purchase or tracking number of that kind at the carrier).
 */
export type { CarrierErrorReason };

export class CarrierError extends Error {
  constructor(
    readonly kind: CarrierErrorKind,
    message: string,
    readonly details: {
      status?: number;
      retryAfterMs?: number;
      carrierCode?: string;
      /** The carrier's own machine-readable error code, as it sent it. */
      carrierErrorCode?: string;
      reason?: CarrierErrorReason;
    } = {},
  ) {
    super(message);
    this.name = 'CarrierError';
  }
}

export interface HttpAdapterOptions {
  /** The carrier API's base address, e.g. the simulator's `http://127.0.0.1:4010/acme/v2`. */
  baseUrl: string;
  /** Deadline of every HTTP call in milliseconds (default 5000). */
  timeoutMs?: number;
  /**
   * For carriers without idempotency keys: how long a purchase request whose answer was lost may
   * still be committing at the carrier (longer than its processing time). No second purchase request
   * is sent within it.
   */
  settleMs?: number;
}

/** What each carrier folder exports from its `index.ts`; the registry lists one per carrier. */
export interface CarrierModule {
  definition: CarrierDefinition;
  createHttpAdapter(options: HttpAdapterOptions): CarrierAdapter;
  /** Where the carrier simulator serves this carrier's API, when it does (`/acme/v2`). */
  simulatorPath?: string;
}
