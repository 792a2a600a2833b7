import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { findBatch, findBatchItem, findShipment, type Db, type LabelStore, type ShipmentRow } from '../db/index.js';
import { CODE, type Customs, type ShipmentOptions } from '../domain/index.js';
import {
  BATCH_PRIORITY,
  batchItemUpdateId,
  nonRetryableFailure,
  purchaseUpdate,
  SA,
  SHIPMENT_WORKFLOW,
  SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
  shipmentWorkflowId,
  taskQueues,
  type BatchItemOutcome,
  type BatchPurchaseSettings,
  type ShipmentWorkflowInput,
} from '../contract/index.js';
import { completeBatchStep } from './batch-file.js';
import { heartbeating } from './batch-heartbeat.js';

/** An item's shipment workflow input: its row as the API stored it, with the batch's settings. */
function itemInput(row: ShipmentRow, s: BatchPurchaseSettings): ShipmentWorkflowInput {
  return {
    shipmentId: row.id,
    accountId: row.accountId,
    livemode: row.livemode,
    fundingSource: s.fundingSource,
    currency: s.currency,
    vatRateBp: s.vatRateBp,
    serviceCode: row.serviceCode,
    from: row.fromAddress as ShipmentWorkflowInput['from'],
    to: row.toAddress as ShipmentWorkflowInput['to'],
    parcel: row.parcel as ShipmentWorkflowInput['parcel'],
    reference: row.reference,
    // Each only when the item asked for it, as a single purchase starts (api/services/purchase.ts).
    ...(row.customs ? { customs: row.customs as Customs } : {}),
    ...(row.options ? { options: row.options as ShipmentOptions } : {}),
    ...(row.isReturn ? { isReturn: true } : {}),
    queuePrefix: s.queuePrefix,
    purchaseDeadlineMs: s.purchaseDeadlineMs,
    ...(s.strayLabelSettleMs !== undefined ? { strayLabelSettleMs: s.strayLabelSettleMs } : {}),
    tracking: s.tracking,
  };
}

const outcomeOf = (status: string): BatchItemOutcome => (status === 'failed' ? 'failed' : 'purchased');

/**
 * Starts or joins one item's purchase exactly as the API starts a single one (api/shipment-workflow.ts):
 * Update-With-Start of `shipment/<shp_id>` with a deterministic update id, an existing workflow
 * reused and a closed one never started again; then waits for the purchase to end. An item whose row
 * is no longer pending has ended (bought, failed, or failed when the batch was recorded): it is never
 * started, so a retried step or a resumed batch buys nothing twice.
 */
export async function purchaseBatchItem(db: Db, client: Client, p: { batchId: string; index: number; settings: BatchPurchaseSettings }): Promise<BatchItemOutcome> {
  const row = await findBatchItem(db, p.batchId, p.index);
  if (!row) throw nonRetryableFailure(CODE.shipment_missing, `Batch ${p.batchId} has no item ${p.index}.`);
  if (row.status !== 'pending') return outcomeOf(row.status);
  const input = itemInput(row, p.settings);
  const operation = new WithStartWorkflowOperation(SHIPMENT_WORKFLOW, {
    workflowId: shipmentWorkflowId(row.id),
    taskQueue: taskQueues(input.queuePrefix).shipments,
    workflowTaskTimeout: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
    args: [input] as [ShipmentWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    // Behind single purchases whenever tasks wait in line (contract: BATCH_PRIORITY).
    priority: BATCH_PRIORITY,
    staticSummary: `Shipment ${row.id}: ${row.serviceCode}, item ${p.index + 1} of batch ${p.batchId}${row.reference ? `, reference ${row.reference}` : ''}`,
    typedSearchAttributes: [
      { key: SA.AccountId, value: row.accountId },
      { key: SA.ShipmentStatus, value: 'pending' },
      { key: SA.Livemode, value: row.livemode },
      ...(row.reference ? [{ key: SA.Reference, value: row.reference }] : []),
      ...(row.carrier ? [{ key: SA.Carrier, value: row.carrier }] : []),
    ],
  });
  try {
    await heartbeating(() =>
      client.workflow.executeUpdateWithStart(purchaseUpdate, { updateId: batchItemUpdateId(p.batchId, p.index), startWorkflowOperation: operation }),
    );
  } catch (err) {
    // Closed already: its row says how it ended.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const after = await findShipment(db, row.id);
  // The purchase answers once its row is final; a row still pending is looked at again on the retry.
  if (!after || after.status === 'pending') throw new Error(`item ${p.index} of batch ${p.batchId} (${row.id}) is still pending`);
  return outcomeOf(after.status);
}

/** The batch workflow's steps, on the `shipments` queue, with the Temporal client that starts the items. */
export function createBatchActivities(deps: { db: Db; client: Client; store: LabelStore; carrierName: (code: string) => string; now?: () => Date }) {
  return {
    /** Whether the batch is recorded yet (its request's transaction commits just after starting the workflow). */
    async batchRecorded(p: { batchId: string }): Promise<boolean> {
      return (await findBatch(deps.db, p.batchId)) !== undefined;
    },
    purchaseBatchItem: (p: { batchId: string; index: number; settings: BatchPurchaseSettings }) => purchaseBatchItem(deps.db, deps.client, p),
    completeBatch: (p: { batchId: string }) => completeBatchStep(deps, p),
  };
}
export type BatchActivities = ReturnType<typeof createBatchActivities>;
