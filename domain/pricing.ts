import { priceWithVat, type Price } from './money.js';
import { fitsBounds, type Parcel, type ServiceBounds } from './parcel.js';
import type { Address } from './address.js';
import { optionsSurcharge, unsupportedOption, type OptionPrices, type ShipmentOptions } from './options.js';

/** The parts of a carrier service that pricing needs. */
export interface PricedServiceSource {
  code: string;
  name: string;
  bounds: ServiceBounds;
  estimatedDeliveryDays: number;
  rate(parcel: Parcel, from: Address, to: Address): number | null;
  /** The options it honours and their surcharges; none when absent. */
  options?: OptionPrices;
}

/**
 * The one price function: the quote shows it and the purchase charges it. Null when the service
 * does not take this parcel or route, or cannot honour an option. VAT is the account's rate, in
 * basis points of a percent; the options' surcharges are part of the net.
 */
export function priceService(
  service: PricedServiceSource,
  parcel: Parcel,
  from: Address,
  to: Address,
  vatRateBp: number,
  currency: string,
  options?: ShipmentOptions,
): Price | null {
  if (!fitsBounds(parcel, service.bounds)) return null;
  if (unsupportedOption(service.options, options)) return null;
  const net = service.rate(parcel, from, to);
  if (net === null) return null;
  return priceWithVat(net + optionsSurcharge(service.options, options), vatRateBp / 100, currency);
}
