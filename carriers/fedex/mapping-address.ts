import { crossesBorder, type Address, type Parcel } from '../../domain/index.js';
import type { AddressProblem } from '../types.js';
import { FEDEX_LIMITS } from './limits.js';

/** Countries whose FedEx addresses need a two-character state or province (Ship `stateOrProvinceCode`). */
const STATE_REQUIRED = new Set(['US', 'CA', 'PR']);
/** Countries whose phones FedEx wants as exactly 10 digits, after an optional leading 1. */
const TEN_DIGIT_PHONES = new Set(['US', 'CA', 'PR']);

const chars = (limit: number) => `must be at most ${limit} characters for FedEx`;

/** The street lines FedEx gets, in order ("Empty lines should not be included"). */
export function fedexStreetLines(address: Address): string[] {
  return [address.line1, address.line2].filter((line): line is string => typeof line === 'string' && line.trim() !== '').map((line) => line.trim());
}

/** The postcode as FedEx takes it: upper case, the space Canadians write kept out (`K1A0B1`). */
export function fedexPostalCode(address: Address): string {
  const postcode = address.postcode.trim().toUpperCase();
  return address.country.toUpperCase() === 'CA' ? postcode.replace(/\s/g, '') : postcode;
}

/**
 * Whether FedEx should treat the address as residential. Our addresses carry no such flag: one
 * without a company is a person's, so its residential surcharge (and Home Delivery rather than
 * Ground) is priced in the quote rather than billed later as an adjustment.
 */
export function fedexResidential(address: Address): boolean {
  return !address.company?.trim();
}

/** The address block of a Rate request: no street (Rate's `RateAddress`), the postal code required. */
export function fedexRateAddress(address: Address) {
  const state = address.state?.trim();
  return {
    city: address.city.trim(),
    ...(state ? { stateOrProvinceCode: state.toUpperCase() } : {}),
    postalCode: fedexPostalCode(address),
    countryCode: address.country.toUpperCase(),
    residential: fedexResidential(address),
  };
}

/** The address block of Ship and Pickup: the street lines too. */
export function fedexAddress(address: Address) {
  return { streetLines: fedexStreetLines(address), ...fedexRateAddress(address) };
}

/**
 * The phone as FedEx takes it: digits only (our `+ ( ) -` and spaces are dropped: a rewrite, never
 * a cut), and for the US, Canada and Puerto Rico the ten digits after an optional leading 1.
 * Undefined when there is none.
 */
export function fedexPhone(phone: string | undefined, country: string): string | undefined {
  const digits = phone?.replace(/\D/g, '') ?? '';
  if (digits === '') return undefined;
  return TEN_DIGIT_PHONES.has(country.toUpperCase()) && digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
}

/** A party of a shipment: its address and contact (Ship `ShipperParty`, `RecipientsParty`). */
export function fedexParty(address: Address) {
  const company = address.company?.trim();
  const email = address.email?.trim();
  return {
    address: fedexAddress(address),
    contact: {
      personName: address.name.trim(),
      // Required by the schema; a purchase without one is refused before (fedexPurchaseProblems).
      phoneNumber: fedexPhone(address.phone, address.country) ?? '',
      ...(company ? { companyName: company } : {}),
      ...(email ? { emailAddress: email } : {}),
    },
  };
}

/**
 * The units FedEx is sent for a route: pounds and inches within the US, kilograms and centimetres
 * elsewhere and across borders, since a commodity's weight is in KG only and "The package and
 * commodity weight unit should be the same" (Ship). A quote uses the same units as its purchase.
 */
export function fedexUnits(from: Address, to: Address): { weight: 'LB' | 'KG'; length: 'IN' | 'CM' } {
  const us = from.country.toUpperCase() === 'US' && !crossesBorder(from, to);
  return us ? { weight: 'LB', length: 'IN' } : { weight: 'KG', length: 'CM' };
}

const G_PER_LB = 453.59237;
const MM_PER_IN = 25.4;

/** A weight in FedEx's unit, rounded up to a tenth (FedEx bills by the weight rounded up). */
export function fedexWeight(grams: number, unit: 'LB' | 'KG'): number {
  const value = grams / (unit === 'LB' ? G_PER_LB : 1000);
  return Math.max(0.1, Math.ceil(value * 10 - 1e-9) / 10);
}

