/**
 * The floor's two halves, shared by `npm run bench -- sdk-floor` and the test that holds its history
 * to the purchase's (test/ops/sdk-floor.test.ts): the no-op activities the worker serves, and one
 * purchase as the API starts it (Update-With-Start with the shipment workflow's options).
 */
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { SA } from '../../../contract/index.js';
import { floorUpdate, floorWorkflow, type FloorActivities } from './workflows.js';

export const floorActivities: FloorActivities = {
  begin: async () => ({ ok: true }),
  buy: async ({ id }) => ({ trackingNumber: `1Z${id.slice(-10)}` }),
  complete: async ({ id }) => [{ id: `evt_${id}`, type: 'shipment.purchased' }],
};

/** The queue of the floor's "carrier" activity, beside the workflow's. */
export const floorCarrierQueue = (taskQueue: string) => `${taskQueue}-carrier`;

export const floorWorkflowId = (id: string) => `floor/${id}`;

/** One purchase of the floor, answered when its update completes, as `startPurchase` (api/shipment-workflow.ts) is. */
export async function floorPurchase(client: Client, taskQueue: string, id: string): Promise<void> {
  await client.workflow.executeUpdateWithStart(floorUpdate, {
    updateId: `req-${id}`,
    startWorkflowOperation: new WithStartWorkflowOperation(floorWorkflow, {
      workflowId: floorWorkflowId(id),
      taskQueue,
      args: [{ id, carrierQueue: floorCarrierQueue(taskQueue) }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: `Floor ${id}`,
      typedSearchAttributes: [
        { key: SA.AccountId, value: 'acc_floor' },
        { key: SA.ShipmentStatus, value: 'pending' },
        { key: SA.Livemode, value: true },
      ],
    }),
  });
}
