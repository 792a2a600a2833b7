import type { AddressVerification } from './address-verification.js';
import type { Address, CarrierErrorReason, CarrierSetting, Customs, Minor, OptionPrices, Parcel, ScanStatus, ServiceBounds } from '../domain/index.js';
import type { BookedPickup, CarrierMoney, PickupRequest, ScanForm, ScanFormRequest, ShipmentTerms } from './types-requests.js';
import type { Scan, TrackingCapabilities, TrackingOperations } from './tracking-types.js';
import type { CarrierSchemaSources } from './schema-sources.js';

export type { BookedPickup, CarrierMoney, PickupRequest, Scan, ScanForm, ScanFormRequest, ShipmentTerms };

/** One service a carrier sells, with its rate card and bounds. */
export interface ServiceDefinition {
  /** Globally unique service code, prefixed by the carrier code: `acme_ground`. */
  code: string;
  name: string;
  bounds: ServiceBounds;
  estimatedDeliveryDays: number;
  /**
   * The rate card: net price in minor units for this parcel and route, or null where not offered.
   * A carrier with a rating API (`pricing: 'carrier'`) has no card, so this is always null and its
   * prices come from `CarrierAdapter.rate` (carriers/quote.ts, `carrierRates`).
   */
  rate(parcel: Parcel, from: Address, to: Address): Minor | null;
  /**
   * An indicative price for sandbox keys of a carrier priced by its rating API: a small card that
   * never reaches the carrier, in the currency of the route it serves, or null where not offered.
   */
  sandboxRate?(parcel: Parcel, from: Address, to: Address): { net: Minor; currency: string } | null;
  /**
   * The options the service honours, with its rate card's surcharge for each (0 where the carrier's
   * rating API prices them); a quote leaves the service out for any other, a purchase refuses it.
   */
  options?: OptionPrices;
  /** The options it honours on a return label, where fewer than `options`. */
  returnOptions?: OptionPrices;
}

/** The label files a carrier can make itself. */
export type CarrierLabelFormat = 'gif' | 'png' | 'pdf' | 'zpl';

/** What a carrier can do, so callers need not guess from its name. */
export interface CarrierCapabilities extends TrackingCapabilities {
  /**
   * `cancel`: a void cancels the label at once; `refund_request`: a void asks the carrier for a refund;
   * `none`: the carrier has no cancellation and bills only what it scans (DHL Express), so a void
   * is refused once tracking shows a scan and is otherwise done at once (contract: Carriers).
   */
  void: 'cancel' | 'refund_request' | 'none';
  /** Label documents the carrier makes; empty when it makes none and the platform draws its labels. */
  labelFormats: readonly CarrierLabelFormat[];
  /** `push`: the carrier sends scans to our webhook; `poll`: we ask for them. */
  tracking: 'push' | 'poll';
  /** Whether the carrier makes a manifest (a SCAN form) of purchased labels: `CarrierAdapter.createScanForm`. */
  scanForms?: boolean;
  /** Whether the carrier books collections: `CarrierAdapter.schedulePickup` and `cancelPickup`. */
  pickups?: boolean;
  /**
   * How far ahead a pickup may start and how long its window may be, by what the carrier's document
   * accepts (a year ahead and one day when not given); beyond them a booking is refused before any
   * carrier is asked.
   */
  pickupWindow?: { aheadDays: number; lengthHours: number };
  /** The countries whose addresses the carrier checks: `CarrierAdapter.verifyAddress`. */
  addressVerification?: readonly string[];
  /** Where several check a country's addresses, the lower rank is asked first, the next only when it fails (0 when not given). */
  addressVerificationRank?: number;
  /**
   * Whether it carries parcels across borders (a purchase then carries `customs`). Without it, quotes
   * leave out its services on international routes, whatever their cards say.
   */
  international?: boolean;
  /** Whether it makes return labels (`is_return`): without it, quotes of a return leave it out. */
  returns?: boolean;
  /**
   * Where an international shipment's customs paperwork is: `platform_invoice`, a commercial invoice
   * the platform draws (simulated carriers); `carrier_invoice`, the carrier's own document, given
   * with the label (`BoughtLabel.documents`); `in_label`, the carrier prints its customs form as
   * further pages of the label (USPS's CN22 or CN23), so there is no separate document.
   */
  customsPaperwork?: 'platform_invoice' | 'carrier_invoice' | 'in_label';
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
  /** `rate_card`: the services' own cards price them; `carrier`: only the carrier's rating API does. */
  pricing: 'rate_card' | 'carrier';
  capabilities: CarrierCapabilities;
}

/** A request for prices: every service on the route, or one (`serviceCode`). */
export interface RateRequest extends Omit<ShipmentTerms, 'customs'> {
  from: Address;
  to: Address;
  parcel: Parcel;
  serviceCode?: string;
  /**
   * The currency a rate card's numbers are read in (the account's; GBP when not given). A carrier
   * with a rating API answers in its own currency whatever this says.
   */
  currency?: string;
}

