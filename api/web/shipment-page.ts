import type { deliveriesOfEvents, listEvents, scansOf, ShipmentRow } from '../../db/index.js';
import { formatAmount, hasLabel, LABEL_FORMAT_LIST, SCAN_STATUSES, WEBHOOK_MAX_ATTEMPTS, type Address, type Customs, type Parcel, type ShipmentOptions } from '../../domain/index.js';
import type { WebSession } from '../../db/index.js';
import { html, when, type Html } from './html.js';
import { csrfField, modeName, type Mode } from './layout.js';

/**
 * One shipment as its page shows it: status and price, both addresses, the parcel and its terms,
 * the label files and customs documents, the tracking timeline with the carrier's own codes, the
 * void and return buttons, and every event sent for it with its webhook deliveries.
 */

export interface ShipmentPageData {
  row: ShipmentRow;
  mode: Mode;
  session: WebSession;
  scans: Awaited<ReturnType<typeof scansOf>>;
  events: Awaited<ReturnType<typeof listEvents>>['rows'];
  deliveries: Awaited<ReturnType<typeof deliveriesOfEvents>>;
  documents: string[];
}

export const LABEL_FORMAT_NAMES: Record<string, string> = { pdf_6x4: 'PDF, 4×6 in', pdf_a4: 'PDF, A4', zpl: 'ZPL (thermal printers)' };
const DOCUMENT_NAMES: Record<string, string> = { commercial_invoice: 'Commercial invoice (PDF)' };

export const shipmentPath = (id: string, mode: Mode) => `/portal/shipments/${encodeURIComponent(id)}?mode=${mode}`;
/** A table cell that keeps its column's name, shown beside it where a narrow screen stacks the table. */
export const td = (label: string, content: unknown) => html`<td data-label="${label}">${content}</td>`;

export function statusBadge(status: string): Html {
  const tone = status === 'failed' || status === 'exception' ? ' bad' : status === 'delivered' || status === 'purchased' ? ' ok' : '';
  return html`<span class="badge${tone}">${status.replace(/_/g, ' ')}</span>`;
}

export const priceOf = (r: ShipmentRow) => (r.priceGross === null ? '—' : `${formatAmount(r.priceGross)} ${r.currency}`);

function summary(d: ShipmentPageData): Html {
  const r = d.row;
  const row = (label: string, value: unknown) => html`<tr><th scope="row">${label}</th><td>${value}</td></tr>`;
  return html`<section aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2><table class="pairs"><tbody>
${row('Status', statusBadge(r.status))}
${r.failureCode ? row('Why it failed', html`${r.failureMessage ?? ''} <code>${r.failureCode}</code>`) : ''}
${r.lastVoidError && r.status !== 'voided' ? row('Last void refused', r.lastVoidError) : ''}
${row('Price', r.priceGross === null ? '—' : html`<strong>${priceOf(r)}</strong> <span class="muted">(${formatAmount(r.priceNet ?? 0)} + VAT ${formatAmount(r.priceVat ?? 0)})</span>`)}
${row('Charged to', r.chargedTo.replace(/_/g, ' '))}
${row('Service', html`${r.serviceName ?? r.serviceCode} <span class="muted">${r.carrier ?? ''}</span>`)}
${row('Tracking number', r.trackingNumber ? html`<code id="tracking-number">${r.trackingNumber}</code>` : '—')}
${row('Tracking status', r.trackingStatus ? statusBadge(r.trackingStatus) : '—')}
${row('Reference', r.reference ?? '—')}
${r.isReturn ? row('Return label', r.returnOf ? html`returns <a href="${shipmentPath(r.returnOf, d.mode)}"><code>${r.returnOf}</code></a>` : 'yes') : ''}
${r.batchId ? row('Batch', html`<a href="/portal/batches/${r.batchId}?mode=${d.mode}"><code>${r.batchId}</code></a>`) : ''}
${row('Mode', modeName(d.mode))}
${row('Created', when(r.createdAt))}${row('Updated', when(r.updatedAt))}
</tbody></table></section>`;
}

