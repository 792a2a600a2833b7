import { createHash } from 'node:crypto';
import { CODE, crossesBorder, fitsBounds, optionsSurcharge, unsupportedOption, type Address, type ErrorCode, type Minor, type Parcel, type ShipmentOptions } from '../domain/index.js';
import { ratesWithin, type PriceCache } from './price-cache.js';
import { CarrierError, type AddressProblem, type CarrierAdapter, type CarrierDefinition, type Rate, type ServiceDefinition, type ShipmentTerms } from './types.js';

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
  terms: Omit<ShipmentTerms, 'customs'> = {},
): ServiceQuote[] {
  const quotes: ServiceQuote[] = [];
  for (const carrier of definitions) {
    if (!carrierTakes(carrier, from, to, terms)) continue;
    for (const service of carrier.services) {
      const net = serviceNet(service, parcel, from, to, terms.options);
      if (net !== null) quotes.push({ carrier, service, net });
    }
  }
  return quotes.sort((a, b) => a.net - b.net || compareCodes(a.service.code, b.service.code));
}

/**
 * Whether the carrier takes a shipment on this route with these terms: across a border only where it
 * ships abroad, a return only where it makes return labels (its capabilities).
 */
export function carrierTakes(carrier: CarrierDefinition, from: Address, to: Address, terms: { isReturn?: boolean }): boolean {
  if (crossesBorder(from, to) && !carrier.capabilities.international) return false;
  return !terms.isReturn || carrier.capabilities.returns === true;
}

/**
 * The service's net price for this parcel and route with the options' surcharges, or null when it
 * does not carry them or cannot honour an option.
 */
export function serviceNet(service: ServiceDefinition, parcel: Parcel, from: Address, to: Address, options?: ShipmentOptions): Minor | null {
  if (!fitsBounds(parcel, service.bounds) || unsupportedOption(service.options, options)) return null;
  const net = service.rate(parcel, from, to);
  return net === null ? null : net + optionsSurcharge(service.options, options);
}

function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * One parcel on one route with its options, canonically: the same shipment gives the same hash
 * whatever the key order, the case of the country or an absent line2/state, so a quote and the
 * purchase after it find each other. Every address field a carrier may price by counts; a contact's
 * phone, e-mail and company do not (a quote needs none of them).
 */
export function shipmentHash(parcel: Parcel, from: Address, to: Address, terms: Omit<ShipmentTerms, 'customs'> = {}): string {
  const address = (a: Address) => [a.name, a.line1, a.line2 ?? '', a.city, a.state ?? '', a.postcode, a.country.toUpperCase()];
  const shipment: unknown[] = [[parcel.weight_g, parcel.length_mm, parcel.width_mm, parcel.height_mm], address(from), address(to)];
  // Options and returns change the price; a shipment without them hashes as it always has.
  const o = terms.options ?? {};
  if (terms.isReturn || o.signature || o.declared_value !== undefined || o.saturday_delivery) {
    shipment.push([terms.isReturn === true, o.signature ?? null, o.declared_value ?? null, o.saturday_delivery === true]);
  }
  const canonical = JSON.stringify(shipment);
  return createHash('sha256').update(canonical).digest('hex');
}

/** What one carrier priced by its rating API answered for a shipment, in our terms. */
export type CarrierQuote =
  | { ok: true; rates: Rate[] }
  | { ok: false; code: ErrorCode; message: string; problems?: AddressProblem[] };

/** What in the addresses the carrier cannot take, leaving out a country it does not serve (its route). */
export function addressLimits(adapter: CarrierAdapter, from: Address, to: Address, terms: { isReturn?: boolean } = {}): { serves: boolean; problems: AddressProblem[] } {
  const problems = adapter.checkAddress(from, to);
  const serves = carrierTakes(adapter.definition, from, to, terms) && !problems.some((p) => p.path.endsWith('.country'));
  return { serves, problems: serves ? problems : [] };
}

/**
 * The services a carrier priced by its rating API offers for this parcel and route: international
 * routes and returns only where the carrier declares them, only in the account's currency, only the
 * services we sell that honour the options. A route it does not serve
 * has no rates; an address it cannot take, a refusal or no answer within `deadlineMs` is a code
 * and a message in our words, a refusal's with the carrier's reason after them.
 */
export async function carrierRates(
  adapter: CarrierAdapter,
  cache: PriceCache,
  p: { livemode: boolean; parcel: Parcel; from: Address; to: Address; currency: string; deadlineMs: number } & Omit<ShipmentTerms, 'customs'>,
): Promise<CarrierQuote> {
  const definition = adapter.definition;
  const limits = addressLimits(adapter, p.from, p.to, p);
  if (!limits.serves) return { ok: true, rates: [] };
  if (limits.problems.length) {
    const named = limits.problems.map((problem) => `${problem.path} ${problem.message}`).join('; ');
    return { ok: false, code: CODE.validation_failed, message: `${definition.name} cannot take these addresses: ${named}.`, problems: limits.problems };
  }
  try {
    const terms = { ...(p.options && Object.keys(p.options).length ? { options: p.options } : {}), ...(p.isReturn ? { isReturn: true } : {}) };
    const request = { parcel: p.parcel, from: p.from, to: p.to, currency: p.currency, ...terms, hash: shipmentHash(p.parcel, p.from, p.to, terms) };
    const rates = await ratesWithin(cache, adapter, p.livemode, request, p.deadlineMs);
    // A service that cannot honour an option is left out, whatever the carrier answered for it.
    const sold = new Set(definition.services.filter((s) => !unsupportedOption(p.isReturn ? (s.returnOptions ?? s.options) : s.options, p.options)).map((s) => s.code));
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
