import { isUtf8 } from 'node:buffer';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { batchLabelState, findOwnBatch, findOwnScanForm, formsOfShipments, listBatches, listBatchItems, type ShipmentRow } from '../../db/index.js';
import { ApiError, BATCH_MAX_ITEMS, LABEL_FORMAT_LIST, type BatchRecord } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { BATCH_BODY_LIMIT, requestBatch } from '../routes/batches.js';
import { createScanForm } from '../routes/scan-forms.js';
import { CSV_COLUMNS, CSV_STATE_COLUMNS, ordersFromCsv, type CsvProblem } from './batch-csv.js';
import { messageOf, modeSwitch, ownerOf, sessionOf, type PageRoute, type Req } from './common.js';
import { field } from './forms.js';
import { guardPages } from './guard.js';
import { html, when, type Html } from './html.js';
import { csrfField, modeName, modeOf, noticeOf, sendPage, type Mode } from './layout.js';
import { readUpload, registerUploads, uploadLength } from './uploads.js';
import { currentBatchLabelFile } from '../batch-label-file.js';
import { td } from './shipment-page.js';

/**
 * Whether a completed batch has a merged file to download: a current one, or one being made again
 * without labels voided since (the download waits for it). None when no label is left.
 */
const mergedFileToOffer = (state: Awaited<ReturnType<typeof batchLabelState>>) =>
  Boolean(state && (state.current ? state.file : state.labelled > 0));

/** While a batch runs, the page asks for itself again this often (api/web/assets.ts). */
const REFRESH_MS = 2000;
const LABEL_FORMAT_NAMES: Record<string, string> = { pdf_6x4: 'PDF, 6×4 in labels', pdf_a4: 'PDF, A4 pages', zpl: 'ZPL (thermal printers)' };
const UNREADABLE = 'The file is not UTF-8 text. Save it from your spreadsheet as "CSV UTF-8" and upload it again.';

/** A completed batch some of whose purchased labels do not exist in its format has no merged file (activities/batch.ts). */
const NO_MERGED_FILE = (format: string) =>
  `No merged label file: a carrier did not provide every purchased label as ${LABEL_FORMAT_NAMES[format] ?? format}. Each shipment's own label can still be downloaded.`;
const describeProblem = (p: CsvProblem) => (p.line > 0 ? `Line ${p.line}${p.column ? `, ${p.column}` : ''}: ${p.message}` : `${p.column ?? 'form'}: ${p.message}`);
/** A header line that may break after each comma, so it wraps inside its box on any screen; copied, it is the same text. */
const csvHeader = (columns: readonly string[]) => columns.map((c, i) => html`${i ? html`,<wbr>` : ''}${c}`);
const batchPath = (id: string, mode: Mode) => `/portal/batches/${encodeURIComponent(id)}?mode=${mode}`;

/**
 * The portal's batches: upload an order file (one order a CSV line, contract: Batches), watch the
 * batch run, download its merged labels and put its shipments on a SCAN form. Buying and forms go
 * through the API's own functions (api/routes/batches.ts, scan-forms.ts), for the signed-in user's
 * account in the mode the page shows.
 */
