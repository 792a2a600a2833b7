import type { Address, Parcel } from '../../domain/index.js';
import { bandPrice, isInternational, type WeightBands } from '../rate-card.js';
import { digitsFromSeed } from '../tracking-digits.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';

// Rate cards in GBP minor units, by actual weight. International routes add a flat surcharge; the
// options add theirs (a signature, per started 100.00 declared, Saturday delivery on Express only).
const GROUND_BANDS: WeightBands = [
  [1_000, 495],
  [2_000, 595],
  [5_000, 795],
  [10_000, 1_095],
  [20_000, 1_595],
  [30_000, 2_195],
];
const GROUND_INTERNATIONAL_SURCHARGE = 1_200;

const EXPRESS_BANDS: WeightBands = [
  [1_000, 1_195],
  [2_000, 1_395],
  [5_000, 1_795],
  [10_000, 2_395],
  [20_000, 3_195],
];
const EXPRESS_INTERNATIONAL_SURCHARGE = 1_800;

function rateWith(bands: WeightBands, surcharge: number) {
  return (parcel: Parcel, from: Address, to: Address) => {
    const net = bandPrice(parcel.weight_g, bands);
    if (net === null) return null;
    return isInternational(from, to) ? net + surcharge : net;
  };
}

const services: ServiceDefinition[] = [
  {
    code: 'acme_ground',
    name: 'Acme Ground',
    bounds: { maxWeightG: 30_000, maxSideMm: 1_200 },
    estimatedDeliveryDays: 3,
    rate: rateWith(GROUND_BANDS, GROUND_INTERNATIONAL_SURCHARGE),
    options: { signature_required: 150, signature_adult: 350, declared_value_per_100: 100 },
  },
  {
    code: 'acme_express',
    name: 'Acme Express',
    bounds: { maxWeightG: 20_000, maxSideMm: 1_000 },
    estimatedDeliveryDays: 1,
    rate: rateWith(EXPRESS_BANDS, EXPRESS_INTERNATIONAL_SURCHARGE),
    options: { signature_required: 150, signature_adult: 350, declared_value_per_100: 100, saturday_delivery: 800 },
  },
];

const TRACKING_NUMBER = /^ACM\d{12}$/;

/** Acme Express: `ACM` followed by 12 digits. */
export const acmeDefinition: CarrierDefinition = {
  code: 'acme',
  name: 'Acme Express',
  services,
  // Acme answers scans when asked (pushes are accepted too); the platform draws its labels.
  pricing: 'rate_card',
  // It ships abroad with customs (the platform draws the commercial invoice) and makes return labels.
  capabilities: {
    void: 'cancel',
    labelFormats: [],
    tracking: 'poll',
    // POST /tracking takes up to 30 numbers: a worker's concurrent polls go together.
    trackingBatch: 30,
    scanForms: true,
    pickups: true,
    // The strictest of the real carriers' windows.
    pickupWindow: { aheadDays: 365, lengthHours: 24 },
    international: true,
    returns: true,
    customsPaperwork: 'platform_invoice',
  },
  rateLimitPerSecond: 20,
  trackingNumberFor: (seed) => `ACM${digitsFromSeed(`acme:${seed}`, 12)}`,
  isTrackingNumber: (value) => TRACKING_NUMBER.test(value),
};
