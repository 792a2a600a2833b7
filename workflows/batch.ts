import { ActivityFailure, continueAsNew, log, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { BatchActivities } from '../activities/index.js';
import { CODE } from '../domain/workflow.js';
import { BATCH_CONCURRENCY, BATCH_ITEMS_PER_RUN, taskQueues, type BatchItemOutcome, type BatchWorkflowInput, type BatchWorkflowResult } from '../contract/index.js';
import { workflowId } from './event-ids.js';
import { shipmentActivities } from './proxies.js';

/**
 * A batch's steps, on the `batches` queue: they wait for its items' purchases, and must never hold
 * the `shipments` queue's slots that those purchases need.
 */
function batchSteps(input: BatchWorkflowInput) {
  const taskQueue = taskQueues(input.purchase.queuePrefix).batches;
  const step = <K extends keyof BatchActivities>(name: K, summary: string, options: Parameters<typeof proxyActivities>[0]): BatchActivities[K] =>
    proxyActivities<BatchActivities>({ ...options, taskQueue, summary })[name];
  return {
    batchRecorded: step('batchRecorded', 'look for the batch row its request records', { startToCloseTimeout: '30 seconds', retry: retryForever }),
    // An item's purchase ends within its own deadline; the step heartbeats while it waits, so a step
    // lost with its worker is taken up by another within the heartbeat time-out and joins the same purchase.
    purchaseBatchItem: step('purchaseBatchItem', "start or join the item's purchase (shipment/<shp_id>) and wait for it to end", {
      startToCloseTimeout: '15 minutes',
      heartbeatTimeout: '30 seconds',
      retry: { ...retryForever, nonRetryableErrorTypes: [CODE.shipment_missing] },
    }),
    completeBatch: step('completeBatch', 'merge the labels into the batch file and mark the batch completed', {
      startToCloseTimeout: '15 minutes',
      heartbeatTimeout: '1 minute',
      retry: retryForever,
    }),
  };
}
const retryForever = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' } as const;

/** How long the workflow looks for its batch's row: the request commits it just after starting the workflow. */
const RECORD_WAIT_ATTEMPTS = 30;
const RECORD_WAIT_MS = 2_000;

/**
 * A batch of purchases, `batch/<bat_id>` on the `shipments` queue: each item bought by its own
 * shipment workflow, as a single purchase is, at most BATCH_CONCURRENCY at once; BATCH_ITEMS_PER_RUN
 * items per run, then a fresh run carries on from the next item (its history stays small). Once
 * every item has ended: the merged label file, the batch completed, `batch.completed` recorded once.
 * The current details say how far it is ("bought 120 of 300, 4 failed").
 */
export async function batchWorkflow(input: BatchWorkflowInput): Promise<BatchWorkflowResult> {
  const steps = batchSteps(input);
  const counts = { purchased: input.purchased, failed: input.failed };
  const progress = (suffix = '') => setCurrentDetails(`bought ${counts.purchased} of ${input.total}, ${counts.failed} failed${suffix}`);
  if (input.next === 0 && !(await waitUntilRecorded(steps, input.batchId))) {
    setCurrentDetails('the batch was never recorded (its request did not commit): nothing to do');
    return { status: 'not_recorded', purchased: 0, failed: 0 };
  }
  progress();

  const end = Math.min(input.next + BATCH_ITEMS_PER_RUN, input.total);
  let next = input.next;
  const lane = async () => {
    while (next < end) {
      const index = next++;
      counts[await purchaseItem(steps, input, index)]++;
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, end - input.next) }, lane));
  if (end < input.total) {
    return await continueAsNew<typeof batchWorkflow>({ ...input, next: end, purchased: counts.purchased, failed: counts.failed });
  }

  progress('; merging the label file');
  const batch = await steps.completeBatch({ batchId: input.batchId });
  // The event's id is made here, in history: a retried step stores and announces it once.
  await shipmentActivities().recordEvent({
    id: workflowId('evt'),
    type: 'batch.completed',
    accountId: input.accountId,
    livemode: input.livemode,
    shipmentId: null,
    createdAt: new Date(Date.now()).toISOString(),
    object: batch,
  });
  progress('; completed');
  return { status: 'completed', ...counts };
}

type Steps = ReturnType<typeof batchSteps>;

async function waitUntilRecorded(steps: Steps, batchId: string): Promise<boolean> {
  for (let attempt = 0; attempt < RECORD_WAIT_ATTEMPTS; attempt++) {
    if (await steps.batchRecorded({ batchId })) return true;
    await sleep(RECORD_WAIT_MS);
  }
  return false;
}

/** One item's purchase; an item whose row is gone (lost data) counts as failed, and the batch goes on. */
async function purchaseItem(steps: Steps, input: BatchWorkflowInput, index: number): Promise<BatchItemOutcome> {
  try {
    return await steps.purchaseBatchItem({ batchId: input.batchId, index, settings: input.purchase });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    log.error('a batch item could not be bought', { batchId: input.batchId, index, error: err.cause?.message ?? err.message });
    return 'failed';
  }
}
