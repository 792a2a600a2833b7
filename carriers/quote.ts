import { createHash } from 'node:crypto';
import { CODE, fitsBounds, type Address, type ErrorCode, type Minor, type Parcel } from '../domain/index.js';
import { ratesWithin, type PriceCache } from './price-cache.js';
import { CarrierError, type AddressProblem, type CarrierAdapter, type CarrierDefinition, type Rate, type ServiceDefinition } from './types.js';

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

/**
 * One parcel on one route, canonically: the same shipment gives the same hash whatever the key
 * order, the case of the country or an absent line2/state, so a quote and the purchase after it
 * find each other. Every address field counts (a carrier may price by any of them).
 */
export function shipmentHash(parcel: Parcel, from: Address, to: Address): string {
  const address = (a: Address) => [a.name, a.line1, a.line2 ?? '', a.city, a.state ?? '', a.postcode, a.country.toUpperCase()];
  const canonical = JSON.stringify([[parcel.weight_g, parcel.length_mm, parcel.width_mm, parcel.height_mm], address(from), address(to)]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** What one carrier priced by its rating API answered for a shipment, in our terms. */
export type CarrierQuote =
  | { ok: true; rates: Rate[] }
  | { ok: false; code: ErrorCode; message: string; problems?: AddressProblem[] };

/** What in the addresses the carrier cannot take, leaving out a country it does not serve (its route). */
export function addressLimits(adapter: CarrierAdapter, from: Address, to: Address): { serves: boolean; problems: AddressProblem[] } {
  const problems = adapter.checkAddress(from, to);
  const serves = from.country.toUpperCase() === to.country.toUpperCase() && !problems.some((p) => p.path.endsWith('.country'));
  return { serves, problems: serves ? problems : [] };
}

/**
 * The services a carrier priced by its rating API offers for this parcel and route: only domestic
 * routes, only in the account's currency, only the services we sell. A route it does not serve
 * has no rates; an address it cannot take, a refusal or no answer within `deadlineMs` is a code
 * and a message in our words, a refusal's with the carrier's reason after them.
 */
export async function carrierRates(
  adapter: CarrierAdapter,
  cache: PriceCache,
  p: { livemode: boolean; parcel: Parcel; from: Address; to: Address; currency: string; deadlineMs: number },
): Promise<CarrierQuote> {
  const definition = adapter.definition;
  const limits = addressLimits(adapter, p.from, p.to);
  if (!limits.serves) return { ok: true, rates: [] };
  if (limits.problems.length) {
    const named = limits.problems.map((problem) => `${problem.path} ${problem.message}`).join('; ');
    return { ok: false, code: CODE.validation_failed, message: `${definition.name} cannot take these addresses: ${named}.`, problems: limits.problems };
  }
  try {
    const request = { parcel: p.parcel, from: p.from, to: p.to, currency: p.currency, hash: shipmentHash(p.parcel, p.from, p.to) };
    const rates = await ratesWithin(cache, adapter, p.livemode, request, p.deadlineMs);
    const sold = new Set(definition.services.map((s) => s.code));
    return { ok: true, rates: rates.filter((r) => r.currency === p.currency && sold.has(r.serviceCode)) };
  } catch (err) {
    if (err instanceof CarrierError && err.kind === 'definitive' && (err.details.status === 401 || err.details.status === 403)) {
      // Our credentials, not the parcel: the route is not what the client or the operator should look at.
      return { ok: false, code: CODE.carrier_error, message: `${definition.name} refused this platform's credentials; it cannot price anything until an operator corrects them.` };
    }
    if (err instanceof CarrierError && err.kind === 'definitive') {
      // The carrier's reason goes with it: what about the parcel or route it would not take.
      return { ok: false, code: CODE.carrier_error, message: `${definition.name} refused to price this parcel on this route: ${err.message}` };
    }
    return { ok: false, code: CODE.carrier_unavailable, message: `${definition.name} did not answer in time; try again shortly.` };
  }
}
