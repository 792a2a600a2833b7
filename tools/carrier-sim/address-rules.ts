import { createHash } from 'node:crypto';

/**
 * What the simulators' address checks (USPS's Addresses API, UPS's Address Validation) make of an
 * address: the same deterministic rules for both, so a test knows the answer from the address.
 * - A line holding the word UNDELIVERABLE (any case) matches nothing.
 * - A ZIP Code from 00000 to 00499 is unknown (none is assigned there): it matches nothing.
 * - A first line without a house number matches several addresses of that street (ambiguous).
 * - Anything else matches: upper-cased, street suffixes and unit words abbreviated as USPS
 *   Publication 28 does, the ZIP+4 filled in (derived from the street and ZIP Code), the ZIP Code
 *   derived from the city and state when none was given.
 * - A line with a suite (`STE`, `SUITE`) is commercial; every other match is residential.
 */

export interface SimAddressInput {
  lines: readonly string[];
  city?: string;
  state?: string;
  zip?: string;
}

export interface SimMatchedAddress {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  zip: string;
  plus4: string;
  commercial: boolean;
}

export type SimAddressOutcome =
  | { kind: 'match'; address: SimMatchedAddress }
  | { kind: 'ambiguous'; candidates: SimMatchedAddress[] }
  | { kind: 'none'; why: 'undeliverable' | 'unknown_zip' };

const ABBREVIATIONS: Record<string, string> = {
  STREET: 'ST', AVENUE: 'AVE', ROAD: 'RD', DRIVE: 'DR', BOULEVARD: 'BLVD', LANE: 'LN', COURT: 'CT',
  PLACE: 'PL', TERRACE: 'TER', HIGHWAY: 'HWY', PARKWAY: 'PKWY', SQUARE: 'SQ', CIRCLE: 'CIR',
  NORTH: 'N', SOUTH: 'S', EAST: 'E', WEST: 'W', SUITE: 'STE', APARTMENT: 'APT', FLOOR: 'FL', BUILDING: 'BLDG', ROOM: 'RM',
};

const digits = (seed: string, n: number) => (BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, 12)}`) % 10n ** BigInt(n)).toString().padStart(n, '0');

/** A line as USPS writes it: upper case, no punctuation, single spaces, suffixes abbreviated. */
export function standardLine(line: string): string {
  return line
    .toUpperCase()
    .replace(/[.,#]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => ABBREVIATIONS[word] ?? word)
    .join(' ');
}

export function simCheckAddress(input: SimAddressInput): SimAddressOutcome {
  const lines = input.lines.map(standardLine).filter(Boolean);
  if (lines.some((l) => /\bUNDELIVERABLE\b/.test(l))) return { kind: 'none', why: 'undeliverable' };
  if (input.zip !== undefined && (!/^\d{5}$/.test(input.zip) || Number(input.zip) < 500)) return { kind: 'none', why: 'unknown_zip' };
  const city = standardLine(input.city ?? '') || 'UNKNOWN';
  const state = (input.state ?? '').toUpperCase();
  const zip = input.zip ?? String(10_000 + (Number(digits(`${city}|${state}`, 5)) % 90_000));
  const [line1 = '', ...rest] = lines;
  const commercial = lines.some((l) => /\bSTE\b/.test(l));
  const matched = (street: string): SimMatchedAddress => ({
    line1: street,
    ...(rest.length ? { line2: rest.join(' ') } : {}),
    city,
    state,
    zip,
    plus4: digits(`${street}|${rest.join(' ')}|${zip}`, 4),
    commercial,
  });
  if (!/^\d/.test(line1)) return { kind: 'ambiguous', candidates: [matched(`100 ${line1}`), matched(`200 ${line1}`)] };
  return { kind: 'match', address: matched(line1) };
}
