import { PARCEL_LIMITS, type CarrierSetting } from '../../domain/index.js';
import { digitsFromSeed } from '../tracking-digits.js';
import { sandboxCard } from '../sandbox/card.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';
import { UPS_SERVICES } from './services.js';
import { US_POSTAL_COUNTRIES } from '../address-verification.js';
import { UPS_SERVICE_OPTIONS, upsReturnOptions } from './mapping-options.js';
import { TRACK_ALERT_LIFETIME_MS, TRACK_ALERT_PER_CALL } from './track-alert.js';

/** Working days door to door, as UPS names its services (Ground's is the longest domestic one). */
const DELIVERY_DAYS: Record<(typeof UPS_SERVICES)[number]['code'], number> = {
  ups_ground: 5,
  ups_next_day_air: 1,
  ups_2nd_day_air: 2,
  ups_3_day_select: 3,
  ups_standard: 3,
  ups_saver: 1,
  ups_express: 1,
  ups_expedited: 2,
};

/** Sandbox prices (minor units): US domestic services in USD, the others on GB routes in GBP, as the simulator offers them. */
const US = { US: 'USD' };
const GB = { GB: 'GBP' };
const SANDBOX_CARD: Record<(typeof UPS_SERVICES)[number]['code'], Parameters<typeof sandboxCard>[0]> = {
  ups_ground: { base: 1_095, perKg: 160, currencies: US },
  ups_next_day_air: { base: 5_400, perKg: 700, currencies: US },
  ups_2nd_day_air: { base: 2_900, perKg: 400, currencies: US },
  ups_3_day_select: { base: 2_100, perKg: 300, currencies: US },
  ups_standard: { base: 1_195, perKg: 180, currencies: GB },
  ups_saver: { base: 4_400, perKg: 600, currencies: GB },
  ups_express: { base: 5_700, perKg: 760, currencies: GB },
  ups_expedited: { base: 3_500, perKg: 440, currencies: GB },
};

// UPS takes packages up to 70 kg, 270 cm long and 330 cm length plus girth (Shipping document);
// our own parcel limits are tighter on weight and side, so they bound each service.
const services: ServiceDefinition[] = UPS_SERVICES.map((s) => ({
  code: s.code,
  name: s.name,
  bounds: { maxWeightG: PARCEL_LIMITS.maxWeightG, maxSideMm: PARCEL_LIMITS.maxSideMm, maxLengthPlusGirthMm: 3_300 },
  estimatedDeliveryDays: DELIVERY_DAYS[s.code],
  // No rate card: UPS prices through its Rating API (the adapter's `rate`).
  rate: () => null,
  sandboxRate: sandboxCard(SANDBOX_CARD[s.code]),
  options: UPS_SERVICE_OPTIONS[s.code],
  returnOptions: upsReturnOptions(UPS_SERVICE_OPTIONS[s.code]!),
}));

/** `1Z`, the six-character shipper account, the two-digit service, seven digits and a check digit. */
const TRACKING_NUMBER = /^1Z[0-9A-Z]{6}\d{10}$/;

export const upsDefinition: CarrierDefinition = {
  code: 'ups',
  name: 'UPS',
  services,
  pricing: 'carrier',
  // Void cancels a label outright; UPS makes GIF (for the PDFs) and ZPL labels; scans are polled.
  // Abroad (07, 08, 11, 65 across borders) with UPS's own commercial invoice, and return labels.
  capabilities: {
    void: 'cancel',
    labelFormats: ['gif', 'zpl'],
    tracking: 'poll',
    pickups: true,
    // Pickup Creation books one day's ready and close times (`PickupDate`, `ReadyTime`, `CloseTime`)
    // and names no limit ahead, so USPS's year holds for it too rather than none.
    pickupWindow: { aheadDays: 365, lengthHours: 24 },
    addressVerification: US_POSTAL_COUNTRIES,
    // Asked when USPS, the postal service whose register US addresses are, is not enabled or does not answer.
    addressVerificationRank: 1,
    international: true,
    returns: true,
    customsPaperwork: 'carrier_invoice',
    // Track Alert: each package subscribed at the start of its tracking; polls are the safety net.
    trackingSubscription: { lifetimeMs: TRACK_ALERT_LIFETIME_MS, perCall: TRACK_ALERT_PER_CALL },
  },
  rateLimitPerSecond: 5,
  // The sandbox's numbers: a shipper account of zeros, so they can never be a real UPS label's.
  trackingNumberFor: (seed) => `1Z000000${digitsFromSeed(`ups:${seed}`, 10)}`,
  isTrackingNumber: (value) => TRACKING_NUMBER.test(value),
};

/**
 * What UPS needs configured beside CARRIER_UPS_URL (an origin such as https://onlinetools.ups.com),
 * with the values the carrier simulator accepts, in the formats UPS's documents give.
 */
export const UPS_SETTINGS: readonly CarrierSetting[] = [
  { suffix: 'CLIENT_ID', secret: false, required: true, description: 'OAuth client id of the API application', simulatorValue: 'sim-ups-client-id' },
  { suffix: 'CLIENT_SECRET', secret: true, required: true, description: 'OAuth client secret of the API application', simulatorValue: 'sim-ups-client-secret' },
  // `Shipper.ShipperNumber`: six characters.
  { suffix: 'ACCOUNT_NUMBER', secret: false, required: true, description: 'the account labels are billed to', simulatorValue: 'A1B2C3' },
  {
    suffix: 'PICKUP_PHONE',
    secret: false,
    required: false,
    description: 'the phone number UPS is given for a pickup when the request names none (UPS requires one)',
    simulatorValue: '+1 555 0100',
  },
];
