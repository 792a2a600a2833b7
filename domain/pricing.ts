import { priceWithVat, type Price } from './money.js';
import { fitsBounds, type Parcel, type ServiceBounds } from './parcel.js';
import type { Address } from './address.js';

/** The parts of a carrier service that pricing needs. */
export interface PricedServiceSource {
  code: string;
  name: string;
  bounds: ServiceBounds;
  estimatedDeliveryDays: number;
  rate(parcel: Parcel, from: Address, to: Address): number | null;
}

/**
 * The one price function: the quote shows it and the purchase charges it. Null when the service
 * does not take this parcel or route. VAT is the account's rate, in basis points of a percent.
 */
export function priceService(
  service: PricedServiceSource,
  parcel: Parcel,
  from: Address,
  to: Address,
  vatRateBp: number,
  currency: string,
): Price | null {
  if (!fitsBounds(parcel, service.bounds)) return null;
  const net = service.rate(parcel, from, to);
  if (net === null) return null;
  return priceWithVat(net, vatRateBp / 100, currency);
}
