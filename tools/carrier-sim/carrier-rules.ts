import { fitsBounds, type Address, type Parcel } from '../../domain/index.js';
import type { CarrierDefinition, ServiceDefinition } from '../../carriers/index.js';
import { SimHttpError } from './sim-types.js';

/**
 * The service a purchase names, when the carrier carries this parcel on this route; otherwise
 * a 422 in the carrier's own words. The simulated carriers price and refuse exactly as the rate
 * cards in their definitions say, so quotes and purchases agree.
 */
export function eligibleService(
  definition: CarrierDefinition,
  serviceCode: string,
  parcel: Parcel,
  from: Address,
  to: Address,
  codes: { unknown: string; unavailable: string },
): ServiceDefinition {
  const service = definition.services.find((s) => s.code === serviceCode);
  if (!service) throw new SimHttpError(422, codes.unknown, `Unknown service ${serviceCode}.`);
  if (!fitsBounds(parcel, service.bounds)) {
    throw new SimHttpError(422, codes.unavailable, `The parcel exceeds the size or weight limits of ${service.name}.`);
  }
  if (service.rate(parcel, from, to) === null) {
    throw new SimHttpError(422, codes.unavailable, `${service.name} is not available from ${from.country} to ${to.country}.`);
  }
  return service;
}
