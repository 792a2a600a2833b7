import type { Address, Parcel } from '../../domain/index.js';
import { bandPrice, isInternational, type WeightBands } from '../rate-card.js';
import { digitsFromSeed, luhnCheckDigit } from '../tracking-digits.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';

// Rate cards in GBP minor units, by actual weight.
const STANDARD_BANDS: WeightBands = [
  [1_000, 545],
  [2_000, 665],
  [5_000, 875],
  [10_000, 1_185],
  [25_000, 1_890],
];
const STANDARD_INTERNATIONAL_SURCHARGE = 950;

const NEXTDAY_BANDS: WeightBands = [
  [1_000, 990],
  [2_000, 1_240],
  [5_000, 1_590],
  [10_000, 2_090],
];

const services: ServiceDefinition[] = [
  {
    code: 'swiftpost_standard',
    name: 'SwiftPost Standard',
    bounds: { maxWeightG: 25_000, maxSideMm: 1_500, maxLengthPlusGirthMm: 3_000 },
    estimatedDeliveryDays: 2,
    rate: (parcel: Parcel, from: Address, to: Address) => {
      const net = bandPrice(parcel.weight_g, STANDARD_BANDS);
      if (net === null) return null;
      return isInternational(from, to) ? net + STANDARD_INTERNATIONAL_SURCHARGE : net;
    },
  },
  {
    code: 'swiftpost_nextday',
    name: 'SwiftPost Next Day',
    bounds: { maxWeightG: 10_000, maxSideMm: 800 },
    estimatedDeliveryDays: 1,
    // Next day is a domestic network product: no international route.
    rate: (parcel: Parcel, from: Address, to: Address) =>
      isInternational(from, to) ? null : bandPrice(parcel.weight_g, NEXTDAY_BANDS),
  },
];

// `SP`, an 11-digit serial, a Luhn check digit over the serial, `GB`: the check digit lets us
// reject a mistyped number without asking the carrier.
const TRACKING_NUMBER = /^SP(\d{11})(\d)GB$/;

/** SwiftPost: `SP` + 11 digits + check digit + `GB`, e.g. `SP123456789014GB`. */
export const swiftpostDefinition: CarrierDefinition = {
  code: 'swiftpost',
  name: 'SwiftPost',
  services,
  // SwiftPost lists events when asked (pushes are accepted too); the platform draws its labels.
  pricing: 'rate_card',
  capabilities: { void: 'cancel', labelFormats: [], tracking: 'poll' },
  rateLimitPerSecond: 10,
  trackingNumberFor: (seed) => {
    const serial = digitsFromSeed(`swiftpost:${seed}`, 11);
    return `SP${serial}${luhnCheckDigit(serial)}GB`;
  },
  isTrackingNumber: (value) => {
    const match = TRACKING_NUMBER.exec(value);
    return match !== null && luhnCheckDigit(match[1]) === match[2];
  },
};