/** One priced service, as the carrier (or its rate card) prices it. */
export interface Rate {
  serviceCode: string;
  /** Net price in minor units of `currency`. */
  net: Minor;
  currency: string;
  estimatedDeliveryDays: number | null;
}

/** A label file as the carrier made it. */
export interface LabelDocument {
  format: CarrierLabelFormat;
  contentBase64: string;
}

export interface PurchaseRequest extends ShipmentTerms {
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
  /**
   * When that earlier attempt was sent (ISO 8601): a settle window runs from then, not from this
   * attempt, so a booking that can no longer commit is not waited for again. Absent: from now.
   */
  earlierAttemptAt?: string;
  /** The account's currency, which the options' money (a declared value) is in; present when they carry money. */
  currency?: string;
  /**
   * When the purchase was asked for (ISO 8601 instant), the same on every attempt: dates a carrier
   * wants (USPS `mailingDate`) come from it, so a retried request is byte-identical.
   */
  at?: string;
}

export interface Purchase {
  reference: string;
  trackingNumber: string;
  /**
   * The service bought. A carrier whose lookup does not name the service (UPS and USPS track by
   * package, not by product) answers null when this process did not make the purchase itself.
   */
  serviceCode: string | null;
  cancelled: boolean;
  /**
   * The carrier's own id of the purchase where it has one apart from the tracking number (UPS's
   * ShipmentIdentificationNumber, which its void takes); absent or null where it has none.
   */
  carrierShipmentId?: string | null;
}

/**
 * A purchase as we stored it when it was bought: what cancels its label or makes it again, without
 * asking the carrier to find it (a carrier need not find an unscanned label by our reference).
 */
export interface StoredPurchase {
  reference: string;
  trackingNumber: string;
  /** The carrier's own id of the purchase (`Purchase.carrierShipmentId`); null where it has none or it was not kept. */
  carrierShipmentId: string | null;
}

/** What a caller knows when it asks a carrier for a purchase (`CarrierAdapter.findPurchase`). */
export interface PurchaseLookup {
  /** The purchase as stored when it was bought, when it was: the carrier is asked about that label, not by reference. */
  stored?: StoredPurchase | null;
  /**
   * The purchase's own request, carried from its first attempt: a carrier with idempotency keys
   * (USPS) settles a lost answer by sending it again, byte for byte, under the same key.
   */
  request?: PurchaseRequest;
  /**
   * A look for a label a failed purchase may have left, to cancel it (`final` on the settle
   * window's last look). A carrier whose every look costs its small quota may skip the early looks
   * (answering null) and, on the last, cancel whatever was bought under the reference, answering it
   * cancelled.
   */
  stray?: { final: boolean };
}

/** A purchase whose service is known: what a buy answers, and what carriers that name it find. */
export interface KnownPurchase extends Purchase {
  serviceCode: string;
}

export interface BoughtLabel extends KnownPurchase {
  /** The carrier's own label; null for carriers whose labels the platform draws. */
  label: LabelDocument | null;
  /** What the carrier says it bills for the label; null when it does not say. */
  billed: CarrierMoney | null;
  /** Customs paperwork the carrier gave with the label (`customsPaperwork: 'carrier_invoice'`). */
  documents?: ReadonlyArray<{ type: 'commercial_invoice'; format: 'pdf'; contentBase64: string }>;
}

/** How a cancellation ended. A refusal is an answer, not an error; faults are thrown CarrierErrors. */
export type CancelOutcome =
  | { kind: 'cancelled' }
  | { kind: 'refund_requested' }
  | {
      kind: 'refused';
      reason: 'already_scanned' | 'not_cancellable';
      message: string;
      /** The carrier's own code for the refusal, for operators reading it. */
      carrierErrorCode?: string;
    };

/** A field the carrier cannot take as it is (never truncated for it): `{ path: 'to.name', message }`. */
export interface AddressProblem {
  path: string;
  message: string;
}

/**
 * One buy attempt's view of its purchase's sends, kept where every attempt sees them (PostgreSQL):
 * which attempt may still send, and when the latest one did. A carrier without idempotency keys
 * learns from it whether an attempt given up on (its worker lost) ever sent its booking.
 */
export interface SendLedger {
  /**
   * Starts this attempt: no earlier attempt can mark a send from now on. `unknownSince`, when an
   * earlier attempt's outcome is unknown and the ledger may not have seen it (it kept none), counts
   * as that attempt's send. Answers how long ago the latest earlier attempt sent (ms; null when
   * none did), and whether a later attempt has started already (this one must send nothing).
   */
  start(unknownSince?: Date): Promise<{ sentMsAgo: number | null; superseded: boolean }>;
  /** Marks this attempt's send, just before it goes; false when a later attempt has started (it must not send). */
  markSend(): Promise<boolean>;
  /**
   * The carrier answered this attempt's send (a refusal, or a fault in an answer): nothing of it is
   * still in the making, and a later attempt need not wait for it.
   */
  answered(): Promise<void>;
}

