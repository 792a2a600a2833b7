/** Our UPS service codes and UPS's own, exactly as the API contract lists them (Carriers). */
export const UPS_SERVICES = [
  { code: 'ups_ground', carrierCode: '03', name: 'UPS Ground' },
  { code: 'ups_next_day_air', carrierCode: '01', name: 'UPS Next Day Air' },
  { code: 'ups_2nd_day_air', carrierCode: '02', name: 'UPS 2nd Day Air' },
  { code: 'ups_3_day_select', carrierCode: '12', name: 'UPS 3 Day Select' },
  { code: 'ups_standard', carrierCode: '11', name: 'UPS Standard' },
  { code: 'ups_saver', carrierCode: '65', name: 'UPS Saver' },
  { code: 'ups_express', carrierCode: '07', name: 'UPS Express' },
  { code: 'ups_expedited', carrierCode: '08', name: 'UPS Expedited' },
] as const;

export type UpsServiceCode = (typeof UPS_SERVICES)[number]['code'];

/** UPS's two-character code for one of our service codes, or undefined when it is not a UPS service of ours. */
export function upsCarrierServiceCode(serviceCode: string): string | undefined {
  return UPS_SERVICES.find((service) => service.code === serviceCode)?.carrierCode;
}

/** Our service code for UPS's code; undefined for UPS services we do not sell (13, 14, 59, …). */
export function ourUpsServiceCode(carrierCode: string): UpsServiceCode | undefined {
  return UPS_SERVICES.find((service) => service.carrierCode === carrierCode)?.code;
}

/** UPS's services across borders (contract: Carriers): 07, 08, 11 and 65. */
export const UPS_INTERNATIONAL_SERVICES: readonly UpsServiceCode[] = ['ups_express', 'ups_expedited', 'ups_standard', 'ups_saver'];
