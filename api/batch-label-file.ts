import { batchLabelState, type MergedLabelFile } from '../db/index.js';
import { ApiError, CODE, type BatchRecord } from '../domain/index.js';
import { BATCH_LABEL_WORKFLOW, batchLabelStaleSignal, batchLabelWorkflowId, taskQueues, type BatchLabelFileInput } from '../contract/index.js';
import type { AppContext } from './context.js';

/**
 * How long a read waits for a stale merged file to be made again by the workers: a file of a few
 * hundred labels takes a second or two, so the read usually answers with it.
 */
const REMAKE_WAIT_MS = 15_000;

/**
 * A batch's merged label file as it is now: every label its items have now, in item order, never
 * one voided since (contract: the file of every purchased label). The stored file is served while it
 * was made from exactly the items that have a label now. Otherwise (an item voided since, and its
 * workflow has not finished making it again) the workers are asked to make it again, with
 * `batch-label/<bat_id>`, and the read waits for it: the merge is theirs, so that a batch of 1,000
 * labels never holds the API's event loop. Refusals, each a 409 the client can act on:
 * - `batch_not_completed` while the batch runs;
 * - `label_not_available` when no item has a label (none was bought, or every label was voided), or
 *   some label does not exist in the batch's format, or the file could not be made in time (with
 *   `Retry-After`).
 */
export async function currentBatchLabelFile(ctx: AppContext, batch: BatchRecord): Promise<MergedLabelFile> {
  if (batch.status !== 'completed') {
    throw new ApiError(CODE.batch_not_completed, 'The batch is still processing: its merged label file is made once every item has ended.');
  }
  const deadline = Date.now() + REMAKE_WAIT_MS;
  for (;;) {
    const state = await batchLabelState(ctx.db, batch.id);
    if (!state) throw new ApiError(CODE.not_found, `No batch ${batch.id}.`);
    if (state.current) {
      if (state.file) return state.file;
      throw noMergedFile(batch, state.labelled);
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ApiError(CODE.label_not_available, 'The merged label file is being made again without the labels voided since it was made; retry shortly.', {
        headers: { 'retry-after': '2' },
      });
    }
    await remade(ctx, batch.id, left);
  }
}

/** Starts (or signals) the batch's `batch-label/<bat_id>` workflow and waits up to `ms` for it to end. */
async function remade(ctx: AppContext, batchId: string, ms: number): Promise<void> {
  const input: BatchLabelFileInput = { batchId, queuePrefix: ctx.config.taskQueuePrefix };
  const handle = await ctx.temporal.workflow.signalWithStart(BATCH_LABEL_WORKFLOW, {
    workflowId: batchLabelWorkflowId(batchId),
    taskQueue: taskQueues(input.queuePrefix).shipments,
    args: [input],
    signal: batchLabelStaleSignal,
    signalArgs: [],
    staticSummary: `Batch ${batchId}: its merged label file made again without the labels voided since`,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      // A run that ended otherwise (terminated by an operator) is looked at again, and started anew.
      handle.result().catch(() => new Promise((resolve) => setTimeout(resolve, 250))),
      new Promise((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A completed batch without a merged file to serve, said so the client knows what to do instead:
 * each purchased shipment's own label is still there where one exists.
 */
function noMergedFile(batch: BatchRecord, labelled: number): ApiError {
  const list = `GET /api/v1/batches/${batch.id}/shipments lists them`;
  if (labelled === 0) {
    return new ApiError(
      CODE.label_not_available,
      batch.counts.purchased > 0
        ? `Every label this batch bought has been voided, so there is no merged file (${list}).`
        : 'No item of this batch was bought, so there is no merged file.',
    );
  }
  return new ApiError(
    CODE.label_not_available,
    `Not every purchased label of this batch exists as ${batch.labelFormat} (a carrier did not provide it), so there is no merged file: ` +
      `download each purchased shipment's label instead (${list}).`,
  );
}
