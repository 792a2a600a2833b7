/** The USPS client's settings and operations (client.ts makes it). */
import type { Dispatcher } from 'undici';
import type { Address, Customs, Parcel, ShipmentOptions } from '../../domain/index.js';
import type { UspsFormCalls } from './client-forms.js';
import type { UspsAddressCalls } from './client-addresses.js';
import type { BoughtLabel, CancelOutcome, LabelFormat, RatedService, UspsScan } from './mapping.js';

/**
 * Settings of the USPS connection, read by the config module from CARRIER_USPS_URL,
 * CARRIER_USPS_CLIENT_ID, CARRIER_USPS_CLIENT_SECRET, CARRIER_USPS_CRID, CARRIER_USPS_MID,
 * CARRIER_USPS_MANIFEST_MID and CARRIER_USPS_ACCOUNT_NUMBER.
 */
export interface UspsClientConfig {
  /**
   * Where every API sits: `https://apis.usps.com` or `https://apis-tem.usps.com`. A path after the
   * origin is kept in front of each API's own (a gateway's prefix, the simulator's `/usps`).
   */
  url: string;
  clientId: string;
  clientSecret: string;
  crid: string;
  mid: string;
  manifestMid: string;
  /** The EPS account postage is paid from; also asks the price search for its contract prices. */
  accountNumber: string;
  /** The label image asked for (default `pdf`). */
  labelFormat?: LabelFormat;
  /** Deadline of every HTTP call (default 10 s: label generation is slow at USPS). */
  timeoutMs?: number;
  /** Milliseconds since the epoch; tests pass a clock they move. */
  now?: () => number;
  /** How the client waits out a short `Retry-After`; tests pass one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
  /** The longest `Retry-After` waited in place before retrying once (default 2 s); longer ones are thrown. */
  maxRetryAfterWaitMs?: number;
  /** The application's quota, tokens included (default USPS's 60 an hour): no call is sent beyond it. */
  callsPerHour?: number;
  dispatcher?: Dispatcher;
}

export type { UspsAnswer, UspsSendOptions } from './client-calls.js';

export interface UspsPurchase {
  /** Our shipment id: its UUID form is the `X-Idempotency-Key`. */
  shipmentId: string;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  /**
   * The instant the purchase was asked for, the same on every attempt: the mailing date is the
   * sender's local date at it, so the request sent again to settle a lost answer is byte-identical.
   */
  at?: string;
  /** Required across a border: the customs form of the international label. */
  customs?: Customs;
  options?: ShipmentOptions;
  /** A return label (`POST /labels/v3/return-label`). */
  isReturn?: boolean;
}

/** A price search's terms beyond the route and parcel. */
export interface UspsRateTerms {
  options?: ShipmentOptions;
  isReturn?: boolean;
}

/** A cancellation by the purchase's key, with the tracking number USPS names in its answer. */
export type UspsKeyCancel = CancelOutcome & { trackingNumber?: string };

export interface UspsClient extends UspsFormCalls, UspsAddressCalls {
  /** Prices per service (`all` or one of ours); a service USPS refuses for this parcel and route is left out. */
  rate(from: Address, to: Address, parcel: Parcel, serviceCode: string | 'all', terms?: UspsRateTerms): Promise<RatedService[]>;
  /** Buys the label under the purchase's idempotency key: sent again, the same request answers the same label. */
  buy(purchase: UspsPurchase): Promise<BoughtLabel>;
  /** The label with this tracking number, reprinted in `imageFormat` (three reprints a label, counted). */
  reprint(trackingNumber: string, imageFormat: LabelFormat): Promise<BoughtLabel>;
  /**
   * The label bought under a purchase's key, reprinted (spending one of its three); null when none.
   * Only for a caller that has neither the stored purchase nor the request to send again.
   */
  reprintByKey(shipmentId: string, imageFormat: LabelFormat): Promise<BoughtLabel | null>;
  /** Cancels (or, once manifested, asks a refund for) the label with this tracking number. */
  cancel(trackingNumber: string): Promise<CancelOutcome>;
  /** The same, by the purchase's idempotency key: for a purchase whose answer was lost. */
  cancelByShipment(shipmentId: string): Promise<UspsKeyCancel>;
  /** Calls counted against the quota in the last hour. */
  quotaSpent(): number;
  track(trackingNumber: string): Promise<UspsScan[]>;
}

