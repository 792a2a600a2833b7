import type { CarrierDefinition } from '../carriers/index.js';
import { CODE, normalizeAddress, priceService, priceToJson, ApiError, type Address, type FieldError, type Parcel } from '../domain/index.js';
import type { AccountRow } from '../db/index.js';
import type { AddressInput } from './schemas.js';

/** The carriers' services and rate cards: local data, so quoting never calls a carrier. */
export interface Catalog {
  definitions: readonly CarrierDefinition[];
}

/** The carrier and name of a service code, if some carrier offers it. */
export function serviceOf(catalog: Catalog, code: string): { carrier: string; name: string } | undefined {
  for (const carrier of catalog.definitions) {
    const service = carrier.services.find((s) => s.code === code);
    if (service) return { carrier: carrier.code, name: service.name };
  }
  return undefined;
}

/** Every eligible service priced for this account, cheapest gross first (contract: Quote item). */
export function quote(catalog: Catalog, account: AccountRow, parcel: Parcel, from: Address, to: Address) {
  const items = [];
  for (const carrier of catalog.definitions) {
    for (const service of carrier.services) {
      const price = priceService(service, parcel, from, to, account.vatRateBp, account.currency);
      if (!price) continue;
      items.push({
        service: { code: service.code, carrier: carrier.code, name: service.name },
        price: priceToJson(price),
        estimated_delivery_days: service.estimatedDeliveryDays,
        gross: price.gross,
      });
    }
  }
  items.sort((a, b) => a.gross - b.gross || (a.service.code < b.service.code ? -1 : 1));
  return items.map(({ gross: _gross, ...item }) => item);
}

/** Trims and checks both addresses; one 422 lists every problem. */
export function normalizeAddresses(from: AddressInput, to: AddressInput): { from: Address; to: Address } {
  const a = normalizeAddress(from, 'from');
  const b = normalizeAddress(to, 'to');
  const errors: FieldError[] = [...a.errors, ...b.errors];
  if (errors.length) throw new ApiError(CODE.validation_failed, 'The request has invalid fields; see errors.', { errors });
  return { from: a.address, to: b.address };
}
