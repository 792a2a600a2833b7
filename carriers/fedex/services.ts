/**
 * Our FedEx service codes and FedEx's own `serviceType`, exactly as the API contract lists them
 * (Carriers), with where each one goes: `domestic` within the US, `international` across a border.
 */
export const FEDEX_SERVICES = [
  { code: 'fedex_ground', serviceType: 'FEDEX_GROUND', name: 'FedEx Ground', scope: 'domestic' },
  { code: 'fedex_home_delivery', serviceType: 'GROUND_HOME_DELIVERY', name: 'FedEx Home Delivery', scope: 'domestic' },
  { code: 'fedex_express_saver', serviceType: 'FEDEX_EXPRESS_SAVER', name: 'FedEx Express Saver', scope: 'domestic' },
  { code: 'fedex_2day', serviceType: 'FEDEX_2_DAY', name: 'FedEx 2Day', scope: 'domestic' },
  { code: 'fedex_standard_overnight', serviceType: 'STANDARD_OVERNIGHT', name: 'FedEx Standard Overnight', scope: 'domestic' },
  { code: 'fedex_priority_overnight', serviceType: 'PRIORITY_OVERNIGHT', name: 'FedEx Priority Overnight', scope: 'domestic' },
  { code: 'fedex_international_priority', serviceType: 'FEDEX_INTERNATIONAL_PRIORITY', name: 'FedEx International Priority', scope: 'international' },
  { code: 'fedex_international_economy', serviceType: 'INTERNATIONAL_ECONOMY', name: 'FedEx International Economy', scope: 'international' },
] as const;

export type FedexServiceCode = (typeof FEDEX_SERVICES)[number]['code'];

/** FedEx's `serviceType` for one of our codes; undefined when it is not a FedEx service of ours. */
export function fedexServiceType(serviceCode: string): string | undefined {
  return FEDEX_SERVICES.find((s) => s.code === serviceCode)?.serviceType;
}

/** Our code for FedEx's `serviceType`; undefined for FedEx services we do not sell (freight, SmartPost, …). */
export function ourFedexServiceCode(serviceType: string): FedexServiceCode | undefined {
  return FEDEX_SERVICES.find((s) => s.serviceType === serviceType)?.code;
}

/** Whether the service carries a parcel on this route: US domestic services within the US, the international ones across a border. */
export function fedexServiceServes(serviceCode: string, from: { country: string }, to: { country: string }): boolean {
  const service = FEDEX_SERVICES.find((s) => s.code === serviceCode);
  if (!service) return false;
  const origin = from.country.toUpperCase();
  const destination = to.country.toUpperCase();
  return service.scope === 'international' ? origin !== destination : origin === 'US' && destination === 'US';
}

/**
 * The FedEx operating company that carries a service (`carrierCode` of Pickup): FedEx Ground
 * (FDXG) for Ground and Home Delivery, FedEx Express (FDXE) for the others.
 */
export function fedexOperatingCompany(serviceCode: string): 'FDXE' | 'FDXG' {
  return serviceCode === 'fedex_ground' || serviceCode === 'fedex_home_delivery' ? 'FDXG' : 'FDXE';
}
