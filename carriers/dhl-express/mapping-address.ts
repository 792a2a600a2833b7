import type { Address, Parcel } from '../../domain/index.js';
import type { AddressProblem } from '../types.js';

/**
 * Our addresses and parcels as MyDHL API's, and what in them DHL cannot take as it is. Lengths are
 * the document's (`postalAddress`, `contactInformation`); nothing is cut to fit, a field too long
 * is refused naming it.
 */

const LIMITS = { line: 45, city: 45, postcode: 12, province: 35, company: 100, fullName: 255, phone: 70, email: 70 } as const;

/** The address part of a rate request (`shipperDetails`, `receiverDetails`). */
export function dhlRateAddress(address: Address) {
  return {
    postalCode: address.postcode.trim(),
    cityName: address.city,
    countryCode: address.country.toUpperCase(),
    ...(address.state ? { provinceCode: address.state.toUpperCase() } : {}),
    addressLine1: address.line1,
    ...(address.line2 ? { addressLine2: address.line2 } : {}),
  };
}

/** A party of a shipment or pickup: its postal address and contact. `phone` has been checked present. */
export function dhlParty(address: Address, phone = address.phone ?? '') {
  return {
    postalAddress: {
      postalCode: address.postcode.trim(),
      cityName: address.city,
      countryCode: address.country.toUpperCase(),
      ...(address.state ? { provinceCode: address.state.toUpperCase() } : {}),
      addressLine1: address.line1,
      ...(address.line2 ? { addressLine2: address.line2 } : {}),
    },
    contactInformation: {
      ...(address.email ? { email: address.email } : {}),
      phone,
      // DHL requires a company name: a private person's is their own name, as DHL's shipping
      // guide asks of private shippers (contract: derive what can be derived).
      companyName: address.company ?? address.name,
      fullName: address.name,
    },
  };
}

/** What in one address DHL cannot take (too long for its fields), with our field paths. */
export function dhlAddressProblems(address: Address, path: 'from' | 'to' | 'address'): AddressProblem[] {
  const problems: AddressProblem[] = [];
  const check = (field: keyof Address, value: string | undefined, max: number) => {
    if (value !== undefined && value.length > max) problems.push({ path: `${path}.${field}`, message: `DHL Express takes at most ${max} characters here` });
  };
  check('line1', address.line1, LIMITS.line);
  check('line2', address.line2, LIMITS.line);
  check('city', address.city, LIMITS.city);
  check('postcode', address.postcode.trim(), LIMITS.postcode);
  check('state', address.state, LIMITS.province);
  // The company name is the person's own name where there is no company: then the name is what is too long.
  if (address.company !== undefined) check('company', address.company, LIMITS.company);
  else check('name', address.name, LIMITS.company);
  check('email', address.email, LIMITS.email);
  return problems;
}

/** DHL requires a phone for the shipper and the receiver of every shipment (`contactInformation.phone`). */
export function dhlPhoneProblems(address: Address, path: 'from' | 'to' | 'address', phone = address.phone): AddressProblem[] {
  return phone?.trim() ? [] : [{ path: `${path}.phone`, message: 'DHL Express requires a phone number for this party' }];
}

/** A parcel as one DHL piece, metric: kilograms to the gram, centimetres to the millimetre. */
export function dhlPackage(parcel: Parcel) {
  return {
    weight: parcel.weight_g / 1_000,
    dimensions: { length: parcel.length_mm / 10, width: parcel.width_mm / 10, height: parcel.height_mm / 10 },
  };
}

/**
 * `plannedShippingDateAndTime`: the document wants a date-time with its offset and advises against
 * "now" (it may arrive as past), so an hour after `at`, in UTC, written as DHL writes it.
 */
export function dhlPlannedShipping(at: Date): string {
  const planned = new Date(Math.floor(at.getTime() / 1_000) * 1_000 + 60 * 60_000);
  return `${planned.toISOString().slice(0, 19)} GMT+00:00`;
}
