import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  confirmScanForm,
  findOwnScanForm,
  findOwnShipments,
  findScanForm,
  formsOfShipments,
  insertScanForm,
  listScanForms,
  releaseScanForm,
  schema,
  type ScanFormRow,
  type ShipmentRow,
} from '../../db/index.js';
import { CarrierError, type CarrierAdapter, type ScanForm, type ScanFormRequest } from '../../carriers/index.js';
import { ApiError, CODE, makeId, type Address, type FieldError } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { RESPONSES } from '../response-schemas.js';
import { SCAN_FORM_FILES, signedFileLink } from '../label-links.js';
import { SignedQuery, signedLinkCheck } from '../signed-files.js';
import { OPTIONAL_TEXT, pageQueryFor, type PageQuery } from '../schemas.js';
import { carrierFailure, formPdf, liveAdapter, sandboxFormPdf } from '../services/carrier-ops.js';

/** At most this many shipments on one form: a batch's size. */
const MAX_FORM_SHIPMENTS = 1_000;

export const CreateScanFormSchema = Type.Object(
  {
    shipment_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_FORM_SHIPMENTS, description: 'Purchased shipments of one carrier and sender address' })),
    batch_id: Type.Optional(Type.String({ maxLength: 64, description: 'bat_…: every purchased shipment of the batch' })),
  },
  { additionalProperties: false, description: 'Either `shipment_ids` or `batch_id`', oneOf: [{ required: ['shipment_ids'] }, { required: ['batch_id'] }] },
);
export type CreateScanForm = Static<typeof CreateScanFormSchema>;
const ScanFormParams = Type.Object({ id: Type.String() }, { additionalProperties: false });

export function scanFormToJson(row: Pick<ScanFormRow, 'id' | 'livemode' | 'carrier' | 'shipmentIds' | 'createdAt'>) {
  return { id: row.id, object: 'scan_form' as const, livemode: row.livemode, carrier: row.carrier, shipment_ids: row.shipmentIds, created_at: row.createdAt.toISOString() };
}

const invalid = (errors: FieldError[]) =>
  new ApiError(CODE.validation_failed, errors.length === 1 ? errors[0].message : `${errors.length} shipments cannot go on this form.`, { errors });

/** Keys sorted: two equal addresses compare equal whatever order their fields were stored in. */
function addressKey(value: unknown): string {
  const a = (value ?? {}) as Record<string, unknown>;
  return JSON.stringify(Object.keys(a).sort().map((k) => [k, typeof a[k] === 'string' ? (a[k] as string).trim().toUpperCase() : a[k]]));
}

/**
 * The purchased shipments of a batch, in item order: its failed items were never bought, so they are
 * left out rather than refused. A batch of another account or mode, or one with nothing bought, is a 422.
 */
async function batchShipmentIds(ctx: AppContext, owner: Caller['owner'], batchId: string): Promise<string[]> {
  const rows = await ctx.db.execute<{ id: string }>(
    sql`select id from ${schema.shipments} where batch_id = ${batchId} and account_id = ${owner.accountId} and livemode = ${owner.livemode} and status <> 'failed' order by batch_index`,
  );
  const ids = (rows as unknown as { rows?: Array<{ id: string }> }).rows ?? (rows as unknown as Array<{ id: string }>);
  if (ids.length === 0) throw new ApiError(CODE.validation_failed, `No purchased shipments in batch ${batchId}.`, { errors: [{ path: 'batch_id', message: 'names no batch of yours with purchased shipments' }] });
  return ids.map((r) => r.id);
}

/** Every reason each shipment cannot go on one form together, by its place in the list. */
function checkShipments(ctx: AppContext, ids: string[], rows: Map<string, ShipmentRow>, onForm: Map<string, string>, pathOf: (i: number) => string) {
  const errors: FieldError[] = [];
  const first = ids.map((id) => rows.get(id)).find((r) => r !== undefined);
  const carrier = first?.carrier ?? null;
  const sender = first ? addressKey(first.fromAddress) : null;
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    const path = pathOf(i);
    const row = rows.get(id);
    if (seen.has(id)) return errors.push({ path, message: `${id} is listed twice` });
    seen.add(id);
    if (!row) return errors.push({ path, message: `no shipment ${id}` });
    if (row.status !== 'purchased' || !row.trackingNumber) return errors.push({ path, message: `${id} is ${row.status}, not purchased` });
    const definition = ctx.catalog.definitions.find((d) => d.code === row.carrier);
    if (!definition?.capabilities.scanForms) return errors.push({ path, message: `${row.carrier ?? 'its carrier'} makes no SCAN forms` });
    if (row.carrier !== carrier) return errors.push({ path, message: `${id} is a ${row.carrier} shipment; the form is for ${carrier}` });
    if (addressKey(row.fromAddress) !== sender) return errors.push({ path, message: `${id} has another sender address` });
    const form = onForm.get(id);
    if (form) return errors.push({ path, message: `${id} is on form ${form} already` });
  });
  return { errors, carrier };
}

