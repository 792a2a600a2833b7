import { parseAmount, type ShipmentOptions } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { dollarsToCents } from './mapping-rates.js';
import type { ExtraServiceRates } from './schemas/index.js';

type UspsExtraServiceRateQuery = ExtraServiceRates.ExtraServiceRateQuery;

/**
 * Our options as USPS extra services (domestic-prices and domestic-labels `extraServices`):
 * - `signature: required`: 921 Signature Confirmation; on Priority Mail Express, 981 Signature
 *   Requested (the document's code for that class);
 * - `signature: adult`: 922 Adult Signature Required 21 or Over;
 * - `declared_value`: insurance of that value, 930 up to $500 and 931 above (the document's split).
 * International mail takes insurance only (international-prices lists no signature service).
 * Saturday delivery is no extra service: Priority Mail Express delivers every day of the year, and
 * the documents sell no Saturday service for another class, so it is honoured by that class alone
 * and sends nothing.
 */
export type UspsExtraService = 921 | 922 | 930 | 931 | 981;

export const INSURANCE_SPLIT_CENTS = 50_000;

export interface UspsExtras {
  codes: UspsExtraService[];
  /** The insured value in dollars (`packageValue`, `itemValue`), when insurance is asked for. */
  insuredDollars?: number;
  /** A signature on delivery is asked for (domestic labels then say `physicalSignatureRequired`). */
  signature: boolean;
}

/** The extra services for these options on a mail class (`PRIORITY_MAIL_EXPRESS` picks 981). */
export function uspsExtras(options: ShipmentOptions | undefined, mailClass: string): UspsExtras {
  const codes: UspsExtraService[] = [];
  if (options?.signature === 'required') codes.push(mailClass.startsWith('PRIORITY_MAIL_EXPRESS') ? 981 : 921);
  if (options?.signature === 'adult') codes.push(922);
  let insuredDollars: number | undefined;
  if (options?.declared_value !== undefined) {
    const cents = parseAmount(options.declared_value) ?? 0;
    codes.push(cents > INSURANCE_SPLIT_CENTS ? 931 : 930);
    insuredDollars = cents / 100;
  }
  return { codes, signature: options?.signature !== undefined, ...(insuredDollars === undefined ? {} : { insuredDollars }) };
}

/**
 * The extra services' prices in cents from an extra-service price search: the domestic answer is
 * an array, the international one an object holding it. Undefined when a code asked for is missing
 * (USPS does not sell it for this piece) or the answer is not the promised shape.
 */
export function parseUspsExtraPrices(body: unknown, codes: readonly number[]): number | undefined {
  const list = Array.isArray(body) ? body : isRecord(body) && Array.isArray(body.extraServices) ? body.extraServices : undefined;
  if (!list) return undefined;
  let cents = 0;
  for (const code of codes) {
    const line = list.find((e: unknown) => isRecord(e) && String(e.extraService) === String(code));
    if (!isRecord(line) || typeof line.price !== 'number' || !Number.isFinite(line.price) || line.price < 0) return undefined;
    cents += dollarsToCents(line.price);
  }
  return cents;
}

/** The domestic extra-service price search for these options, or null when they ask for none. */
export function buildUspsExtraQuery(
  p: { mailClass: UspsExtraServiceRateQuery['mailClass']; originZIP: string; destinationZIP: string; weightLb: number; mailingDate?: string; accountNumber?: string },
  options: ShipmentOptions | undefined,
): UspsExtraServiceRateQuery | null {
  const extras = uspsExtras(options, p.mailClass);
  if (extras.codes.length === 0) return null;
  return {
    extraServices: extras.codes,
    mailClass: p.mailClass,
    priceType: 'COMMERCIAL',
    ...(extras.insuredDollars === undefined ? {} : { itemValue: extras.insuredDollars }),
    weight: p.weightLb,
    originZIPCode: p.originZIP,
    destinationZIPCode: p.destinationZIP,
    ...(p.mailingDate ? { mailingDate: p.mailingDate } : {}),
    ...(p.accountNumber ? { accountType: 'EPS' as const, accountNumber: p.accountNumber } : {}),
  };
}
