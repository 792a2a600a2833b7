import { digitsFromSeed } from '../tracking-digits.js';
import { sandboxCard } from '../sandbox/card.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';
import { USPS_SERVICES } from './services.js';
import { US_POSTAL_COUNTRIES } from '../address-verification.js';

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

// 70 lb for every class we sell (the DMM's mailable limit); length plus girth by class.
const services: ServiceDefinition[] = USPS_SERVICES.map((s) => ({
  code: s.code,
  name: s.name,
  bounds: { maxWeightG: 31_751, maxSideMm: 2_000, maxLengthPlusGirthMm: Math.floor(s.maxLengthPlusGirthIn * MM_PER_INCH) },
  estimatedDeliveryDays: DELIVERY_DAYS[s.code],
  // No rate card: USPS prices through its Domestic Prices API (the adapter's `rate`).
  rate: () => null,
  sandboxRate: sandboxCard(SANDBOX_CARD[s.code]),
}));

/** IMpb tracking numbers: 20 to 22 digits, starting 9 for the parcels we buy. */
const TRACKING_NUMBER = /^9\d{19,21}$/;

export const uspsDefinition: CarrierDefinition = {
  code: 'usps',
  name: 'USPS',
  services,
  pricing: 'carrier',
  // A cancel after the label is manifested is a refund request; USPS makes all four label files.
  capabilities: { void: 'refund_request', labelFormats: ['pdf', 'gif', 'png', 'zpl'], tracking: 'poll', scanForms: true, pickups: true, addressVerification: US_POSTAL_COUNTRIES },
  // USPS's default quota is 60 calls an hour: the queue's limit cannot go below one a second, so the
  // adapter's own Retry-After handling (client.ts) does the rest.
  rateLimitPerSecond: 1,
  // The sandbox's numbers: an IMpb shape under a service type of zeros, never a real label's.
  trackingNumberFor: (seed) => `9000${digitsFromSeed(`usps:${seed}`, 18)}`,
  isTrackingNumber: (value) => TRACKING_NUMBER.test(value),
};
