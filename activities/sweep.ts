import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  failUnstartedPurchase,
  scansOf,
  settleStoppedPurchase,
  undeliveredEvents,
  unsettledShipments,
  unstartedPurchases,
  type Db,
  type ShipmentRow,
} from '../db/index.js';
import { CODE, firstIdAt, type EventType } from '../domain/index.js';
import {
  SHIPMENT_WORKFLOW,
  SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
  shipmentWorkflowId,
  taskQueues,
  type ShipmentWorkflowInput,
  type StoppedRun,
} from '../contract/index.js';
import { createDeliveryStarter, type DeliveryStarter } from './webhook-fanout.js';
import { closedRunOf } from './closed-run.js';
import { settleStoppedBatches } from './sweep-batches.js';
import { settleUnconfirmedPickups } from './sweep-pickups.js';
import type { CarrierAdapter } from '../carriers/index.js';

export interface SweptShipment {
  shipment_id: string;
  account_id: string;
  created_at: string;
}

/**
 * Pending shipments whose workflow never started: the API stopped between recording the purchase and
 * starting it, and no retry with the same key came. Nothing was bought or charged. Each is failed and
 * its idempotency keys freed in one transaction, unless its workflow began meanwhile (it priced the
 * row under the same lock), so a late retry and the sweep never both win.
 */
