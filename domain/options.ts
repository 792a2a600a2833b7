import type { FieldError } from './errors.js';
import { canonicalAmount, parseAmount, type Minor } from './money.js';

/** A purchase's and a quote's options (contract: International, returns, address checks, options → Options). */
export const SIGNATURE_OPTIONS = ['required', 'adult'] as const;

export interface ShipmentOptions {
  signature?: (typeof SIGNATURE_OPTIONS)[number];
  /** A money string in the account's currency. */
  declared_value?: string;
  saturday_delivery?: boolean;
}

/**
 * What a service charges for each option it honours, on top of its rate card; an option absent here
 * is one the service cannot honour. A service priced by its carrier's rating API lists the options
 * with 0: the carrier's price carries their surcharges.
 */
export interface OptionPrices {
  signature_required?: Minor;
  signature_adult?: Minor;
  /** Per started 100.00 of the declared value. */
  declared_value_per_100?: Minor;
  saturday_delivery?: Minor;
}

/** The options in force: a `saturday_delivery: false` asks for nothing. */
export function requestedOptions(options: ShipmentOptions | undefined): ShipmentOptions {
  const out: ShipmentOptions = {};
  if (options?.signature) out.signature = options.signature;
  if (options?.declared_value !== undefined) out.declared_value = canonicalAmount(options.declared_value);
  if (options?.saturday_delivery) out.saturday_delivery = true;
  return out;
}

/** The first option (as its path, `options.signature`) that a service with these prices cannot honour, or null. */
export function unsupportedOption(prices: OptionPrices | undefined, options: ShipmentOptions | undefined): string | null {
  const asked = requestedOptions(options);
  if (asked.signature && prices?.[`signature_${asked.signature}`] === undefined) return 'options.signature';
  if (asked.declared_value !== undefined && prices?.declared_value_per_100 === undefined) return 'options.declared_value';
  if (asked.saturday_delivery && prices?.saturday_delivery === undefined) return 'options.saturday_delivery';
  return null;
}

/** The surcharge of the options on a service that honours them all (unsupportedOption first). */
export function optionsSurcharge(prices: OptionPrices | undefined, options: ShipmentOptions | undefined): Minor {
  const asked = requestedOptions(options);
  let sum = 0;
  if (asked.signature) sum += prices?.[`signature_${asked.signature}`] ?? 0;
  if (asked.declared_value !== undefined) {
    const value = parseAmount(asked.declared_value) ?? 0;
    sum += Math.ceil(value / 10_000) * (prices?.declared_value_per_100 ?? 0);
  }
  if (asked.saturday_delivery) sum += prices?.saturday_delivery ?? 0;
  return sum;
}

/** What the schema cannot say about options: a declared value is more than zero. */
export function optionProblems(options: ShipmentOptions | undefined): FieldError[] {
  if (options?.declared_value === undefined) return [];
  const value = parseAmount(options.declared_value);
  return value === null || value <= 0 ? [{ path: 'options.declared_value', message: 'must be an amount with at most two decimal places, more than zero' }] : [];
}
