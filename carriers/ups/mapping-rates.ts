import { parseAmount, type Address, type Minor, type Parcel } from '../../domain/index.js';
import { addressState, upsAddressLines, upsPackageMeasures, upsPostalCode } from './mapping-address.js';
import { documentedAnswer } from './answers.js';
import type { Rating } from './schemas/index.js';
import { ourUpsServiceCode, upsCarrierServiceCode, type UpsServiceCode } from './services.js';
import { upsResidential } from './mapping-international.js';
import { upsPackageOptions, upsSaturday, UPS_PRINT_RETURN_LABEL } from './mapping-options.js';
import type { ShipmentOptions } from '../../domain/index.js';

/** The request as UPS's document defines it (carriers/ups/schemas, generated). */
type RateRequest = Rating.RATERequestWrapper;

/** The Rating version we speak (the document's current one; earlier ones are deprecated). */
export const UPS_RATING_VERSION = 'v2409';
/** `Request.SubVersion`: the response shape of the same release. */
export const UPS_SUBVERSION = '2409';

export interface RatedService {
  serviceCode: UpsServiceCode;
  carrierServiceCode: string;
  /** Integer minor units: the negotiated (account) total where UPS gives one, else the published total. */
  net: Minor;
  currency: string;
  estimatedDeliveryDays: number | null;
}

export interface UpsRateInput {
  from: Address;
  to: Address;
  parcel: Parcel;
  /** One of our UPS service codes, or `all` for every service UPS offers on the route. */
  service: string;
  /** The UPS account (`Shipper.ShipperNumber`), six characters. */
  accountNumber: string;
  /** Options to price with their surcharges; the declared value is in `currency`. */
  options?: ShipmentOptions;
  currency?: string;
  /** A return label, rated with UPS's return service (Rating `ShipmentServiceOptions.ReturnService`). */
  isReturn?: boolean;
}

/** A UPS address block (`AddressLine` is an array per the schema, whatever UPS's examples show). */
export function upsAddress(address: Address) {
  const state = addressState(address);
  const postalCode = upsPostalCode(address);
  return {
    AddressLine: upsAddressLines(address),
    City: address.city,
    ...(state === undefined ? {} : { StateProvinceCode: state.toUpperCase() }),
    ...(postalCode === '' ? {} : { PostalCode: postalCode }),
    CountryCode: address.country.toUpperCase(),
  };
}

/** `POST /rating/v2409/{Shop|Rate}`: the path's option and the body. Throws for a service not ours. */
export function buildRateRequest(input: UpsRateInput): { requestOption: 'Shop' | 'Rate'; path: string; body: RateRequest } {
  const shop = input.service === 'all';
  const carrierCode = shop ? undefined : upsCarrierServiceCode(input.service);
  if (!shop && carrierCode === undefined) throw new Error(`not a UPS service: ${input.service}`);
  const requestOption = shop ? 'Shop' : 'Rate';
  const m = upsPackageMeasures(input.parcel, input.from.country);
  const shipper = input.isReturn ? input.to : input.from;
  const body: RateRequest = {
    RateRequest: {
      Request: { RequestOption: requestOption, SubVersion: UPS_SUBVERSION },
      Shipment: {
        // The shipper is our account, shipping from the sender's address (so no separate ShipFrom). A
        // return is rated as Shipping buys it: billed to the shipper it returns to, leaving from the
        // customer's ShipFrom, so the quote's currency and price are the purchase's.
        Shipper: { Name: shipper.name, ShipperNumber: input.accountNumber, Address: upsAddress(shipper) },
        ...(input.isReturn ? { ShipFrom: { Name: input.from.name, Address: upsAddress(input.from) } } : {}),
        // The recipient's residential flag prices the residential surcharge into the quote.
        ShipTo: { Name: input.to.name, Address: { ...upsAddress(input.to), ...(upsResidential(input.to) ? { ResidentialAddressIndicator: '' } : {}) } },
        PaymentDetails: { ShipmentCharge: [{ Type: '01', BillShipper: { AccountNumber: input.accountNumber } }] },
        ...(carrierCode === undefined ? {} : { Service: { Code: carrierCode } }),
        Package: [
          {
            PackagingType: { Code: '02', Description: 'Package' },
            Dimensions: {
              UnitOfMeasurement: { Code: m.units.length, Description: m.units.length === 'IN' ? 'Inches' : 'Centimeters' },
              Length: String(m.length),
              Width: String(m.width),
              Height: String(m.height),
            },
            PackageWeight: {
              UnitOfMeasurement: { Code: m.units.weight, Description: m.units.weight === 'LBS' ? 'Pounds' : 'Kilograms' },
              Weight: m.weight,
            },
            ...upsPackageOptions(input.options, input.currency, 'rating'),
          },
        ],
        ...shipmentServiceOptions(input),
        // The account's own rates are what a purchase bills; the quote must show the same price.
        ShipmentRatingOptions: { NegotiatedRatesIndicator: '' },
      },
    },
  };
  return { requestOption, path: `/rating/${UPS_RATING_VERSION}/${requestOption}`, body };
}

function shipmentServiceOptions(input: UpsRateInput) {
  const options = { ...upsSaturday(input.options), ...(input.isReturn ? { ReturnService: { Code: UPS_PRINT_RETURN_LABEL } } : {}) };
  return Object.keys(options).length ? { ShipmentServiceOptions: options } : {};
}

/** A UPS money block as integer minor units, or undefined when it is not a plain amount. */
export function upsMoney(block: { CurrencyCode: string; MonetaryValue: string } | undefined): { amount: Minor; currency: string } | undefined {
  if (!block) return undefined;
  const amount = parseAmount(block.MonetaryValue);
  if (amount === null || !/^[A-Z]{3}$/.test(block.CurrencyCode)) return undefined;
  return { amount, currency: block.CurrencyCode };
}

/**
 * The services of a Rate or Shop answer that we sell, in UPS's order. Undefined when the answer is not
 * the documented shape or an amount is unreadable (a price we cannot read is never guessed).
 */
export function parseRateResponse(body: unknown): RatedService[] | undefined {
  const answer = documentedAnswer<Rating.Response200>('rating', body);
  if (!answer) return undefined;
  const out: RatedService[] = [];
  for (const rated of answer.RateResponse.RatedShipment) {
    const serviceCode = ourUpsServiceCode(rated.Service.Code);
    if (serviceCode === undefined) continue;
    const price = upsMoney(rated.NegotiatedRateCharges?.TotalCharge) ?? (rated.NegotiatedRateCharges ? undefined : upsMoney(rated.TotalCharges));
    if (price === undefined) return undefined;
    const days = rated.GuaranteedDelivery?.BusinessDaysInTransit;
    out.push({
      serviceCode,
      carrierServiceCode: rated.Service.Code,
      net: price.amount,
      currency: price.currency,
      estimatedDeliveryDays: days !== undefined && /^\d+$/.test(days) ? Number(days) : null,
    });
  }
  return out;
}
