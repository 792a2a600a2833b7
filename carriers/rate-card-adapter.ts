import { serviceNet } from './quote.js';
import { RATE_CARD_CURRENCY } from './rate-card.js';
import type { CarrierDefinition, Rate, RateRequest } from './types.js';

/**
 * `CarrierAdapter.rate` of a carrier without a rating API: its services' rate cards, exactly as
 * quotes price them, cheapest first.
 */
export function rateFromCards(definition: CarrierDefinition, request: RateRequest): Rate[] {
  const rates: Rate[] = [];
  for (const service of definition.services) {
    if (request.serviceCode !== undefined && service.code !== request.serviceCode) continue;
    const net = serviceNet(service, request.parcel, request.from, request.to, request.options);
    if (net === null) continue;
    rates.push({ serviceCode: service.code, net, currency: request.currency ?? RATE_CARD_CURRENCY, estimatedDeliveryDays: service.estimatedDeliveryDays });
  }
  return rates.sort((a, b) => a.net - b.net || (a.serviceCode < b.serviceCode ? -1 : a.serviceCode > b.serviceCode ? 1 : 0));
}
