import type { Address, Minor, Parcel } from '../../domain/index.js';

/** The sandbox card stops here: heavier parcels are priced by the live carrier only. */
export const SANDBOX_MAX_WEIGHT_G = 30_000;

/**
 * An indicative card for a service priced by its carrier's rating API, for sandbox keys only: a
 * base plus a price per started kilogram, on domestic routes of the countries it lists, in their
 * currency. Deterministic, so sandbox integrations see stable prices; never what the carrier bills.
 */
export function sandboxCard(o: { base: Minor; perKg: Minor; currencies: Readonly<Record<string, string>> }) {
  return (parcel: Parcel, from: Address, to: Address): { net: Minor; currency: string } | null => {
    const country = from.country.toUpperCase();
    const currency = o.currencies[country];
    if (currency === undefined || to.country.toUpperCase() !== country) return null;
    if (parcel.weight_g > SANDBOX_MAX_WEIGHT_G) return null;
    return { net: o.base + o.perKg * Math.max(1, Math.ceil(parcel.weight_g / 1_000)), currency };
  };
}