export const portalBatchPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    // The upload form posts a file: its reader lives in this plugin only, like the pages' urlencoded one.
    await registerUploads(app, BATCH_BODY_LIMIT);
    guardPages(app, ctx, 'customer');

    /** Buying and forms wait for API access, as keys and webhook endpoints do: an administrator's review. */
    const mayBuy = (request: Req) => sessionOf(request).account.apiEnabled;

    // ---------- the list, and the upload form ----------
    async function batchesPage(request: Req, reply: FastifyReply, o: { error?: string; problems?: CsvProblem[]; status?: number } = {}) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const { rows } = await listBatches(ctx.db, { ...ownerOf(s, mode), limit: 50 });
      const chosen = field(request.body, 'label_format') || 'pdf_6x4';
      const upload = mayBuy(request)
        ? html`<form method="post" action="/portal/batches?mode=${mode}" enctype="multipart/form-data">${csrfField(s)}
<label for="csv">Orders file (CSV)</label>
<p class="hint" id="csv-hint">One order a line, up to ${BATCH_MAX_ITEMS.toLocaleString('en-GB')}, after this header line: <code id="csv-header">${csvHeader(CSV_COLUMNS)}</code>.
For addresses in the US or Canada, which need a state or province, add the two columns <code>${CSV_STATE_COLUMNS.join(',')}</code> at the end of the header and of every line (empty where an address needs none).
Fields holding commas or quotes go in double quotes, with each quote written twice. Every line is checked first: if one is wrong, nothing is bought.</p>
<input id="csv" name="csv" type="file" accept=".csv,text/csv" required aria-describedby="csv-hint">
<label for="label_format">Merged label file</label>
<select id="label_format" name="label_format">${LABEL_FORMAT_LIST.map(
            (f) => html`<option value="${f}"${f === chosen ? html` selected` : ''}>${LABEL_FORMAT_NAMES[f] ?? f}</option>`,
          )}</select>
<p><button type="submit">Upload and buy ${modeName(mode).toLowerCase()} labels</button></p></form>`
        : html`<p>Batches can be bought once an administrator has enabled API access. <a href="/portal">Request API access</a> on the overview.</p>`;
      const problems = o.problems?.length
        ? html`<ul id="csv-problems" aria-label="Problems in the file">${o.problems.map((p) => html`<li>${describeProblem(p)}</li>`)}</ul>`
        : '';
      const body = html`<section aria-labelledby="upload-h"><h2 id="upload-h">Buy labels from an orders file</h2>${modeSwitch('/portal/batches', mode)}${problems}${upload}</section>
<section aria-labelledby="batches-h"><h2 id="batches-h">${modeName(mode)} batches</h2>${
        rows.length
          ? html`<table class="stack"><thead><tr><th>Batch</th><th>Status</th><th>Orders</th><th>Purchased</th><th>Failed</th><th>Pending</th><th>Created</th><th>Completed</th></tr></thead><tbody>