/** The package line: its weight and its sides in whole units, rounded up, longest first. */
export function fedexPackage(parcel: Parcel, units: { weight: 'LB' | 'KG'; length: 'IN' | 'CM' }) {
  const perUnit = units.length === 'IN' ? MM_PER_IN : 10;
  const [length, width, height] = [parcel.length_mm, parcel.width_mm, parcel.height_mm]
    .map((mm) => Math.max(1, Math.ceil(mm / perUnit - 1e-9)))
    .sort((a, b) => b - a) as [number, number, number];
  return {
    weight: { units: units.weight, value: fedexWeight(parcel.weight_g, units.weight) },
    dimensions: { length, width, height, units: units.length },
  };
}

/**
 * What in our address FedEx would refuse or cut, in the address's own paths: a long value is refused
 * here rather than shortened, and a missing state refused where FedEx needs one.
 */
export function fedexAddressProblems(address: Address, path: string): AddressProblem[] {
  const problems: AddressProblem[] = [];
  const add = (field: string, message: string) => problems.push({ path: `${path}.${field}`, message });
  const country = address.country.toUpperCase();
  if (address.name.trim().length > FEDEX_LIMITS.personName) add('name', chars(FEDEX_LIMITS.personName));
  if (address.line1.trim().length > FEDEX_LIMITS.streetLine) add('line1', chars(FEDEX_LIMITS.streetLine));
  if ((address.line2?.trim().length ?? 0) > FEDEX_LIMITS.streetLine) add('line2', chars(FEDEX_LIMITS.streetLine));
  if (address.city.trim().length > FEDEX_LIMITS.city) add('city', chars(FEDEX_LIMITS.city));
  if (!/^[A-Z]{2}$/.test(country)) add('country', 'must be a two-letter country code for FedEx');
  const state = address.state?.trim();
  if (!state && STATE_REQUIRED.has(country)) add('state', `is required for ${country} addresses at FedEx`);
  if (state && STATE_REQUIRED.has(country) && !/^[A-Za-z]{2}$/.test(state)) add('state', 'must be a two-character code for FedEx');
  const postcode = fedexPostalCode(address);
  if (postcode.length > FEDEX_LIMITS.postalCode) add('postcode', chars(FEDEX_LIMITS.postalCode));
  if (country === 'US' && !/^\d{5}(-?\d{4})?$/.test(postcode)) add('postcode', 'must be a 5 or 9 digit ZIP code for FedEx');
  return problems;
}

/** What in the parcel FedEx refuses: each side at most 999 whole units (Ship `dimensions`). */
export function fedexParcelProblems(parcel: Parcel, from: Address, to: Address, path = 'parcel'): AddressProblem[] {
  const units = fedexUnits(from, to);
  const { dimensions } = fedexPackage(parcel, units);
  return dimensions.length > FEDEX_LIMITS.maxDimension
    ? [{ path: `${path}.length_mm`, message: `each side must be at most ${FEDEX_LIMITS.maxDimension} ${units.length} for FedEx` }]
    : [];
}

/** What a party of a purchase needs at FedEx beyond a quote: a phone (FedEx requires one on every shipment), company and e-mail lengths. */
export function fedexContactProblems(address: Address, path: string): AddressProblem[] {
  const problems: AddressProblem[] = [];
  const phone = fedexPhone(address.phone, address.country);
  const tenDigits = TEN_DIGIT_PHONES.has(address.country.toUpperCase());
  if (phone === undefined) problems.push({ path: `${path}.phone`, message: 'is required by FedEx on every shipment' });
  else if (tenDigits && phone.length !== 10) problems.push({ path: `${path}.phone`, message: 'must have exactly 10 digits (after an optional leading 1) for FedEx' });
  else if (!tenDigits && (phone.length < FEDEX_LIMITS.phoneMin || phone.length > FEDEX_LIMITS.phoneMax)) {
    problems.push({ path: `${path}.phone`, message: `must have ${FEDEX_LIMITS.phoneMin} to ${FEDEX_LIMITS.phoneMax} digits for FedEx` });
  }
  if ((address.company?.trim().length ?? 0) > FEDEX_LIMITS.companyName) problems.push({ path: `${path}.company`, message: chars(FEDEX_LIMITS.companyName) });
  if ((address.email?.trim().length ?? 0) > FEDEX_LIMITS.email) problems.push({ path: `${path}.email`, message: chars(FEDEX_LIMITS.email) });
  return problems;
}
