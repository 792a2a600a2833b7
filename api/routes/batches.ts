import { randomBytes } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { Client } from '@temporalio/client';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { findBatch, findOwnBatch, listBatches, listBatchItems, recordBatchRequest, type Db } from '../../db/index.js';
import { ApiError, batchToJson, CODE, makeId, shipmentToJson, type BatchRecord, type FundingSource } from '../../domain/index.js';
import { BATCH_PRIORITY, BATCH_WORKFLOW, batchWorkflowId, SA, taskQueues, type BatchWorkflowInput } from '../../contract/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { BATCH_LABEL_FILES, signedFileLink } from '../label-links.js';
import { currentBatchLabelFile } from '../batch-label-file.js';
import { SignedQuery, signedLinkCheck } from '../signed-files.js';
import { RESPONSES } from '../response-schemas.js';
import { purchaseSettings } from '../services/purchase.js';
import { BatchParams, LabelFormatSchema, pageQueryFor, type PageQuery } from '../schemas.js';
import { CreateBatchSchema, type CreateBatch } from '../schemas-shipment.js';
import { batchItemRow, type BatchBuyer } from '../services/batch-items.js';

/**
 * A batch's body is up to 1,000 purchase bodies, far over the API's 64 KiB limit: this route alone
 * takes up to 2 MiB (1,000 items of about 2 KiB each: a domestic item is some 300 bytes, an
 * international one with its addresses' contacts and a few customs lines 1 to 2 KiB).
 */
export const BATCH_BODY_LIMIT = 2 * 1024 * 1024;

type LabelFormat = Static<typeof LabelFormatSchema>;

/** The batch workflow's input: the account's terms and this API's purchase settings, as a single purchase's. */
function workflowInput(ctx: AppContext, caller: BatchBuyer, batchId: string, total: number): BatchWorkflowInput {
  const account = caller.account;
  return {
    batchId,
    accountId: account.id,
    livemode: caller.livemode,
    total,
    next: 0,
    purchased: 0,
    failed: 0,
    purchase: {
      fundingSource: account.fundingSource as FundingSource,
      currency: account.currency,
      vatRateBp: account.vatRateBp,
      ...purchaseSettings(ctx),
    },
  };
}

async function startBatch(temporal: Client, input: BatchWorkflowInput, labelFormat: string): Promise<void> {
  await temporal.workflow.start(BATCH_WORKFLOW, {
    workflowId: batchWorkflowId(input.batchId),
    taskQueue: taskQueues(input.purchase.queuePrefix).shipments,
    args: [input],
    priority: BATCH_PRIORITY,
    staticSummary: `Batch ${input.batchId}: ${input.total} item${input.total === 1 ? '' : 's'}, labels merged as ${labelFormat}`,
    typedSearchAttributes: [
      { key: SA.AccountId, value: input.accountId },
      { key: SA.Livemode, value: input.livemode },
    ],
  });
}

async function ownBatch(db: Db, caller: Caller, id: string): Promise<BatchRecord> {
  const batch = await findOwnBatch(db, caller.owner, id);
  if (!batch) throw new ApiError(CODE.not_found, `No batch ${id}.`);
  return batch;
}

const FileParams = Type.Object({ batch: Type.String(), format: Type.String({ maxLength: 20 }) });

/**
 * Records a batch of purchase bodies that passed `CreateBatchSchema` and starts its workflow, in one
 * transaction: the API's POST /batches and the portal's CSV upload (api/web/portal-batches.ts) both
 * buy through it. `claim` binds an Idempotency-Key to the batch.
 */
export async function requestBatch(ctx: AppContext, buyer: BatchBuyer, body: CreateBatch, claim?: Parameters<typeof recordBatchRequest>[1]['claim']) {
  const now = ctx.now();
  const labelFormat: LabelFormat = body.label_format ?? 'pdf_6x4';
  const batchId = makeId('bat', now.getTime(), randomBytes(16));
  const items = body.shipments.map((item, i) => batchItemRow(ctx, buyer, batchId, i, item, now));
  const recorded = await recordBatchRequest(ctx.db, {
    batch: { id: batchId, accountId: buyer.account.id, livemode: buyer.livemode, status: 'processing', labelFormat, total: items.length, createdAt: now },
    items,
    claim,
    start: () => startBatch(ctx.temporal, workflowInput(ctx, buyer, batchId, items.length), labelFormat),
  });
  return { batchId, items: items.length, recorded };
}

