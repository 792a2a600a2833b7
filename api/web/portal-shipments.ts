import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { deliveriesOfEvents, findOwnShipment, findOwnShipmentByTracking, listEvents, listShipments, scansOf, type ShipmentRow } from '../../db/index.js';
import { ApiError, CODE, parseIsoInstant, SHIPMENT_STATUSES } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { DOCUMENT_FILES, signedFileLink } from '../label-links.js';
import { cursorId, encodeCursor } from '../pagination.js';
import { fieldErrors } from '../problem.js';
import { documentTypesOf } from '../routes/documents.js';
import { recordSandboxScan, SandboxScan, type SandboxScanBody } from '../routes/tracking.js';
import { ListShipmentsQuery } from '../schemas.js';
import { createValidatorCompiler } from '../validation.js';
import { messageOf, modeSwitch, ownerOf, sessionOf, type Req } from './common.js';
import { input, Problems, select } from './fields.js';
import { field } from './forms.js';
import { guardPages } from './guard.js';
import { html, when } from './html.js';
import { modeName, modeOf, noticeOf, sendPage, type Mode } from './layout.js';
import { priceOf, shipmentPath, shipmentSections, statusBadge, td } from './shipment-page.js';

const compile = createValidatorCompiler();
const validateList = compile({ schema: ListShipmentsQuery, method: 'GET', url: '/shipments', httpPart: 'querystring' });
const validateScan = compile({ schema: SandboxScan, method: 'POST', url: '/sandbox/shipments/:shipment/scans', httpPart: 'body' });
const FILTERS = ['status', 'reference', 'created_after', 'batch_id'] as const;
const PAGE_SIZE = 20;

/** The list's query as the API's `GET /shipments` takes it: the filters given, the page's cursor. */
function listQuery(q: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...FILTERS, 'cursor']) {
    const value = (q[name] ?? '').trim();
    if (value) out[name] = value;
  }
  return out;
}

/**
 * The portal's shipments: the list with the API's filters and paging, one shipment's page, a search
 * by tracking number that opens it, its customs documents, and the sandbox's carrier scans. Another
 * account's or mode's shipment is not found, as in the API.
 */
