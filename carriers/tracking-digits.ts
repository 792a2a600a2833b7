/**
 * Pure helpers for tracking-number formats. No node:crypto, so carrier definitions stay pure and
 * can be used anywhere (activities, the API, tests) without pulling in I/O modules.
 */

/** A 53-bit string hash (cyrb53): stable across runs and platforms. */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** `count` decimal digits derived from a seed: the same seed always gives the same digits. */
export function digitsFromSeed(seed: string, count: number): string {
  let digits = '';
  for (let round = 0; digits.length < count; round++) {
    // 15 digits per round keeps every digit uniformly distributed within 2^53.
    digits += String(hash53(seed, round) % 1e15).padStart(15, '0');
  }
  return digits.slice(0, count);
}

/** The Luhn (mod 10) check digit of a digit string. */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}
