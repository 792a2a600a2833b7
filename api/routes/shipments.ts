import type { FastifyPluginAsync } from 'fastify';
import { findOwnShipment, listShipments, type ShipmentRow } from '../../db/index.js';
import { CODE, ApiError, GENERIC_FAILURE_MESSAGE, parseIsoInstant, shipmentToJson } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf, type Caller } from '../auth.js';
import { normalizeAddresses } from '../catalog.js';
import { decodeCursor, listPage } from '../pagination.js';
import { requestPurchase } from '../services/purchase.js';
import { checkCarrierAddresses } from '../services/quote.js';
import { BuyRequestSchema, ListShipmentsQuery, ShipmentParams, type BuyRequest } from '../schemas.js';
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

export async function ownShipment(ctx: AppContext, caller: Caller, id: string): Promise<ShipmentRow> {
  const row = await findOwnShipment(ctx.db, caller.owner, id);
  if (!row) throw new ApiError(CODE.not_found, `No shipment ${id}.`);
  return row;
}

export const shipmentRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Body: BuyRequest }>(
      '/shipments',
      {
        // A purchase claims its key in the transaction that inserts its pending row, and only the
        // transaction that fails the purchase frees it; a repeated key joins the same purchase.
        config: { scope: 'shipments:write', idempotency: { joinsInHandler: true, claimsInHandler: true, releaseOn: () => false } },
        schema: { body: BuyRequestSchema, summary: 'Buy a label', operationId: 'createShipment', response: RESPONSES.createShipment },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const addresses = normalizeAddresses(request.body.from, request.body.to);
        checkCarrierAddresses(ctx.catalog, caller.livemode, request.body.service, addresses.from, addresses.to);
        const answer = await requestPurchase(ctx, caller, request.body, addresses, {
          idempotency: request.idempotency,
          requestId: String(request.id),
          log: request.log,
        });
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
