import { type Address, type Minor, type Parcel, type ShipmentOptions } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { fedexPackage, fedexRateAddress, fedexUnits } from './mapping-address.js';
import { fedexPackageOptions, fedexShipmentServices } from './mapping-options.js';
import type { RatesQuotes } from './schemas/index.js';
import { fedexServiceType, ourFedexServiceCode, type FedexServiceCode } from './services.js';

export const FEDEX_RATE_PATH = '/rate/v1/rates/quotes';

export interface FedexRateInput {
  from: Address;
  to: Address;
  parcel: Parcel;
  /** One of our FedEx codes, or `all` for every service FedEx offers on the route. */
  service: string;
  accountNumber: string;
  options?: ShipmentOptions;
  /** The account's currency, which a declared value is in. */
  currency?: string;
  isReturn?: boolean;
}

export interface FedexRatedService {
  serviceCode: FedexServiceCode;
  /** Integer minor units: the account's net charge where FedEx gives one, else the list net charge. */
  net: Minor;
  currency: string;
  estimatedDeliveryDays: number | null;
}

/**
 * The pickup type every request states: the parcel is dropped off at FedEx, the same in the quote
 * and the purchase so that both are priced alike (a booked pickup is its own request and charge).
 */
export const FEDEX_PICKUP_TYPE = 'DROPOFF_AT_FEDEX_LOCATION';
/** Our parcels are the customer's own boxes. */
export const FEDEX_PACKAGING = 'YOUR_PACKAGING';

/** `POST /rate/v1/rates/quotes`: one service, or every one (no `serviceType`). Throws for a service not ours. */
export function buildRateRequest(input: FedexRateInput) {
  const serviceType = input.service === 'all' ? undefined : fedexServiceType(input.service);
  if (input.service !== 'all' && serviceType === undefined) throw new Error(`not a FedEx service: ${input.service}`);
  const units = fedexUnits(input.from, input.to);
  return {
    accountNumber: { value: input.accountNumber },
    rateRequestControlParameters: { returnTransitTimes: true },
    requestedShipment: {
      shipper: { address: fedexRateAddress(input.from) },
      recipient: { address: fedexRateAddress(input.to) },
      ...(serviceType ? { serviceType } : {}),
      // The account's own rates are what a purchase bills; the list rate is the fallback.
      rateRequestType: ['ACCOUNT', 'LIST'],
      pickupType: FEDEX_PICKUP_TYPE,
      packagingType: FEDEX_PACKAGING,
      ...fedexShipmentServices(input.options, input.isReturn),
      requestedPackageLineItems: [{ ...fedexPackage(input.parcel, units), ...fedexPackageOptions(input.options, input.currency) }],
    },
  } satisfies RatesQuotes.Full_Schema_Quote_Rate;
}

const DAYS: Record<string, number> = {
  ONE_DAY: 1, TWO_DAYS: 2, THREE_DAYS: 3, FOUR_DAYS: 4, FIVE_DAYS: 5, SIX_DAYS: 6, SEVEN_DAYS: 7, EIGHT_DAYS: 8, NINE_DAYS: 9, TEN_DAYS: 10,
  ELEVEN_DAYS: 11, TWELVE_DAYS: 12, THIRTEEN_DAYS: 13, FOURTEEN_DAYS: 14, FIFTEEN_DAYS: 15, SIXTEEN_DAYS: 16, SEVENTEEN_DAYS: 17,
  EIGHTEEN_DAYS: 18, NINETEEN_DAYS: 19, TWENTY_DAYS: 20,
};

/** FedEx's transit time words (`ONE_DAY` … `TWENTY_DAYS`) as a number; null for others (`UNKNOWN`). */
export function transitDays(word: unknown): number | null {
  return typeof word === 'string' && Object.hasOwn(DAYS, word) ? DAYS[word]! : null;
}

/** A FedEx amount (a number of units) in minor units; undefined when it is not a plain amount. */
export function minorOf(amount: unknown): Minor | undefined {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return undefined;
  return Math.round(amount * 100);
}

function priceOf(detail: Record<string, unknown>): { amount: Minor; currency: string } | undefined {
  const amount = minorOf(detail.totalNetCharge);
  const currency = isRecord(detail.shipmentRateDetail) ? detail.shipmentRateDetail.currency : undefined;
  if (amount === undefined || typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return undefined;
  return { amount, currency };
}

/**
 * The services of a rate answer that we sell, in FedEx's order: the ACCOUNT rate where given, else
 * the LIST one. Undefined when the answer is not the documented shape (it has passed the schema
 * before) or a price of a service we sell cannot be read: a price is never guessed.
 */
export function parseRateResponse(body: unknown): FedexRatedService[] | undefined {
  if (!isRecord(body) || !isRecord(body.output) || !Array.isArray(body.output.rateReplyDetails)) return undefined;
  const out: FedexRatedService[] = [];
  for (const reply of body.output.rateReplyDetails) {
    if (!isRecord(reply) || typeof reply.serviceType !== 'string') return undefined;
    const serviceCode = ourFedexServiceCode(reply.serviceType);
    if (serviceCode === undefined) continue;
    const details = Array.isArray(reply.ratedShipmentDetails) ? reply.ratedShipmentDetails.filter(isRecord) : [];
    const chosen = details.find((d) => d.rateType === 'ACCOUNT') ?? details.find((d) => d.rateType === 'LIST') ?? details[0];
    const price = chosen && priceOf(chosen);
    if (!price) return undefined;
    const commit = isRecord(reply.commit) ? reply.commit : {};
    const operational = isRecord(reply.operationalDetail) ? reply.operationalDetail : {};
    const days = transitDays(commit.daysInTransit) ?? transitDays(operational.transitTime);
    out.push({ serviceCode, net: price.amount, currency: price.currency, estimatedDeliveryDays: days });
  }
  return out;
}
