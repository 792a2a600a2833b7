import type { Client } from '@temporalio/client';
import {
  batchLabelState,
  completeBatch,
  findBatch,
  findShipment,
  labelledBatchItems,
  storeBatchLabelFile,
  type Db,
  type LabelStore,
  type MadeBatchFile,
} from '../db/index.js';
import { batchToJson, CODE, type BatchJson, type EventType } from '../domain/index.js';
import { mergedBatchFile } from '../labels/index.js';
import { BATCH_LABEL_WORKFLOW, batchLabelStaleSignal, batchLabelWorkflowId, nonRetryableFailure, taskQueues, type BatchLabelFileInput } from '../contract/index.js';
import { activityLog, heartbeating } from './batch-heartbeat.js';

export interface BatchFileDeps {
  db: Db;
  store: LabelStore;
  carrierName: (code: string) => string;
  now?: () => Date;
}

/** The merged file from the batch's items that have a label now, in its format, heartbeating while it is made. */
async function makeFile(deps: BatchFileDeps, batchId: string, format: string): Promise<MadeBatchFile> {
  const items = await labelledBatchItems(deps.db, batchId);
  let done = 0;
  const { file, missing } = await heartbeating(
    () => mergedBatchFile(deps.store, items, format as 'pdf_6x4' | 'pdf_a4' | 'zpl', deps.carrierName, () => done++),
    () => ({ labelsMerged: done, labels: items.length }),
  );
  if (missing.length) {
    activityLog()?.warn('no merged label file for the batch: some purchased labels do not exist in its format', { batchId, format, shipments: missing });
  }
  return { shipmentIds: items.map((row) => row.id), file };
}

/**
 * The batch's merged label file (every item's label that exists now, in item order, in the batch's
 * format), stored as the batch is marked completed; once only, so a retried step answers the batch
 * as it is. An item voided while the file was made has it made again before it is stored.
 *
 * A real carrier's label exists only in the formats the carrier gave (a UPS or USPS label whose ZPL
 * could not be had has no `zpl` file): such a batch is completed with no merged file, and its file
 * answers 409 `label_not_available` (api/batch-label-file.ts); the client downloads each shipment's
 * label instead. The batch always completes: a label that can never be had in this format is never
 * a reason to retry.
 */
export async function completeBatchStep(deps: BatchFileDeps, p: { batchId: string }): Promise<BatchJson> {
  for (;;) {
    const batch = await findBatch(deps.db, p.batchId);
    if (!batch) throw nonRetryableFailure(CODE.shipment_missing, `No batch ${p.batchId}.`);
    if (batch.status === 'completed') return batchToJson(batch);
    const made = await makeFile(deps, p.batchId, batch.labelFormat);
    await completeBatch(deps.db, p.batchId, made, (deps.now ?? (() => new Date()))());
  }
}

/**
 * Makes a completed batch's merged file again when it holds a label that no longer exists (an item
 * voided since it was made), until what is stored was made from the items that have a label now. A
 * batch still processing is left to its completion, which makes the file from the items as they are.
 */
export async function refreshBatchLabelStep(deps: BatchFileDeps, p: { batchId: string }): Promise<{ remade: number }> {
  for (let remade = 0; ; remade++) {
    const state = await batchLabelState(deps.db, p.batchId);
    if (!state || state.status !== 'completed' || state.current) return { remade };
    const batch = (await findBatch(deps.db, p.batchId))!;
    await storeBatchLabelFile(deps.db, p.batchId, await makeFile(deps, p.batchId, batch.labelFormat));
  }
}

/** The step of `batch-label/<bat_id>` (workflows/batch-label-file.ts), on the `batches` queue. */
export function createBatchLabelActivities(deps: BatchFileDeps) {
  return {
    refreshBatchLabel: (p: { batchId: string }) => refreshBatchLabelStep(deps, p),
  };
}
export type BatchLabelActivities = ReturnType<typeof createBatchLabelActivities>;

/** Starts the batch's `batch-label/<bat_id>` workflow, or tells the running one to look again. */
export async function requestBatchLabelRefresh(client: Client, input: BatchLabelFileInput): Promise<void> {
  await client.workflow.signalWithStart(BATCH_LABEL_WORKFLOW, {
    workflowId: batchLabelWorkflowId(input.batchId),
    taskQueue: taskQueues(input.queuePrefix).shipments,
    args: [input],
    signal: batchLabelStaleSignal,
    signalArgs: [],
    staticSummary: `Batch ${input.batchId}: its merged label file made again without the labels voided since`,
  });
}

/**
 * After an event is stored: a batch item's `shipment.voided` has the batch's merged file made again
 * without it. Idempotent, as the event hook must be: a second signal is one more look, which finds
 * the file current.
 */
export function createBatchFileOnVoid(deps: { db: Db; client: Client; queuePrefix: string }) {
  return async function onVoided(event: { type: EventType; shipmentId?: string | null }): Promise<void> {
    if (event.type !== 'shipment.voided' || !event.shipmentId) return;
    const row = await findShipment(deps.db, event.shipmentId);
    if (row?.batchId) await requestBatchLabelRefresh(deps.client, { batchId: row.batchId, queuePrefix: deps.queuePrefix });
  };
}
