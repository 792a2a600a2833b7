import { parseAmount, type Address, type Customs, type FieldError, type Parcel, type ShipmentOptions } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { addressState, splitZip, USPS_ADDRESS_LIMITS, uspsAddressProblems } from './mapping-address.js';
import { uspsExtras } from './mapping-options.js';
import { dollarsToCents, type UspsRatingSettings } from './mapping-rates.js';
import type { InternationalBaseRates, InternationalExtraServiceRates, InternationalLabel } from './schemas/index.js';

type UspsIntlLabelRequest = InternationalLabel.Request;
type UspsCustomsForm = InternationalLabel.InternationalCustomsForm;
type UspsIntlBaseRatesQuery = InternationalBaseRates.Request;
type UspsIntlExtraServiceRateQuery = InternationalExtraServiceRates.Request;
import { gramsToPounds, processingCategory, uspsDimensions, USPS_MAX_WEIGHT_LB } from './services.js';

export type UspsIntlServiceCode = 'usps_priority_mail_international' | 'usps_priority_mail_express_international' | 'usps_first_class_package_international';

export interface UspsIntlService {
  code: UspsIntlServiceCode;
  name: string;
  mailClass: UspsIntlLabelRequest['packageDescription']['mailClass'];
  rateIndicator: 'SP' | 'PA';
  /** Heaviest piece in pounds: First-Class Package International takes 4 lb (IMM 250); the others 70 at most. */
  maxWeightLb: number;
  /** Largest length plus girth in inches (IMM 220, 250: 108 in; First-Class Package International 36 in of length + width + height). */
  maxLengthPlusGirthIn: number;
}

export const USPS_INTERNATIONAL_SERVICES: readonly UspsIntlService[] = [
  { code: 'usps_priority_mail_international', name: 'USPS Priority Mail International', mailClass: 'PRIORITY_MAIL_INTERNATIONAL', rateIndicator: 'SP', maxWeightLb: USPS_MAX_WEIGHT_LB, maxLengthPlusGirthIn: 108 },
  { code: 'usps_priority_mail_express_international', name: 'USPS Priority Mail Express International', mailClass: 'PRIORITY_MAIL_EXPRESS_INTERNATIONAL', rateIndicator: 'PA', maxWeightLb: USPS_MAX_WEIGHT_LB, maxLengthPlusGirthIn: 108 },
  { code: 'usps_first_class_package_international', name: 'USPS First-Class Package International', mailClass: 'FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE', rateIndicator: 'SP', maxWeightLb: 4, maxLengthPlusGirthIn: 108 },
];

export function uspsIntlServiceByCode(code: string): UspsIntlService | undefined {
  return USPS_INTERNATIONAL_SERVICES.find((s) => s.code === code);
}

