import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { findOwnShipment, listShipments, recordPurchaseRequest, saveIdempotentResponse, type ShipmentRow } from '../../db/index.js';
import { ApiError, FAILURE, makeId, shipmentToJson, type FundingSource } from '../../domain/index.js';
import type { AppContext } from '../app.js';
import { callerOf, type Caller } from '../auth.js';
import { normalizeAddresses } from '../catalog.js';
import { fingerprintOf, idempotencyKeyOf, keyReused } from '../idempotency.js';
import { decodeCursor, listPage } from '../pagination.js';
import { startPurchase } from '../purchases.js';
import { BuyRequestSchema, ListShipmentsQuery, ShipmentParams, type BuyRequest } from '../schemas.js';
import { voidRoute } from './void.js';
import { RESPONSES } from '../response-schemas.js';

/** A failed purchase answers its own error, naming the shipment that stays listed as failed. */
export function failureError(row: Pick<ShipmentRow, 'id' | 'failureCode' | 'failureMessage'>): ApiError {
  // A failed row always has its code; a row without one answers as the carrier's refusal.
  const code = row.failureCode ?? FAILURE.carrierRefused;
  return new ApiError(code, row.failureMessage ?? 'The purchase failed; nothing was bought or charged.', {
    fields: { shipment_id: row.id },
    headers: code === FAILURE.carrierUnavailable ? { 'retry-after': '30' } : {},
  });
}

export async function ownShipment(ctx: AppContext, caller: Caller, id: string): Promise<ShipmentRow> {
  const row = await findOwnShipment(ctx.db, caller.owner, id);
  if (!row) throw new ApiError('not_found', `No shipment ${id}.`);
  return row;
}

export const shipmentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: BuyRequest }>(
      '/shipments',
      { config: { scope: 'shipments:write' }, schema: { body: BuyRequestSchema, summary: 'Buy a label', operationId: 'createShipment', response: RESPONSES.createShipment } },
      async (request, reply) => {
        const caller = callerOf(request);
        const { from, to } = normalizeAddresses(request.body.from, request.body.to);
        const key = idempotencyKeyOf(request);
        const fingerprint = fingerprintOf(request);
        const scope = { ...caller.owner, key: key ?? '' };

        const reference = request.body.reference?.trim() || null;
        const account = caller.account;
        let shipmentId = makeId('shp', Date.now(), randomBytes(16));
        let replayed = false;
        // The key is claimed and the pending row inserted in one transaction: a key never names a
        // shipment that does not exist, whatever stops this process in between.
        const recorded = await recordPurchaseRequest(
          ctx.db,
          {
            id: shipmentId,
            accountId: account.id,
            livemode: caller.livemode,
            status: 'pending',
            reference,
            serviceCode: request.body.service,
            fromAddress: from,
            toAddress: to,
            parcel: request.body.parcel,
            currency: account.currency,
            chargedTo: account.fundingSource,
            createdAt: ctx.now(),
            updatedAt: ctx.now(),
          },
          key ? { ...scope, fingerprint } : undefined,
        );
        if (recorded.kind === 'existing') {
          if (recorded.key.fingerprint !== fingerprint) throw keyReused();
          replayed = true;
          reply.header('idempotency-replayed', 'true');
          if (recorded.key.responseStatus) return reply.code(recorded.key.responseStatus).send(recorded.key.responseBody);
          shipmentId = recorded.key.shipmentId!;
        }
        request.log.info({ shipment_id: shipmentId, replayed }, 'purchase requested');
        // Waits up to PURCHASE_WAIT_MS; the shipment's status then decides the answer.
        await startPurchase(
          ctx.temporal,
          {
            shipmentId,
            accountId: account.id,
            livemode: caller.livemode,
            fundingSource: account.fundingSource as FundingSource,
            currency: account.currency,
            vatRateBp: account.vatRateBp,
            serviceCode: request.body.service,
            from,
            to,
            parcel: request.body.parcel,
            reference,
            queuePrefix: ctx.config.taskQueuePrefix,
            purchaseDeadlineMs: ctx.config.purchaseDeadlineMs,
            strayLabelSettleMs: ctx.config.strayLabelSettleMs,
            tracking: {
              minPollMs: ctx.config.trackingPollMinMs,
              maxPollMs: ctx.config.trackingPollMaxMs,
              continueAsNewAfterPolls: ctx.config.trackingContinueAsNewAfterPolls,
            },
          },
          key ?? String(request.id),
          ctx.config.purchaseWaitMs,
        );
        const row = (await findOwnShipment(ctx.db, caller.owner, shipmentId))!;
        // A failed purchase has already freed its keys, in the transaction that failed it: freeing
        // here again could delete a newer claim by a retry (contract: Idempotency, rule 4).
        if (row.status === 'failed') throw failureError(row);
        if (row.status === 'pending') {
          // Still under way: the durable workflow finishes it; the result comes by GET or webhook.
          return reply.code(202).header('location', `/api/v1/shipments/${row.id}`).send(shipmentToJson(row));
        }
        const body = shipmentToJson(row);
        if (key) await saveIdempotentResponse(ctx.db, scope, 201, body);
        return reply.code(201).send(body);
      },
    );

    app.get<{ Params: { shipment: string } }>(
      '/shipments/:shipment',
      { config: { scope: 'shipments:read' }, schema: { params: ShipmentParams, summary: 'Read one shipment', operationId: 'retrieveShipment', response: RESPONSES.retrieveShipment } },
      async (request) => shipmentToJson(await ownShipment(ctx, callerOf(request), request.params.shipment)),
    );

    app.get<{ Querystring: ListShipmentsQuery }>(
      '/shipments',
      { config: { scope: 'shipments:read' }, schema: { querystring: ListShipmentsQuery, summary: 'List shipments, newest first', operationId: 'listShipments', response: RESPONSES.listShipments } },
      async (request) => {
        const caller = callerOf(request);
        const q = request.query;
        const createdAfter = q.created_after ? new Date(q.created_after) : undefined;
        const { rows, hasMore } = await listShipments(ctx.db, {
          ...caller.owner,
          status: q.status,
          reference: q.reference,
          createdAfter,
          before: q.cursor ? decodeCursor(q.cursor, 'shp') : undefined,
          limit: q.limit ?? 20,
        });
        return listPage({ rows, hasMore }, shipmentToJson);
      },
    );

    await app.register(voidRoute(ctx));
  };
