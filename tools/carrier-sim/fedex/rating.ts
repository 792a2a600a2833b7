import { units } from './state.js';

/** The FedEx simulator's rate card and its Rates and Transit Times answers. */

/** FedEx's error body (carrier-specs README): `{ transactionId, errors: [{ code, message }] }`. */
export const FEDEX_ERROR = (code: string, message: string) => ({ transactionId: 'sim-fedex', errors: [{ code, message }] });

const US_SERVICES = ['FEDEX_GROUND', 'GROUND_HOME_DELIVERY', 'FEDEX_EXPRESS_SAVER', 'FEDEX_2_DAY', 'STANDARD_OVERNIGHT', 'PRIORITY_OVERNIGHT'];
const INTERNATIONAL_SERVICES = ['FEDEX_INTERNATIONAL_PRIORITY', 'INTERNATIONAL_ECONOMY'];
/** List prices in cents: a base and a price per started pound (or half kilogram). */
const PRICES: Record<string, [number, number]> = {
  FEDEX_GROUND: [980, 85], GROUND_HOME_DELIVERY: [1_050, 85], FEDEX_EXPRESS_SAVER: [2_150, 210], FEDEX_2_DAY: [2_650, 260],
  STANDARD_OVERNIGHT: [4_600, 420], PRIORITY_OVERNIGHT: [5_300, 470], FEDEX_INTERNATIONAL_PRIORITY: [6_400, 520], INTERNATIONAL_ECONOMY: [4_900, 380],
};
const TRANSIT: Record<string, string> = {
  FEDEX_GROUND: 'FIVE_DAYS', GROUND_HOME_DELIVERY: 'FIVE_DAYS', FEDEX_EXPRESS_SAVER: 'THREE_DAYS', FEDEX_2_DAY: 'TWO_DAYS',
  STANDARD_OVERNIGHT: 'ONE_DAY', PRIORITY_OVERNIGHT: 'ONE_DAY', FEDEX_INTERNATIONAL_PRIORITY: 'THREE_DAYS', INTERNATIONAL_ECONOMY: 'FIVE_DAYS',
};
/** Names as FedEx prints them on a label. */
export const SERVICE_NAMES: Record<string, string> = {
  FEDEX_GROUND: 'FEDEX GROUND', GROUND_HOME_DELIVERY: 'FEDEX HOME DELIVERY', FEDEX_EXPRESS_SAVER: 'FEDEX EXPRESS SAVER', FEDEX_2_DAY: 'FEDEX 2DAY',
  STANDARD_OVERNIGHT: 'STANDARD OVERNIGHT', PRIORITY_OVERNIGHT: 'PRIORITY OVERNIGHT', FEDEX_INTERNATIONAL_PRIORITY: 'INTL PRIORITY', INTERNATIONAL_ECONOMY: 'INTL ECONOMY',
};
const SATURDAY_SERVICES = new Set(['FEDEX_2_DAY', 'PRIORITY_OVERNIGHT', 'FEDEX_INTERNATIONAL_PRIORITY']);
const CURRENCY: Record<string, string> = { US: 'USD', PR: 'USD', CA: 'CAD', GB: 'GBP' };
/** Surcharges in cents: a residence, a signature, an adult's, Saturday, and per started 100 declared. */
const SURCHARGE = { residential: 495, direct: 650, adult: 800, saturday: 1_800, declaredPer100: 115 } as const;

export const UNAVAILABLE = FEDEX_ERROR('SERVICE.TYPE.INTERNATIONAL.MESSAGE', 'The requested service is not available between the selected origin and destination.');

/** The services FedEx offers for a shipment: Ground to a business and Home Delivery to a residence within the US. */
export function offered(shipment: any): string[] {
  const origin = shipment.shipper?.address?.countryCode;
  const recipient = (shipment.recipient ?? shipment.recipients?.[0])?.address ?? {};
  if (origin !== recipient.countryCode) return INTERNATIONAL_SERVICES;
  if (origin !== 'US') return [];
  return US_SERVICES.filter((s) => (recipient.residential === true ? s !== 'FEDEX_GROUND' : s !== 'GROUND_HOME_DELIVERY'));
}

