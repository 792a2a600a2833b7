import { PARCEL_LIMITS, type CarrierSetting } from '../../domain/index.js';
import { digitsFromSeed } from '../tracking-digits.js';
import { sandboxCard } from '../sandbox/card.js';
import type { CarrierDefinition, ServiceDefinition } from '../types.js';
import { DHL_EXPRESS_SERVICES, type DhlExpressServiceCode } from './services.js';

/** Working days door to door, as DHL names its products (Economy Select is its day-definite road service). */
const DELIVERY_DAYS: Record<DhlExpressServiceCode, number> = {
  dhl_express_worldwide: 2,
  dhl_express_economy_select: 4,
  dhl_express_12: 1,
  dhl_express_9: 1,
  dhl_express_domestic: 1,
};

/**
 * Sandbox prices (minor units), never DHL's: the sandbox card prices domestic routes only, so the
 * domestic product has GB and DE prices and the international ones none (a sandbox key quotes them
 * nowhere, as it quotes no other carrier's service across a border).
 */
const SANDBOX_CARD: Record<DhlExpressServiceCode, Parameters<typeof sandboxCard>[0]> = {
  dhl_express_worldwide: { base: 2_400, perKg: 350, currencies: {} },
  dhl_express_economy_select: { base: 1_800, perKg: 250, currencies: {} },
  dhl_express_12: { base: 3_600, perKg: 420, currencies: {} },
  dhl_express_9: { base: 5_200, perKg: 560, currencies: {} },
  dhl_express_domestic: { base: 1_450, perKg: 190, currencies: { GB: 'GBP', DE: 'EUR' } },
};

// DHL Express takes pieces up to 70 kg and 120 × 80 × 80 cm without a pallet (its shipping
// guide's non-conveyable limits): our own parcel limits bound the weight, its longest side the rest.
const services: ServiceDefinition[] = DHL_EXPRESS_SERVICES.map((s) => ({
  code: s.code,
  name: s.name,
  bounds: { maxWeightG: PARCEL_LIMITS.maxWeightG, maxSideMm: 1_200 },
  estimatedDeliveryDays: DELIVERY_DAYS[s.code],
  // No rate card: DHL prices through its rates operation (the adapter's `rate`).
  rate: () => null,
  sandboxRate: sandboxCard(SANDBOX_CARD[s.code]),
  // Shipment insurance (DHL's value-added service II) of the declared value, priced by DHL's rates.
  options: { declared_value_per_100: 0 },
}));

/**
 * A waybill is ten digits whose last is the first nine modulo 7, so it is never 7, 8 or 9. The
 * sandbox's numbers end in one of those: they can never be a real DHL waybill.
 */
const WAYBILL = /^\d{10}$/;

export function dhlCheckDigit(nineDigits: string): string {
  return String(Number(nineDigits) % 7);
}

export const dhlExpressDefinition: CarrierDefinition = {
  code: 'dhl_express',
  name: 'DHL Express',
  services,
  pricing: 'carrier',
  // DHL Express has no cancel operation and bills only the shipments it scans: a void of an
  // unscanned label is ours alone (contract: Carriers). DHL makes PDF labels (its 4 × 8 in label,
  // fitted onto our page; the ZPL is drawn from it) and its invoice as a separate document.
  capabilities: {
    void: 'none',
    labelFormats: ['pdf', 'zpl'],
    tracking: 'poll',
    pickups: true,
    // A pickup is planned for one day, at most ten days ahead (the document's rule for planned dates).
    pickupWindow: { aheadDays: 10, lengthHours: 24 },
    international: true,
    customsPaperwork: 'carrier_invoice',
  },
  // MyDHL API publishes no per-second quota; a low rate keeps well inside the daily allowances
  // its portal grants to an application.
  rateLimitPerSecond: 5,
  trackingNumberFor: (seed) => {
    const digits = digitsFromSeed(`dhl_express:${seed}`, 10);
    return `${digits.slice(0, 9)}${7 + (Number(digits[9]) % 3)}`;
  },
  isTrackingNumber: (value) => WAYBILL.test(value),
};

/**
 * What DHL Express needs configured beside CARRIER_DHL_EXPRESS_URL (the document's server URL, such
 * as https://express.api.dhl.com/mydhlapi), with the values the carrier simulator accepts.
 */
export const DHL_EXPRESS_SETTINGS: readonly CarrierSetting[] = [
  { suffix: 'API_KEY', secret: false, required: true, description: 'the MyDHL API key (the HTTP Basic user name)', simulatorValue: 'sim-dhl-api-key' },
  { suffix: 'API_SECRET', secret: true, required: true, description: 'the MyDHL API secret (the HTTP Basic password)', simulatorValue: 'sim-dhl-api-secret' },
  // DHL Express account numbers are nine digits.
  { suffix: 'ACCOUNT_NUMBER', secret: false, required: true, description: 'the DHL Express account shipments and pickups are billed to', simulatorValue: '123456789' },
];