export async function sweepUnstartedPurchases(
  db: Db,
  client: Client,
  o: { olderThanMs: number; now?: Date; accountId?: string },
): Promise<SweptShipment[]> {
  const now = o.now ?? new Date();
  const candidates = await unstartedPurchases(db, new Date(now.getTime() - o.olderThanMs), o.accountId);
  const failed: SweptShipment[] = [];
  for (const row of candidates) {
    try {
      await client.workflow.getHandle(shipmentWorkflowId(row.id)).describe();
      continue; // its workflow exists and will price it: `ops stuck` explains it if it does not
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    const swept = await failUnstartedPurchase(db, {
      shipmentId: row.id,
      code: CODE.internal_error,
      message: 'The purchase was never started (the API stopped first); nothing was bought or charged.',
      now,
    });
    if (swept) failed.push({ shipment_id: row.id, account_id: row.accountId, created_at: row.createdAt.toISOString() });
  }
  return failed;
}

export interface StartedDelivery {
  event_id: string;
  endpoint_id: string;
  event_created: string;
}

/** How far back the delivery sweep looks: an announcement is retried long before this. */
const DELIVERY_SWEEP_HORIZON_MS = 60 * 60_000;
/** At most this many deliveries started per run; the next run takes the rest. */
const DELIVERY_SWEEP_BATCH = 500;

/**
 * Stored events an endpoint takes, with no delivery attempt `olderThanMs` after they were stored
 * (within the last hour): each such delivery workflow is started, unless it already was (its id is
 * never reused, so a delivery that is only slow, or waiting for its account's turn, is untouched).
 * The purchase and the other steps announce their events themselves; this is the net under them,
 * for an announcement lost on the way.
 */
export async function startMissingDeliveries(
  db: Db,
  startDelivery: DeliveryStarter,
  o: { olderThanMs: number; now?: Date },
): Promise<StartedDelivery[]> {
  const now = (o.now ?? new Date()).getTime();
  const pairs = await undeliveredEvents(db, {
    from: firstIdAt('evt', now - DELIVERY_SWEEP_HORIZON_MS),
    to: firstIdAt('evt', now - o.olderThanMs),
    limit: DELIVERY_SWEEP_BATCH,
  });
  const started: StartedDelivery[] = [];
  for (const pair of pairs) {
    const event = { id: pair.eventId, type: pair.type as EventType, accountId: pair.accountId, livemode: pair.livemode };
    if (await startDelivery(event, pair.endpointId)) {
      started.push({ event_id: pair.eventId, endpoint_id: pair.endpointId, event_created: pair.createdAt.toISOString() });
    }
  }
  return started;
}

export interface SettlingShipment {
  shipment_id: string;
  /** What its stopped run was under way on: `pending` (a purchase) or `voiding`. */
  status: string;
  stopped_run: string;
  closed_as: string;
}

/** At most this many shipments looked at per run; the next run takes the rest. */
const SETTLE_SWEEP_BATCH = 200;

/**
 * Shipments left `pending` or `voiding` by a run that closed before its purchase or its void ended (an
 * operator's Terminate runs none of the workflow's compensation; a defect can fail a run). For each,
 * once its run has been closed `olderThanMs` (a carrier call it had started has ended by then), a
 * new run of `shipment/<id>` settles it: a purchase is failed and released and any label the carrier
 * made cancelled, as after a Cancel (workflows/purchase.ts); a void is settled by the carrier's record
 * (workflows/void.ts).
 * Only shipments of this fleet's queues. A run the sweep started is never followed by another on the
 * Schedule's own (a defect that stops every settling run would start one a minute for ever): it is
 * `unsettled`, for an operator, whose `ops reconcile` passes `again` to start one more.
 */
export async function settleStoppedShipments(
  db: Db,
  client: Client,
  o: { olderThanMs: number; queuePrefix: string; now?: Date; again?: boolean; accountId?: string },
): Promise<{ settling: SettlingShipment[]; unsettled: SettlingShipment[] }> {
  const now = o.now ?? new Date();
  const cutoff = new Date(now.getTime() - o.olderThanMs);
  const settling: SettlingShipment[] = [];
  const unsettled: SettlingShipment[] = [];
  for (const row of await unsettledShipments(db, cutoff, SETTLE_SWEEP_BATCH, o.accountId)) {
    const workflowId = shipmentWorkflowId(row.id);
    // Never started (the first step fails it), still running, or closed too recently: not yet.
    const closed = await closedRunOf<ShipmentWorkflowInput>(client, workflowId, cutoff);
    if (!closed) continue;
    const { description, closedAs, input: stoppedInput } = closed;
    if (!stoppedInput || stoppedInput.queuePrefix !== o.queuePrefix) continue;
    const stopped: StoppedRun = { runId: description.runId, closedAs, status: row.status as StoppedRun['status'], carrier: row.carrier };
    const found = { shipment_id: row.id, status: row.status, stopped_run: description.runId, closed_as: closedAs };
    if (stoppedInput.settle && !o.again) {
      // A settling run that closed with the row still pending or voiding: an operator must look at it.
      unsettled.push(found);
      continue;
    }
    const input = await settlingInput(db, stoppedInput, row, stopped);
    try {
      await client.workflow.start(SHIPMENT_WORKFLOW, {
        workflowId,
        taskQueue: taskQueues(stoppedInput.queuePrefix).shipments,
        workflowTaskTimeout: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
        args: [input],
        // The stopped run is closed: this one follows it under the same id.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: description.typedSearchAttributes,
        staticSummary: `Shipment ${row.id}: settling the ${row.status === 'pending' ? 'purchase' : 'void'} its run ${description.runId} left (${closedAs.toLowerCase()})`,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) continue; // another sweep started it
      throw err;
    }
    settling.push(found);
  }
  return { settling, unsettled };
}

/**
 * The settling run's input: the stopped run's own, with what it left. A void's run goes on tracking
 * after it, from the scans already stored.
 */
async function settlingInput(db: Db, stoppedInput: ShipmentWorkflowInput, row: ShipmentRow, stopped: StoppedRun): Promise<ShipmentWorkflowInput> {
  const { resume, ...input } = stoppedInput;
  if (stopped.status === 'pending') return { ...input, settle: stopped };
  return {
    ...input,
    settle: stopped,
    resume: {
      status: 'voiding',
      carrier: row.carrier!,
      trackingNumber: row.trackingNumber!,
      seenScanIds: (await scansOf(db, row.id)).map((s) => s.carrierScanId),
      pollMs: stoppedInput.tracking.minPollMs,
      ...(resume?.quietSince !== undefined ? { quietSince: resume.quietSince } : {}),
    },
  };
}

/** The sweeps as activities, for the Schedule's workflow. */
export function createSweepActivities(deps: { db: Db; client: Client; queuePrefix: string; adapter?: (carrier: string, livemode: boolean) => CarrierAdapter }) {
  const startDelivery = createDeliveryStarter({ temporal: deps.client, queuePrefix: deps.queuePrefix });
  return {
    sweepUnstartedPurchases: (p: { olderThanMs: number }) => sweepUnstartedPurchases(deps.db, deps.client, p),
    startMissingDeliveries: (p: { olderThanMs: number }) => startMissingDeliveries(deps.db, startDelivery, p),
    settleStoppedShipments: (p: { olderThanMs: number }) => settleStoppedShipments(deps.db, deps.client, { ...p, queuePrefix: deps.queuePrefix }),
    settleStoppedBatches: (p: { olderThanMs: number }) => settleStoppedBatches(deps.db, deps.client, { ...p, queuePrefix: deps.queuePrefix }),
    settleUnconfirmedPickups: async (p: { olderThanMs: number }) => (deps.adapter ? settleUnconfirmedPickups(deps.db, deps.adapter, p) : { settled: [], left: [] }),
  };
}
export type SweepActivities = ReturnType<typeof createSweepActivities>;
