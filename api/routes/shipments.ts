import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { findOwnShipment, listShipments, type ShipmentRow } from '../../db/index.js';
import { CODE, ApiError, GENERIC_FAILURE_MESSAGE, parseIsoInstant, shipmentToJson } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { decodeCursor, listPage } from '../pagination.js';
import { checkPurchase, requestPurchase, type PurchaseOrder } from '../services/purchase.js';
import { shipmentTerms } from '../services/shipment-terms.js';
import { returnOrder } from '../services/return.js';
import { ListShipmentsQuery, ShipmentParams } from '../schemas.js';
import { PurchaseRequestSchema, ReturnRequestSchema, type PurchaseRequest, type ReturnRequest } from '../schemas-shipment.js';
import { RESPONSES } from '../response-schemas.js';

/** A failed purchase answers its own error, naming the shipment that stays listed as failed. */
export function failureError(row: Pick<ShipmentRow, 'id' | 'failureCode' | 'failureMessage'>): ApiError {
  // A failed row always has its code; a row without one answers as the carrier's refusal.
  const code = row.failureCode ?? CODE.carrier_error;
  return new ApiError(code, row.failureMessage ?? GENERIC_FAILURE_MESSAGE, {
    fields: { shipment_id: row.id },
    headers: code === CODE.carrier_unavailable ? { 'retry-after': '30' } : {},
  });
}

/**
 * A body that failed its schema: 422 with every bad field, except an unknown service code alone,
 * which is `service_not_available` as the contract's table has it (the document lists the codes).
 */
function refuseInvalid(request: FastifyRequest): void {
  const error = request.validationError as (FastifyError & { validation?: Array<{ instancePath: string; keyword: string }> }) | undefined;
  if (!error) return;
  const found = error.validation ?? [];
  if (found.length && found.every((e) => e.instancePath === '/service' && e.keyword === 'enum')) {
    const code = (request.body as { service?: unknown }).service;
    throw new ApiError(CODE.service_not_available, `Service ${String(code)} is not a service of this API; quote the parcel and buy one of the services offered.`, {
      errors: [{ path: 'service', message: 'must be one of the service codes this API sells' }],
    });
  }
  throw error;
}

export async function ownShipment(ctx: AppContext, caller: Caller, id: string): Promise<ShipmentRow> {
  const row = await findOwnShipment(ctx.db, caller.owner, id);
  if (!row) throw new ApiError(CODE.not_found, `No shipment ${id}.`);
  return row;
}

export const shipmentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    /**
     * Buys the order's label and answers as the contract's `POST /shipments` does: 201 purchased, 202
     * still pending (the workflow finishes it), or the purchase's own error naming the failed shipment.
     */
    async function purchase(request: FastifyRequest, reply: FastifyReply, caller: Caller, order: PurchaseOrder) {
      checkPurchase(ctx, caller, order);
      const answer = await requestPurchase(ctx, caller, order, { idempotency: request.idempotency, requestId: String(request.id), log: request.log });
      if (answer.stored) return reply.code(answer.stored.status).send(answer.stored.body);
      const row = answer.row;
      // A failed purchase has already freed its keys, in the transaction that failed it: freeing
      // here again could delete a newer claim by a retry (contract: Idempotency, rule 4).
      if (row.status === 'failed') throw failureError(row);
      if (row.status === 'pending') {
        // Still under way: the durable workflow finishes it; the result comes by GET or webhook.
        return reply.code(202).header('location', `/api/v1/shipments/${row.id}`).send(shipmentToJson(row));
      }
      return reply.code(201).send(shipmentToJson(row));
    }

    app.post<{ Body: PurchaseRequest }>(
      '/shipments',
      {
        // A purchase claims its key in the transaction that inserts its pending row, and only the
        // transaction that fails the purchase frees it; a repeated key joins the same purchase.
        config: { scope: 'shipments:write', idempotency: { joinsInHandler: true, claimsInHandler: true, releaseOn: () => false } },
        // The handler sees a failed validation: an unknown service code alone is service_not_available.
        attachValidation: true,
        schema: { body: PurchaseRequestSchema, summary: 'Buy a label', operationId: 'createShipment', response: RESPONSES.createShipment },
      },
      async (request, reply) => {
        refuseInvalid(request);
        const caller = callerOf(request);
        const body = request.body;
        const terms = shipmentTerms(body, caller.account.currency, 'purchase');
        return purchase(request, reply, caller, { service: body.service, parcel: body.parcel, reference: body.reference, terms });
      },
    );

    app.post<{ Params: { shipment: string }; Body: ReturnRequest }>(
      '/shipments/:shipment/return',
      {
        config: { scope: 'shipments:write', idempotency: { joinsInHandler: true, claimsInHandler: true, releaseOn: () => false } },
        // No body is the same request as {}: the original's service.
        preValidation: async (request) => {
          request.body ??= {};
        },
        attachValidation: true,
        schema: { params: ShipmentParams, body: ReturnRequestSchema, summary: 'Buy the return label of a shipment', operationId: 'createReturn', response: RESPONSES.createReturn },
      },
      async (request, reply) => {
        refuseInvalid(request);
        const caller = callerOf(request);
        const original = await ownShipment(ctx, caller, request.params.shipment);
        return purchase(request, reply, caller, returnOrder(original, request.body.service));
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
        // The schema's format has refused what names no instant, together with any other bad parameter.
        const createdAfter = q.created_after === undefined ? undefined : parseIsoInstant(q.created_after);
        const { rows, hasMore } = await listShipments(ctx.db, {
          ...caller.owner,
          status: q.status,
          // Stored trimmed, as every body string: the reference as sent finds it.
          reference: q.reference?.trim(),
          createdAfter,
          batchId: q.batch_id?.trim(),
          before: q.cursor ? decodeCursor(q.cursor, 'shp') : undefined,
          limit: q.limit ?? 20,
        });
        return listPage({ rows, hasMore }, shipmentToJson);
      },
    );
  };
