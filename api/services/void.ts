import { WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { findOwnShipment, type ShipmentRow } from '../../db/index.js';
import { ApiError, CODE, VOID_REFUSED_MESSAGE, type ErrorCode } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import type { Buyer } from './purchase.js';
import type { VoidOutcome } from '../../contract/index.js';
import type { Caller } from '../auth.js';
import type { IdempotentRequest } from '../idempotency.js';
import { startVoid, VoidNotAccepted, within, type Waited } from '../shipment-workflow.js';
import { resumeTracking } from '../resume.js';

const SCANNED = new Set(['in_transit', 'exception', 'delivered']);

/** Why a shipment in this state cannot be voided, in the contract's codes. */
function refusal(row: ShipmentRow): ApiError {
  const fields = { shipment_id: row.id };
  if (SCANNED.has(row.status)) {
    return new ApiError(CODE.label_already_scanned, 'The carrier has already scanned this label, so it cannot be voided.', { fields });
  }
  if (row.status === 'voiding') {
    // Another void (another key, or none) is under way: its key joins it; this request is refused.
    return new ApiError(CODE.shipment_not_voidable, 'The shipment is already being voided; follow it with GET, or repeat the first void with its Idempotency-Key.', { fields });
  }
  return new ApiError(CODE.shipment_not_voidable, `A ${row.status} shipment cannot be voided.`, { fields });
}

/** A void the workflow refused or could not carry out, in the contract's codes. */
function voidFailure(outcome: { code: ErrorCode; message: string }, now: ShipmentRow): ApiError {
  const { code, message } = outcome;
  if (code === CODE.label_already_scanned) return new ApiError(code, message, { fields: { shipment_id: now.id } });
  // Still purchased: the workflow's own reason (a SCAN form took the shipment first) is the answer.
  if (code === CODE.shipment_not_voidable) return now.status === 'purchased' ? new ApiError(code, message, { fields: { shipment_id: now.id } }) : refusal(now);
  // The carrier's own text stays in the workflow for operators (contract: carrier_error).
  if (code === CODE.carrier_unavailable) {
    return new ApiError(code, 'The carrier could not be reached to cancel the label; it stays bought and charged. Try again later.', {
      fields: { shipment_id: now.id },
      headers: { 'retry-after': '30' },
    });
  }
  return new ApiError(CODE.carrier_error, VOID_REFUSED_MESSAGE, { fields: { shipment_id: now.id } });
}

/**
 * The void update; a shipment whose workflow no longer runs (tracking stopped after a quiet period,
 * or its run stopped by an operator) is resumed for it first.
 */
async function startVoidResuming(ctx: AppContext, shipmentId: string, updateId: string) {
  try {
    return await startVoid(ctx.temporal, shipmentId, updateId, ctx.config.purchaseWaitMs);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError) || !(await resumeTracking(ctx.temporal, shipmentId, [], ctx.db))) throw err;
    return await startVoid(ctx.temporal, shipmentId, updateId, ctx.config.purchaseWaitMs);
  }
}

/**
 * A void request: refuse what cannot be voided, send the void update (resuming a shipment whose
 * tracking stopped) and wait for it up to PURCHASE_WAIT_MS. 200 with the voided shipment, 202 while
 * it is voiding, or the refusal in the contract's codes. A repeated key joins the same void.
 */
export async function requestVoid(
  ctx: AppContext,
  caller: Pick<Buyer, 'owner'>,
  row: ShipmentRow,
  idem: IdempotentRequest | undefined,
  requestId: string,
): Promise<{ status: 200 | 202; row: ShipmentRow }> {
  if (idem?.replayed && row.status === 'voided') {
    // The first answer was a 202; the void has finished since: answer as the first would now.
    return { status: 200, row };
  }
  if (row.status !== 'purchased' && row.status !== 'voiding') throw refusal(row);
  let waited;
  try {
    // The update id is the key's claim, not the key: Temporal answers a repeated update id with the
    // first outcome, so a key freed by a failed void (rule 4) must run anew under a new id.
    waited = await startVoidResuming(ctx, row.id, idem ? `void-${idem.claimId}` : requestId);
  } catch (err) {
    // The workflow refused (its validator) or has ended: the read model says why.
    if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) {
      const fresh = (await findOwnShipment(ctx.db, caller.owner, row.id)) ?? row;
      // A retry of the void that did it (same key), arriving after its workflow ended: its answer.
      if (idem?.replayed && fresh.status === 'voided') return { status: 200, row: fresh };
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
  const outcome = await outcomeOf(waited, now);
  // Accepted and under way: the shipment is voiding (contract: a 202 is in `voiding`), whether the
  // read model says so yet or not.
  if (!outcome) return { status: 202, row: { ...now, status: 'voiding' } };
  // A retry that joined the claim after another update of the same void finished it: its answer.
  if (!outcome.ok && idem?.replayed && now.status === 'voided') return { status: 200, row: now };
  if (!outcome.ok) throw voidFailure(outcome, now);
  return { status: 200, row: now };
}

/**
 * How long a void whose row has ended (voided, or scanned) is waited for once the wait has run out:
 * the row is written one activity and one workflow task before the update answers (its event is
 * recorded in between), about 0.2 s on a busy 2-core machine (test/lifecycle/void-race.test.ts).
 */
const ENDED_VOID_WAIT_MS = 5_000;

/**
 * The void's outcome, or undefined while it is under way. The wait may run out just as the void ends:
 * the row then already says how it ended, and its outcome is a moment away; answered as ended, never
 * as a 202 showing the end.
 */
async function outcomeOf(waited: Waited<VoidOutcome>, now: ShipmentRow): Promise<VoidOutcome | undefined> {
  if (waited.done) return waited.outcome;
  if (now.status === 'purchased' || now.status === 'voiding') return undefined;
  return await within(waited.later, ENDED_VOID_WAIT_MS).catch(() => undefined);
}
