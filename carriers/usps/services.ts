import type { Parcel } from '../../domain/index.js';
import type { BaseRates } from './schemas/index.js';

/** The mail classes we sell, of those the domestic prices and labels documents list (`mailClass`). */
export const USPS_MAIL_CLASSES = ['USPS_GROUND_ADVANTAGE', 'PRIORITY_MAIL', 'PRIORITY_MAIL_EXPRESS'] as const satisfies readonly BaseRates.MailClass[];

/** The USPS mail classes we sell, as the contract lists them (Carriers: service codes). */
export type UspsMailClass = (typeof USPS_MAIL_CLASSES)[number];
export type UspsServiceCode = 'usps_ground_advantage' | 'usps_priority_mail' | 'usps_priority_mail_express';

export interface UspsService {
  code: UspsServiceCode;
  name: string;
  mailClass: UspsMailClass;
  /**
   * The rate indicator for a parcel in the customer's own packaging: `SP` (single piece) for Ground
   * Advantage and Priority Mail, `PA` (Priority Mail Express single piece) for Express. The same value
   * goes into the price search and the label, so the label charges the price quoted.
   */
  rateIndicator: 'SP' | 'PA';
  /** Largest length plus girth in inches (DMM 101/201 limits; the documents only link the DMM). */
  maxLengthPlusGirthIn: number;
}

/** Our service codes ↔ USPS mail classes: one table, read both ways. */
export const USPS_SERVICES: readonly UspsService[] = [
  { code: 'usps_ground_advantage', name: 'USPS Ground Advantage', mailClass: 'USPS_GROUND_ADVANTAGE', rateIndicator: 'SP', maxLengthPlusGirthIn: 130 },
  { code: 'usps_priority_mail', name: 'USPS Priority Mail', mailClass: 'PRIORITY_MAIL', rateIndicator: 'SP', maxLengthPlusGirthIn: 108 },
  { code: 'usps_priority_mail_express', name: 'USPS Priority Mail Express', mailClass: 'PRIORITY_MAIL_EXPRESS', rateIndicator: 'PA', maxLengthPlusGirthIn: 108 },
];

export function uspsServiceByCode(code: string): UspsService | undefined {
  return USPS_SERVICES.find((s) => s.code === code);
}

export function uspsServiceByMailClass(mailClass: string): UspsService | undefined {
  return USPS_SERVICES.find((s) => s.mailClass === mailClass);
}

// ---- Units ---------------------------------------------------------------------------------------

const GRAMS_PER_POUND = 453.59237; // exact, by the international yard and pound agreement
const MM_PER_INCH = 25.4; // exact

/**
 * Grams to pounds, rounded UP to the hundredth of a pound. Up, so we never declare less than the
 * parcel weighs (USPS would charge the difference as a postage adjustment). Every USPS price break
 * (4, 8, 12 ounces, whole pounds) is a whole number of hundredths of a pound, and ceil(x) > n only
 * when x > n, so the rounding never moves a parcel into the next band; it adds at most 4.5 g.
 */
export function gramsToPounds(grams: number): number {
  return ceilHundredths(grams / GRAMS_PER_POUND);
}

/** Millimetres to inches, rounded UP to the hundredth of an inch, for the same reason. */
export function millimetresToInches(mm: number): number {
  return ceilHundredths(mm / MM_PER_INCH);
}

function ceilHundredths(value: number): number {
  // The small tolerance keeps a product such as 2.0000000000000004 from becoming 2.01.
  return Math.ceil(value * 100 - 1e-9) / 100;
}

/** The parcel in USPS terms: pounds, and inches with length the longest side and width the second. */
export interface UspsDimensions {
  weight: number;
  length: number;
  width: number;
  height: number;
}

export function uspsDimensions(parcel: Parcel): UspsDimensions {
  const [length, width, height] = [parcel.length_mm, parcel.width_mm, parcel.height_mm].sort((a, b) => b - a).map(millimetresToInches);
  return { weight: gramsToPounds(parcel.weight_g), length, width, height };
}

/** Heaviest piece any of our mail classes takes: "Items must weigh 70 pounds (1120 ounces) or less." */
export const USPS_MAX_WEIGHT_LB = 70;

/**
 * DMM 201.7 machinable parcel: 6 × 3 × 0.25 in and 6 oz at least, 22 × 18 × 15 in and 25 lb at
 * most. Anything else is `NONSTANDARD` (the prices document's two parcel categories).
 */
export function processingCategory(d: UspsDimensions): 'MACHINABLE' | 'NONSTANDARD' {
  const machinable =
    d.length >= 6 && d.width >= 3 && d.height >= 0.25 && d.weight >= 6 / 16 &&
    d.length <= 22 && d.width <= 18 && d.height <= 15 && d.weight <= 25;
  return machinable ? 'MACHINABLE' : 'NONSTANDARD';
}

/**
 * Why USPS would refuse this parcel for this service, or null when it takes it. A quote leaves the
 * service out rather than spend one of the few calls an hour USPS allows on a certain refusal.
 */
export function uspsIneligibility(service: UspsService, d: UspsDimensions): string | null {
  if (d.weight > USPS_MAX_WEIGHT_LB) return `${service.name} takes at most ${USPS_MAX_WEIGHT_LB} lb`;
  const lengthPlusGirth = d.length + 2 * (d.width + d.height);
  if (lengthPlusGirth > service.maxLengthPlusGirthIn) return `${service.name} takes at most ${service.maxLengthPlusGirthIn} in of length plus girth`;
  return null;
}
