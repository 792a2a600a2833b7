import type { AddressRow } from '../../db/index.js';
import { CONTENTS_TYPES, CUSTOMS_LIMITS, INCOTERMS, NON_DELIVERY, SIGNATURE_OPTIONS, TAX_ID_OWNERS, TAX_ID_TYPES } from '../../domain/index.js';
import { addressFieldset, addressLine, verificationPanel, type Verification } from './address-fields.js';
import { checkbox, groupError, input, select, type Problems } from './fields.js';
import { field, type Form } from './forms.js';
import { html, when, type Html } from './html.js';
import { crossesBorder, isReturnForm, lineCount } from './shipment-form.js';

/** The quote the form shows once "Get rates" has run (api/services/quote.ts). */
export interface Rates {
  items: Array<{ service: { code: string; carrier: string; name: string }; price: { net: string; vat: string; gross: string; currency: string }; estimated_delivery_days: number; expires_at: string }>;
  unavailable: Array<{ carrier: string; code: string; message: string }>;
}

export interface DeskView {
  form: Form | undefined;
  book: AddressRow[];
  chosen: AddressRow | undefined;
  problems: Problems;
  rates?: Rates;
  check?: Verification;
}

const words = (s: string) => s.replace(/_/g, ' ');
const choices = (values: readonly string[], blank?: string): Array<[string, string]> => [...(blank ? [['', blank] as [string, string]] : []), ...values.map((v): [string, string] => [v, words(v)])];

function addresses(v: DeskView): Html {
  const { form, problems: p } = v;
  const empty = () => {
    const at = groupError(p, 'book', 'Your address');
    return html`<div class="field" id="${at.id}"><p>Your address book is empty: <a href="/portal/addresses">add your address</a> first.</p>${at.error}</div>`;
  };
  const book = v.book.length
    ? select(p, {
        name: 'book',
        label: 'Your address',
        value: field(form, 'book'),
        choices: [['', 'Choose one of your saved addresses'], ...v.book.map((a): [string, string] => [a.id, addressLine(a)])],
        hint: 'From your address book. Outbound labels go from it; return labels come back to it.',
      })
    : empty();
  const check = groupError(p, 'cust.check', 'Address check');
  return html`<section aria-labelledby="addr-h"><h2 id="addr-h">Addresses</h2>${book}
<p class="hint"><a href="/portal/addresses">Manage your address book</a></p>
${addressFieldset(p, { prefix: 'cust', legend: "Customer's address", form })}
<div class="actions" id="${check.id}"><button class="secondary" type="submit" name="action" value="check">Check address</button>${check.error}</div>
${v.check ? verificationPanel(v.check, { action: 'use_checked' }) : ''}
${checkbox(p, { name: 'is_return', label: 'Return label', checked: isReturnForm(form), hint: 'The customer sends the parcel back from their address to yours.' })}
</section>`;
}

function parcel(v: DeskView): Html {
  const { form, problems: p } = v;
  const size = (key: string, label: string) =>
    input(p, { name: `parcel.${key}`, label, value: field(form, `parcel.${key}`), required: true, inputmode: 'numeric', short: true });
  return html`<section aria-labelledby="parcel-h"><h2 id="parcel-h">Parcel and options</h2>
<div class="grid">${size('weight_g', 'Weight (grams)')}${size('length_mm', 'Length (mm)')}${size('width_mm', 'Width (mm)')}${size('height_mm', 'Height (mm)')}</div>
${input(p, { name: 'reference', label: 'Your reference', value: field(form, 'reference'), hint: 'Printed on the label, such as an order number.' })}
<div class="grid">${select(p, { name: 'options.signature', label: 'Signature on delivery', value: field(form, 'options.signature'), choices: choices(SIGNATURE_OPTIONS, 'none') })}
${input(p, { name: 'options.declared_value', label: 'Declared value', value: field(form, 'options.declared_value'), inputmode: 'decimal', short: true, hint: "In your account's currency, such as 50.00." })}</div>
${checkbox(p, { name: 'options.saturday_delivery', label: 'Saturday delivery', checked: field(form, 'options.saturday_delivery') === '1' })}
</section>`;
}

function customsLine(v: DeskView, i: number): Html {
  const { form, problems: p } = v;
  const at = (k: string) => `customs.items.${i}.${k}`;
  const text = (k: string, label: string, o: { short?: boolean; inputmode?: 'numeric' | 'decimal'; required?: boolean; maxlength?: number } = {}) =>
    input(p, { name: at(k), label, value: field(form, at(k)), required: o.required ?? true, ...o });
  return html`<fieldset class="line"><legend>Line ${i + 1}</legend><div class="grid">
${text('description', 'Description', { maxlength: CUSTOMS_LIMITS.maxDescription })}${text('quantity', 'Quantity', { short: true, inputmode: 'numeric' })}
${text('value', 'Value of the line', { short: true, inputmode: 'decimal' })}${text('weight_g', 'Weight of the line (grams)', { short: true, inputmode: 'numeric' })}
${text('origin_country', 'Made in (country)', { short: true, maxlength: 2 })}${text('hs_tariff_number', 'HS tariff number', { short: true, inputmode: 'numeric', required: false })}
${text('sku', 'SKU', { short: true, required: false })}</div></fieldset>`;
}