/** Why FedEx would refuse these special services on this service, or null. */
export function optionRefusal(serviceType: string, shipment: any): string | null {
  const types: unknown[] = shipment.shipmentSpecialServices?.specialServiceTypes ?? [];
  if (types.includes('SATURDAY_DELIVERY') && !SATURDAY_SERVICES.has(serviceType)) return 'Saturday delivery is not available for the requested service.';
  if (types.includes('RETURN_SHIPMENT') && shipment.shipmentSpecialServices?.returnShipmentDetail?.returnType !== 'PRINT_RETURN_LABEL') {
    return 'This account offers the PRINT_RETURN_LABEL return type only.';
  }
  return null;
}

/** The list and account prices of a service for the shipment's one package, in the shipper's currency. */
export function price(serviceType: string, shipment: any) {
  const pkg = shipment.requestedPackageLineItems[0];
  const weight = Number(pkg.weight.value);
  const billed = Math.max(1, Math.ceil(pkg.weight.units === 'KG' ? weight * 2 : weight));
  const [base, perUnit] = PRICES[serviceType]!;
  const recipient = (shipment.recipient ?? shipment.recipients?.[0])?.address ?? {};
  const special = pkg.packageSpecialServices ?? {};
  let cents = base + perUnit * billed;
  if (recipient.residential === true) cents += SURCHARGE.residential;
  if (special.signatureOptionType === 'DIRECT') cents += SURCHARGE.direct;
  if (special.signatureOptionType === 'ADULT') cents += SURCHARGE.adult;
  if (pkg.declaredValue) cents += Math.ceil(Number(pkg.declaredValue.amount) / 100) * SURCHARGE.declaredPer100;
  if ((shipment.shipmentSpecialServices?.specialServiceTypes ?? []).includes('SATURDAY_DELIVERY')) cents += SURCHARGE.saturday;
  const currency = CURRENCY[shipment.shipper.address.countryCode] ?? 'EUR';
  return { list: cents, account: Math.round(cents * 0.9), currency, transit: TRANSIT[serviceType]! };
}

function rateDetail(rateType: 'ACCOUNT' | 'LIST', cents: number, currency: string) {
  return { rateType, totalBaseCharge: units(cents), totalNetCharge: units(cents), totalNetFedExCharge: units(cents), shipmentRateDetail: { currency } };
}

export function rate(account: string, body: any): [number, unknown] {
  if (body.accountNumber.value !== account) return [400, FEDEX_ERROR('ACCOUNT.NUMBER.MISMATCH', 'The account number in the request does not belong to this client.')];
  const shipment = body.requestedShipment;
  const asked: string | undefined = shipment.serviceType;
  const services = asked ? [asked] : offered(shipment).filter((s) => optionRefusal(s, shipment) === null);
  if (asked && !offered(shipment).includes(asked)) return [400, UNAVAILABLE];
  const refusal = asked ? optionRefusal(asked, shipment) : null;
  if (refusal) return [400, FEDEX_ERROR('SPECIALSERVICES.NOT.ALLOWED', refusal)];
  const types: unknown[] = shipment.rateRequestType ?? ['LIST'];
  const replies = services.map((serviceType) => {
    const p = price(serviceType, shipment);
    return {
      serviceType,
      serviceName: SERVICE_NAMES[serviceType],
      packagingType: shipment.packagingType,
      ratedShipmentDetails: [
        ...(types.includes('ACCOUNT') ? [rateDetail('ACCOUNT', p.account, p.currency)] : []),
        rateDetail('LIST', p.list, p.currency),
      ],
      ...(body.rateRequestControlParameters?.returnTransitTimes ? { commit: { daysInTransit: p.transit } } : {}),
    };
  });
  return [200, { transactionId: 'sim-fedex', output: { rateReplyDetails: replies, quoteDate: new Date().toISOString().slice(0, 10) } }];
}
