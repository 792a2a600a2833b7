import type { Address } from '../domain/index.js';

/**
 * What a carrier says of one address (`CarrierAdapter.verifyAddress`), in our words: the contract's
 * address check (`POST /addresses/verify`) answers it as it is, with the carrier's code beside it.
 */

/**
 * Why a check says what it says, one code per finding. The words beside each code are the carrier's
 * own where it gives some, so that a person can act on them; a program branches on the code.
 * - `address_not_found`: the carrier matched no address (`verified: false`);
 * - `multiple_matches`: several addresses fit and none is the default (`verified: false`);
 * - `secondary_missing`: the building matched, its apartment or suite number is missing;
 * - `secondary_not_confirmed`: the building matched, the apartment or suite number given did not;
 * - `address_corrected`: a correction the carrier suggests or made (its words say which);
 * - `commercial_mail_receiving_agency`: a private mailbox (CMRA);
 * - `vacant`: the carrier knows the address as unoccupied;
 * - `carrier_notice`: anything else the carrier said about the address.
 */
export const ADDRESS_MESSAGE_CODES = [
  'address_not_found',
  'multiple_matches',
  'secondary_missing',
  'secondary_not_confirmed',
  'address_corrected',
  'commercial_mail_receiving_agency',
  'vacant',
  'carrier_notice',
] as const;
export type AddressMessageCode = (typeof ADDRESS_MESSAGE_CODES)[number];

export interface AddressMessage {
  code: AddressMessageCode;
  message: string;
}

export interface AddressVerification {
  /** The carrier matched the address to one address it delivers to. */
  verified: boolean;
  /**
   * The carrier's standardised address (with ZIP+4 in the US) when it matched one; otherwise the
   * address as it was sent. The name and any field the carrier does not standardise are ours.
   */
  address: Address;
  /** `true` residential, `false` commercial, `null` where the carrier does not say. */
  residential: boolean | null;
  messages: AddressMessage[];
}

/** The countries our address checks cover: the US, and Puerto Rico under its own ISO code. */
export const US_POSTAL_COUNTRIES: readonly string[] = ['US', 'PR'];

/** The state the US postal service knows the address by: Puerto Rico's own code when it is the country. */
export function postalState(address: Address): string | undefined {
  if (address.country === 'PR') return 'PR';
  const state = address.state?.trim().toUpperCase();
  return state ? state : undefined;
}

const ZIP = /^(\d{5})(?:[-\s]?(\d{4}))?$/;

/** A US postcode as its ZIP Code and ZIP+4 add-on; undefined when it is not one (then left for the carrier to find). */
export function zipParts(postcode: string): { zip: string; plus4?: string } | undefined {
  const m = ZIP.exec(postcode.trim());
  if (!m) return undefined;
  return m[2] ? { zip: m[1], plus4: m[2] } : { zip: m[1] };
}

/** `12345-6789`, or the ZIP Code alone when there is no add-on. */
export function joinZip(zip: string, plus4: string | null | undefined): string {
  return plus4 ? `${zip}-${plus4}` : zip;
}

/** The address a carrier standardised, over the one sent: the name and any other field stay ours. */
export function standardised(sent: Address, fields: { line1: string; line2?: string; city: string; state?: string; postcode: string }): Address {
  const { line2: _line2, ...rest } = sent;
  return {
    ...rest,
    line1: fields.line1,
    ...(fields.line2 ? { line2: fields.line2 } : {}),
    city: fields.city,
    // Puerto Rico as a country keeps no state of its own: the carrier's `PR` is the country.
    ...(sent.country === 'PR' ? {} : fields.state ? { state: fields.state } : {}),
    postcode: fields.postcode,
  };
}
