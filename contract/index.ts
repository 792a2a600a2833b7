/**
 * The contract room's door: what the API, the workers, the activities and the workflows agree on
 * about Temporal (workflow types and ids, task queues, inputs and results, the updates, signal and
 * query, search attributes, typed failures). Workflows import it too, so it stays light: no
 * configuration, no TypeBox, no I/O.
 */
export { BATCH_LABEL_WORKFLOW, BATCH_WORKFLOW, batchItemUpdateId, batchLabelWorkflowId, batchWorkflowId, carrierCallQueue, ORPHAN_SWEEP_WORKFLOW, orphanSweepScheduleId, SHIPMENT_WORKFLOW, SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS, shipmentWorkflowId, splitCarrierRate, taskQueues, TRACKING_QUIET_STOP_MS, WEBHOOK_WORKFLOW, webhookWorkflowId } from './workflows.js';
export { SA, SEARCH_ATTRIBUTES } from './search-attributes.js';
export { batchLabelStaleSignal, FAILED_MEANWHILE, isFailedMeanwhile, purchaseUpdate, scansSignal, stateQuery, voidUpdate } from './messages.js';
export type { PurchaseOutcome, VoidOutcome } from './messages.js';
export type { LatestScan, PurchaseInput, PushSubscription, ShipmentWorkflowInput, ShipmentWorkflowResult, StoppedRun } from './shipment.js';
export { stoppedBy } from './shipment.js';
export type { WebhookDeliveryInput, WebhookDeliveryResult } from './webhook.js';
export type { OrphanSweepInput, OrphanSweepResult } from './sweep.js';
export { applicationFailureOf, failureTypeOf, nonRetryableFailure, typedFailure } from './failures.js';
export { BATCH_CONCURRENCY, BATCH_ITEMS_PER_RUN, BATCH_PRIORITY } from './batch.js';
export type { BatchItemOutcome, BatchLabelFileInput, BatchPurchaseSettings, BatchWorkflowInput, BatchWorkflowResult } from './batch.js';