export const batchRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    async function sendFile(reply: FastifyReply, batch: BatchRecord) {
      const file = await currentBatchLabelFile(ctx, batch);
      const extension = batch.labelFormat === 'zpl' ? 'zpl' : 'pdf';
      return reply
        .type(file.contentType)
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `inline; filename="${batch.id}-${batch.labelFormat}.${extension}"`)
        .send(file.content);
    }

    app.post<{ Body: CreateBatch }>(
      '/batches',
      {
        bodyLimit: BATCH_BODY_LIMIT,
        // The key is claimed in the transaction that records the batch, and stays bound to it: a
        // repeated key answers that batch as it is now, never a second one.
        config: { scope: 'shipments:write', idempotency: { joinsInHandler: true, claimsInHandler: true, releaseOn: () => false } },
        schema: { body: CreateBatchSchema, summary: 'Buy a batch of labels', operationId: 'createBatch', response: RESPONSES.createBatch },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const idem = request.idempotency;
        let { batchId, recorded, items } = await requestBatch(ctx, caller, request.body, idem ? { ...idem.scope, fingerprint: idem.fingerprint } : undefined);
        if (idem) {
          const settled = idem.settle(recorded.kind === 'existing' ? { claimed: false, row: recorded.key } : { claimed: true });
          if (settled.replay) return reply.code(settled.replay.status).send(settled.replay.body);
          if (recorded.kind === 'existing') batchId = recorded.key.batchId!;
        }
        request.log.info({ batch_id: batchId, items, replayed: idem?.replayed ?? false }, 'batch requested');
        const batch = await ownBatch(ctx.db, caller, batchId);
        return reply.code(202).header('location', `/api/v1/batches/${batchId}`).send(batchToJson(batch));
      },
    );

    app.get<{ Params: Static<typeof BatchParams> }>(
      '/batches/:batch',
      { config: { scope: 'shipments:read' }, schema: { params: BatchParams, summary: 'Read one batch', operationId: 'retrieveBatch', response: RESPONSES.retrieveBatch } },
      async (request) => batchToJson(await ownBatch(ctx.db, callerOf(request), request.params.batch)),
    );

    app.get<{ Querystring: PageQuery }>(
      '/batches',
      { config: { scope: 'shipments:read' }, schema: { querystring: pageQueryFor('bat'), summary: 'List batches, newest first', operationId: 'listBatches', response: RESPONSES.listBatches } },
      async (request) => {
        const q = request.query;
        const page = await listBatches(ctx.db, { ...callerOf(request).owner, before: q.cursor ? decodeCursor(q.cursor, 'bat') : undefined, limit: q.limit ?? 20 });
        return listPage(page, batchToJson);
      },
    );

    app.get<{ Params: Static<typeof BatchParams>; Querystring: PageQuery }>(
      '/batches/:batch/shipments',
      {
        config: { scope: 'shipments:read' },
        schema: { params: BatchParams, querystring: pageQueryFor('shp'), summary: "List a batch's shipments, in item order", operationId: 'listBatchShipments', response: RESPONSES.listBatchShipments },
      },
      async (request) => {
        const batch = await ownBatch(ctx.db, callerOf(request), request.params.batch);
        const q = request.query;
        const page = await listBatchItems(ctx.db, { batchId: batch.id, after: q.cursor ? decodeCursor(q.cursor, 'shp') : undefined, limit: q.limit ?? 20 });
        return listPage(page, shipmentToJson);
      },
    );

    app.get<{ Params: Static<typeof BatchParams> }>(
      '/batches/:batch/label',
      { config: { scope: 'labels:read' }, schema: { params: BatchParams, summary: "The batch's merged label file", operationId: 'downloadBatchLabel', response: RESPONSES.batchLabelFile } },
      async (request, reply) => sendFile(reply, await ownBatch(ctx.db, callerOf(request), request.params.batch)),
    );

    app.get<{ Params: Static<typeof BatchParams> }>(
      '/batches/:batch/label/signed',
      {
        config: { scope: 'labels:read' },
        schema: { params: BatchParams, summary: "A short-lived signed URL to the batch's merged label file", operationId: 'createBatchLabelLink', response: RESPONSES.batchLabelLink },
      },
      async (request) => {
        const batch = await ownBatch(ctx.db, callerOf(request), request.params.batch);
        // Only a link to a file there is: the same refusals as the file's own route.
        await currentBatchLabelFile(ctx, batch);
        const { url, expires_at } = signedFileLink(ctx, BATCH_LABEL_FILES, batch.id, batch.labelFormat);
        return { object: 'label_link', livemode: batch.livemode, url, format: batch.labelFormat, expires_at };
      },
    );

    // The signed link itself: no bearer key, the signature is the credential, checked before the query.
    app.get<{ Params: Static<typeof FileParams>; Querystring: Static<typeof SignedQuery> }>(
      '/batch-label-files/:batch/:format',
      {
        onRequest: signedLinkCheck(ctx, BATCH_LABEL_FILES, 'batch'),
        schema: {
          params: FileParams,
          querystring: SignedQuery,
          summary: "The batch's merged label file behind a signed link (no key: the signature is the credential)",
          operationId: 'downloadSignedBatchLabel',
          security: [],
          response: RESPONSES.signedBatchLabelFile,
        },
      },
      async (request, reply) => {
        const batch = await findBatch(ctx.db, request.params.batch);
        if (!batch) throw new ApiError(CODE.not_found, `No batch ${request.params.batch}.`);
        return sendFile(reply, batch);
      },
    );
  };