/** A price search per international mail class for this parcel, leaving out the classes that cannot take it. */
export function buildUspsIntlRateRequests(from: Address, to: Address, parcel: Parcel, serviceCode: string | 'all', mailingDate: string, settings: UspsRatingSettings = {}): Array<{ service: UspsIntlService; body: UspsIntlBaseRatesQuery }> {
  const d = uspsDimensions(parcel);
  const services = USPS_INTERNATIONAL_SERVICES.filter((s) => serviceCode === 'all' || s.code === serviceCode);
  return services
    .filter((s) => d.weight <= s.maxWeightLb && d.length + 2 * (d.width + d.height) <= s.maxLengthPlusGirthIn)
    .map((service) => ({
      service,
      body: {
        originZIPCode: splitZip(from.postcode).ZIPCode,
        ...(to.postcode.trim() ? { foreignPostalCode: to.postcode.trim() } : {}),
        destinationCountryCode: to.country.trim().toUpperCase(),
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

/** The insurance price search for an international piece (the only extra service we ask abroad). */
export function buildUspsIntlExtraQuery(service: UspsIntlService, to: Address, parcel: Parcel, options: ShipmentOptions | undefined, mailingDate: string, settings: UspsRatingSettings = {}): UspsIntlExtraServiceRateQuery | null {
  const extras = uspsExtras(options, service.mailClass);
  const insurance = extras.codes.filter((c): c is 930 | 931 => c === 930 || c === 931);
  if (insurance.length === 0 || extras.insuredDollars === undefined) return null;
  return {
    extraServices: insurance,
    mailClass: service.mailClass,
    priceType: 'COMMERCIAL',
    itemValue: extras.insuredDollars.toFixed(2),
    weight: gramsToPounds(parcel.weight_g),
    mailingDate,
    rateIndicator: service.rateIndicator,
    destinationCountryCode: to.country.trim().toUpperCase(),
    ...(settings.accountNumber ? { accountType: 'EPS' as const, accountNumber: settings.accountNumber } : {}),
  };
}

const CONTENT_TYPE: Record<Customs['contents_type'], UspsCustomsForm['customsContentType']> = {
  merchandise: 'MERCHANDISE',
  gift: 'GIFT',
  documents: 'DOCUMENT',
  sample: 'COMMERCIAL_SAMPLE',
  returned_goods: 'RETURNED_GOODS',
  other: 'OTHER',
};

/** "The following descriptions, regardless of case sensitivity, are not considered valid" (ShippingContents). */
const VAGUE_DESCRIPTIONS = new Set(['none', 'not applicable', 'n/a', 'null', 'gift', 'merchandise']);
/** The AES exemption for a parcel whose lines are each worth $2,500 or less ("NO EEI 30.37(a)"). */
export const USPS_LOW_VALUE_EXEMPTION = 'NO EEI 30.37(a)';
const EXEMPTION_LIMIT_CENTS = 250_000;

/** A phone as USPS takes it: "with no punctuation", so spaces, dots, dashes and brackets go. */
export function uspsPhone(phone: string | undefined): string | undefined {
  const digits = phone?.replace(/[\s().-]/g, '');
  return digits ? digits : undefined;
}
const PHONE = /^\+?[1-9][0-9]{7,14}$|^[0-9]{6,15}$/;

/**
 * Everything about an international purchase that USPS's documents refuse, as our field paths: the
 * customs form's lengths and conditions, the recipient's address and phone. Values are declared in
 * US dollars, so the declaration must be in USD (we never convert it on the client's behalf).
 */
export function uspsIntlProblems(from: Address, to: Address, customs: Customs | undefined): FieldError[] {
  const problems: FieldError[] = uspsAddressProblems(from, 'from').map((p) => ({ path: p.path, message: p.message }));
  const add = (path: string, message: string) => problems.push({ path, message: `${message} for USPS` });
  if (!customs) add('customs', 'is required across a border');
  if (to.name.trim().length > USPS_ADDRESS_LIMITS.firm) add('to.name', `must be at most ${USPS_ADDRESS_LIMITS.firm} characters`);
  if (to.line1.trim().length > USPS_ADDRESS_LIMITS.streetAddress) add('to.line1', `must be at most ${USPS_ADDRESS_LIMITS.streetAddress} characters`);
  if ((to.line2?.trim().length ?? 0) > USPS_ADDRESS_LIMITS.secondaryAddress) add('to.line2', `must be at most ${USPS_ADDRESS_LIMITS.secondaryAddress} characters`);
  if (to.city.trim().length > USPS_ADDRESS_LIMITS.city) add('to.city', `must be at most ${USPS_ADDRESS_LIMITS.city} characters`);
  if (to.postcode.trim().length > 11) add('to.postcode', 'must be at most 11 characters');
  if (to.country.trim().toUpperCase() === 'CA' && !/^[A-Za-z]/.test(to.postcode.trim())) add('to.postcode', 'must start with a letter for Canada');
  if ((addressState(to)?.length ?? 0) > 40) add('to.state', 'must be at most 40 characters');
  for (const [side, address] of [['from', from], ['to', to]] as const) {
    const phone = uspsPhone(address.phone);
    if (phone && !PHONE.test(phone)) add(`${side}.phone`, 'must be 6 to 15 digits, with an optional leading +');
  }
  if ((from.email?.length ?? 0) > 50) add('from.email', 'must be at most 50 characters');
  if (!customs) return problems;
  if (customs.currency !== 'USD') add('customs.currency', 'must be USD: USPS declares values in US dollars');
  if (customs.invoice_number && customs.invoice_number.length > 15) add('customs.invoice_number', 'must be at most 15 characters');
  if (customs.eel_pfc && customs.eel_pfc.length > 35) add('customs.eel_pfc', 'must be at most 35 characters');
  if (!customs.eel_pfc && customs.items.some((item) => (parseAmount(item.value) ?? 0) > EXEMPTION_LIMIT_CENTS)) {
    add('customs.eel_pfc', 'is required (the AES ITN) when a line is worth more than 2500.00');
  }
  customs.items.forEach((item, i) => {
    if (item.description.length > 30) add(`customs.items[${i}].description`, 'must be at most 30 characters');
    if (VAGUE_DESCRIPTIONS.has(item.description.toLowerCase())) add(`customs.items[${i}].description`, 'must say what the item is');
    if (item.quantity > 9999) add(`customs.items[${i}].quantity`, 'must be at most 9999');
    if ((parseAmount(item.value) ?? 0) > 99_999_999) add(`customs.items[${i}].value`, 'must be at most 999999.99');
  });
  for (const id of customs.tax_ids ?? []) {
    if (id.number.length > 28) add('customs.tax_ids', 'numbers must be at most 28 characters');
  }
  return problems;
}

/** Our declaration as USPS's customs form (its CN22 or CN23); check `uspsIntlProblems` first. */
export function toUspsCustomsForm(customs: Customs): UspsCustomsForm {
  const reference = (owner: 'sender' | 'recipient') => {
    const id = customs.tax_ids?.find((t) => t.owner === owner);
    if (!id) return undefined;
    return { referenceType: id.type === 'vat' || id.type === 'ioss' ? ('VAT_NUMBER' as const) : ('TAX_CODE' as const), reference: id.number };
  };
  const importer = reference('recipient');
  const exporter = reference('sender');
  return {
    customsContentType: CONTENT_TYPE[customs.contents_type],
    ...(customs.contents_explanation ? { contentComments: customs.contents_explanation } : {}),
    // "USPS requires the ITN or the Exemption": the client's, else the low-value exemption (checked above).
    AESITN: customs.eel_pfc ?? USPS_LOW_VALUE_EXEMPTION,
    ...(customs.invoice_number ? { invoiceNumber: customs.invoice_number } : {}),
    ...(importer ? { importersReference: importer } : {}),
    ...(exporter ? { exportersReference: exporter } : {}),
    contents: customs.items.map((item) => ({
      itemDescription: item.description,
      itemQuantity: item.quantity,
      itemTotalValue: (parseAmount(item.value) ?? 0) / 100,
      weightUOM: 'lb' as const,
      itemTotalWeight: gramsToPounds(item.weight_g),
      ...(item.hs_tariff_number ? { HSTariffNumber: item.hs_tariff_number } : {}),
      countryofOrigin: item.origin_country,
    })),
  };
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** The `POST /international-labels/v3/international-label` body (a PDF: the label and its customs pages). */
export function buildUspsIntlLabelRequest(p: { service: UspsIntlService; reference: string; from: Address; to: Address; parcel: Parcel; customs: Customs; options?: ShipmentOptions; mailingDate: string; imageType: 'PDF' | 'ZPL203DPI' }): UspsIntlLabelRequest {
  const d = uspsDimensions(p.parcel);
  const extras = uspsExtras(p.options, p.service.mailClass);
  const insurance = extras.codes.filter((c): c is 930 | 931 => c === 930 || c === 931);
  const country = p.to.country.trim().toUpperCase();
  const fromZip = splitZip(p.from.postcode);
  const line2 = (a: Address) => (a.line2?.trim() ? { secondaryAddress: a.line2.trim() } : {});
  const toPhone = uspsPhone(p.to.phone);
  const fromPhone = uspsPhone(p.from.phone);
  const province = addressState(p.to);
  return {
    imageInfo: { imageType: p.imageType, labelType: '4X6LABEL' },
    toAddress: {
      firm: p.to.name.trim(),
      streetAddress: p.to.line1.trim(),
      ...line2(p.to),
      city: p.to.city.trim(),
      ...(p.to.postcode.trim() ? { postalCode: p.to.postcode.trim() } : {}),
      ...(province ? { province } : {}),
      country: regionNames.of(country) ?? country,
      countryISOAlpha2Code: country,
      ...(toPhone ? { phone: toPhone } : {}),
    },
    fromAddress: {
      firm: p.from.name.trim(),
      streetAddress: p.from.line1.trim(),
      ...line2(p.from),
      city: p.from.city.trim(),
      state: (addressState(p.from) as string).toUpperCase(),
      ...fromZip,
      ...(fromPhone ? { phone: fromPhone } : {}),
      ...(p.from.email ? { email: p.from.email } : {}),
    },
    packageDescription: {
      mailClass: p.service.mailClass,
      rateIndicator: p.service.rateIndicator,
      weightUOM: 'lb',
      weight: d.weight,
      dimensionsUOM: 'in',
      length: d.length,
      width: d.width,
      height: d.height,
      processingCategory: processingCategory(d),
      destinationEntryFacilityType: 'NONE',
      mailingDate: p.mailingDate,
      packageOptions: {
        ...(extras.insuredDollars === undefined ? {} : { packageValue: extras.insuredDollars }),
        nonDeliveryOption: p.customs.non_delivery === 'abandon' ? 'ABANDON' : 'RETURN',
      },
      ...(p.reference.length <= 30 ? { customerReference: [{ referenceNumber: p.reference }] } : {}),
      ...(insurance.length ? { extraServices: insurance } : {}),
    },
    customsForm: toUspsCustomsForm(p.customs),
  };
}

/** An international label answer (`InternationalLabelVendorResponse`) in our terms; undefined when unreadable. */
export function parseUspsIntlLabelResponse(body: unknown): { trackingNumber: string; labelBase64: string; billedCents: number | null } | undefined {
  if (!isRecord(body)) return undefined;
  const trackingNumber = body.internationalTrackingNumber;
  const image = typeof body.labelImage === 'string' ? body.labelImage.replace(/\s+/g, '') : '';
  if (typeof trackingNumber !== 'string' || trackingNumber === '' || image === '') return undefined;
  let billedCents: number | null = null;
  if (typeof body.postage === 'number' && Number.isFinite(body.postage)) {
    billedCents = dollarsToCents(body.postage);
    for (const extra of Array.isArray(body.extraServices) ? body.extraServices : []) {
      if (isRecord(extra) && typeof extra.price === 'number' && Number.isFinite(extra.price)) billedCents += dollarsToCents(extra.price);
    }
  }
  return { trackingNumber, labelBase64: image, billedCents };
}

/** International tracking numbers are UPU S10: two letters, nine digits, `US`. */
export const USPS_S10 = /^[A-Z]{2}\d{9}US$/;
