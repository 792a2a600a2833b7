import { proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { BatchLabelActivities } from '../activities/index.js';
import { batchLabelStaleSignal, taskQueues, type BatchLabelFileInput } from '../contract/index.js';

/**
 * Makes a completed batch's merged label file again once an item was voided, so that a refunded
 * label is never printable from it: `batch-label/<bat_id>`, started or signalled (signal-with-start)
 * by each void of an item and by a read that finds the file stale. The step makes the file from the
 * items that have a label now and stores it only if they are still those; a signal that arrives
 * while it runs means one more look, so a void never goes unseen however the voids race. The step
 * runs on the `batches` queue, away from the purchases' slots.
 */
export async function batchLabelFileWorkflow(input: BatchLabelFileInput): Promise<void> {
  const { refreshBatchLabel } = proxyActivities<BatchLabelActivities>({
    taskQueue: taskQueues(input.queuePrefix).batches,
    summary: "make the batch's merged label file again from the labels it holds now",
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
  let stale = true;
  setHandler(batchLabelStaleSignal, () => {
    stale = true;
  });
  while (stale) {
    stale = false;
    setCurrentDetails(`making the merged label file of ${input.batchId} again`);
    await refreshBatchLabel({ batchId: input.batchId });
  }
  setCurrentDetails(`the merged label file of ${input.batchId} holds the labels it has now`);
}