/**
 * Checks the shipments, has the carrier (or, in the sandbox, this service) make the form, and records
 * it: the API's POST /scan_forms and the portal's batch page (api/web/portal-batches.ts) both make
 * forms through it. The body has passed `CreateScanFormSchema`.
 */
export async function createScanForm(ctx: AppContext, owner: Caller['owner'], body: CreateScanForm) {
  const { shipment_ids: listed, batch_id: batchId } = body;
  if ((listed === undefined) === (batchId === undefined)) {
    throw invalid([{ path: listed === undefined ? 'shipment_ids' : 'batch_id', message: 'send either shipment_ids or batch_id, not both or neither' }]);
  }
  const ids = listed ?? (await batchShipmentIds(ctx, owner, batchId as string));
  // By batch, each error is the batch's, its message naming the shipment.
  const pathOf = listed ? (i: number) => `shipment_ids[${i}]` : () => 'batch_id';
  const rows = new Map((await findOwnShipments(ctx.db, owner, ids)).map((r) => [r.id, r]));
  const { errors, carrier } = checkShipments(ctx, ids, rows, await formsOfShipments(ctx.db, ids), pathOf);
  if (errors.length || !carrier) throw invalid(errors);
  const shipments = ids.map((id) => rows.get(id) as ShipmentRow);
  const now = ctx.now();
  const id = makeId('sf', now.getTime(), randomBytes(16));
  const from = shipments[0].fromAddress as Record<string, string | undefined>;
  const fromLines = [from.name, from.line1, from.line2, `${from.city} ${from.state ?? ''} ${from.postcode} ${from.country}`.replace(/\s+/g, ' ')].filter((l): l is string => Boolean(l));
  const trackingNumbers = shipments.map((s) => s.trackingNumber as string);
  const row = { id, accountId: owner.accountId, livemode: owner.livemode, carrier, shipmentIds: ids, contentType: 'application/pdf', createdAt: now };
  const refusedBy = (refused: Awaited<ReturnType<typeof insertScanForm>>) => {
    // Another form took some of them, or a void began, since they were checked.
    const { taken, notPurchased } = refused;
    if (taken.length) throw invalid(taken.map((t) => ({ path: pathOf(ids.indexOf(t)), message: `${t} is on another form already` })));
    if (notPurchased.length) throw invalid(notPurchased.map((s) => ({ path: pathOf(ids.indexOf(s.id)), message: `${s.id} is ${s.status}, not purchased` })));
  };
  if (!owner.livemode) {
    // A sandbox key never reaches a carrier: the form is made here, in the same shape.
    const carrierFormId = `SANDBOX-${id.slice(-10).toUpperCase()}`;
    const carrierName = ctx.catalog.definitions.find((d) => d.code === carrier)?.name ?? carrier;
    const content = await sandboxFormPdf({ carrierName, number: carrierFormId, from: fromLines, trackingNumbers });
    refusedBy(await insertScanForm(ctx.db, { ...row, carrierFormId, content }));
  } else {
    const adapter = liveAdapter(ctx, carrier);
    if (!adapter.createScanForm) throw invalid([{ path: pathOf(0), message: `${carrier} makes no SCAN forms` }]);
    // Recorded, holding its shipments, before the carrier is asked: a void is refused from now on,
    // so the carrier never keeps a form of a label we voided. Its file comes with the carrier's answer.
    refusedBy(await insertScanForm(ctx.db, { ...row, carrierFormId: '', content: Buffer.alloc(0) }));
    await makeAtCarrier(ctx, adapter, id, { from: shipments[0].fromAddress as Address, labels: shipments.map((s) => ({ reference: s.id, trackingNumber: s.trackingNumber as string })) });
  }
  return scanFormToJson({ id, livemode: owner.livemode, carrier, shipmentIds: ids, createdAt: now });
}

/**
 * Has the carrier make the recorded form `id`, and keeps its number and file. A refusal frees its
 * shipments (no form was made: a void may go ahead). An answer that never came may still have made
 * it: the form then keeps holding its shipments, as does one whose file cannot be read, until an
 * operator has settled it with the carrier (`npm run ops -- stuck` names it).
 */
