/**
 * Our DHL Express service codes and DHL's global product codes, as the API contract lists them
 * (Carriers). DHL names a product by whether the shipment is customs-declarable: EXPRESS WORLDWIDE
 * is P for dutiable goods and U for goods moving within the EU's customs union, ECONOMY SELECT H
 * and W. EXPRESS 12:00 (Y), EXPRESS 9:00 (E) and DOMESTIC EXPRESS (N) have one code each here.
 */
export const DHL_EXPRESS_SERVICES = [
  { code: 'dhl_express_worldwide', name: 'DHL Express Worldwide', dutiable: 'P', withinEu: 'U', domestic: false },
  { code: 'dhl_express_economy_select', name: 'DHL Economy Select', dutiable: 'H', withinEu: 'W', domestic: false },
  { code: 'dhl_express_12', name: 'DHL Express 12:00', dutiable: 'Y', withinEu: 'Y', domestic: false },
  { code: 'dhl_express_9', name: 'DHL Express 9:00', dutiable: 'E', withinEu: 'E', domestic: false },
  { code: 'dhl_express_domestic', name: 'DHL Domestic Express', dutiable: 'N', withinEu: 'N', domestic: true },
] as const;

export type DhlExpressServiceCode = (typeof DHL_EXPRESS_SERVICES)[number]['code'];

/** The EU's customs union (its 27 members): goods moving between two of them are not declared. */
const EU_CUSTOMS_UNION: ReadonlySet<string> = new Set([
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU',
  'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
]);

/** The kind of route a DHL product is chosen for. */
export type DhlRoute = 'domestic' | 'within_eu' | 'dutiable';

export function dhlRoute(fromCountry: string, toCountry: string): DhlRoute {
  const from = fromCountry.toUpperCase();
  const to = toCountry.toUpperCase();
  if (from === to) return 'domestic';
  return EU_CUSTOMS_UNION.has(from) && EU_CUSTOMS_UNION.has(to) ? 'within_eu' : 'dutiable';
}

/** Whether DHL must be told the shipment is customs-declarable (`isCustomsDeclarable`). */
export function isCustomsDeclarable(route: DhlRoute): boolean {
  return route === 'dutiable';
}

/** DHL's product code of one of our services on a route, or undefined where the service does not go there. */
export function dhlProductCode(serviceCode: string, route: DhlRoute): string | undefined {
  const service = DHL_EXPRESS_SERVICES.find((s) => s.code === serviceCode);
  if (!service || service.domestic !== (route === 'domestic')) return undefined;
  return route === 'within_eu' ? service.withinEu : service.dutiable;
}

/** Our service for a product code DHL answers on a route; undefined for products we do not sell. */
export function ourDhlServiceCode(productCode: string, route: DhlRoute): DhlExpressServiceCode | undefined {
  return DHL_EXPRESS_SERVICES.find((s) => dhlProductCode(s.code, route) === productCode)?.code;
}
