/**
 * Prefixed, opaque, URL-safe, time-sortable identifiers: `<prefix>_<10 chars of time><16 random>`.
 * Pure: the caller passes the time and the random bytes, so workflow code can make ids
 * deterministically and activities can make them with crypto.
 */
export const ID_PREFIXES = ['acc', 'key', 'shp', 'adr', 'evt', 'we', 'whd', 'req', 'trk', 'usr', 'sf', 'pck', 'bat'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case: sorts as it reads

export function makeId(prefix: IdPrefix, nowMs: number, random: Uint8Array): string {
  let time = '';
  let t = Math.floor(nowMs);
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[(random[i % random.length] ?? 0) % 32];
  return `${prefix}_${time}${rand}`;
}

/** The random part of an id: its last 16 characters. */
export function idRandomPart(id: string): string {
  return id.slice(-16);
}

/** The smallest id of this prefix made at `nowMs`: every id made then or later sorts at or after it. */
export function firstIdAt(prefix: IdPrefix, nowMs: number): string {
  return makeId(prefix, nowMs, new Uint8Array(16));
}

const ID_SHAPE = /^[a-z]{2,3}_[0-9a-z]{26}$/;

export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_SHAPE.test(value);
}
