import { parseAmount, requestedOptions, type ShipmentOptions } from '../../domain/index.js';

/** Signature options as FedEx names them (`signatureOptionType`): DIRECT at the address, ADULT an adult's. */
const SIGNATURE = { required: 'DIRECT', adult: 'ADULT' } as const;

/** A money amount as FedEx takes it: a number of the currency's units (two decimals). */
export function fedexAmount(minor: number): number {
  return Math.round(minor) / 100;
}

/**
 * The package's special services and declared value (Rate and Ship `requestedPackageLineItems`):
 * a signature is the special service SIGNATURE_OPTION with its type; the declared value is in the
 * account's currency.
 */
export function fedexPackageOptions(options: ShipmentOptions | undefined, currency: string | undefined) {
  const asked = requestedOptions(options);
  const declared = asked.declared_value !== undefined && currency ? parseAmount(asked.declared_value) : null;
  return {
    ...(declared !== null ? { declaredValue: { amount: fedexAmount(declared), currency: currency!.toUpperCase() } } : {}),
    ...(asked.signature ? { packageSpecialServices: { specialServiceTypes: ['SIGNATURE_OPTION'], signatureOptionType: SIGNATURE[asked.signature] } } : {}),
  };
}

/**
 * The shipment's special services: Saturday delivery, and for a return label FedEx's return
 * shipment with PRINT_RETURN_LABEL (the label is given to us to hand to the customer, as our return
 * labels are; the other return types are mailed, e-mailed or collected by FedEx).
 */
export function fedexShipmentServices(options: ShipmentOptions | undefined, isReturn: boolean | undefined) {
  const types = [...(requestedOptions(options).saturday_delivery ? ['SATURDAY_DELIVERY'] : []), ...(isReturn ? ['RETURN_SHIPMENT'] : [])];
  if (!types.length) return {};
  return {
    shipmentSpecialServices: {
      specialServiceTypes: types,
      ...(isReturn ? { returnShipmentDetail: { returnType: 'PRINT_RETURN_LABEL' as const } } : {}),
    },
  };
}
