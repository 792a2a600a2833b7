import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyPluginAsync } from 'fastify';
import { claimIdempotencyKey, findOwnShipment, releaseIdempotencyKey, saveIdempotentResponse, type ShipmentRow } from '../../db/index.js';
import { ApiError, shipmentToJson, VOID_REFUSED_MESSAGE } from '../../domain/index.js';
import type { AppContext } from '../app.js';
import { callerOf } from '../auth.js';
import { fingerprintOf, idempotencyKeyOf, keyReused } from '../idempotency.js';
import { startVoid, VoidNotAccepted } from '../purchases.js';
import { resumeTracking } from '../resume.js';
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

/** The void update; a shipment whose tracking stopped after a quiet period is resumed for it first. */
async function startVoidResuming(ctx: AppContext, shipmentId: string, updateId: string) {
  try {
    return await startVoid(ctx.temporal, shipmentId, updateId, ctx.config.purchaseWaitMs);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError) || !(await resumeTracking(ctx.temporal, shipmentId, []))) throw err;
    return await startVoid(ctx.temporal, shipmentId, updateId, ctx.config.purchaseWaitMs);
  }
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
        // Only the request that claimed the key may free it; a replay never does.
        let owner = true;
        if (key) {
          const claim = await claimIdempotencyKey(ctx.db, { ...scope, fingerprint, shipmentId: undefined, now: ctx.now() });
          if (!claim.claimed) {
            if (claim.row.fingerprint !== fingerprint) throw keyReused();
            owner = false;
            reply.header('idempotency-replayed', 'true');
            if (claim.row.responseStatus) return reply.code(claim.row.responseStatus).send(claim.row.responseBody);
            if (row.status === 'voided') {
              // The first answer was a 202; the void has finished since: answer as the first would now.
              const body = shipmentToJson(row);
              await saveIdempotentResponse(ctx.db, scope, 200, body);
              return reply.code(200).send(body);
            }
          }
        }
        try {
          if (row.status !== 'purchased' && row.status !== 'voiding') throw refusal(row);
          let waited;
          try {
            waited = await startVoidResuming(ctx, row.id, key ?? String(request.id));
          } catch (err) {
            // The workflow refused (its validator) or has ended: the read model says why.
            if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
              const fresh = (await findOwnShipment(ctx.db, caller.owner, row.id)) ?? row;
              if (!owner && fresh.status === 'voided') {
                // A retry of the void that did it (same key), arriving after its workflow ended: its answer.
                const body = shipmentToJson(fresh);
                await saveIdempotentResponse(ctx.db, scope, 200, body);
                return reply.code(200).send(body);
              }
              throw refusal(fresh);
            }
            if (err instanceof VoidNotAccepted) {
              // Nothing was promised: the same key again joins the same void if it was accepted meanwhile.
              throw new ApiError('service_unavailable', 'The void could not be accepted in time; retry with the same Idempotency-Key.', {
                headers: { 'retry-after': '1' },
              });
            }
            throw err;
          }
          const now = (await findOwnShipment(ctx.db, caller.owner, row.id))!;
          // Accepted and under way: the shipment is voiding, whether or not the read model says so yet.
          if (!waited.done) return reply.code(202).send(shipmentToJson(now.status === 'purchased' ? { ...now, status: 'voiding' } : now));
          if (!waited.outcome.ok) {
            const { code, message } = waited.outcome;
            if (code === 'label_already_scanned') throw new ApiError('label_already_scanned', message);
            if (code === 'shipment_not_voidable') throw refusal(now);
            // The carrier's own text stays in the workflow for operators (contract: carrier_error).
            if (code === 'carrier_unavailable') {
              throw new ApiError('carrier_unavailable', 'The carrier could not be reached to cancel the label; it stays bought and charged. Try again later.', {
                fields: { shipment_id: row.id },
                headers: { 'retry-after': '30' },
              });
            }
            throw new ApiError('carrier_error', VOID_REFUSED_MESSAGE, { fields: { shipment_id: row.id } });
          }
          const body = shipmentToJson(now);
          if (key) await saveIdempotentResponse(ctx.db, scope, 200, body);
          return reply.code(200).send(body);
        } catch (err) {
          // A refused void changed nothing: the key is free again (contract: Idempotency, rule 4).
          // Not after a void that was not accepted in time: it may still run, and the same key must join it.
          if (key && owner && !(err instanceof ApiError && err.code === 'service_unavailable')) {
            await releaseIdempotencyKey(ctx.db, scope, fingerprint);
          }
          throw err;
        }
      },
    );
  };