${rows.map(
  (b) => html`<tr data-batch-id="${b.id}">${td('Batch', html`<a href="${batchPath(b.id, mode)}"><code>${b.id}</code></a>`)}${td('Status', statusBadge(b))}
${td('Orders', b.counts.total)}${td('Purchased', b.counts.purchased)}${td('Failed', b.counts.failed)}${td('Pending', b.counts.pending)}${td('Created', when(b.createdAt))}${td('Completed', when(b.completedAt))}</tr>`,
)}</tbody></table>`
          : html`<p class="muted">No ${modeName(mode).toLowerCase()} batches yet.</p>`
      }</section>`;
      return sendPage(reply, { title: 'Batches', session: s, active: 'batches', notice: noticeOf(request.query), error: o.error, body }, o.status);
    }

    app.get('/portal/batches', (request: Req, reply) => batchesPage(request, reply));

    // The session is checked before the body is read (guardPages), then the body's length, then the
    // form is read, and only then its CSRF token checked.
    app.post<PageRoute>('/portal/batches', { onRequest: uploadLength(BATCH_BODY_LIMIT), preValidation: readUpload(BATCH_BODY_LIMIT) }, async (request: Req, reply) => {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      if (!mayBuy(request)) return batchesPage(request, reply, { error: 'Batches can be bought once an administrator has enabled API access.', status: 403 });
      const file = request.webUploads?.csv;
      if (!file || file.content.length === 0) return batchesPage(request, reply, { error: 'Choose a CSV file of orders to upload.', status: 422 });
      if (!isUtf8(file.content)) return batchesPage(request, reply, { error: UNREADABLE, status: 422 });
      const orders = ordersFromCsv(file.content, field(request.body, 'label_format') || 'pdf_6x4');
      if (!orders.ok) {
        const n = orders.problems.length;
        request.log.info({ action: 'batch_upload_refused', problems: n }, 'portal: order file refused');
        return batchesPage(request, reply, {
          error: `${file.filename || 'The file'} was not accepted: ${n === 1 ? 'one line needs' : `${n} problems need`} correcting. Nothing was bought.`,
          problems: orders.problems,
          status: 422,
        });
      }
      const { batchId, items } = await requestBatch(ctx, { account: s.account, livemode: mode === 'live' }, orders.body);
      request.log.info({ action: 'batch_uploaded', batch_id: batchId, items }, 'portal: batch requested from an order file');
      return reply.redirect(`${batchPath(batchId, mode)}&notice=batch_started`, 303);
    });

    // ---------- one batch ----------
    /** The batch's purchased shipments not yet on a form, by carrier, for the carriers that make forms. */
    function formCandidates(items: ShipmentRow[], onForm: Map<string, string>): Map<string, string[]> {
      const out = new Map<string, string[]>();
      for (const item of items) {
        if (item.status !== 'purchased' || !item.carrier || onForm.has(item.id)) continue;
        if (!ctx.catalog.definitions.find((d) => d.code === item.carrier)?.capabilities.scanForms) continue;
        out.set(item.carrier, [...(out.get(item.carrier) ?? []), item.id]);
      }
      return out;
    }

    async function batchItems(batchId: string): Promise<ShipmentRow[]> {
      const { rows } = await listBatchItems(ctx.db, { batchId, limit: BATCH_MAX_ITEMS });
      return rows;
    }

    async function batchPage(request: Req, reply: FastifyReply, batch: BatchRecord, o: { error?: string | null; status?: number } = {}) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const items = await batchItems(batch.id);
      const onForm = await formsOfShipments(ctx.db, items.map((i) => i.id));
      const forms = [...new Set(onForm.values())].sort();
      const candidates = formCandidates(items, onForm);
      const failed = items.filter((i) => i.status === 'failed');
      const running = batch.status !== 'completed';
      const c = batch.counts;
      const carrierName = (code: string) => ctx.catalog.definitions.find((d) => d.code === code)?.name ?? code;
      const fileState = running || c.purchased === 0 ? undefined : await batchLabelState(ctx.db, batch.id);
      const labels = running
        ? html`<p class="muted">The merged label file is made once every order has been bought or has failed.</p>`
        : c.purchased === 0
          ? html`<p class="muted">No labels: no order of this batch was bought.</p>`
          : mergedFileToOffer(fileState)
            ? html`<p><a id="merged-labels" href="/portal/batches/${batch.id}/label?mode=${mode}" download>Download the merged labels (${LABEL_FORMAT_NAMES[batch.labelFormat] ?? batch.labelFormat})</a></p>`
            : fileState?.labelled === 0
              ? html`<p class="muted" id="no-merged-labels">No merged label file: every label this batch bought has been voided.</p>`
              : html`<p class="muted" id="no-merged-labels">${NO_MERGED_FILE(batch.labelFormat)}</p>`;
      const formButtons: Html[] = mayBuy(request)
        ? [...candidates].map(
            ([carrier, ids]) => html`<form class="inline" method="post" action="/portal/batches/${batch.id}/scan-forms?mode=${mode}">${csrfField(s)}
<input type="hidden" name="carrier" value="${carrier}"><button type="submit">Create a SCAN form for ${ids.length} ${carrierName(carrier)} shipment${ids.length === 1 ? '' : 's'}</button></form> `,
          )
        : [];
      const body = html`<section aria-labelledby="progress-h"${running ? html` data-refresh-ms="${REFRESH_MS}"` : ''}><h2 id="progress-h">Progress</h2>
<p><a href="/portal/batches?mode=${mode}">All batches</a> · ${modeName(mode)} · ${statusBadge(batch)}${running ? html` <span class="muted">This page updates itself while the batch runs; <a href="${batchPath(batch.id, mode)}">reload</a> if it does not.</span>` : ''}</p>
<table id="batch-counts" aria-live="polite"><tbody>
<tr><th scope="row">Orders</th><td data-count="total">${c.total}</td></tr>
<tr><th scope="row">Pending</th><td data-count="pending">${c.pending}</td></tr>
<tr><th scope="row">Purchased</th><td data-count="purchased">${c.purchased}</td></tr>
<tr><th scope="row">Failed</th><td data-count="failed">${c.failed}</td></tr>
<tr><th scope="row">Created</th><td>${when(batch.createdAt)}</td></tr>
<tr><th scope="row">Completed</th><td>${when(batch.completedAt)}</td></tr>
</tbody></table></section>
<section aria-labelledby="labels-h"><h2 id="labels-h">Labels</h2>${labels}</section>
<section aria-labelledby="forms-h"><h2 id="forms-h">SCAN forms</h2>
<p class="hint">A SCAN form lists shipments for the carrier to scan at once at collection (USPS, and acme in the sandbox's simulator).</p>
${forms.length ? html`<ul>${forms.map((f) => html`<li><a href="/portal/scan-forms/${f}/file?mode=${mode}" download>Download SCAN form <code>${f}</code></a></li>`)}</ul>` : ''}
${formButtons.length ? formButtons : forms.length ? '' : html`<p class="muted">No purchased shipments of a carrier that makes SCAN forms${running ? ' yet' : ''}.</p>`}</section>
<section aria-labelledby="failed-h"><h2 id="failed-h">Failed orders</h2>${
        failed.length
          ? html`<table id="failed-items" class="stack"><thead><tr><th>Order</th><th>Reference</th><th>Service</th><th>Reason</th></tr></thead><tbody>
