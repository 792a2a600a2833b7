import type { AddressRow } from '../../db/index.js';
import { ApiError, CODE, CUSTOMS_LIMITS } from '../../domain/index.js';
import { fieldErrors } from '../problem.js';
import { PurchaseRequestSchema, QuoteRequestSchema } from '../schemas-shipment.js';
import { createValidatorCompiler } from '../validation.js';
import { ADDRESS_KEYS, readAddress } from './address-fields.js';
import type { FieldOf } from './fields.js';
import { field, type Form } from './forms.js';

/**
 * The new-shipment form read into the API's own bodies (`POST /quotes`, `POST /shipments`) and
 * checked by the API's own schemas; the API's answers are then mapped back to the form's fields.
 *
 * The form holds your address (one of the address book's, `book`) and the customer's (`cust.…`).
 * Outbound, the parcel goes from your address to the customer; a return label (`is_return`) comes
 * from the customer back to you, so the two swap sides in the body, as the contract's `from` and
 * `to` of a return say. Every other field is named by its path in the body (`parcel.weight_g`,
 * `customs.items.0.value`), so an error's path is its field's name.
 */

export const isReturnForm = (form: Form | undefined) => field(form, 'is_return') === '1';

/** Which side of the body each address of the form is. */
export function sides(form: Form | undefined): { cust: 'from' | 'to'; book: 'from' | 'to' } {
  return isReturnForm(form) ? { cust: 'from', book: 'to' } : { cust: 'to', book: 'from' };
}

/** A saved address as a body's address: its fields, the empty ones left out. */
export function bookAddress(row: AddressRow): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ADDRESS_KEYS) {
    const value = row[key];
    if (value) out[key] = value;
  }
  return out;
}

/** Whether the two addresses are in different countries: the declaration is then needed. */
export function crossesBorder(form: Form | undefined, book: AddressRow | undefined): boolean {
  const country = field(form, 'cust.country').trim().toUpperCase();
  return Boolean(book && country && country !== book.country);
}

/** How many customs lines the form shows: what it says, and at least as many as hold something. */
export function lineCount(form: Form | undefined): number {
  let n = Math.min(Math.max(Number.parseInt(field(form, 'lines'), 10) || 1, 1), CUSTOMS_LIMITS.maxItems);
  for (let i = n; i < CUSTOMS_LIMITS.maxItems; i++) if (lineFilled(form, i)) n = i + 1;
  return n;
}

const LINE_KEYS = ['description', 'quantity', 'value', 'weight_g', 'hs_tariff_number', 'origin_country', 'sku'] as const;
const lineFilled = (form: Form | undefined, i: number) => LINE_KEYS.some((k) => field(form, `customs.items.${i}.${k}`).trim() !== '');

/** A whole number as a number; anything else as typed, for the schema to refuse ("must be integer"). */
function integer(text: string): number | string {
  return /^\d{1,15}$/.test(text) ? Number(text) : text;
}

/** Text fields that are left out when empty. */
function optional(form: Form | undefined, names: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, name] of Object.entries(names)) {
    const value = field(form, name).trim();
    if (value) out[key] = value;
  }
  return out;
}

function parcelOf(form: Form | undefined): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const key of ['weight_g', 'length_mm', 'width_mm', 'height_mm']) {
    const value = field(form, `parcel.${key}`).trim();
    if (value) out[key] = integer(value);
  }
  return out;
}

function optionsOf(form: Form | undefined): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = optional(form, { signature: 'options.signature', declared_value: 'options.declared_value' });
  if (field(form, 'options.saturday_delivery') === '1') out.saturday_delivery = true;
  return Object.keys(out).length ? out : undefined;
}

