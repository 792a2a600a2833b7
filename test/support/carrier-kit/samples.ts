import { fitsBounds, type Address, type Parcel } from '../../../domain/index.js';
import type { CarrierAdapter, CarrierDefinition, ServiceDefinition } from '../../../carriers/index.js';

/** The contract kit's sample orders (index.ts): a sender, routes and parcels most carriers sell. */

export const SENDER: Address = { name: 'Ada Sender', line1: '1 High Street', city: 'London', postcode: 'EC1A 1BB', country: 'GB' };
export const RECIPIENTS: Address[] = [
  { name: 'Rita Recipient', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
  { name: 'Rémi Destinataire', line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR' },
];
export const PARCELS: Parcel[] = [
  { weight_g: 1_000, length_mm: 300, width_mm: 200, height_mm: 100 },
  { weight_g: 250, length_mm: 200, width_mm: 150, height_mm: 50 },
];

/** A service, route and parcel the carrier sells, for the purchase checks. */
export function sampleOrder(definition: CarrierDefinition): { service: ServiceDefinition; parcel: Parcel; to: Address } | undefined {
  for (const to of RECIPIENTS) {
    for (const parcel of PARCELS) {
      for (const service of definition.services) {
        if (fitsBounds(parcel, service.bounds) && service.rate(parcel, SENDER, to) !== null) return { service, parcel, to };
      }
    }
  }
  return undefined;
}

/** A domestic US route, for carriers that price through a rating API (UPS, USPS rate US routes). */
// With phones: FedEx takes none of its purchases without one (contract: International, returns, address checks, options).
export const US_SENDER: Address = { name: 'Ada Sender', line1: '100 Main Street', city: 'Atlanta', state: 'GA', postcode: '30303', country: 'US', phone: '404 555 0100' };
export const US_RECIPIENTS: Address[] = [
  { name: 'Rita Recipient', line1: '200 Oak Avenue', city: 'Austin', state: 'TX', postcode: '78701', country: 'US', phone: '512 555 0100' },
];

/** An order the kit buys: a service, route and parcel the carrier sells, with the route's sender. */
export interface SampleOrder {
  service: ServiceDefinition;
  parcel: Parcel;
  from: Address;
  to: Address;
}

/**
 * A service, route and parcel the carrier sells: from its rate cards, or (a carrier priced by its
 * rating API) the cheapest service the adapter rates on a US route.
 */
export async function findSampleOrder(adapter: CarrierAdapter): Promise<SampleOrder | undefined> {
  const definition = adapter.definition;
  if (definition.pricing === 'rate_card') {
    const order = sampleOrder(definition);
    return order && { ...order, from: SENDER };
  }
  for (const to of US_RECIPIENTS) {
    for (const parcel of PARCELS) {
      const rates = await adapter.rate({ from: US_SENDER, to, parcel });
      const service = rates.map((r) => definition.services.find((s) => s.code === r.serviceCode)).find((s) => s !== undefined);
      if (service) return { service, parcel, from: US_SENDER, to };
    }
  }
  return undefined;
}

let sequence = 0;
export function uniqueReference(carrier: string): string {
  sequence += 1;
  return `kit_${carrier}_${Date.now().toString(36)}_${sequence}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Phones of the sample parties, for carriers that require one on every shipment. */
const SAMPLE_PHONES = { from: '+44 20 7946 0000', to: '+44 113 496 0000' } as const;

/**
 * The request with a phone for each party the carrier says needs one (`purchaseProblems`: DHL Express
 * and FedEx require them on every shipment). The contract makes phones optional, so the kit's
 * samples carry none; such a carrier refuses a purchase without them before anything is bought.
 */
export function withNeededPhones<R extends { from: Address; to: Address; parcel: Parcel; serviceCode: string }>(adapter: CarrierAdapter, request: R): R {
  const needed = new Set((adapter.purchaseProblems?.(request) ?? []).map((p) => p.path));
  return {
    ...request,
    from: needed.has('from.phone') ? { ...request.from, phone: SAMPLE_PHONES.from } : request.from,
    to: needed.has('to.phone') ? { ...request.to, phone: SAMPLE_PHONES.to } : request.to,
  };
}
