import type { FastifyPluginAsync } from 'fastify';
import { ApiError, CODE, shipmentToJson } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../auth.js';
import { requestVoid } from '../services/void.js';
import { ShipmentParams } from '../schemas.js';
import { ownShipment } from './shipments.js';
import { scanFormOfShipment, type ShipmentRow } from '../../db/index.js';
import type { IdempotentRequest } from '../idempotency.js';
import { RESPONSES } from '../response-schemas.js';

/**
 * A void of one of the caller's shipments: the API's `POST /shipments/{id}/void` and the portal's
 * Void button both make it here. A shipment on a SCAN form is handed over to the carrier with it: it
 * can no longer be voided.
 */
export async function voidShipment(ctx: AppContext, caller: Parameters<typeof requestVoid>[1], row: ShipmentRow, idem: IdempotentRequest | undefined, requestId: string) {
  const form = await scanFormOfShipment(ctx.db, row.id);
  if (form) throw new ApiError(CODE.shipment_not_voidable, `Shipment ${row.id} is on SCAN form ${form} and can no longer be voided.`, { fields: { shipment_id: row.id } });
  return requestVoid(ctx, caller, row, idem, requestId);
}

export const voidRoute =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Params: { shipment: string } }>(
      '/shipments/:shipment/void',
      {
        // A repeated key joins the same void (the update id is the key); a refused void frees it,
        // a void not accepted in time keeps it, since it may still run and the same key must join it.
        // A void takes no parameters (takesNoBody): {} is the same request as no body, a field is 422.
        config: { scope: 'shipments:void', takesNoBody: true, idempotency: { joinsInHandler: true, releaseOn: (err) => !(err instanceof ApiError && err.code === CODE.service_unavailable) } },
        schema: { params: ShipmentParams, summary: 'Void a label and reverse the charge', operationId: 'voidShipment', response: RESPONSES.voidShipment },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const row = await ownShipment(ctx, caller, request.params.shipment);
        const answer = await voidShipment(ctx, caller, row, request.idempotency, String(request.id));
        // Still voiding: where to follow it, as a purchase's 202 says.
        if (answer.status === 202) reply.header('location', `/api/v1/shipments/${answer.row.id}`);
        return reply.code(answer.status).send(shipmentToJson(answer.row));
      },
    );
  };