async function makeAtCarrier(ctx: AppContext, adapter: CarrierAdapter, id: string, request: Omit<ScanFormRequest, 'reference'>): Promise<void> {
  let form: ScanForm;
  try {
    form = await adapter.createScanForm!({ reference: id, ...request });
  } catch (error) {
    if (error instanceof CarrierError && error.kind === 'definitive') {
      await releaseScanForm(ctx.db, id);
      carrierFailure(error);
    }
    throw new ApiError(
      CODE.carrier_unavailable,
      `The carrier's answer to SCAN form ${id} was lost, so it may have made it: its shipments stay on it (they can no longer be voided) until we have settled it with the carrier. Nothing was charged.`,
    );
  }
  let content: Buffer;
  try {
    content = await formPdf(form.document);
  } catch (error) {
    await confirmScanForm(ctx.db, id, { carrierFormId: form.carrierFormId, content: Buffer.alloc(0) });
    throw new ApiError(CODE.carrier_error, `The carrier made SCAN form ${form.carrierFormId} but sent a file we cannot read (${(error as Error).message}); its shipments stay on it.`);
  }
  await confirmScanForm(ctx.db, id, { carrierFormId: form.carrierFormId, content });
}

export const scanFormRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: CreateScanForm }>(
      '/scan_forms',
      {
        config: { scope: 'shipments:write', idempotency: {} },
        schema: { body: CreateScanFormSchema, summary: 'Put purchased shipments on a SCAN form (manifest)', operationId: 'createScanForm', response: RESPONSES.createScanForm },
      },
      async (request, reply) => reply.code(201).send(await createScanForm(ctx, callerOf(request).owner, request.body)),
    );

    app.get<{ Params: Static<typeof ScanFormParams> }>(
      '/scan_forms/:id',
      { config: { scope: 'shipments:read' }, schema: { params: ScanFormParams, summary: 'Read one SCAN form', operationId: 'retrieveScanForm', response: RESPONSES.retrieveScanForm } },
      async (request) => scanFormToJson(await ownForm(ctx, callerOf(request), request.params.id)),
    );

    app.get<{ Params: Static<typeof ScanFormParams> }>(
      '/scan_forms/:id/file',
      { config: { scope: 'labels:read' }, schema: { params: ScanFormParams, summary: 'The SCAN form as a PDF', operationId: 'scanFormFile', response: RESPONSES.scanFormFile } },
      async (request, reply) => sendForm(reply, await ownForm(ctx, callerOf(request), request.params.id)),
    );

    app.get<{ Params: Static<typeof ScanFormParams> }>(
      '/scan_forms/:id/file/signed',
      {
        config: { scope: 'labels:read' },
        schema: { params: ScanFormParams, summary: 'A short-lived signed URL to the SCAN form', operationId: 'createScanFormLink', response: RESPONSES.scanFormLink },
      },
      async (request) => {
        const row = await ownForm(ctx, callerOf(request), request.params.id);
        const { url, expires_at } = signedFileLink(ctx, SCAN_FORM_FILES, row.id, 'pdf');
        return { object: 'file_link', livemode: row.livemode, url, expires_at };
      },
    );

    // The signed link itself: no bearer key, the signature is the credential, checked before the query.
    app.get<{ Params: Static<typeof FormFileParams>; Querystring: Static<typeof SignedQuery> }>(
      '/scan-form-files/:id/:format',
      {
        onRequest: signedLinkCheck(ctx, SCAN_FORM_FILES, 'id'),
        schema: {
          params: FormFileParams,
          querystring: SignedQuery,
          summary: 'The SCAN form behind a signed link (no key: the signature is the credential)',
          operationId: 'downloadSignedScanForm',
          security: [],
          response: RESPONSES.signedScanFormFile,
        },
      },
      async (request, reply) => {
        const row = await findScanForm(ctx.db, request.params.id);
        if (!row) throw new ApiError(CODE.not_found, `No SCAN form ${request.params.id}.`);
        return sendForm(reply, row);
      },
    );

    app.get<{ Querystring: PageQuery }>(
      '/scan_forms',
      { config: { scope: 'shipments:read' }, schema: { querystring: pageQueryFor('sf'), summary: 'List SCAN forms, newest first', operationId: 'listScanForms', response: RESPONSES.listScanForms } },
      async (request) => {
        const caller = callerOf(request);
        const q = request.query;
        const page = await listScanForms(ctx.db, { ...caller.owner, before: q.cursor ? decodeCursor(q.cursor, 'sf') : undefined, limit: q.limit ?? 20 });
        return listPage(page, scanFormToJson);
      },
    );
  };

function sendForm(reply: FastifyReply, row: ScanFormRow) {
  return reply.type(row.contentType).header('cache-control', 'private, no-store').header('content-disposition', `inline; filename="${row.id}.pdf"`).send(row.content);
}

const FormFileParams = Type.Object({ id: Type.String({ maxLength: 64 }), format: Type.String({ maxLength: 20 }) });
async function ownForm(ctx: AppContext, caller: Caller, id: string): Promise<ScanFormRow> {
  const row = await findOwnScanForm(ctx.db, caller.owner, id);
  if (!row) throw new ApiError(CODE.not_found, `No SCAN form ${id}.`);
  return row;
}
