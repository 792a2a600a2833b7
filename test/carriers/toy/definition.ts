import { bandPrice, digitsFromSeed, isInternational, type CarrierDefinition, type WeightBands } from '../../../carriers/index.js';

// A toy carrier written from carriers/README.md alone, to prove the guide is enough.
const ECONOMY_BANDS: WeightBands = [
  [2_000, 410],
  [10_000, 720],
];

const TRACKING_NUMBER = /^TY\d{10}$/;

export const toyDefinition: CarrierDefinition = {
  code: 'toy',
  name: 'Toy Parcels',
  services: [
    {
      code: 'toy_economy',
      name: 'Toy Economy',
      bounds: { maxWeightG: 10_000, maxSideMm: 600, maxLengthPlusGirthMm: 1_800 },
      estimatedDeliveryDays: 4,
      // Domestic only, like a small regional courier.
      rate: (parcel, from, to) => (isInternational(from, to) ? null : bandPrice(parcel.weight_g, ECONOMY_BANDS)),
    },
  ],
  pricing: 'rate_card',
  capabilities: { void: 'cancel', labelFormats: [], tracking: 'poll' },
  rateLimitPerSecond: 2,
  trackingNumberFor: (seed) => `TY${digitsFromSeed(`toy:${seed}`, 10)}`,
  isTrackingNumber: (value) => TRACKING_NUMBER.test(value),
};
