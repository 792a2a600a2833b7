import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyPluginAsync } from 'fastify';
import { findOwnShipment, type ShipmentRow } from '../../db/index.js';
import { CODE, ApiError, FAILURE, shipmentToJson, VOID_REFUSED_MESSAGE, type ErrorCode } from '../../domain/index.js';
import type { AppContext } from '../app.js';
import { callerOf } from '../auth.js';
import { startVoid, VoidNotAccepted } from '../purchases.js';
import { resumeTracking } from '../resume.js';
import { ShipmentParams } from '../schemas.js';
import { ownShipment } from './shipments.js';
import { RESPONSES } from '../response-schemas.js';

const SCANNED = new Set(['in_transit', 'exception', 'delivered']);

/** Why a shipment in this state cannot be voided, in the contract's codes. */
function refusal(row: ShipmentRow): ApiError {
  if (SCANNED.has(row.status)) {
    return new ApiError(CODE.label_already_scanned, 'The carrier has already scanned this label, so it cannot be voided.');
  }
  return new ApiError(CODE.shipment_not_voidable, `A ${row.status} shipment cannot be voided.`);
}

/** A void the workflow refused or could not carry out, in the contract's codes. */
function voidFailure(outcome: { code: ErrorCode; message: string }, now: ShipmentRow): ApiError {
  const { code, message } = outcome;
  if (code === FAILURE.labelAlreadyScanned) return new ApiError(code, message);
  if (code === FAILURE.shipmentNotVoidable) return refusal(now);
  // The carrier's own text stays in the workflow for operators (contract: carrier_error).
  if (code === FAILURE.carrierUnavailable) {
    return new ApiError(code, 'The carrier could not be reached to cancel the label; it stays bought and charged. Try again later.', {
      fields: { shipment_id: now.id },
      headers: { 'retry-after': '30' },
    });
  }
  return new ApiError(FAILURE.carrierRefused, VOID_REFUSED_MESSAGE, { fields: { shipment_id: now.id } });
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
      {
        // A repeated key joins the same void (the update id is the key); a refused void frees it,
        // a void not accepted in time keeps it, since it may still run and the same key must join it.
        config: { scope: 'shipments:void', idempotency: { inFlight: 'join', releaseOn: (err) => !(err instanceof ApiError && err.code === CODE.service_unavailable) } },
        schema: { params: ShipmentParams, summary: 'Void a label and reverse the charge', operationId: 'voidShipment', response: RESPONSES.voidShipment },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const row = await ownShipment(ctx, caller, request.params.shipment);
        const idem = request.idempotency;
        if (idem?.replayed && row.status === 'voided') {
          // The first answer was a 202; the void has finished since: answer as the first would now.
          return reply.code(200).send(shipmentToJson(row));
        }
        if (row.status !== 'purchased' && row.status !== 'voiding') throw refusal(row);
        let waited;
        try {
          waited = await startVoidResuming(ctx, row.id, idem?.key ?? String(request.id));
        } catch (err) {
          // The workflow refused (its validator) or has ended: the read model says why.
          if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
            const fresh = (await findOwnShipment(ctx.db, caller.owner, row.id)) ?? row;
            // A retry of the void that did it (same key), arriving after its workflow ended: its answer.
            if (idem?.replayed && fresh.status === 'voided') return reply.code(200).send(shipmentToJson(fresh));
            throw refusal(fresh);
          }
          if (err instanceof VoidNotAccepted) {
            // Nothing was promised: the same key again joins the same void if it was accepted meanwhile.
            throw new ApiError(CODE.service_unavailable, 'The void could not be accepted in time; retry with the same Idempotency-Key.', {
              headers: { 'retry-after': '1' },
            });
          }
          throw err;
        }
        const now = (await findOwnShipment(ctx.db, caller.owner, row.id))!;
        // Accepted and under way: the shipment is voiding, whether or not the read model says so yet.
        if (!waited.done) return reply.code(202).send(shipmentToJson(now.status === 'purchased' ? { ...now, status: 'voiding' } : now));
        if (!waited.outcome.ok) throw voidFailure(waited.outcome, now);
        return reply.code(200).send(shipmentToJson(now));
      },
    );
  };
