/**
 * The names the API, the workers and the workflows meet by: workflow types, workflow ids, task
 * queues and the sweep's Schedule. Never write these as literals elsewhere.
 */
export const SHIPMENT_WORKFLOW = 'shipmentWorkflow';
export const BATCH_WORKFLOW = 'batchWorkflow';
export const BATCH_LABEL_WORKFLOW = 'batchLabelFileWorkflow';
export const WEBHOOK_WORKFLOW = 'webhookDeliveryWorkflow';
export const ORPHAN_SWEEP_WORKFLOW = 'orphanSweepWorkflow';
/** The Schedule that runs it; one per task-queue prefix (a test's workers have their own). */
export const orphanSweepScheduleId = (queuePrefix = '') => `sweep-unstarted-purchases${queuePrefix ? `/${queuePrefix}` : ''}`;

/**
 * A shipment workflow's task time-out: how long a workflow task taken by a worker that then died
 * (SIGKILLed, its machine gone) holds the shipment before another worker runs it. At Temporal's
 * default of 10 s, a purchase whose task went with a killed worker ends 10 s or more after the kill.
 * Measured in default chaos runs (docs/benchmarks.md#chaos-never-lost-never-doubled-never-stuck):
 * at 10 s, 2,755 shipment workflow tasks completed, 1.8 s at p99, the longest 4.1 s (on a worker in
 * its first 3 s, its code still cold), and every one that timed out had gone with a killed worker;
 * at 5 s, on a slower machine and with each worker taking at most PURCHASE_WORKFLOW_TASK_SLOTS
 * purchase tasks at once (workers/run.ts: more, and a saturated worker lets the last of them pass
 * this), 2,626 completed, 2.4 s at p99, the longest 3.8 s, and one of the 37 that timed out did so on
 * a worker that lived on. A task whose local steps run long is kept alive by the SDK (it heartbeats
 * the task at 80% of this), so only a worker that stopped answering, or one that took more than it
 * can run, loses one; and a live task that timed out would not be lost either, only run again
 * elsewhere.
 */
export const SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS = 5_000;

/** Task queues; a prefix isolates a test's workers from everyone else's on a shared server. */
export function taskQueues(prefix = '') {
  return {
    shipments: `${prefix}shipments`,
    /**
     * A shipment's workflow once its tracking has begun (it continues as new here after its first
     * wait): however many parcels are in flight, their workflow tasks never queue ahead of a purchase's
     * on `shipments`. The same workflows and activities, a worker of their own.
     */
    tracking: `${prefix}tracking`,
    webhooks: `${prefix}webhooks`,
    /**
     * A batch's steps, which wait for its items' purchases: on a queue of their own, so that however
     * many batches run, they never hold the `shipments` queue's slots that the purchases need.
     */
    batches: `${prefix}batches`,
    carrier: (carrierCode: string) => `${prefix}carrier-${carrierCode}`,
    /** Tracking polls, on a budget of their own so a backlog of polls never delays a purchase. */
    carrierTracking: (carrierCode: string) => `${prefix}carrier-${carrierCode}-tracking`,
  };
}

/**
 * Where one of a shipment's carrier calls runs: live, on the carrier's own queue (the tracking loop's
 * polls on its tracking queue), whose workers hold the carrier's rate limit fleet-wide; in the
 * sandbox, which touches no carrier, on `shipments` beside the workflow.
 */
export function carrierCallQueue(run: { queuePrefix: string; livemode: boolean }, carrier: string, queue: 'purchases' | 'tracking' = 'purchases'): string {
  const queues = taskQueues(run.queuePrefix);
  if (!run.livemode) return queues.shipments;
  return queue === 'tracking' ? queues.carrierTracking(carrier) : queues.carrier(carrier);
}

/**
 * A carrier's fleet-wide requests per second, split between its two queues: tracking polls get
 * `trackingSharePercent` of it on `carrier-<code>-tracking`, purchases, lookups, cancellations and
 * voids the rest on `carrier-<code>`; together never more than the carrier allows. A share of 0 puts
 * the polls on the one queue (`tracking: 0`).
 */
export function splitCarrierRate(perSecond: number, trackingSharePercent: number): { purchases: number; tracking: number } {
  const tracking = (perSecond * trackingSharePercent) / 100;
  return { purchases: perSecond - tracking, tracking };
}

export const shipmentWorkflowId = (shipmentId: string) => `shipment/${shipmentId}`;
export const batchWorkflowId = (batchId: string) => `batch/${batchId}`;
/** The purchase update id of a batch's item: deterministic, so every retry joins the one purchase. */
export const batchItemUpdateId = (batchId: string, index: number) => `batch/${batchId}/item/${index}`;
/** One per batch: a void of an item (or a read of a stale file) signals it, or starts it again once it has ended. */
export const batchLabelWorkflowId = (batchId: string) => `batch-label/${batchId}`;
export const webhookWorkflowId = (eventId: string, endpointId: string) => `webhook/${eventId}/${endpointId}`;

/**
 * How long tracking goes on without a new scan before it stops (the shipment keeps its status; a
 * later pushed or sandbox scan, or a void, resumes it): no shipment is tracked, and no workflow
 * lives, forever. Shorter in the sandbox, where nothing scans unless the customer says so.
 */
export const TRACKING_QUIET_STOP_MS = { live: 30 * 24 * 3600_000, sandbox: 3 * 24 * 3600_000 } as const;
