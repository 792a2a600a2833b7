import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Scan } from '../carriers/index.js';
import { SHIPMENT_WORKFLOW, shipmentWorkflowId, SIGNAL_SCANS, taskQueues } from '../domain/index.js';
import type { ShipmentWorkflowInput, ShipmentWorkflowResult } from '../workflows/index.js';

/**
 * Starts tracking again for a shipment whose workflow stopped after a quiet period (issue 13: no
 * shipment tracks forever), handing it `scans` as a pushed signal. The new run continues from where
 * the last one stopped (its result carries the input to resume with). False when the workflow is
 * running, or ended for good (delivered, voided, failed): there is nothing to resume.
 */
export async function resumeTracking(temporal: Client, shipmentId: string, scans: Scan[]): Promise<boolean> {
  const workflowId = shipmentWorkflowId(shipmentId);
  const handle = temporal.workflow.getHandle(workflowId);
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
  if (description.status.name !== 'COMPLETED') return false;
  const result = (await handle.result()) as ShipmentWorkflowResult | undefined;
  const resumeWith = result?.trackingStopped?.resumeWith;
  if (!resumeWith) return false;
  // Two scans at once both land here: signal-with-start starts one run and signals the other.
  await temporal.workflow.signalWithStart<(input: ShipmentWorkflowInput) => Promise<ShipmentWorkflowResult>, [Scan[]]>(SHIPMENT_WORKFLOW, {
    workflowId,
    taskQueue: taskQueues(resumeWith.queuePrefix).shipments,
    args: [resumeWith],
    signal: SIGNAL_SCANS,
    signalArgs: [scans],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    typedSearchAttributes: description.typedSearchAttributes,
    staticSummary: `Shipment ${shipmentId}: tracking resumed after a quiet period`,
  });
  return true;
}
