/** What carriers are asked for beyond labels: manifests of bought labels (SCAN forms) and collections. */
import type { Address } from '../domain/index.js';
import type { CarrierMoney } from './types.js';

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
