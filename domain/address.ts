import { isCountryCode } from './countries.js';
import type { FieldError } from './errors.js';

export interface Address {
  name: string;
  line1: string;
  line2?: string;
  city: string;
  postcode: string;
  country: string;
}

export const ADDRESS_FIELDS = ['name', 'line1', 'line2', 'city', 'postcode', 'country'] as const;
export const MAX_ADDRESS_FIELD = 200;

/**
 * Trims every string and upper-cases the country; the schema has already checked types, lengths
 * and control characters. Returns the errors a schema cannot express (an unknown country).
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
  const errors: FieldError[] = [];
  if (!isCountryCode(address.country)) {
    errors.push({ path: `${path}.country`, message: 'must be an ISO 3166-1 alpha-2 country code' });
  }
  return { address, errors };
}
