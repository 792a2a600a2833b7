import { parseAmount, type Address, type Minor, type Parcel } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { RatesMany } from './schemas/index.js';
import { dhlPackage, dhlPlannedShipping, dhlRateAddress } from './mapping-address.js';
import { dhlProductCode, dhlRoute, isCustomsDeclarable, ourDhlServiceCode, type DhlExpressServiceCode } from './services.js';

/** `POST /rates` (exp-api-rates-many): the rate request and its answer, as our quotes need them. */
export const DHL_RATES_PATH = '/rates';

/** DHL's value-added service for shipment insurance (the document's own example): our declared value. */
export const DHL_INSURANCE_SERVICE = 'II';

export interface DhlRateInput {
  from: Address;
  to: Address;
  parcel: Parcel;
  /** One of our DHL services, or every one DHL offers on the route. */
  serviceCode?: string;
  accountNumber: string;
  at: Date;
  /** A declared value to insure (DHL's service II), a money string in `currency`. */
  insure?: { value: string; currency: string };
}

export interface DhlRated {
  serviceCode: DhlExpressServiceCode;
  productCode: string;
  net: Minor;
  currency: string;
  estimatedDeliveryDays: number | null;
}

/** The request body; null when the asked service does not go on this route (nothing to ask). */
export function buildDhlRateRequest(input: DhlRateInput): RatesMany.Request | null {
  const route = dhlRoute(input.from.country, input.to.country);
  const productCode = input.serviceCode === undefined ? undefined : dhlProductCode(input.serviceCode, route);
  if (input.serviceCode !== undefined && productCode === undefined) return null;
  return {
    customerDetails: { shipperDetails: dhlRateAddress(input.from), receiverDetails: dhlRateAddress(input.to) },
    accounts: [{ typeCode: 'shipper' as const, number: input.accountNumber }],
    ...(productCode ? { productCode } : {}),
    ...(input.insure ? { valueAddedServices: [{ serviceCode: DHL_INSURANCE_SERVICE, value: (parseAmount(input.insure.value) ?? 0) / 100, currency: input.insure.currency }] } : {}),
    plannedShippingDateAndTime: dhlPlannedShipping(input.at),
    unitOfMeasurement: 'metric' as const,
    isCustomsDeclarable: isCustomsDeclarable(route),
    // Late in the day DHL answers no products for today: ask for the next day's instead.
    nextBusinessDay: true,
    packages: [dhlPackage(input.parcel)],
  };
}


/**
 * DHL's products priced for the route, as our services: the total in the billing currency
 * (`currencyType` BILLC, the account's), or the first priced total where DHL gives none so marked.
 * Products we do not sell, and unpriced ones, are left out. Undefined when the body is not a rates answer.
 */
export function parseDhlRates(body: unknown, from: Address, to: Address): DhlRated[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.products)) return undefined;
  const route = dhlRoute(from.country, to.country);
  const rated: DhlRated[] = [];
  for (const product of body.products) {
    if (!isRecord(product) || typeof product.productCode !== 'string' || !Array.isArray(product.totalPrice)) continue;
    const serviceCode = ourDhlServiceCode(product.productCode, route);
    if (!serviceCode) continue;
    const prices = product.totalPrice.filter(isRecord).filter((p) => typeof p.price === 'number' && typeof p.priceCurrency === 'string' && p.priceCurrency !== '');
    const total = prices.find((p) => p.currencyType === 'BILLC') ?? prices[0];
    if (!total || (total.price as number) <= 0) continue;
    const delivery = isRecord(product.deliveryCapabilities) ? product.deliveryCapabilities.totalTransitDays : undefined;
    rated.push({
      serviceCode,
      productCode: product.productCode,
      net: Math.round((total.price as number) * 100),
      currency: total.priceCurrency as string,
      estimatedDeliveryDays: typeof delivery === 'number' && delivery >= 0 ? delivery : null,
    });
  }
  return rated;
}
