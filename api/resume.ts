import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { Scan } from '../carriers/index.js';
import { findShipment, scansOf, type Db } from '../db/index.js';
import {
  scansSignal,
  SHIPMENT_WORKFLOW,
  SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
  shipmentWorkflowId,
  taskQueues,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
} from '../contract/index.js';
import type { ScanStatus, ShipmentStatus } from '../domain/index.js';

/** A bought label still on its way: its tracking can go on (and it can be voided). */
const TRACKING: ReadonlySet<string> = new Set<ShipmentStatus>(['purchased', 'in_transit', 'exception']);

/** How a run can close without finishing its shipment's life. */
const STOPPED: ReadonlySet<string> = new Set(['TERMINATED', 'CANCELLED', 'FAILED', 'TIMED_OUT']);

/**
 * Starts tracking again for a shipment whose workflow is no longer running, handing it `scans` as a
 * pushed signal, so that a pushed scan is recorded and a void can be carried out:
 * - after a quiet period (no shipment tracks forever), the new run continues from where
 *   the last one stopped (its result carries the input to resume with);
 * - with `db`, after a run that was stopped while the label was bought and not yet delivered (an
 *   operator's Terminate or Cancel in the Temporal UI, a failed run), the new run continues from the
 *   shipment's record: its status, its carrier and tracking number, the scans stored.
 * False when the workflow is running, or ended for good (delivered, voided, failed): there is
 * nothing to resume. A shipment left pending or voiding by a stopped run is the sweep's to settle
 * (activities/sweep.ts), not this.
 */
export async function resumeTracking(temporal: Client, shipmentId: string, scans: Scan[], db?: Db): Promise<boolean> {
  const workflowId = shipmentWorkflowId(shipmentId);
  const handle = temporal.workflow.getHandle(workflowId);
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
  const closedAs = description.status.name;
  let resumeWith: ShipmentWorkflowInput | undefined;
  let why: string;
  if (closedAs === 'COMPLETED') {
    const result = (await handle.result()) as ShipmentWorkflowResult | undefined;
    resumeWith = result?.trackingStopped?.resumeWith;
    why = 'after a quiet period';
  } else if (db && STOPPED.has(closedAs)) {
    resumeWith = await fromRecord(temporal, db, shipmentId, description.runId);
    why = `after its run was ${closedAs.toLowerCase().replace('_', ' ')}`;
  } else {
    return false;
  }
  if (!resumeWith) return false;
  // Two scans at once both land here: signal-with-start starts one run and signals the other.
  await temporal.workflow.signalWithStart<(input: ShipmentWorkflowInput) => Promise<ShipmentWorkflowResult>, [Scan[]]>(SHIPMENT_WORKFLOW, {
    workflowId,
    // Tracking only: on the queue of the parcels in flight (contract: taskQueues), not the purchases'.
    taskQueue: taskQueues(resumeWith.queuePrefix).tracking,
    workflowTaskTimeout: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
    args: [resumeWith],
    signal: scansSignal,
    signalArgs: [scans],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    typedSearchAttributes: description.typedSearchAttributes,
    staticSummary: `Shipment ${shipmentId}: tracking resumed ${why}`,
  });
  return true;
}

/**
 * The input of a run that goes on tracking a shipment whose run was stopped: the stopped run's own
 * input (decoded with the fleet's codec), resuming from the shipment's record. Undefined where the
 * shipment is not a bought label on its way.
 */
async function fromRecord(temporal: Client, db: Db, shipmentId: string, stoppedRunId: string): Promise<ShipmentWorkflowInput | undefined> {
  const row = await findShipment(db, shipmentId);
  if (!row || !TRACKING.has(row.status) || !row.carrier || !row.trackingNumber) return undefined;
  const history = await temporal.workflow.getHandle(shipmentWorkflowId(shipmentId), stoppedRunId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  const [stopped] = (await decodeArrayFromPayloads(temporal.workflow.options.loadedDataConverter, payloads)) as [ShipmentWorkflowInput?];
  if (!stopped) return undefined;
  const { resume, settle: _settled, ...input } = stopped;
  const scans = await scansOf(db, shipmentId);
  const newest = scans.at(-1);
  return {
    ...input,
    resume: {
      status: row.status as ShipmentStatus,
      carrier: row.carrier,
      trackingNumber: row.trackingNumber,
      seenScanIds: scans.map((s) => s.carrierScanId),
      pollMs: input.tracking.minPollMs,
      // Oldest first: the last is the newest, whose status is the parcel's (workflows/tracking.ts).
      ...(newest ? { latestScan: { occurredAt: newest.occurredAt.toISOString(), status: newest.status as ScanStatus } } : {}),
      ...(resume?.quietSince !== undefined ? { quietSince: resume.quietSince } : {}),
    },
  };
}
