import type { FastifyBaseLogger } from 'fastify';
import type { AddressRow } from '../../db/index.js';
import { ApiError, CODE, type Address } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { fieldErrors } from '../problem.js';
import { verifyAddress } from '../routes/address-verify.js';
import { AddressSchema, type AddressInput } from '../schemas.js';
import { createValidatorCompiler } from '../validation.js';
import { field, type Form } from './forms.js';
import { html, type Html } from './html.js';
import { input, Problems } from './fields.js';

/**
 * An address as a form holds it: one input per field of the contract's address, named
 * `<prefix>.<field>` (`cust.postcode`), read into the API's address body and checked by the API's own
 * schema, so the form says what the API would say, beside the field that caused it.
 */

type Key = 'name' | 'company' | 'line1' | 'line2' | 'city' | 'state' | 'postcode' | 'country' | 'phone' | 'email';

const FIELDS: Array<{ key: Key; label: string; required?: true; autocomplete: string; hint?: string; type?: 'email' | 'tel'; short?: true; maxlength?: number }> = [
  { key: 'name', label: 'Name', required: true, autocomplete: 'name' },
  { key: 'company', label: 'Company', autocomplete: 'organization' },
  { key: 'line1', label: 'Address line 1', required: true, autocomplete: 'address-line1' },
  { key: 'line2', label: 'Address line 2', autocomplete: 'address-line2' },
  { key: 'city', label: 'Town or city', required: true, autocomplete: 'address-level2' },
  { key: 'state', label: 'State or province', autocomplete: 'address-level1', hint: 'Needed in the US and Canada: the code, such as NY or ON.', short: true, maxlength: 3 },
  { key: 'postcode', label: 'Postcode or ZIP', required: true, autocomplete: 'postal-code', short: true },
  { key: 'country', label: 'Country', required: true, autocomplete: 'country', hint: 'Two letters, such as GB, US or FR.', short: true, maxlength: 2 },
  { key: 'phone', label: 'Phone', autocomplete: 'tel', type: 'tel', hint: 'Some carriers need one abroad.' },
  { key: 'email', label: 'Email', autocomplete: 'email', type: 'email' },
];
const OPTIONAL = new Set<Key>(['line2', 'state', 'company', 'phone', 'email']);
export const ADDRESS_KEYS: readonly Key[] = FIELDS.map((f) => f.key);

/** The address body of the fields under `prefix`: trimmed, the country in capitals, empty optional fields left out. */
export function readAddress(form: Form | undefined, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ADDRESS_KEYS) {
    const value = field(form, `${prefix}.${key}`).trim();
    if (value === '' && OPTIONAL.has(key)) continue;
    out[key] = key === 'country' || key === 'state' ? value.toUpperCase() : value;
  }
  return out;
}

/** A saved or given address as the form's values under `prefix`. */
export function addressValues(a: Partial<Record<Key, string | null | undefined>> | AddressRow | Address, prefix: string): Form {
  const out: Form = {};
  for (const key of ADDRESS_KEYS) out[`${prefix}.${key}`] = (a as Record<string, string | null | undefined>)[key] ?? '';
  return out;
}

/** The inputs of an address, in a fieldset with its legend. */
export function addressFieldset(p: Problems, o: { prefix: string; legend: string; form: Form | undefined; hint?: Html }): Html {
  return html`<fieldset class="address"><legend>${o.legend}</legend>${o.hint ?? ''}<div class="grid">${FIELDS.map((f) =>
    input(p, {
      name: `${o.prefix}.${f.key}`,
      label: f.label,
      value: field(o.form, `${o.prefix}.${f.key}`),
      required: f.required,
      autocomplete: f.autocomplete,
      hint: f.hint,
      type: f.type,
      short: f.short,
      maxlength: f.maxlength,
    }),
  )}</div></fieldset>`;
}

/** An address on one line, as the pages list it. */
export function addressLine(a: Partial<Record<Key, string | null | undefined>>): string {
  return [a.name, a.company, a.line1, a.line2, a.city, a.state, a.postcode, a.country].filter(Boolean).join(', ');
}

const validateAddress = createValidatorCompiler()({ schema: AddressSchema, method: 'POST', url: '/addresses', httpPart: 'body' });

/** Checks an address body by the API's schema: the refusal as `POST /addresses` words it, or none. */
export function addressRefusal(body: Record<string, string>): ApiError | null {
  if (validateAddress(body)) return null;
  const errors = fieldErrors((validateAddress as unknown as { errors: never[] }).errors ?? [], 'body', body);
  return new ApiError(CODE.validation_failed, 'The address has invalid fields.', { errors });
}

export type Verification = Awaited<ReturnType<typeof verifyAddress>>;

/**
 * "Check address": the address under `prefix` checked as `POST /addresses/verify` checks it. A
 * refusal goes to the fields (or, when it names none, beside the button, the `check` field).
 */
export async function checkAddress(
  ctx: AppContext,
  o: { form: Form | undefined; prefix: string; livemode: boolean; log: FastifyBaseLogger; problems: Problems },
): Promise<Verification | undefined> {
  const body = readAddress(o.form, o.prefix);
  const toField = (path: string, message: string) => ({ field: path ? `${o.prefix}.${path}` : `${o.prefix}.check`, message });
  const refused = addressRefusal(body);
  if (refused) {
    o.problems.addRefusal(refused, toField);
    return undefined;
  }
  try {
    return await verifyAddress(ctx, o.livemode, body as AddressInput, o.log);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.extra.errors?.length) o.problems.addRefusal(err, toField);
    else o.problems.add(`${o.prefix}.check`, err.message);
    return undefined;
  }
}

/**
 * What the carrier made of the address: verified or not, its standardised form (ZIP+4 in the US),
 * whether it is residential, its messages, and a button that puts the standardised address in the
 * form (its fields ride along hidden, under `checked.`).
 */
export function verificationPanel(v: Verification, o: { action: string }): Html {
  const a = v.address;
  const hidden = ADDRESS_KEYS.filter((k) => k in a).map((k) => html`<input type="hidden" name="checked.${k}" value="${(a as Record<string, string | null>)[k] ?? ''}">`);
  return html`<div class="check-result" role="status" id="check-result">
<p>${v.verified ? html`<span class="badge ok">Verified</span>` : html`<span class="badge bad">Not verified</span>`} by ${v.carrier.toUpperCase()}${
    v.livemode ? '' : html` <span class="muted">(sandbox: nothing was asked of a carrier)</span>`
  }${v.residential === null ? '' : v.residential ? ' · residential' : ' · business'}</p>
<p>${v.verified ? 'Standardised address' : 'As sent'}: <strong>${addressLine(a)}</strong></p>
${v.messages.length ? html`<ul>${v.messages.map((m) => html`<li>${m.message} <span class="muted">(${m.code})</span></li>`)}</ul>` : ''}
${v.verified ? html`${hidden}<p><button class="secondary" type="submit" name="action" value="${o.action}">Use this address</button></p>` : ''}
</div>`;
}

/** The form with the standardised address (the hidden `checked.` fields) put in the fields under `prefix`. */
export function useChecked(form: Form | undefined, prefix: string): Form {
  const out: Form = { ...(form ?? {}) };
  for (const key of ADDRESS_KEYS) {
    if (form?.[`checked.${key}`] !== undefined) out[`${prefix}.${key}`] = field(form, `checked.${key}`);
  }
  return out;
}
