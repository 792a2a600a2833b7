/** Money is an integer count of minor units inside the code; decimal strings only at the edges. */
export type Minor = number;

const DECIMAL = /^(0|[1-9]\d{0,12})(\.\d{1,2})?$/;

/** "12.30" → 1230. Returns null for anything that is not a non-negative amount with ≤ 2 places. */
export function parseAmount(text: string): Minor | null {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const [whole, frac = ''] = trimmed.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

/** 1230 → "12.30"; negative amounts keep their sign. */
export function formatAmount(minor: Minor): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export interface Price {
  net: Minor;
  vat: Minor;
  gross: Minor;
  currency: string;
}

/**
 * VAT rounded half-up to the minor unit, so gross = net + vat exactly. Worked in integers (the rate
 * in hundredths of a percent): in floating point a rate such as 9.2 % is not exact, and 8.75 at
 * 9.2 % (0.805) comes out 0.80 where half-up is 0.81.
 */
export function priceWithVat(net: Minor, vatRatePercent: number, currency: string): Price {
  const rateBp = Math.round(vatRatePercent * 100);
  const vat = Math.floor((net * rateBp + 5_000) / 10_000);
  return { net, vat, gross: net + vat, currency };
}

export function priceToJson(price: Price) {
  return {
    net: formatAmount(price.net),
    vat: formatAmount(price.vat),
    gross: formatAmount(price.gross),
    currency: price.currency,
  };
}

/** A money string as the contract writes it, exactly two places ("30" → "30.00"); text that is not an amount is kept trimmed. */
export function canonicalAmount(text: string): string {
  const minor = parseAmount(text);
  return minor === null ? text.trim() : formatAmount(minor);
}
