import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { batchItems, completeBatch, findBatch, findBatchItem, findShipment, type Db, type LabelStore, type ShipmentRow } from '../db/index.js';
import { batchToJson, CODE, hasLabel, type BatchJson } from '../domain/index.js';
import { CarrierDocumentMissingError, labelFile, mergeLabelFiles, UnsupportedCarrierDocumentError } from '../labels/index.js';
import {
  batchItemUpdateId,
  nonRetryableFailure,
  purchaseUpdate,
  SA,
  SHIPMENT_WORKFLOW,
  shipmentWorkflowId,
  taskQueues,
  type BatchItemOutcome,
  type BatchPurchaseSettings,
  type ShipmentWorkflowInput,
} from '../contract/index.js';

/** How often a step that waits tells Temporal it is alive: a lost worker's step is retried elsewhere soon. */
const HEARTBEAT_MS = 5_000;

/**
 * Runs `work`, heartbeating while it runs, and gives up waiting for it once the step is cancelled (a
 * worker shutting down, a heartbeat time-out): a step that waits for a purchase must not keep its
 * worker from stopping, and its retry joins the same purchase. Outside an activity (a test calling
 * it directly) it just runs.
 */
async function heartbeating<T>(work: () => Promise<T>, details?: () => unknown): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    context = undefined;
  }
  const timer = context && setInterval(() => context.heartbeat(details?.()), HEARTBEAT_MS);
  const running = work();
  try {
    if (!context) return await running;
    running.catch(() => undefined); // abandoned on cancellation: its outcome is read again on the retry
    return await Promise.race([running, context.cancelled]);
  } finally {
    if (timer) clearInterval(timer);
  }
}

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
    queuePrefix: s.queuePrefix,
    purchaseDeadlineMs: s.purchaseDeadlineMs,
    ...(s.strayLabelSettleMs !== undefined ? { strayLabelSettleMs: s.strayLabelSettleMs } : {}),
    tracking: s.tracking,
  };
}

const outcomeOf = (status: string): BatchItemOutcome => (status === 'failed' ? 'failed' : 'purchased');

/**
 * Starts or joins one item's purchase exactly as the API starts a single one (api/purchases.ts):
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
    args: [input] as [ShipmentWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
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

/**
 * The batch's merged label file (every purchased item's label, in item order, in the batch's format),
 * stored as the batch is marked completed; once only, so a retried step answers the batch as it is.
 *
 * A real carrier's label exists only in the formats the carrier gave (a UPS or USPS label whose ZPL
 * could not be had has no `zpl` file). Such an item's label is left out and the others are still
 * made, in item order; but the contract's file is "every purchased label", and a printer run that
 * silently lacks some parcels is worse than none, so such a batch is completed with no merged file
 * and its file answers 409 `label_not_available` (api/routes/batches.ts): the client downloads each
 * shipment's label instead. The batch always completes: a label that can never be had in this
 * format is never a reason to retry.
 */
export async function completeBatchStep(
  deps: { db: Db; store: LabelStore; carrierName: (code: string) => string; now?: () => Date },
  p: { batchId: string },
): Promise<BatchJson> {
  const batch = await findBatch(deps.db, p.batchId);
  if (!batch) throw nonRetryableFailure(CODE.shipment_missing, `No batch ${p.batchId}.`);
  if (batch.status !== 'completed') {
    const format = batch.labelFormat as 'pdf_6x4' | 'pdf_a4' | 'zpl';
    let done = 0;
    const missing: string[] = [];
    const file = await heartbeating(
      async () => {
        const files = [];
        for (const row of await batchItems(deps.db, p.batchId)) {
          if (!hasLabel(row.status) || !row.trackingNumber) continue;
          try {
            files.push(await labelFile(deps.store, { ...row, trackingNumber: row.trackingNumber }, format, deps.carrierName));
          } catch (err) {
            if (!(err instanceof CarrierDocumentMissingError || err instanceof UnsupportedCarrierDocumentError)) throw err;
            missing.push(row.id);
            continue;
          }
          done++;
        }
        return missing.length ? null : mergeLabelFiles(format, files);
      },
      () => ({ labelsMerged: done, labelsMissing: missing.length }),
    );
    if (missing.length) {
      activityLog()?.warn('batch completed without a merged label file: some purchased labels do not exist in its format', {
        batchId: p.batchId,
        format,
        shipments: missing,
      });
    }
    await completeBatch(deps.db, p.batchId, file, (deps.now ?? (() => new Date()))());
  }
  return batchToJson((await findBatch(deps.db, p.batchId))!);
}

/** The running activity's logger; none outside an activity (a test calling a step directly). */
function activityLog() {
  try {
    return Context.current().log;
  } catch {
    return undefined;
  }
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
