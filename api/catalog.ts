import { carrierTakes, type CarrierAdapter, type CarrierDefinition } from '../carriers/index.js';
import { priceService, priceToJson, type Address, type Parcel, type ShipmentOptions } from '../domain/index.js';
import type { AccountRow } from '../db/index.js';

/**
 * The carriers' services and rate cards, and (in the running service: the carrier registry) their
 * adapters, which price the carriers that have a rating API. A catalog without adapters (the
 * document generator's) quotes rate cards only.
 */
export interface Catalog {
  definitions: readonly CarrierDefinition[];
  adapter?(carrierCode: string, livemode: boolean): CarrierAdapter;
}

/** The carrier and name of a service code, if some carrier offers it. */
export function serviceOf(catalog: Catalog, code: string): { carrier: string; name: string } | undefined {
  for (const carrier of catalog.definitions) {
    const service = carrier.services.find((s) => s.code === code);
    if (service) return { carrier: carrier.code, name: service.name };
  }
  return undefined;
}

/** A quote's terms beyond its route and parcel: the options priced, and whether it is a return. */
export interface QuoteTerms {
  options?: ShipmentOptions;
  isReturn?: boolean;
}

/**
 * Every rate-card service priced for this account, with its gross in minor units for sorting: only
 * carriers that take the route and the terms, only services that honour the options.
 */
export function rateCardItems(catalog: Catalog, account: AccountRow, parcel: Parcel, from: Address, to: Address, terms: QuoteTerms = {}) {
  const items = [];
  for (const carrier of catalog.definitions) {
    if (!carrierTakes(carrier, from, to, terms)) continue;
    for (const service of carrier.services) {
      const price = priceService(service, parcel, from, to, account.vatRateBp, account.currency, terms.options);
      if (!price) continue;
      items.push({
        service: { code: service.code, carrier: carrier.code, name: service.name },
        price: priceToJson(price),
        estimated_delivery_days: service.estimatedDeliveryDays,
        gross: price.gross,
      });
    }
  }
  return items;
}

/** Every rate-card service priced for this account, cheapest gross first (contract: Quote item). */
export function quote(catalog: Catalog, account: AccountRow, parcel: Parcel, from: Address, to: Address, terms: QuoteTerms = {}) {
  const items = rateCardItems(catalog, account, parcel, from, to, terms);
  items.sort((a, b) => a.gross - b.gross || (a.service.code < b.service.code ? -1 : 1));
  return items.map(({ gross: _gross, ...item }) => item);
}
