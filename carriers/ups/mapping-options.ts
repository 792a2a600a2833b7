import { formatAmount, parseAmount, requestedOptions, type OptionPrices, type ShipmentOptions } from '../../domain/index.js';

/**
 * UPS's options (Shipping and Rating `PackageServiceOptions` and `ShipmentServiceOptions`): a
 * declared value, a signature on delivery (`DeliveryConfirmation`: DCISType 2 a signature, 3 an
 * adult's), and Saturday delivery. UPS's Rating answer prices them, so each is 0 here.
 */
const EVERY_SERVICE: OptionPrices = { signature_required: 0, signature_adult: 0, declared_value_per_100: 0 };
/** Saturday delivery is an option of UPS's air and express services; Ground, 3 Day Select, Standard and Expedited deliver on weekdays. */
const WITH_SATURDAY: OptionPrices = { ...EVERY_SERVICE, saturday_delivery: 0 };

/**
 * A return label takes no signature: Shipping's DeliveryConfirmation is "Valid for forward shipments
 * only", so a return is refused option_not_supported rather than by UPS.
 */
export function upsReturnOptions({ signature_required: _required, signature_adult: _adult, ...rest }: OptionPrices): OptionPrices {
  return rest;
}

export const UPS_SERVICE_OPTIONS: Record<string, OptionPrices> = {
  ups_ground: EVERY_SERVICE,
  ups_next_day_air: WITH_SATURDAY,
  ups_2nd_day_air: WITH_SATURDAY,
  ups_3_day_select: EVERY_SERVICE,
  ups_standard: EVERY_SERVICE,
  ups_saver: WITH_SATURDAY,
  ups_express: WITH_SATURDAY,
  ups_expedited: EVERY_SERVICE,
};

/**
 * `ReturnService` 9, UPS Print Return Label: the label is given to us to hand to the customer, as
 * our return labels are (the others are mailed or e-mailed by UPS, or collected by a driver).
 */
export const UPS_PRINT_RETURN_LABEL = '9';

const DCIS = { required: '2', adult: '3' } as const;

/**
 * The package's options. Rating's declared value is exactly 8 characters (`00150.00`), Shipping's
 * 1 to 19 (`150.00`); a larger value is refused before (upsPurchaseProblems, the quote's check).
 */
export function upsPackageOptions(options: ShipmentOptions | undefined, currency: string | undefined, form: 'rating' | 'shipping') {
  const asked = requestedOptions(options);
  const out: { DeclaredValue?: { CurrencyCode: string; MonetaryValue: string }; DeliveryConfirmation?: { DCISType: '2' | '3' } } = {};
  if (asked.declared_value !== undefined && currency) {
    const amount = formatAmount(parseAmount(asked.declared_value) ?? 0);
    out.DeclaredValue = { CurrencyCode: currency.toUpperCase(), MonetaryValue: form === 'rating' ? amount.padStart(8, '0') : amount };
  }
  if (asked.signature) out.DeliveryConfirmation = { DCISType: DCIS[asked.signature] };
  return Object.keys(out).length ? { PackageServiceOptions: out } : {};
}

/** Saturday delivery is a shipment option: an empty tag. */
export function upsSaturday(options: ShipmentOptions | undefined): { SaturdayDeliveryIndicator?: string } {
  return requestedOptions(options).saturday_delivery ? { SaturdayDeliveryIndicator: '' } : {};
}

/** Whether Rating can take the declared value (8 characters: at most 99999.99). */
export function upsDeclaredValueFits(options: ShipmentOptions | undefined): boolean {
  const value = options?.declared_value;
  return value === undefined || (parseAmount(value) ?? 0) <= 9_999_999;
}
