import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { pendingBatchItemCount, pendingBatchItems, processingBatches, settleStoppedPurchase, type Db } from '../db/index.js';
import { CODE } from '../domain/index.js';
import { BATCH_WORKFLOW, batchWorkflowId, shipmentWorkflowId, taskQueues, type BatchWorkflowInput } from '../contract/index.js';
import { closedRunOf } from './closed-run.js';

export interface StoppedBatch {
  batch_id: string;
  stopped_run: string;
  closed_as: string;
  /** Its items never reached by the stopped run, now failed. */
  failed: string[];
  /** Items still pending because their own purchase is running or being settled: a later sweep comes back. */
  pending: number;
  /** Whether a run that completes the batch was started (every item had ended). */
  completing: boolean;
}

/** At most this many batches looked at per run; the next run takes the rest. */
const BATCH_SWEEP_BATCH = 50;

/**
 * Batches left `processing` by a workflow that closed before it completed them (an operator's
 * Terminate, a run that failed). Once its run has been closed `olderThanMs`, each item the run never
 * reached (no `shipment/<id>` workflow was started for it) is failed as a stopped purchase is
 * (internal_error, any hold released, its keys freed; nothing was bought or charged). Items whose own
 * purchase had started are their own workflow's, or `settleStoppedShipments`' when that run stopped
 * too. Once no item is pending, a new run of `batch/<id>` is started that only completes the batch:
 * the merged file, `completed`, `batch.completed` once. Only batches of this fleet's queues. A
 * completing run that itself closed without completing is left for an operator unless `again`.
 */
export async function settleStoppedBatches(
  db: Db,
  client: Client,
  o: { olderThanMs: number; queuePrefix: string; now?: Date; again?: boolean; accountId?: string },
): Promise<{ settling: StoppedBatch[]; unsettled: StoppedBatch[] }> {
  const now = o.now ?? new Date();
  const cutoff = new Date(now.getTime() - o.olderThanMs);
  const settling: StoppedBatch[] = [];
  const unsettled: StoppedBatch[] = [];
  for (const batch of await processingBatches(db, cutoff, BATCH_SWEEP_BATCH, o.accountId)) {
    const workflowId = batchWorkflowId(batch.id);
    // No workflow (not ours: a batch is recorded with its workflow started in one transaction), still running, or closed too recently.
    const closed = await closedRunOf<BatchWorkflowInput>(client, workflowId, cutoff);
    if (!closed) continue;
    const { description, closedAs, input: stoppedInput } = closed;
    if (!stoppedInput || stoppedInput.purchase.queuePrefix !== o.queuePrefix) continue;
    const found: StoppedBatch = { batch_id: batch.id, stopped_run: description.runId, closed_as: closedAs, failed: [], pending: 0, completing: false };
    if (stoppedInput.completing && !o.again) {
      unsettled.push(found);
      continue;
    }
    const why = closedAs === 'TERMINATED' ? 'stopped by an operator' : 'interrupted by an internal error';
    for (const item of await pendingBatchItems(db, batch.id)) {
      try {
        await client.workflow.getHandle(shipmentWorkflowId(item.id)).describe();
        continue; // its purchase began: its own run ends it, or the shipment sweep settles it
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
      const row = await settleStoppedPurchase(db, {
        shipmentId: item.id,
        accountId: item.accountId,
        code: CODE.internal_error,
        message: `The batch was ${why} before this item's purchase began; nothing was bought or charged.`,
        now,
      });
      if (row.settled) found.failed.push(item.id);
    }
    found.pending = await pendingBatchItemCount(db, batch.id);
    if (found.pending === 0) {
      try {
        await client.workflow.start(BATCH_WORKFLOW, {
          workflowId,
          taskQueue: taskQueues(stoppedInput.purchase.queuePrefix).shipments,
          args: [{ ...stoppedInput, next: 0, purchased: 0, failed: 0, completing: { runId: description.runId, closedAs } }],
          // The stopped run is closed: this one follows it under the same id.
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: description.typedSearchAttributes,
          staticSummary: `Batch ${batch.id}: completing it after its run ${description.runId} closed (${closedAs.toLowerCase()})`,
        });
        found.completing = true;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // another sweep started it
      }
    }
    settling.push(found);
  }
  return { settling, unsettled };
}