${failed.map(
  (i) => html`<tr>${td('Order', (i.batchIndex ?? 0) + 1)}${td('Reference', i.reference ?? '')}${td('Service', i.serviceName ?? i.serviceCode)}
${td('Reason', html`<code>${i.failureCode ?? 'failed'}</code> ${i.failureMessage ?? ''}`)}</tr>`,
)}</tbody></table>`
          : html`<p class="muted">None${running ? ' so far' : ''}.</p>`
      }</section>`;
      return sendPage(reply, { title: `Batch ${batch.id}`, session: s, active: 'batches', notice: noticeOf(request.query), error: o.error, body }, o.status);
    }

    const notFound = (request: Req, reply: FastifyReply, what: string) =>
      sendPage(
        reply,
        { title: 'Not found', session: sessionOf(request), active: 'batches', error: `There is no such ${what}.`, body: html`<p><a href="/portal/batches?mode=${modeOf(request.query.mode)}">All batches</a></p>` },
        404,
      );
    const ownBatch = (request: Req) => findOwnBatch(ctx.db, ownerOf(sessionOf(request), modeOf(request.query.mode)), request.params.id);

    app.get('/portal/batches/:id', async (request: Req, reply) => {
      const batch = await ownBatch(request);
      return batch ? batchPage(request, reply, batch) : notFound(request, reply, 'batch');
    });

    app.get('/portal/batches/:id/label', async (request: Req, reply) => {
      const batch = await ownBatch(request);
      if (!batch) return notFound(request, reply, 'batch');
      // The API's own rules: never a file that still holds a voided label; one made again is waited for.
      if (batch.status !== 'completed') {
        return batchPage(request, reply, batch, { error: 'The batch is still running: its merged label file is made once every order has ended.', status: 409 });
      }
      let file;
      try {
        file = await currentBatchLabelFile(ctx, batch);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 409) throw err;
        return batchPage(request, reply, batch, { error: err.message, status: 409 });
      }
      const extension = batch.labelFormat === 'zpl' ? 'zpl' : 'pdf';
      return reply
        .type(file.contentType)
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="${batch.id}-${batch.labelFormat}.${extension}"`)
        .send(file.content);
    });

    app.post('/portal/batches/:id/scan-forms', async (request: Req, reply) => {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const batch = await ownBatch(request);
      if (!batch) return notFound(request, reply, 'batch');
      if (!mayBuy(request)) return batchPage(request, reply, batch, { error: 'SCAN forms can be made once an administrator has enabled API access.', status: 403 });
      const items = await batchItems(batch.id);
      const carrier = field(request.body, 'carrier');
      const ids = formCandidates(items, await formsOfShipments(ctx.db, items.map((i) => i.id))).get(carrier);
      if (!ids) return batchPage(request, reply, batch, { error: `No purchased ${carrier} shipments of this batch are left to put on a SCAN form.`, status: 422 });
      let form: { id: string };
      try {
        form = await createScanForm(ctx, ownerOf(s, mode), { shipment_ids: ids });
      } catch (err) {
        const message = messageOf(err);
        if (!message) throw err;
        return batchPage(request, reply, batch, { error: `The SCAN form was not made: ${message}`, status: err instanceof ApiError ? err.status : 422 });
      }
      request.log.info({ action: 'scan_form_created', batch_id: batch.id, scan_form_id: form.id, shipments: ids.length }, 'portal: SCAN form created for a batch');
      return reply.redirect(`${batchPath(batch.id, mode)}&notice=scan_form_created`, 303);
    });

    app.get('/portal/scan-forms/:id/file', async (request: Req, reply) => {
      const form = await findOwnScanForm(ctx.db, ownerOf(sessionOf(request), modeOf(request.query.mode)), request.params.id);
      if (!form) return notFound(request, reply, 'SCAN form');
      return reply
        .type(form.contentType)
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="${form.id}.pdf"`)
        .send(form.content);
    });
  };

function statusBadge(b: BatchRecord): Html {
  return b.status === 'completed' ? html`<span class="badge ok">completed</span>` : html`<span class="badge">${b.status}</span>`;
}