function customsOf(form: Form | undefined): Record<string, unknown> {
  const items = [];
  for (let i = 0; i < lineCount(form); i++) {
    if (!lineFilled(form, i)) continue;
    const at = (k: string) => field(form, `customs.items.${i}.${k}`).trim();
    items.push({
      description: at('description'),
      quantity: integer(at('quantity')),
      value: at('value'),
      weight_g: integer(at('weight_g')),
      origin_country: at('origin_country').toUpperCase(),
      ...optional(form, { hs_tariff_number: `customs.items.${i}.hs_tariff_number`, sku: `customs.items.${i}.sku` }),
    });
  }
  const taxId = optional(form, { type: 'customs.tax_ids.0.type', number: 'customs.tax_ids.0.number', owner: 'customs.tax_ids.0.owner' });
  return {
    contents_type: field(form, 'customs.contents_type') || 'merchandise',
    ...optional(form, {
      contents_explanation: 'customs.contents_explanation',
      non_delivery: 'customs.non_delivery',
      incoterm: 'customs.incoterm',
      eel_pfc: 'customs.eel_pfc',
      invoice_number: 'customs.invoice_number',
      currency: 'customs.currency',
    }),
    signer: field(form, 'customs.signer').trim(),
    ...(taxId.number ? { tax_ids: [taxId] } : {}),
    items,
  };
}

/**
 * The body of `POST /quotes` (kind `quote`: no service, and no customs, which a quote does not need)
 * or of `POST /shipments` (`purchase`: the chosen service, and customs across a border).
 */
export function shipmentBody(form: Form | undefined, book: AddressRow | undefined, kind: 'quote' | 'purchase'): Record<string, unknown> {
  const side = sides(form);
  const options = optionsOf(form);
  const reference = field(form, 'reference').trim();
  return {
    ...(kind === 'purchase' ? { service: field(form, 'service') } : {}),
    [side.book]: book ? bookAddress(book) : {},
    [side.cust]: readAddress(form, 'cust'),
    parcel: parcelOf(form),
    ...(kind === 'purchase' && reference ? { reference } : {}),
    ...(isReturnForm(form) ? { is_return: true } : {}),
    ...(options ? { options } : {}),
    ...(kind === 'purchase' && crossesBorder(form, book) ? { customs: customsOf(form) } : {}),
  };
}

const compile = createValidatorCompiler();
const validators = {
  quote: compile({ schema: QuoteRequestSchema, method: 'POST', url: '/quotes', httpPart: 'body' }),
  purchase: compile({ schema: PurchaseRequestSchema, method: 'POST', url: '/shipments', httpPart: 'body' }),
};

/** The body checked by the API's schema: its refusal as the API words it (422 with every field), or none. */
export function bodyRefusal(body: Record<string, unknown>, kind: 'quote' | 'purchase'): ApiError | null {
  const validate = validators[kind];
  if (validate(body)) return null;
  const errors = fieldErrors((validate as unknown as { errors: never[] }).errors ?? [], 'body', body);
  return new ApiError(CODE.validation_failed, 'The form has invalid fields.', { errors });
}

/**
 * Where an error of the body shows on the form: the customer's address at its field, your address
 * (from the book, not typed here) at the address choice, naming its field.
 */
export function deskFieldOf(form: Form | undefined): FieldOf {
  const side = sides(form);
  return (path, message) => {
    const [head, ...rest] = path.split('.');
    const tail = rest.join('.');
    if (head === side.cust) return { field: tail ? `cust.${tail}` : 'cust.name', message };
    if (head === side.book) return { field: 'book', message: `${tail || 'the address'} ${message}; edit it in the address book` };
    if (path === 'service' && !field(form, 'service')) return { field: 'service', message: 'choose one of the rates' };
    return { field: path || null, message };
  };
}

/** A field path named in a carrier's refusal text (`to.phone is required`), as the form names it. */
export function pathInMessage(message: string): string | null {
  const found = /\b((?:from|to|parcel|customs|options)(?:\.[a-z_]+|\[\d+\])+)/.exec(message);
  return found ? found[1] : null;
}
