import type { Address, Customs, Minor, ShipmentOptions } from '../domain/index.js';

/** What carriers are asked beside a label: a shipment's terms, manifests and collections. */

/** An amount of money as a carrier states it: integer minor units and an ISO 4217 code. */
export interface CarrierMoney {
  amount: Minor;
  currency: string;
}

/**
 * A shipment's terms beyond its route and parcel, as the purchase (and, without customs, the quote)
 * carries them to the carrier. Each is absent when not asked for.
 */
export interface ShipmentTerms {
  /** Required across borders; its values in `customs.currency`. */
  customs?: Customs;
  /** Options in the account's currency (the declared value). */
  options?: ShipmentOptions;
  /** A return label: `from` sends the parcel back to `to`. */
  isReturn?: boolean;
}

/** Labels to put on one manifest: all bought by us, from one sender address. */
export interface ScanFormRequest {
  /** Our scan form id: the carrier's reference for the form, the same on every retry. */
  reference: string;
  from: Address;
  labels: ReadonlyArray<{ reference: string; trackingNumber: string }>;
}

/** The carrier's form: its own number and the document to hand over with the parcels. */
export interface ScanForm {
  carrierFormId: string;
  /** The form's file as the carrier made it (`pdf`, or an image our PDF page will carry). */
  document: { format: 'pdf' | 'png' | 'jpg' | 'gif'; contentBase64: string };
}

export interface PickupRequest {
  /** Our pickup id: the carrier's reference for the booking. */
  reference: string;
  address: Address;
  /** When the parcels are ready and until when they can be collected (ISO 8601 instants). */
  window: { start: string; end: string };
  /** The parcels to collect: their count and total weight, and our services where known. */
  parcels: { count: number; totalWeightG: number; serviceCodes: readonly string[]; destinationCountries?: readonly string[] };
  instructions?: string;
  /** An e-mail of the account's, for carriers that need a contact (USPS); absent when it has none. */
  contactEmail?: string;
  /** A phone number at the pickup address, for carriers that require one (UPS). */
  phone?: string;
}

export interface BookedPickup {
  /** The carrier's confirmation (UPS PRN, USPS confirmation number). */
  confirmation: string;
  /** The carrier's fee for the pickup; null when it charges none. */
  fee: CarrierMoney | null;
}
