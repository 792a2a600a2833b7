import { digitsFromSeed } from '../tracking-digits.js';
import { sandboxCard } from '../sandbox/card.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';
import { USPS_SERVICES } from './services.js';
import { US_POSTAL_COUNTRIES } from '../address-verification.js';
import { USPS_INTERNATIONAL_SERVICES, USPS_S10 } from './mapping-international.js';
import type { CarrierSetting, OptionPrices } from '../../domain/index.js';

/** Days by the mail class's own service standard (the label states the exact commitment). */
const DELIVERY_DAYS: Record<(typeof USPS_SERVICES)[number]['code'], number> = {
  usps_ground_advantage: 5,
  usps_priority_mail: 3,
  usps_priority_mail_express: 1,
};

const MM_PER_INCH = 25.4;

/** Sandbox prices in US cents, on US domestic routes only (USPS sells no other here). */
const SANDBOX_CARD: Record<(typeof USPS_SERVICES)[number]['code'], Parameters<typeof sandboxCard>[0]> = {
  usps_ground_advantage: { base: 795, perKg: 120, currencies: { US: 'USD' } },
  usps_priority_mail: { base: 1_095, perKg: 200, currencies: { US: 'USD' } },
  usps_priority_mail_express: { base: 2_995, perKg: 350, currencies: { US: 'USD' } },
};

/**
 * The options each service honours (mapping-options.ts): USPS's price searches price them, so 0 here. Every
 * domestic class sells signature confirmation, adult signature and insurance; Saturday delivery is
 * Priority Mail Express's alone (it delivers every day; the documents sell no Saturday service).
 * International mail sells insurance only.
 */
const SIGNATURE_AND_INSURANCE: OptionPrices = { signature_required: 0, signature_adult: 0, declared_value_per_100: 0 };
const DOMESTIC_OPTIONS: Record<(typeof USPS_SERVICES)[number]['code'], OptionPrices> = {
  usps_ground_advantage: SIGNATURE_AND_INSURANCE,
  usps_priority_mail: SIGNATURE_AND_INSURANCE,
  usps_priority_mail_express: { ...SIGNATURE_AND_INSURANCE, saturday_delivery: 0 },
};

// 70 lb for every class we sell (the DMM's mailable limit); length plus girth by class.
const services: ServiceDefinition[] = USPS_SERVICES.map((s) => ({
  code: s.code,
  name: s.name,
  bounds: { maxWeightG: 31_751, maxSideMm: 2_000, maxLengthPlusGirthMm: Math.floor(s.maxLengthPlusGirthIn * MM_PER_INCH) },
  estimatedDeliveryDays: DELIVERY_DAYS[s.code],
  // No rate card: USPS prices through its Domestic Prices API (the adapter's `rate`).
  rate: () => null,
  sandboxRate: sandboxCard(SANDBOX_CARD[s.code]),
  options: DOMESTIC_OPTIONS[s.code],
}));

/** Days by the IMM's service standards: Express 3 to 5, Priority 6 to 10, First-Class Package varies. */
const INTERNATIONAL_DAYS: Record<(typeof USPS_INTERNATIONAL_SERVICES)[number]['code'], number> = {
  usps_priority_mail_international: 8,
  usps_priority_mail_express_international: 4,
  usps_first_class_package_international: 12,
};
const INTERNATIONAL_SANDBOX: Record<(typeof USPS_INTERNATIONAL_SERVICES)[number]['code'], { base: number; perKg: number }> = {
  usps_priority_mail_international: { base: 4_995, perKg: 900 },
  usps_priority_mail_express_international: { base: 6_995, perKg: 1_200 },
  usps_first_class_package_international: { base: 1_795, perKg: 1_500 },
};

