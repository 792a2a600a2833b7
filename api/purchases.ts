import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateStage,
  type Client,
} from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { ShipmentWorkflowInput } from '../workflows/shipment.js';
import type { PurchaseOutcome, VoidOutcome } from '../workflows/definitions.js';
import { SHIPMENT_WORKFLOW, shipmentWorkflowId, taskQueues, UPDATE_PURCHASE, UPDATE_VOID } from '../domain/index.js';

const key = {
  AccountId: defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD),
  ShipmentStatus: defineSearchAttributeKey('ShipmentStatus', SearchAttributeType.KEYWORD),
  Carrier: defineSearchAttributeKey('Carrier', SearchAttributeType.KEYWORD),
  Reference: defineSearchAttributeKey('Reference', SearchAttributeType.KEYWORD),
  Livemode: defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL),
};

/** Waits for a promise up to `ms`; undefined when time ran out first. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type Waited<T> = { done: true; outcome: T } | { done: false };

/**
 * Starts the shipment workflow and its purchase update in one call (Update-With-Start). The update id
 * is the idempotency key or the request id, and an existing workflow is reused, so a duplicate request
 * joins the one purchase; a closed workflow is never started again (REJECT_DUPLICATE).
 */
export async function startPurchase(
  temporal: Client,
  input: ShipmentWorkflowInput,
  updateId: string,
  waitMs: number,
): Promise<Waited<PurchaseOutcome> | { closed: true }> {
  const operation = new WithStartWorkflowOperation(SHIPMENT_WORKFLOW, {
    workflowId: shipmentWorkflowId(input.shipmentId),
    taskQueue: taskQueues(input.queuePrefix).shipments,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: `Shipment ${input.shipmentId}: ${input.serviceCode}${input.reference ? `, reference ${input.reference}` : ''}`,
    typedSearchAttributes: [
      { key: key.AccountId, value: input.accountId },
      { key: key.ShipmentStatus, value: 'pending' },
      { key: key.Livemode, value: input.livemode },
      ...(input.reference ? [{ key: key.Reference, value: input.reference }] : []),
    ],
  });
  try {
    const handle = await temporal.workflow.startUpdateWithStart<any, PurchaseOutcome, []>(UPDATE_PURCHASE, {
      updateId,
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation: operation,
    });
    const outcome = await within(handle.result(), waitMs);
    return outcome === undefined ? { done: false } : { done: true, outcome };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { closed: true };
    throw err;
  }
}

/** Sends the void update and waits up to `waitMs` for its outcome. */
export async function startVoid(
  temporal: Client,
  shipmentId: string,
  updateId: string,
  waitMs: number,
): Promise<Waited<VoidOutcome>> {
  const handle = temporal.workflow.getHandle(shipmentWorkflowId(shipmentId));
  const update = await handle.startUpdate<VoidOutcome, []>(UPDATE_VOID, {
    updateId,
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  const outcome = await within(update.result(), waitMs);
  return outcome === undefined ? { done: false } : { done: true, outcome };
}
