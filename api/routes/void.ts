import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyPluginAsync } from 'fastify';
import { claimIdempotencyKey, findOwnShipment, releaseIdempotencyKey, saveIdempotentResponse, type ShipmentRow } from '../../db/index.js';
import { ApiError, shipmentToJson } from '../../domain/index.js';
import type { AppContext } from '../app.js';
import { callerOf } from '../auth.js';
import { fingerprintOf, idempotencyKeyOf, keyReused } from '../idempotency.js';
import { startVoid } from '../purchases.js';
import { ShipmentParams } from '../schemas.js';
import { ownShipment } from './shipments.js';
import { RESPONSES } from '../response-schemas.js';

const SCANNED = new Set(['in_transit', 'exception', 'delivered']);

/** Why a shipment in this state cannot be voided, in the contract's codes. */
function refusal(row: ShipmentRow): ApiError {
  if (SCANNED.has(row.status)) {
    return new ApiError('label_already_scanned', 'The carrier has already scanned this label, so it cannot be voided.');
  }
  return new ApiError('shipment_not_voidable', `A ${row.status} shipment cannot be voided.`);
}

export const voidRoute =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post<{ Params: { shipment: string } }>(
      '/shipments/:shipment/void',
      { config: { scope: 'shipments:void' }, schema: { params: ShipmentParams, summary: 'Void a label and reverse the charge', operationId: 'voidShipment', response: RESPONSES.voidShipment } },
      async (request, reply) => {
        const caller = callerOf(request);
        const row = await ownShipment(ctx, caller, request.params.shipment);
        const key = idempotencyKeyOf(request);
        const fingerprint = fingerprintOf(request);
        const scope = { ...caller.owner, key: key ?? '' };
        if (key) {
          const claim = await claimIdempotencyKey(ctx.db, { ...scope, fingerprint, shipmentId: undefined, now: ctx.now() });
          if (!claim.claimed) {
            if (claim.row.fingerprint !== fingerprint) throw keyReused();
            reply.header('idempotency-replayed', 'true');
            if (claim.row.responseStatus) return reply.code(claim.row.responseStatus).send(claim.row.responseBody);
          }
        }
        try {
          if (row.status !== 'purchased' && row.status !== 'voiding') throw refusal(row);
          let waited;
          try {
            waited = await startVoid(ctx.temporal, row.id, key ?? String(request.id), ctx.config.purchaseWaitMs);
          } catch (err) {
            // The workflow refused (its validator) or has ended: the read model says why.
            if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
              throw refusal((await findOwnShipment(ctx.db, caller.owner, row.id)) ?? row);
            }
            throw err;
          }
          const now = (await findOwnShipment(ctx.db, caller.owner, row.id))!;
          if (!waited.done) return reply.code(202).send(shipmentToJson(now));
          if (!waited.outcome.ok) {
            const { code, message } = waited.outcome;
            if (code === 'label_already_scanned') throw new ApiError('label_already_scanned', message);
            if (code === 'shipment_not_voidable') throw refusal(now);
            throw new ApiError('carrier_error', message, { fields: { shipment_id: row.id } });
          }
          const body = shipmentToJson(now);
          if (key) await saveIdempotentResponse(ctx.db, scope, 200, body);
          return reply.code(200).send(body);
        } catch (err) {
          // A refused void changed nothing: the key is free again (contract: Idempotency, rule 4).
          if (key) await releaseIdempotencyKey(ctx.db, scope, fingerprint);
          throw err;
        }
      },
    );
  };