function addressBlock(title: string, a: Address): Html {
  return html`<div><h3>${title}</h3><address>${[a.company, a.name, a.line1, a.line2, [a.city, a.state].filter(Boolean).join(' '), a.postcode, a.country]
    .filter(Boolean)
    .map((l) => html`${l}<br>`)}${a.phone ? html`${a.phone}<br>` : ''}${a.email ?? ''}</address></div>`;
}

function parcelAndTerms(d: ShipmentPageData): Html {
  const r = d.row;
  const p = r.parcel as Parcel;
  const o = (r.options ?? {}) as ShipmentOptions;
  const c = r.customs as Customs | null;
  const opts = [o.signature ? `signature: ${o.signature}` : '', o.declared_value ? `declared value ${o.declared_value} ${r.currency}` : '', o.saturday_delivery ? 'Saturday delivery' : '']
    .filter(Boolean)
    .join(', ');
  return html`<section aria-labelledby="addr-h"><h2 id="addr-h">Addresses and parcel</h2>
<div class="columns">${addressBlock('From', r.fromAddress as Address)}${addressBlock('To', r.toAddress as Address)}</div>
<p>Parcel: ${p.weight_g} g, ${p.length_mm} × ${p.width_mm} × ${p.height_mm} mm${opts ? html` · Options: ${opts}` : ''}</p>
${
  c
    ? html`<h3>Customs</h3><p>${c.contents_type.replace(/_/g, ' ')}${c.contents_explanation ? ` (${c.contents_explanation})` : ''}, duties ${c.incoterm}, if undeliverable ${c.non_delivery}, signed by ${c.signer}</p>
<table class="stack"><thead><tr><th>Description</th><th>Quantity</th><th>Value</th><th>Weight</th><th>HS code</th><th>Made in</th></tr></thead><tbody>${c.items.map(
        (i) => html`<tr>${td('Description', i.description)}${td('Quantity', i.quantity)}${td('Value', `${i.value} ${c.currency}`)}${td('Weight', `${i.weight_g} g`)}${td('HS code', i.hs_tariff_number ?? '—')}${td('Made in', i.origin_country)}</tr>`,
      )}</tbody></table>`
    : ''
}</section>`;
}

function files(d: ShipmentPageData): Html {
  const r = d.row;
  const labels = hasLabel(r.status)
    ? html`<ul class="downloads">${LABEL_FORMAT_LIST.map(
        (f) => html`<li><a id="label-${f}" href="/portal/shipments/${r.id}/label/${f}?mode=${d.mode}" download>Label: ${LABEL_FORMAT_NAMES[f] ?? f}</a></li>`,
      )}${d.documents.map((t) => html`<li><a id="document-${t}" href="/portal/shipments/${r.id}/documents/${t}?mode=${d.mode}" download>${DOCUMENT_NAMES[t] ?? t}</a></li>`)}</ul>
${r.customs && !d.documents.length ? html`<p class="hint">The carrier prints its customs form on the label's further pages.</p>` : ''}`
    : html`<p class="muted">A ${r.status} shipment has no label to download.</p>`;
  return html`<section aria-labelledby="files-h"><h2 id="files-h">Label and documents</h2>${labels}</section>`;
}

