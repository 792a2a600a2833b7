import { fitsBounds, type Address, type Minor, type Parcel } from '../domain/index.js';
import type { CarrierDefinition, ServiceDefinition } from './types.js';

export interface ServiceQuote {
  carrier: CarrierDefinition;
  service: ServiceDefinition;
  /** Net price in minor units, from the service's rate card. */
  net: Minor;
}

/**
 * Every service that carries this parcel on this route, cheapest first (ties by service code, so
 * the order is stable). Pure: the quote endpoint and the purchase both price with it, so a
 * quote's price is the price a purchase charges.
 */
export function quoteServices(
  definitions: readonly CarrierDefinition[],
  parcel: Parcel,
  from: Address,
  to: Address,
): ServiceQuote[] {
  const quotes: ServiceQuote[] = [];
  for (const carrier of definitions) {
    for (const service of carrier.services) {
      const net = serviceNet(service, parcel, from, to);
      if (net !== null) quotes.push({ carrier, service, net });
    }
  }
  return quotes.sort((a, b) => a.net - b.net || compareCodes(a.service.code, b.service.code));
}

/** The service's net price for this parcel and route, or null when it does not carry them. */
export function serviceNet(service: ServiceDefinition, parcel: Parcel, from: Address, to: Address): Minor | null {
  return fitsBounds(parcel, service.bounds) ? service.rate(parcel, from, to) : null;
}

function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
