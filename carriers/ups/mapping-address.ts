import type { Address, Parcel } from '../../domain/index.js';
import { UPS_LIMITS } from './limits.js';

/** One reason an address or parcel cannot go to UPS as it is: `{ path: 'to.name', message: '…' }`. */
export interface UpsProblem {
  path: string;
  message: string;
}

/** The contract's optional `state`, read whether or not the domain type has it yet. */
export function addressState(address: Address): string | undefined {
  const state = (address as Address & { state?: unknown }).state;
  return typeof state === 'string' && state.trim() !== '' ? state.trim() : undefined;
}

/** Countries whose UPS addresses need a state or province (Shipping `StateProvinceCode`; contract: Resources). */
const STATE_REQUIRED = new Set(['US', 'CA']);
/** Countries where UPS wants 5 or 9 digits (`-` between them is allowed but makes 10 characters of 9). */
const ZIP_COUNTRIES = new Set(['US', 'PR']);

/**
 * The postcode as UPS takes it: "at most 9 alphanumeric characters", so the separators people write
 * (`12345-6789`, `K1A 0B1`) are removed and letters upper-cased. This rewrites, it never shortens.
 */
export function upsPostalCode(address: Address): string {
  return address.postcode.replace(/[\s-]/g, '').toUpperCase();
}

/** The lines UPS gets, in order; UPS takes at most 3. */
export function upsAddressLines(address: Address): string[] {
  return [address.line1, address.line2].filter((line): line is string => typeof line === 'string' && line.trim() !== '');
}

const chars = (limit: number) => `must be at most ${limit} characters for UPS`;

/**
 * What in our address UPS would refuse or cut (UPS truncates some fields on the label, so a long
 * value is refused here rather than silently shortened). `path` is the address's own path.
 */
export function upsAddressProblems(address: Address, path: string): UpsProblem[] {
  const problems: UpsProblem[] = [];
  const add = (field: string, message: string) => problems.push({ path: `${path}.${field}`, message });
  const country = address.country.toUpperCase();

  if (address.name.length > UPS_LIMITS.name) add('name', chars(UPS_LIMITS.name));
  const lines = upsAddressLines(address);
  if (lines.length > UPS_LIMITS.addressLines) add('line2', `UPS takes at most ${UPS_LIMITS.addressLines} address lines`);
  if (address.line1.length > UPS_LIMITS.addressLine) add('line1', chars(UPS_LIMITS.addressLine));
  if (address.line2 !== undefined && address.line2.length > UPS_LIMITS.addressLine) add('line2', chars(UPS_LIMITS.addressLine));
  if (address.city.length > UPS_LIMITS.city) add('city', chars(UPS_LIMITS.city));
  if (!/^[A-Z]{2}$/.test(country)) add('country', 'must be a two-letter country code for UPS');

  const state = addressState(address);
  if (state === undefined) {
    if (STATE_REQUIRED.has(country)) add('state', `is required for ${country} addresses at UPS`);
  } else if (state.length > UPS_LIMITS.stateRating) {
    // Shipping takes 5 characters but Rating exactly 2: a quote and its purchase must both accept it.
    add('state', chars(UPS_LIMITS.stateRating));
  } else if (STATE_REQUIRED.has(country) && !/^[A-Za-z]{2}$/.test(state)) {
    add('state', `must be a two-letter ${country === 'US' ? 'state' : 'province'} code for UPS`);
  }

  const postcode = upsPostalCode(address);
  if (ZIP_COUNTRIES.has(country)) {
    if (!/^(\d{5}|\d{9})$/.test(postcode)) add('postcode', `must be 5 or 9 digits for ${country} addresses at UPS`);
  } else if (country === 'CA') {
    if (!/^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(postcode)) add('postcode', 'must be 6 characters in the form A1A1A1 for CA addresses at UPS');
  } else if (postcode.length > UPS_LIMITS.postalCode) {
    add('postcode', `must be at most ${UPS_LIMITS.postalCode} letters and digits for UPS`);
  } else if (!/^[A-Z0-9]*$/.test(postcode)) {
    add('postcode', 'must be letters and digits only for UPS');
  }
  return problems;
}

/** The units UPS expects for a shipper in this country: imperial for US and PR, metric elsewhere. */
export function upsUnits(originCountry: string): { length: 'IN' | 'CM'; weight: 'LBS' | 'KGS' } {
  return ZIP_COUNTRIES.has(originCountry.toUpperCase()) ? { length: 'IN', weight: 'LBS' } : { length: 'CM', weight: 'KGS' };
}

const MM_PER_IN = 25.4;
const G_PER_LB = 453.59237;

/**
 * The parcel in UPS's units, each value rounded up (UPS bills by the rounded-up size, and rounding
 * down would understate it): sides in whole units, longest first (Shipping: "Length must be the
 * longest dimension", at most 3 digits), weight to a tenth (at most 5 characters).
 */
export function upsPackageMeasures(parcel: Parcel, originCountry: string) {
  const units = upsUnits(originCountry);
  const perUnit = units.length === 'IN' ? MM_PER_IN : 10;
  const [length, width, height] = [parcel.length_mm, parcel.width_mm, parcel.height_mm]
    .map((mm) => Math.ceil(mm / perUnit - 1e-9))
    .sort((a, b) => b - a);
  const tenths = Math.ceil((parcel.weight_g * 10) / (units.weight === 'LBS' ? G_PER_LB : 1000) - 1e-9);
  return { units, length, width, height, weight: (tenths / 10).toFixed(1) };
}

/** What in the parcel UPS refuses (Shipping `Package.Dimensions`), in our parcel's paths. */
export function upsParcelProblems(parcel: Parcel, originCountry: string, path = 'parcel'): UpsProblem[] {
  const { units, length, width, height, weight } = upsPackageMeasures(parcel, originCountry);
  const unit = units.length;
  const problems: UpsProblem[] = [];
  if (length > UPS_LIMITS.maxLength[unit]) {
    problems.push({ path: `${path}.length_mm`, message: `the longest side must be at most ${UPS_LIMITS.maxLength[unit]} ${unit} for UPS` });
  }
  if (length + 2 * (width + height) > UPS_LIMITS.maxLengthPlusGirth[unit]) {
    problems.push({ path, message: `length plus girth must be at most ${UPS_LIMITS.maxLengthPlusGirth[unit]} ${unit} for UPS` });
  }
  if (weight.length > UPS_LIMITS.weightChars) {
    problems.push({ path: `${path}.weight_g`, message: `the weight must fit in ${UPS_LIMITS.weightChars} characters of ${units.weight} for UPS` });
  }
  return problems;
}