for (const s of USPS_INTERNATIONAL_SERVICES) {
  const card = INTERNATIONAL_SANDBOX[s.code];
  services.push({
    code: s.code,
    name: s.name,
    bounds: { maxWeightG: Math.floor(s.maxWeightLb * 453.59237), maxSideMm: 1_524, maxLengthPlusGirthMm: Math.floor(s.maxLengthPlusGirthIn * MM_PER_INCH) },
    estimatedDeliveryDays: INTERNATIONAL_DAYS[s.code],
    rate: () => null,
    // Sandbox prices from the US to another country, in US dollars.
    sandboxRate: (parcel, from, to) =>
      from.country.toUpperCase() === 'US' && to.country.toUpperCase() !== 'US' && parcel.weight_g <= 30_000
        ? { net: card.base + card.perKg * Math.max(1, Math.ceil(parcel.weight_g / 1_000)), currency: 'USD' }
        : null,
    // Abroad USPS sells insurance only, and none on First-Class Package International (IMM 320).
    options: s.code === 'usps_first_class_package_international' ? {} : { declared_value_per_100: 0 },
  });
}

/** IMpb tracking numbers: 20 to 22 digits, starting 9 for the parcels we buy (S10 abroad). */
const TRACKING_NUMBER = /^9\d{19,21}$/;

export const uspsDefinition: CarrierDefinition = {
  code: 'usps',
  name: 'USPS',
  services,
  pricing: 'carrier',
  // A cancel after the label is manifested is a refund request; USPS makes all four label files.
  // International labels carry their CN22 or CN23 as further pages of the label (a PDF).
  capabilities: {
    void: 'refund_request',
    labelFormats: ['pdf', 'gif', 'png', 'zpl'],
    tracking: 'poll',
    scanForms: true,
    pickups: true,
    // carrier-pickup books a day, `pickupDate`, "up to one year in advance".
    pickupWindow: { aheadDays: 365, lengthHours: 24 },
    addressVerification: US_POSTAL_COUNTRIES,
    addressVerificationRank: 0,
    international: true,
    returns: true,
    customsPaperwork: 'in_label',
  },
  // USPS's default quota is 60 calls an hour: the queue's limit cannot go below one a second, so the
  // shared client's Retry-After handling and the hour's quota (client.ts) do the rest.
  rateLimitPerSecond: 1,
  // The sandbox's numbers: an IMpb shape under a service type of zeros, never a real label's.
  trackingNumberFor: (seed) => `9000${digitsFromSeed(`usps:${seed}`, 18)}`,
  isTrackingNumber: (value) => TRACKING_NUMBER.test(value) || USPS_S10.test(value),
};

/**
 * What USPS needs configured beside CARRIER_USPS_URL (https://apis.usps.com), with the values the
 * carrier simulator accepts, in the formats USPS's documents give.
 */
export const USPS_SETTINGS: readonly CarrierSetting[] = [
  { suffix: 'CLIENT_ID', secret: false, required: true, description: 'OAuth client id of the API application', simulatorValue: 'sim-usps-client-id' },
  { suffix: 'CLIENT_SECRET', secret: true, required: true, description: 'OAuth client secret of the API application', simulatorValue: 'sim-usps-client-secret' },
  // Digits, 2 to 18 characters.
  { suffix: 'CRID', secret: false, required: true, description: 'Customer Registration ID', simulatorValue: '56982563' },
  // Mailer IDs: 6 or 9 digits.
  { suffix: 'MID', secret: false, required: true, description: 'Mailer ID printed on labels', simulatorValue: '904128936' },
  { suffix: 'MANIFEST_MID', secret: false, required: true, description: 'Mailer ID of manifests (SCAN forms)', simulatorValue: '904128937' },
  // The EPS account postage is paid from: digits.
  { suffix: 'ACCOUNT_NUMBER', secret: false, required: true, description: 'the account labels are billed to', simulatorValue: '1000405525' },
  {
    suffix: 'PICKUP_EMAIL',
    secret: false,
    required: false,
    description: 'the e-mail USPS is given for a pickup of an account without a portal user (USPS requires one)',
    simulatorValue: 'shipping@example.com',
  },
  {
    suffix: 'CALLS_PER_HOUR',
    secret: false,
    required: false,
    description: "the USPS application's quota of calls an hour, tokens included (USPS's default 60; a whole number): no call is sent beyond it",
    // The simulator keeps no quota unless a test gives it one: the client's own budget stays out of the way.
    simulatorValue: '1000000',
  },
];
