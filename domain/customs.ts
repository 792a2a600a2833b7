import type { FieldError } from './errors.js';
import { canonicalAmount, parseAmount } from './money.js';
import type { Parcel } from './parcel.js';

/** The contract's customs declaration (International, returns, address checks, options → Customs). */
export const CONTENTS_TYPES = ['merchandise', 'gift', 'documents', 'sample', 'returned_goods', 'other'] as const;
export const NON_DELIVERY = ['return', 'abandon'] as const;
export const INCOTERMS = ['DDU', 'DDP'] as const;
export const TAX_ID_TYPES = ['eori', 'vat', 'ioss', 'ein', 'other'] as const;
export const TAX_ID_OWNERS = ['sender', 'recipient'] as const;
export const CUSTOMS_LIMITS = {
  maxItems: 30,
  maxDescription: 35,
  maxSigner: 35,
  maxExplanation: 25,
  /** An HS tariff number: 6 to 10 digits. */
  hsPattern: '^[0-9]{6,10}$',
} as const;

export type ContentsType = (typeof CONTENTS_TYPES)[number];

export interface TaxId {
  type: (typeof TAX_ID_TYPES)[number];
  number: string;
  owner: (typeof TAX_ID_OWNERS)[number];
}

export interface CustomsItem {
  description: string;
  quantity: number;
  /** The line's total value, a money string in the declaration's currency. */
  value: string;
  /** The line's total weight. */
  weight_g: number;
  hs_tariff_number?: string;
  origin_country: string;
  sku?: string;
}

/** A declaration as the shipment keeps and answers it: defaults filled, strings trimmed. */
export interface Customs {
  contents_type: ContentsType;
  contents_explanation: string | null;
  non_delivery: (typeof NON_DELIVERY)[number];
  incoterm: (typeof INCOTERMS)[number];
  signer: string;
  eel_pfc?: string;
  tax_ids?: TaxId[];
  invoice_number?: string;
  currency: string;
  items: CustomsItem[];
}

/** A declaration as a request may send it: the defaulted fields optional. */
export type CustomsInput = Omit<Customs, 'contents_explanation' | 'non_delivery' | 'incoterm' | 'currency'> & {
  contents_explanation?: string | null;
  non_delivery?: Customs['non_delivery'];
  incoterm?: Customs['incoterm'];
  currency?: string;
};

const trimmed = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v.trim() : v])) as T;

/** The declaration with the contract's defaults: returned if undeliverable, DDU, the account's currency. */
export function normalizeCustoms(input: CustomsInput, accountCurrency: string): Customs {
  const explanation = input.contents_explanation?.trim();
  const customs: Customs = {
    contents_type: input.contents_type,
    contents_explanation: explanation ? explanation : null,
    non_delivery: input.non_delivery ?? 'return',
    incoterm: input.incoterm ?? 'DDU',
    signer: input.signer.trim(),
    currency: (input.currency?.trim() || accountCurrency).toUpperCase(),
    items: input.items.map((item) => {
      const line: CustomsItem = trimmed(item);
      return { ...line, value: canonicalAmount(line.value), origin_country: line.origin_country.toUpperCase() };
    }),
  };
  if (input.eel_pfc?.trim()) customs.eel_pfc = input.eel_pfc.trim();
  if (input.invoice_number?.trim()) customs.invoice_number = input.invoice_number.trim();
  if (input.tax_ids?.length) customs.tax_ids = input.tax_ids.map((id) => trimmed(id));
  return customs;
}

/** Whether a parcel crosses a border: then a purchase needs customs, and only then may it carry them. */
export function crossesBorder(from: { country: string }, to: { country: string }): boolean {
  return from.country.toUpperCase() !== to.country.toUpperCase();
}

/**
 * What the schema cannot say about a purchase's or a quote's customs: a purchase across a border
 * needs them and a domestic one may not carry them (a quote needs none); `other` needs its
 * explanation; each value is more than zero; the lines weigh no more than the parcel.
 */
export function customsProblems(p: { customs: CustomsInput | undefined; from: { country: string }; to: { country: string }; parcel: Parcel; purchase: boolean }): FieldError[] {
  const international = crossesBorder(p.from, p.to);
  const { customs } = p;
  if (!customs) {
    return p.purchase && international ? [{ path: 'customs', message: 'is required when from.country and to.country differ' }] : [];
  }
  if (!international) return [{ path: 'customs', message: 'must be left out when from.country and to.country are the same' }];
  const errors: FieldError[] = [];
  if (customs.contents_type === 'other' && !customs.contents_explanation?.trim()) {
    errors.push({ path: 'customs.contents_explanation', message: 'is required when contents_type is other' });
  }
  customs.items.forEach((item, i) => {
    const value = parseAmount(item.value);
    if (value === null || value <= 0) errors.push({ path: `customs.items[${i}].value`, message: 'must be an amount with at most two decimal places, more than zero' });
  });
  const weight = customs.items.reduce((sum, item) => sum + item.weight_g, 0);
  if (weight > p.parcel.weight_g) {
    errors.push({ path: 'customs.items', message: `the lines weigh ${weight} g together, more than the parcel's weight_g of ${p.parcel.weight_g}` });
  }
  return errors;
}
