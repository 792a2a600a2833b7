import type { Address, Minor } from '../domain/index.js';

/** Weight bands of a rate card: `[up to grams, net price in minor units]`, ascending. */
export type WeightBands = ReadonlyArray<readonly [maxWeightG: number, net: Minor]>;

/** The price of the first band that holds the weight, or null above the heaviest band. */
export function bandPrice(weightG: number, bands: WeightBands): Minor | null {
  for (const [maxWeightG, net] of bands) {
    if (weightG <= maxWeightG) return net;
  }
  return null;
}

/** Carriers charge a surcharge (or refuse) when a parcel crosses a border. */
export function isInternational(from: Address, to: Address): boolean {
  return from.country.toUpperCase() !== to.country.toUpperCase();
}

/** Rate cards are written in GBP minor units; an account in another currency reads the same numbers. */
export const RATE_CARD_CURRENCY = 'GBP';