/** The operations every carrier adapter offers. Each may throw a CarrierError. */
export interface CarrierAdapter extends TrackingOperations {
  readonly definition: CarrierDefinition;
  /** Prices of the services that carry this parcel on this route, from the carrier or its rate card. */
  rate(request: RateRequest): Promise<Rate[]>;
  /** What in these addresses the carrier cannot take as they are; empty when it takes them. */
  checkAddress(from: Address, to: Address): AddressProblem[];
  /** What a purchase needs beyond a quote (UPS: phones abroad; USPS: what its customs form takes), checked before anything starts; empty when none. */
  purchaseProblems?(request: Omit<PurchaseRequest, 'reference'>): AddressProblem[];
  /**
   * Buys a label; idempotent by `reference` where the carrier supports it. `sends`, when given, is
   * the purchase's ledger of sends, which a carrier without idempotency keys keeps its booking by.
   */
  buy(request: PurchaseRequest, sends?: SendLedger): Promise<BoughtLabel>;
  /**
   * The purchase made with our reference, or null when the carrier has none. Without a stored
   * purchase this settles a lost buy answer (the only use of a carrier's lookup by reference).
   */
  findPurchase(reference: string, lookup?: PurchaseLookup): Promise<Purchase | null>;
  /**
   * Cancels the label of the stored purchase: cancelled, a refund requested, or refused with a
   * reason. A purchase the carrier does not know is a definitive `not_found` CarrierError.
   */
  cancel(purchase: StoredPurchase): Promise<CancelOutcome>;
  /** Every scan of a tracking number, oldest first. */
  scans(trackingNumber: string): Promise<Scan[]>;
  /** A manifest of purchased labels (carriers with `capabilities.scanForms`). */
  createScanForm?(request: ScanFormRequest): Promise<ScanForm>;
  /** Books a collection (carriers with `capabilities.pickups`). */
  schedulePickup?(request: PickupRequest): Promise<BookedPickup>;
  /** Cancels a booked collection by its confirmation; a refusal is a definitive CarrierError. */
  cancelPickup?(confirmation: string): Promise<void>;
  /** Checks one address of a country in `capabilities.addressVerification`; a no-match is an answer, not an error. */
  verifyAddress?(address: Address): Promise<AddressVerification>;
  /**
   * The collection booked with our reference, for a booking whose answer was lost: its confirmation,
   * null when the carrier shows none, or `unknown` while the carrier cannot tell (UPS lists pending
   * pickups of today and tomorrow only). Absent where the carrier cannot be asked by our reference.
   */
  findPickup?(reference: string, window: { start: string; end: string }, address: Address): Promise<{ confirmation: string } | null | 'unknown'>;
  /**
   * The label bought with our reference, made again by the carrier in another of its formats (UPS
   * label recovery, USPS label reprint): how the ZPL of a label bought as an image is had. Absent
   * where the carrier cannot make its label again.
   */
  recoverLabel?(purchase: StoredPurchase, format: CarrierLabelFormat): Promise<LabelDocument>;
}

export { CarrierError, type CarrierErrorKind, type CarrierErrorReason } from './carrier-error.js';
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
  /**
   * The carrier's settings by the suffix of their variable (`CLIENT_ID` of CARRIER_UPS_CLIENT_ID),
   * as its module declares them (`CarrierModule.settings`): every required one, and the optional
   * ones that are set. The adapter keeps them, and the tokens it gets with them, to itself.
   */
  credentials?: Readonly<Record<string, string>>;
}

/**
 * What each carrier folder exports from its `index.ts`, and the registry lists, one per carrier.
 * Everything the rest of the system needs to know of a carrier is declared here, so that adding one
 * is its folder and its registry line:
 * - `definition`: its services, its capabilities (`definition.capabilities`: pickups, address
 *   checks, customs, label formats…) and its fleet-wide rate limit (`definition.rateLimitPerSecond`,
 *   which its own task queues `carrier-<code>` and `carrier-<code>-tracking` hold);
 * - `settings`: what it needs configured beside its URL (real carriers), with the simulator's values;
 * - `simulatorPath`: where the carrier simulator plays its API;
 * - `schemaSources`: the operations of its documents its generated schemas hold, and their errata.
 */
export interface CarrierModule {
  definition: CarrierDefinition;
  createHttpAdapter(options: HttpAdapterOptions): CarrierAdapter;
  /** Where the carrier simulator serves this carrier's API, when it does (`/acme/v2`; a real carrier's origin stands under a path of its own). */
  simulatorPath?: string;
  /**
   * A real carrier's settings beside its URL (`CARRIER_<CODE>_<SUFFIX>`). One that has them is
   * enabled only when its URL and every required one are set; a simulated carrier has none.
   */
  settings?: readonly CarrierSetting[];
  /** A carrier built from its published documents: what `npm run carrier-schemas` reads to write its `schemas/`. */
  schemaSources?: CarrierSchemaSources;
}