function timeline(d: ShipmentPageData): Html {
  const r = d.row;
  const scanForm =
    d.mode === 'test' && hasLabel(r.status) && r.status !== 'delivered'
      ? html`<form method="post" action="/portal/shipments/${r.id}/scans?mode=test" class="inline-form">${csrfField(d.session)}
<label for="scan-status">Sandbox: record a carrier scan</label>
<select id="scan-status" name="status">${SCAN_STATUSES.map((s) => html`<option value="${s}">${s.replace(/_/g, ' ')}</option>`)}</select>
<button class="secondary" type="submit">Record scan</button></form>`
      : '';
  const items = d.scans.map((s) => {
    const place = s.location as { city?: string; postcode?: string; country?: string } | null;
    return html`<li><span class="when">${when(s.occurredAt)}</span> ${statusBadge(s.status)} ${s.description}${
      place ? html` · ${[place.city, place.postcode, place.country].filter(Boolean).join(', ')}` : ''
    } <span class="muted">carrier code ${s.carrierCode ? html`<code>${s.carrierCode}</code>` : 'none'}</span></li>`;
  });
  return html`<section aria-labelledby="tracking-h"><h2 id="tracking-h">Tracking</h2>
${items.length ? html`<ol class="timeline" id="timeline">${items}</ol>` : html`<p class="muted" id="timeline">No scans yet.</p>`}${scanForm}</section>`;
}

function actions(d: ShipmentPageData): Html | string {
  const r = d.row;
  const button = (what: 'void' | 'return', text: string, danger: boolean) =>
    html`<form method="get" action="/portal/shipments/${r.id}/${what}" class="inline"><input type="hidden" name="mode" value="${d.mode}"><button type="submit" class="${danger ? 'danger' : 'secondary'}">${text}</button></form> `;
  const open = r.status !== 'failed' && r.status !== 'voided' && r.status !== 'pending';
  return open
    ? html`<section aria-labelledby="actions-h"><h2 id="actions-h">Void or return</h2><div class="actions">${button('void', 'Void label…', true)}${r.isReturn ? '' : button('return', 'Create return label…', false)}</div>
<p class="hint">Each asks you to confirm first.</p></section>`
    : '';
}

function eventsSent(d: ShipmentPageData): Html {
  const byEvent = new Map<string, ShipmentPageData['deliveries']>();
  for (const x of d.deliveries) byEvent.set(x.eventId, [...(byEvent.get(x.eventId) ?? []), x]);
  const deliveries = (id: string) => {
    const list = byEvent.get(id) ?? [];
    return list.length
      ? html`<ul>${list.map(
          (x) => html`<li><span class="badge ${x.outcome === 'succeeded' ? 'ok' : 'bad'}">${x.outcome}</span> ${x.url} · attempt ${x.attempt} of ${WEBHOOK_MAX_ATTEMPTS}${
            x.statusCode ? ` · HTTP ${x.statusCode}` : ''
          } · ${when(x.attemptedAt)}${x.error ? html` <span class="muted">${x.error}</span>` : ''}</li>`,
        )}</ul>`
      : html`<span class="muted">No delivery: no endpoint takes it, or not yet sent.</span>`;
  };
  return html`<section aria-labelledby="events-h"><h2 id="events-h">Events sent</h2>${
    d.events.length
      ? html`<table class="stack" id="events"><thead><tr><th>Event</th><th>Sent</th><th>Webhook deliveries</th></tr></thead><tbody>${d.events.map(
          (e) => html`<tr data-event-id="${e.id}">${td('Event', html`<strong>${e.type}</strong><br><code>${e.id}</code>`)}${td('Sent', when(e.createdAt))}${td('Webhook deliveries', deliveries(e.id))}</tr>`,
        )}</tbody></table>`
      : html`<p class="muted">No events yet.</p>`
  }</section>`;
}

/** The shipment page's sections; a purchase or void still under way has the page refresh itself (api/web/assets.ts). */
export function shipmentSections(d: ShipmentPageData): Html {
  const running = d.row.status === 'pending' || d.row.status === 'voiding';
  return html`<p><a href="/portal/shipments?mode=${d.mode}">All shipments</a></p>
<div${running ? html` data-refresh-ms="2000"` : ''}>${summary(d)}</div>${files(d)}${actions(d)}${timeline(d)}${parcelAndTerms(d)}${eventsSent(d)}`;
}

