import type { Address, Parcel } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { splitZip } from './mapping-address.js';
import type { BaseRates } from './schemas/index.js';
import {
  USPS_SERVICES,
  processingCategory,
  uspsDimensions,
  uspsIneligibility,
  uspsServiceByCode,
  type UspsService,
  type UspsServiceCode,
} from './services.js';

/** The request as USPS's document defines it (carriers/usps/schemas, generated). */
type UspsBaseRatesQuery = BaseRates.Request;

/** One rated service, in our terms. */
export interface RatedService {
  /** A domestic or an international service of ours. */
  serviceCode: UspsServiceCode | (string & {});
  carrierServiceCode: string;
  /** Integer minor units (cents). */
  net: number;
  currency: 'USD';
  /** The prices document has no service standard; USPS states delivery days only on the label. */
  estimatedDeliveryDays: number | null;
}

/** Account-level settings that shape a price search. */
export interface UspsRatingSettings {
  /**
   * The EPS account the labels are paid from. Sent with the search, USPS answers that account's
   * contract price where it has one ("it overrides the requested priceType"), which is what the
   * label will charge.
   */
  accountNumber?: string;
  /** `COMMERCIAL` unless set: the price a label bought through the API with an EPS account pays. */
  priceType?: 'RETAIL' | 'COMMERCIAL' | 'CONTRACT';
}

/** A price search to send, with the service it prices. */
export interface UspsRateRequest {
  service: UspsService;
  body: UspsBaseRatesQuery;
}

/**
 * The price searches for one parcel: one `base-rates/search` per mail class, because that search
 * takes exactly the ingredients the label takes (mail class, processing category, rate indicator,
 * entry facility), so the price found is the price the label charges. Services USPS would refuse for
 * this parcel are left out (no call spent on them). `mailingDate` is the day the label would be
 * bought (`YYYY-MM-DD`), so the search prices the rate card that label will use.
 */
export function buildUspsRateRequests(
  from: Address,
  to: Address,
  parcel: Parcel,
  serviceCode: string | 'all',
  mailingDate: string,
  settings: UspsRatingSettings = {},
): UspsRateRequest[] {
  const services = serviceCode === 'all' ? USPS_SERVICES : [uspsServiceByCode(serviceCode)].filter((s): s is UspsService => s !== undefined);
  const d = uspsDimensions(parcel);
  return services
    .filter((service) => uspsIneligibility(service, d) === null)
    .map((service) => ({
      service,
      body: {
        originZIPCode: splitZip(from.postcode).ZIPCode,
        destinationZIPCode: splitZip(to.postcode).ZIPCode,
        weight: d.weight,
        length: d.length,
        width: d.width,
        height: d.height,
        mailClass: service.mailClass,
        processingCategory: processingCategory(d),
        rateIndicator: service.rateIndicator,
        destinationEntryFacilityType: 'NONE',
        priceType: settings.priceType ?? 'COMMERCIAL',
        mailingDate,
        ...(settings.accountNumber ? { accountType: 'EPS' as const, accountNumber: settings.accountNumber } : {}),
      },
    }));
}

/**
 * One `BaseRateOption` answer as our rated service, or undefined when it is not the promised shape.
 * `totalBasePrice` is "the rate, fees and pound postage", so it is the net price.
 */
export function parseUspsRateResponse(service: UspsService, body: unknown): RatedService | undefined {
  if (!isRecord(body)) return undefined;
  const total = body.totalBasePrice;
  if (typeof total !== 'number' || !Number.isFinite(total) || total < 0) return undefined;
  return {
    serviceCode: service.code,
    carrierServiceCode: service.mailClass,
    net: dollarsToCents(total),
    currency: 'USD',
    estimatedDeliveryDays: null,
  };
}

/** USPS prices are dollars with two decimals, sent as JSON numbers: to integer cents. */
export function dollarsToCents(dollars: number): number {
  // Rounding the scaled value absorbs binary representation (8.65 * 100 = 864.9999999999999).
  return Math.round(dollars * 100);
}
