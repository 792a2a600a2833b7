import { money } from './state.js';
import { optionCharges, optionRefusal } from './abroad.js';

/** The UPS simulator's rate card and its Rating answers (Rate and Shop). */

export const UPS_ERROR = (code: string, message: string) => ({ response: { errors: [{ code, message }] } });

const US_SERVICES = ['03', '01', '02', '12', '13'];
const INTL_SERVICES = ['11', '65', '07', '08'];
/** Published prices in cents: a base per service plus a price per billed weight unit. */
const PRICES: Record<string, [number, number]> = {
  '03': [995, 80], '01': [5200, 350], '02': [2700, 200], '12': [1900, 150], '13': [4700, 310],
  '11': [1100, 90], '65': [4300, 300], '07': [5600, 380], '08': [3400, 220],
};
const CURRENCY: Record<string, string> = { US: 'USD', PR: 'USD', CA: 'CAD', GB: 'GBP' };
const TRANSIT_DAYS: Record<string, string> = { '01': '1', '02': '2', '12': '3', '13': '1', '07': '1', '65': '1', '08': '2' };
/** Names as UPS prints them on a label. */
export const SERVICE_NAMES: Record<string, string> = {
  '03': 'UPS GROUND', '01': 'UPS NEXT DAY AIR', '02': 'UPS 2ND DAY AIR', '12': 'UPS 3 DAY SELECT', '13': 'UPS NEXT DAY AIR SAVER',
  '11': 'UPS STANDARD', '65': 'UPS SAVER', '07': 'UPS EXPRESS', '08': 'UPS EXPEDITED',
};

/** The published (and, when asked, negotiated) price of a service for the request's package. */
export function price(serviceCode: string, shipment: any) {
  const pkg = shipment.Package[0];
  const unit: 'LBS' | 'KGS' = pkg.PackageWeight?.UnitOfMeasurement?.Code === 'KGS' ? 'KGS' : 'LBS';
  const billed = Math.max(1, Math.ceil(Number(pkg.PackageWeight?.Weight ?? '1')));
  const [baseCents, perUnit] = PRICES[serviceCode];
  const options = optionCharges(shipment);
  const published = baseCents + perUnit * billed * (unit === 'KGS' ? 2 : 1) + options;
  const negotiated = shipment.ShipmentRatingOptions?.NegotiatedRatesIndicator !== undefined ? Math.round(published * 0.9) : null;
  const currency = CURRENCY[shipment.Shipper.Address.CountryCode] ?? 'EUR';
  return { unit, billed, published, negotiated, currency, options } as const;
}

export function offered(shipment: any): string[] {
  // A return leaves from ShipFrom (the customer); every other shipment from the shipper.
  const origin = (shipment.ShipFrom ?? shipment.Shipper).Address.CountryCode;
  return origin === 'US' && shipment.ShipTo.Address.CountryCode === 'US' ? US_SERVICES : INTL_SERVICES;
}

export const charges = (currency: string, cents: number) => ({ CurrencyCode: currency, MonetaryValue: money(cents) });

export const billingWeight = (unit: 'LBS' | 'KGS', billed: number) => ({
  UnitOfMeasurement: { Code: unit, Description: unit === 'LBS' ? 'Pounds' : 'Kilograms' },
  Weight: `${billed}.0`,
});

export const UNAVAILABLE = UPS_ERROR('111210', 'The requested service is unavailable between the selected locations.');

export function rate(option: 'Rate' | 'Shop', body: any): [number, unknown] {
  const shipment = body.RateRequest.Shipment;
  if (body.RateRequest.Request.RequestOption !== option) return [400, UPS_ERROR('9310100', 'RequestOption does not match the request path')];
  // Shop leaves out the services that cannot honour the options; Rate refuses them.
  const services: string[] = option === 'Shop' ? offered(shipment).filter((code) => optionRefusal(code, shipment) === null) : [shipment.Service?.Code];
  if (option === 'Rate' && !offered(shipment).includes(services[0])) return [400, UNAVAILABLE];
  const refusal = option === 'Rate' ? optionRefusal(services[0], shipment) : null;
  if (refusal) return [400, UPS_ERROR('9110054', refusal)];
  const rated = services.map((code) => {
    const p = price(code, shipment);
    return {
      Service: { Code: code, Description: SERVICE_NAMES[code] },
      BillingWeight: billingWeight(p.unit, p.billed),
      TransportationCharges: charges(p.currency, p.published),
      ServiceOptionsCharges: charges(p.currency, p.options),
      TotalCharges: charges(p.currency, p.published),
      ...(p.negotiated === null ? {} : { NegotiatedRateCharges: { TotalCharge: charges(p.currency, p.negotiated) } }),
      ...(TRANSIT_DAYS[code] ? { GuaranteedDelivery: { BusinessDaysInTransit: TRANSIT_DAYS[code] } } : {}),
      RatedPackage: [{ TransportationCharges: charges(p.currency, p.published), Weight: shipment.Package[0].PackageWeight?.Weight ?? '1' }],
    };
  });
  return [200, { RateResponse: { Response: { ResponseStatus: { Code: '1', Description: 'Success' } }, RatedShipment: rated } }];
}
