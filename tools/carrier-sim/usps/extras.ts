import type { UspsDesk, UspsReply } from './desk.js';
import { round2 } from './http-io.js';

/**
 * The USPS simulator's extra services: the price searches of domestic-prices and
 * international-prices, and the prices a label charges for the ones it carries (one formula, so a
 * label charges what its quote said).
 */

const NAMES: Record<number, string> = {
  921: 'Signature Confirmation',
  922: 'Adult Signature Required 21 or Over',
  930: 'Insurance <= $500',
  931: 'Insurance > $500',
  981: 'Signature Requested (PRIORITY_MAIL_EXPRESS only)',
};

const isExpress = (mailClass: string) => mailClass.startsWith('PRIORITY_MAIL_EXPRESS');
const isInternational = (mailClass: string) => mailClass.endsWith('INTERNATIONAL') || mailClass.endsWith('INTERNATIONAL_SERVICE');

/**
 * An extra service's price in dollars for a mail class, or undefined when USPS does not sell it
 * there: abroad only insurance (and none on First-Class Package International); 981 on Priority
 * Mail Express alone, 921 on every other domestic class; 930 up to $500 of value, 931 above.
 */
export function simExtraPrice(code: number, mailClass: string, valueDollars: number | undefined): number | undefined {
  const abroad = isInternational(mailClass);
  if (code === 930 || code === 931) {
    if (valueDollars === undefined || (code === 930) !== valueDollars <= 500) return undefined;
    if (abroad && mailClass.startsWith('FIRST-CLASS')) return undefined;
    const hundreds = Math.ceil(Math.max(0, valueDollars - 100) / 100);
    return round2((abroad ? 4.1 : 2.85) + hundreds * (abroad ? 1.75 : 1.45));
  }
  if (abroad) return undefined;
  if (code === 981) return isExpress(mailClass) ? 0 : undefined;
  if (code === 921) return isExpress(mailClass) ? undefined : 4.4;
  if (code === 922) return 10.2;
  return undefined;
}

/** The priced extra services of a label, or the first code USPS would refuse. */
export function simLabelExtras(codes: readonly number[] | undefined, mailClass: string, valueDollars: number | undefined): { extras: Array<{ code: number; price: number }> } | { refused: number } {
  const extras: Array<{ code: number; price: number }> = [];
  for (const code of codes ?? []) {
    const price = simExtraPrice(code, mailClass, valueDollars);
    if (price === undefined) return { refused: code };
    extras.push({ code, price });
  }
  return { extras };
}

export const simExtraName = (code: number) => NAMES[code] ?? String(code);

/**
 * `POST /prices/v3/extra-service-rates/search` (an array answer) and
 * `POST /international-prices/v3/extra-service-rates/search` (an object holding it). A code not
 * sold for the class is left out of the answer, as the search finds no rate for it.
 */
export function extraRates(desk: UspsDesk, body: unknown, international: boolean): UspsReply {
  const q = body as { extraServices: number[]; mailClass: string; priceType: string; itemValue?: number | string };
  const value = q.itemValue === undefined ? undefined : Number(q.itemValue);
  const lines = q.extraServices.flatMap((code) => {
    const price = simExtraPrice(code, q.mailClass, value);
    if (price === undefined) return [];
    const sku = `DX${international ? 'I' : 'D'}${code}00000`;
    return [international ? { extraService: code, SKU: sku, priceType: q.priceType, price } : { extraService: String(code), name: simExtraName(code), SKU: sku, priceType: q.priceType, price }];
  });
  return international
    ? desk.reply(200, { extraServices: lines })
    : desk.reply(200, lines);
}
