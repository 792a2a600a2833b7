import type { Address } from '../../domain/index.js';
import { CarrierError } from '../types.js';
import type { Label } from './schemas/index.js';
import { USPS_STATE_CODES } from './states.js';

type UspsLabelAddress = Label.DomesticLabelAddress;

/** A field of ours that USPS cannot take as it is; never fixed by truncating it. */
export interface AddressProblem {
  path: string;
  message: string;
}

/**
 * The limits of `DomesticLabelAddress` / `DomesticLabelToAddress` in the labels document.
 *
 * Our one `name` goes to `firm` (at most 50): the document requires "First and Last Name or Firm
 * Name", and splitting a name into first and last would be a guess that fails for names with one
 * part or several family names. `firm` prints on the label just as a name does.
 */
export const USPS_ADDRESS_LIMITS = {
  firm: 50,
  streetAddress: 50,
  secondaryAddress: 50,
  city: 28,
} as const;

/** The prices document's ZIP Code pattern: five digits, optionally a dash or space and the four of ZIP+4. */
const POSTCODE = /^(\d{5})(?:[-\s](\d{4}))?$/;
const STATES: ReadonlySet<string> = new Set(USPS_STATE_CODES);

/** The address's state, which the domain type may not have yet (contract: Resources, Address). */
export function addressState(address: Address): string | undefined {
  const state = (address as Address & { state?: unknown }).state;
  return typeof state === 'string' ? state.trim() : undefined;
}

/** Every reason USPS would refuse this address, under `prefix` (`from`, `to`). Empty when it fits. */
export function uspsAddressProblems(address: Address, prefix: string): AddressProblem[] {
  const problems: AddressProblem[] = [];
  const add = (field: string, message: string) => problems.push({ path: `${prefix}.${field}`, message: `${message} for USPS` });
  const tooLong = (field: keyof Address, value: string | undefined, max: number) => {
    if (value !== undefined && value.trim().length > max) add(field, `must be at most ${max} characters`);
  };

  // USPS domestic labels carry US addresses only; the territories and military post offices are US
  // addresses with their own state code (PR, GU, VI, AA, AE, AP, ...).
  if (address.country.trim().toUpperCase() !== 'US') add('country', 'must be US (domestic shipments only)');
  if (address.name.trim() === '') add('name', 'is required');
  tooLong('name', address.name, USPS_ADDRESS_LIMITS.firm);
  if (address.line1.trim() === '') add('line1', 'is required');
  tooLong('line1', address.line1, USPS_ADDRESS_LIMITS.streetAddress);
  tooLong('line2', address.line2, USPS_ADDRESS_LIMITS.secondaryAddress);
  if (address.city.trim() === '') add('city', 'is required');
  tooLong('city', address.city, USPS_ADDRESS_LIMITS.city);
  const state = addressState(address);
  if (state === undefined || state === '') add('state', 'is required');
  else if (!STATES.has(state.toUpperCase())) add('state', 'must be a two-letter USPS state code');
  if (!POSTCODE.test(address.postcode.trim())) add('postcode', 'must be a ZIP Code of 5 digits, or ZIP+4 as 12345-6789');
  return problems;
}

/** The ZIP Code and its optional ZIP+4, from a postcode that passed `uspsAddressProblems`. */
export function splitZip(postcode: string): { ZIPCode: string; ZIPPlus4?: string } {
  const match = POSTCODE.exec(postcode.trim());
  if (!match) throw new Error('not a ZIP Code'); // callers check the address first
  return match[2] ? { ZIPCode: match[1], ZIPPlus4: match[2] } : { ZIPCode: match[1] };
}

/** Our address as a label address. Throws when the address has problems: check them first. */
export function toUspsLabelAddress(address: Address): UspsLabelAddress {
  const problems = uspsAddressProblems(address, 'address');
  if (problems.length) throw new Error(problems.map((p) => `${p.path} ${p.message}`).join('; '));
  const line2 = address.line2?.trim();
  return {
    firm: address.name.trim(),
    streetAddress: address.line1.trim(),
    ...(line2 ? { secondaryAddress: line2 } : {}),
    city: address.city.trim(),
    state: (addressState(address) as string).toUpperCase(),
    ...splitZip(address.postcode),
  };
}

export function isUs(address: Address): boolean {
  return address.country.trim().toUpperCase() === 'US';
}

/** An address USPS cannot take is our caller's to fix: a definitive error naming each field, before any call. */
export function refuseBadAddresses(from: Address, to: Address): void {
  const problems = [...uspsAddressProblems(from, 'from'), ...uspsAddressProblems(to, 'to')];
  if (problems.length) throw new CarrierError('definitive', problems.map((p) => `${p.path} ${p.message}`).join('; '), { carrierCode: 'usps' });
}
