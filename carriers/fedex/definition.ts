import type { CarrierSetting, OptionPrices } from '../../domain/index.js';
import { digitsFromSeed } from '../tracking-digits.js';
import { sandboxCard } from '../sandbox/card.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';
import { FEDEX_SERVICES, type FedexServiceCode } from './services.js';
import { FEDEX_LIMITS } from './limits.js';
import { FEDEX_TRACK_MAX } from './mapping-tracking.js';

/** Working days door to door, as FedEx names its services (Ground's and Economy's are the longest). */
const DELIVERY_DAYS: Record<FedexServiceCode, number> = {
  fedex_ground: 5,
  fedex_home_delivery: 5,
  fedex_express_saver: 3,
  fedex_2day: 2,
  fedex_standard_overnight: 1,
  fedex_priority_overnight: 1,
  fedex_international_priority: 3,
  fedex_international_economy: 5,
};

/** Sandbox prices (minor units), US domestic services in USD; the international ones have no sandbox card. */
const US = { US: 'USD' };
const SANDBOX_CARD: Partial<Record<FedexServiceCode, Parameters<typeof sandboxCard>[0]>> = {
  fedex_ground: { base: 1_050, perKg: 150, currencies: US },
  fedex_home_delivery: { base: 1_150, perKg: 150, currencies: US },
  fedex_express_saver: { base: 2_200, perKg: 320, currencies: US },
  fedex_2day: { base: 2_800, perKg: 390, currencies: US },
  fedex_standard_overnight: { base: 4_900, perKg: 640, currencies: US },
  fedex_priority_overnight: { base: 5_600, perKg: 720, currencies: US },
};

/**
 * FedEx's options (Ship and Rate `packageSpecialServices` and `shipmentSpecialServices`): a signature
 * (`signatureOptionType` DIRECT or ADULT), a declared value, and Saturday delivery, which FedEx
 * offers on 2Day, Priority Overnight and International Priority only. FedEx's Rate answer prices
 * them, so each is 0 here.
 */
const EVERY_SERVICE: OptionPrices = { signature_required: 0, signature_adult: 0, declared_value_per_100: 0 };
const WITH_SATURDAY: OptionPrices = { ...EVERY_SERVICE, saturday_delivery: 0 };
const SATURDAY_SERVICES: ReadonlySet<FedexServiceCode> = new Set(['fedex_2day', 'fedex_priority_overnight', 'fedex_international_priority']);

// FedEx takes packages up to 150 lb, 108 in long and 165 in length plus girth (its service guide's
// figures, which the documents leave to it); our own parcel limits bound the sides more tightly.
const services: ServiceDefinition[] = FEDEX_SERVICES.map((s) => {
  const card = SANDBOX_CARD[s.code];
  return {
    code: s.code,
    name: s.name,
    bounds: { maxWeightG: FEDEX_LIMITS.maxWeightG, maxSideMm: 2_000, maxLengthPlusGirthMm: FEDEX_LIMITS.maxLengthPlusGirthMm },
    estimatedDeliveryDays: DELIVERY_DAYS[s.code],
    // No rate card: FedEx prices through its Rates and Transit Times API (the adapter's `rate`).
    rate: () => null,
    ...(card ? { sandboxRate: sandboxCard(card) } : {}),
    options: SATURDAY_SERVICES.has(s.code) ? WITH_SATURDAY : EVERY_SERVICE,
  };
});

/** FedEx Express and Ground numbers: 12 digits (15 for some Ground labels). */
const TRACKING_NUMBER = /^(\d{12}|\d{15})$/;

export const fedexDefinition: CarrierDefinition = {
  code: 'fedex',
  name: 'FedEx',
  services,
  pricing: 'carrier',
  // Void cancels a shipment not yet tendered; FedEx makes its label as a PNG (the PDFs come from it)
  // and the ZPL is that image for thermal printers (adapter.ts says why); scans are polled. Abroad
  // with FedEx's own commercial invoice, return labels, pickups.
  capabilities: {
    void: 'cancel',
    labelFormats: ['png', 'zpl'],
    tracking: 'poll',
    // trackingnumbers takes up to 30 numbers: a worker's concurrent polls go together.
    trackingBatch: FEDEX_TRACK_MAX,
    pickups: true,
    international: true,
    returns: true,
    customsPaperwork: 'carrier_invoice',
  },
  rateLimitPerSecond: 10,
  // The sandbox's numbers begin with two zeros, which no FedEx label of this platform's simulator has.
  trackingNumberFor: (seed) => `00${digitsFromSeed(`fedex:${seed}`, 10)}`,
  isTrackingNumber: (value) => TRACKING_NUMBER.test(value),
};

/**
 * What FedEx needs configured beside CARRIER_FEDEX_URL (an origin such as https://apis.fedex.com),
 * with the values the carrier simulator accepts.
 */
export const FEDEX_SETTINGS: readonly CarrierSetting[] = [
  { suffix: 'CLIENT_ID', secret: false, required: true, description: 'OAuth client id (API key) of the FedEx project', simulatorValue: 'sim-fedex-client-id' },
  { suffix: 'CLIENT_SECRET', secret: true, required: true, description: 'OAuth client secret (secret key) of the FedEx project', simulatorValue: 'sim-fedex-client-secret' },
  // The shipper account: nine digits.
  { suffix: 'ACCOUNT_NUMBER', secret: false, required: true, description: 'the FedEx account labels and pickups are billed to', simulatorValue: '740561073' },
];