function customs(v: DeskView): Html {
  const { form, problems: p } = v;
  const n = lineCount(form);
  const lines = groupError(p, 'customs.items', 'Item lines');
  const whole = groupError(p, 'customs', 'Customs declaration');
  const text = (name: string, label: string, hint?: string, required = false) => input(p, { name: `customs.${name}`, label, value: field(form, `customs.${name}`), hint, required });
  return html`<section aria-labelledby="customs-h" id="${whole.id}"><h2 id="customs-h">Customs declaration</h2>${whole.error}
<p class="hint">The two addresses are in different countries: the carrier needs what the parcel holds.</p>
<div class="grid">${select(p, { name: 'customs.contents_type', label: 'Contents', value: field(form, 'customs.contents_type') || 'merchandise', choices: choices(CONTENTS_TYPES) })}
${text('contents_explanation', 'Explanation', 'Needed when the contents are "other"; at most 25 characters.')}
${select(p, { name: 'customs.non_delivery', label: 'If it cannot be delivered', value: field(form, 'customs.non_delivery'), choices: choices(NON_DELIVERY) })}
${select(p, { name: 'customs.incoterm', label: 'Duties paid by', value: field(form, 'customs.incoterm'), choices: INCOTERMS.map((t): [string, string] => [t, t === 'DDU' ? 'the recipient (DDU)' : 'you (DDP)']) })}
${text('signer', 'Signed by', 'Who certifies the declaration; at most 35 characters.', true)}
${text('currency', 'Currency of the values', "Three letters, such as USD; your account's when empty.")}
${text('invoice_number', 'Invoice number')}${text('eel_pfc', 'Export exemption or ITN', 'For exports from the US, such as NOEEI 30.37(a).')}</div>
<fieldset><legend>Tax number</legend><div class="grid">
${select(p, { name: 'customs.tax_ids.0.type', label: 'Type', value: field(form, 'customs.tax_ids.0.type'), choices: choices(TAX_ID_TYPES) })}
${text('tax_ids.0.number', 'Number', 'EORI, VAT or IOSS number, when one is needed.')}
${select(p, { name: 'customs.tax_ids.0.owner', label: 'Whose', value: field(form, 'customs.tax_ids.0.owner'), choices: choices(TAX_ID_OWNERS) })}</div></fieldset>
<div id="${lines.id}"><h3>Item lines</h3>${lines.error}<input type="hidden" name="lines" value="${n}">
${Array.from({ length: n }, (_, i) => customsLine(v, i))}
${n < CUSTOMS_LIMITS.maxItems ? html`<p><button class="secondary" type="submit" name="action" value="add_line">Add a line</button></p>` : ''}</div>
</section>`;
}

function rates(v: DeskView): Html {
  const r = v.rates!;
  const chosen = field(v.form, 'service');
  const group = groupError(v.problems, 'service', 'Rate');
  const expires = r.items[0] ? new Date(r.items[0].expires_at) : undefined;
  return html`<section aria-labelledby="rates-h"><h2 id="rates-h">Rates</h2><input type="hidden" name="rated" value="1">
${expires ? html`<p>Cheapest first. The prices hold until ${when(expires)}; after that a purchase is priced again.</p>` : html`<p>No service takes this parcel on this route.</p>`}
${
  r.items.length
    ? html`<fieldset id="${group.id}"${group.error ? html` aria-describedby="${group.id}-error"` : ''}><legend>Choose a service</legend>${group.error}<ul class="rates">${r.items.map(
        (item) => html`<li><input type="radio" name="service" id="rate-${item.service.code}" value="${item.service.code}"${item.service.code === chosen ? html` checked` : ''}>
<label for="rate-${item.service.code}"><strong>${item.service.name}</strong> <span class="muted">${item.service.carrier}</span> · ${item.estimated_delivery_days} day${
          item.estimated_delivery_days === 1 ? '' : 's'
        } · <strong>${item.price.gross} ${item.price.currency}</strong> <span class="muted">(${item.price.net} + VAT ${item.price.vat})</span></label></li>`,
      )}</ul></fieldset>
<p><button type="submit" name="action" value="buy" id="buy">Buy label</button></p>`
    : ''
}
${
  r.unavailable.length
    ? html`<h3>Not rated</h3><ul id="unrated">${r.unavailable.map((u) => html`<li><strong>${u.carrier}</strong>: ${u.message} <span class="muted">(${u.code})</span></li>`)}</ul>`
    : ''
}</section>`;
}

/** The new-shipment form's sections, in order; the caller wraps them in the form with its hidden fields. */
export function deskSections(v: DeskView): Html {
  const international = crossesBorder(v.form, v.chosen);
  return html`${addresses(v)}${parcel(v)}${international ? customs(v) : ''}
<div class="actions"><button type="submit" name="action" value="rates"${v.rates ? html` class="secondary"` : ''}>${v.rates ? 'Get rates again' : 'Get rates'}</button></div>
${v.rates ? rates(v) : ''}`;
}
