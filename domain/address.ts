import { isCountryCode } from './countries.js';
import type { FieldError } from './errors.js';
import { STATE_REQUIRED, SUBDIVISION_CODE } from './subdivisions.js';

export interface Address {
  name: string;
  line1: string;
  line2?: string;
  city: string;
  /** ISO 3166-2 subdivision code without the country prefix (`NY`, `ON`); required for US and CA. */
  state?: string;
  postcode: string;
  country: string;
  /** The organisation at the address, where there is one. */
  company?: string;
  /** At most 20 characters: digits, spaces and `+ ( ) -` (contract: International → Addresses). */
  phone?: string;
  email?: string;
}

/**
 * The fields that make two addresses the same. The optional ones come last and an absent one is
 * left out, so an address without them has the fingerprint of the other fields alone, as those
 * already stored were made (db/queries/addresses.ts).
 */
export const ADDRESS_FIELDS = ['name', 'line1', 'line2', 'city', 'postcode', 'country', 'state', 'company', 'phone', 'email'] as const;
/** The fields that an address may leave out of its fingerprint when absent. */
export const OPTIONAL_FINGERPRINT_FIELDS: ReadonlySet<string> = new Set(['state', 'company', 'phone', 'email']);
export const MAX_ADDRESS_FIELD = 200;
/** A phone number's bound and characters (contract: International, returns, address checks, options). */
export const MAX_PHONE = 20;
export const PHONE_PATTERN = '^[0-9 +()-]*[0-9][0-9 +()-]*$';

/**
 * Trims every string and upper-cases the country and state; the schema has already checked types,
 * lengths and control characters. Returns the errors a schema cannot express (an unknown country, a
 * missing or unknown state where the country needs one).
 */
export function normalizeAddress(input: Address, path: string): { address: Address; errors: FieldError[] } {
  const address: Address = {
    name: input.name.trim(),
    line1: input.line1.trim(),
    city: input.city.trim(),
    postcode: input.postcode.trim(),
    country: input.country.trim().toUpperCase(),
  };
  const line2 = input.line2?.trim();
  if (line2) address.line2 = line2;
  const state = input.state?.trim().toUpperCase();
  if (state) address.state = state;
  for (const field of ['company', 'phone', 'email'] as const) {
    const value = input[field]?.trim();
    if (value) address[field] = value;
  }
  const errors: FieldError[] = [];
  if (!isCountryCode(address.country)) {
    errors.push({ path: `${path}.country`, message: 'must be an ISO 3166-1 alpha-2 country code' });
  }
  const problem = stateProblem(address.country, state);
  if (problem) errors.push({ path: `${path}.state`, message: problem });
  return { address, errors };
}

/**
 * What is wrong with an address's state for its country, or null: US and CA addresses need one of
 * their own subdivision codes, other countries take any short code or none. Both values trimmed and
 * upper-cased. The API's schema pass asks it too, so one 422 names the state beside every other field.
 */
export function stateProblem(country: string, state: string | undefined): string | null {
  const subdivisions = STATE_REQUIRED.get(country);
  if (subdivisions) {
    if (!state) return 'is required for US and CA addresses';
    if (!subdivisions.has(state)) return `must be a subdivision code of ${country} (ISO 3166-2 without the country prefix)`;
    return null;
  }
  if (state && !SUBDIVISION_CODE.test(state)) return 'must be 1 to 3 letters or digits (ISO 3166-2 subdivision code without the country prefix)';
  return null;
}