export const portalShipmentPages =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    guardPages(app, ctx, 'customer');

    const notFound = (request: Req, reply: FastifyReply, message = 'There is no such shipment.') =>
      sendPage(
        reply,
        { title: 'Not found', session: sessionOf(request), active: 'shipments', error: message, body: html`<p><a href="/portal/shipments?mode=${modeOf(request.query.mode)}">All shipments</a></p>` },
        404,
      );
    const ownShipment = (request: Req) => findOwnShipment(ctx.db, ownerOf(sessionOf(request), modeOf(request.query.mode)), request.params.id);

    async function listPage(request: Req, reply: FastifyReply) {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const q = listQuery(request.query);
      const problems = new Problems();
      let rows: ShipmentRow[] = [];
      let next: string | null = null;
      const before = q.cursor ? cursorId(q.cursor, 'shp') : undefined;
      if (q.cursor && !before) problems.add('cursor', 'is not a page of this list: start again from the first page');
      else if (!validateList(q)) {
        const errors = fieldErrors((validateList as unknown as { errors: never[] }).errors ?? [], 'querystring', q);
        problems.addRefusal(new ApiError(CODE.validation_failed, 'Invalid filters.', { errors }), (path, message) => ({ field: path.replace(/^querystring\.?/, '') || null, message }));
      } else {
        const found = await listShipmentsPage(ctx, { ...ownerOf(s, mode), query: q, before });
        rows = found.rows;
        next = found.hasMore ? encodeCursor(rows[rows.length - 1].id) : null;
      }
      const filters = html`<form method="get" action="/portal/shipments" class="filters"><input type="hidden" name="mode" value="${mode}"><div class="grid">
${select(problems, { name: 'status', label: 'Status', value: q.status ?? '', choices: [['', 'any'], ...SHIPMENT_STATUSES.map((v): [string, string] => [v, v.replace(/_/g, ' ')])] })}
${input(problems, { name: 'reference', label: 'Reference', value: q.reference, hint: 'Exactly as given.' })}
${input(problems, { name: 'created_after', label: 'Created after', value: q.created_after, type: 'date', hint: 'A date (from midnight UTC).' })}
${input(problems, { name: 'batch_id', label: 'Batch', value: q.batch_id, hint: 'bat_…' })}</div>
<div class="actions"><button type="submit">Show shipments</button> <a href="/portal/shipments?mode=${mode}">Clear filters</a></div></form>`;
      const more = new URLSearchParams({ mode, ...listQuery({ ...q, cursor: next ?? '' }) }).toString();
      const list = rows.length
        ? html`<table class="stack" id="shipments"><thead><tr><th>Shipment</th><th>Reference</th><th>Service</th><th>Status</th><th>Tracking</th><th>Price</th><th>Created</th></tr></thead><tbody>${rows.map(
            (r) => html`<tr data-shipment-id="${r.id}">${td('Shipment', html`<a href="${shipmentPath(r.id, mode)}"><code>${r.id}</code></a>`)}${td('Reference', r.reference ?? '')}${td('Service', r.serviceName ?? r.serviceCode)}
${td('Status', statusBadge(r.status))}${td('Tracking', r.trackingNumber ?? '')}${td('Price', priceOf(r))}${td('Created', when(r.createdAt))}</tr>`,
          )}</tbody></table>`
        : html`<p class="muted">No ${modeName(mode).toLowerCase()} shipments${Object.keys(q).length ? ' match these filters' : ' yet'}.</p>`;
      const paging = html`<p>${q.cursor ? html`<a href="/portal/shipments?${new URLSearchParams({ mode, ...listQuery({ ...q, cursor: '' }) }).toString()}">First page</a> ` : ''}${
        next ? html`<a id="next-page" href="/portal/shipments?${more}">Next page</a>` : ''
      }</p>`;
      const body = html`${problems.summary()}<section aria-labelledby="filters-h"><h2 id="filters-h">Find shipments</h2>${modeSwitch('/portal/shipments', mode)}${filters}</section>
<section aria-labelledby="list-h"><h2 id="list-h">${modeName(mode)} shipments</h2><p><a href="/portal/shipments/new?mode=${mode}">New shipment</a></p>${list}${paging}</section>`;
      return sendPage(reply, { title: 'Shipments', session: s, active: 'shipments', body }, problems.any ? 422 : 200);
    }

    async function shipmentPage(request: Req, reply: FastifyReply, row: ShipmentRow, o: { error?: string; status?: number } = {}) {
      const s = sessionOf(request);
      const mode: Mode = row.livemode ? 'live' : 'test';
      const [scans, events, documents] = await Promise.all([
        scansOf(ctx.db, row.id),
        listEvents(ctx.db, { ...ownerOf(s, mode), shipmentId: row.id, limit: 100 }),
        documentTypesOf(ctx, row),
      ]);
      const deliveries = await deliveriesOfEvents(ctx.db, events.rows.map((e) => e.id));
      const body = shipmentSections({ row, mode, session: s, scans, events: events.rows, deliveries, documents });
      return sendPage(reply, { title: `Shipment ${row.id}`, session: s, active: 'shipments', notice: noticeOf(request.query), error: o.error, body }, o.status);
    }

    app.get('/portal/shipments', (request: Req, reply) => listPage(request, reply));

    app.get('/portal/shipments/:id', async (request: Req, reply) => {
      const row = await ownShipment(request);
      return row ? shipmentPage(request, reply, row) : notFound(request, reply);
    });

    // Opens the customs document by a fresh signed link, as the label links do.
    app.get('/portal/shipments/:id/documents/:type', async (request: Req, reply) => {
      const row = await ownShipment(request);
      if (!row || !(await documentTypesOf(ctx, row)).includes(request.params.type)) return notFound(request, reply, 'There is no such document.');
      return reply.redirect(signedFileLink(ctx, DOCUMENT_FILES, row.id, request.params.type).url, 303);
    });

    app.post('/portal/shipments/:id/scans', async (request: Req, reply) => {
      const row = await ownShipment(request);
      if (!row || row.livemode) return notFound(request, reply, 'There is no such sandbox shipment.');
      const body = { status: field(request.body, 'status') } as SandboxScanBody;
      try {
        if (!validateScan(body)) throw new ApiError(CODE.validation_failed, `Choose a scan: ${SHIPMENT_SCAN_WORDS}.`);
        await recordSandboxScan(ctx, ownerOf(sessionOf(request), 'test'), row.id, body);
      } catch (err) {
        const message = messageOf(err);
        if (!message || !(err instanceof ApiError)) throw err;
        return shipmentPage(request, reply, row, { error: `The scan was not recorded: ${message}`, status: err.status });
      }
      request.log.info({ action: 'sandbox_scan', shipment_id: row.id, status: body.status }, 'portal: sandbox scan recorded');
      return reply.redirect(`${shipmentPath(row.id, 'test')}&notice=scan_recorded#tracking-h`, 303);
    });

    app.get('/portal/tracking', async (request: Req, reply) => {
      const s = sessionOf(request);
      const mode = modeOf(request.query.mode);
      const number = (request.query.number ?? '').trim();
      const row = number ? await findOwnShipmentByTracking(ctx.db, ownerOf(s, mode), number) : undefined;
      if (row) return reply.redirect(shipmentPath(row.id, mode), 303);
      const problems = new Problems();
      if (number) problems.add('number', `No ${modeName(mode).toLowerCase()} shipment of yours has this tracking number.`);
      const form = html`<form method="get" action="/portal/tracking" role="search"><input type="hidden" name="mode" value="${mode}">
${input(problems, { name: 'number', label: 'Tracking number', value: number, type: 'search', required: true })}
<div class="actions"><button type="submit">Find the shipment</button></div></form>`;
      const body = html`${problems.summary()}<section aria-labelledby="track-h"><h2 id="track-h">Find a shipment by its tracking number</h2>${modeSwitch('/portal/tracking', mode)}${form}</section>`;
      return sendPage(reply, { title: 'Tracking', session: s, active: 'tracking', body }, number ? 404 : 200);
    });
  };

const SHIPMENT_SCAN_WORDS = 'in transit, out for delivery, delivered or exception';

/** One page of the list, by the API's own reading of its filters. */
function listShipmentsPage(ctx: AppContext, o: { accountId: string; livemode: boolean; query: Record<string, string>; before?: string }) {
  const q = o.query;
  return listShipments(ctx.db, {
    accountId: o.accountId,
    livemode: o.livemode,
    status: q.status,
    reference: q.reference,
    createdAfter: q.created_after ? parseIsoInstant(q.created_after) : undefined,
    batchId: q.batch_id,
    before: o.before,
    limit: PAGE_SIZE,
  });
}
