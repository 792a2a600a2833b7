// The parcels in flight in a worker process of their own (docs/operators-guide.md, "Tracking at
// scale"): `npm run worker -- purchases` serves the purchases and `npm run worker -- tracking` the
// parcels, so that the second can run at a lower CPU priority. A purchase is bought by the first
// process; once its first wait is over, its tracking is run by the second, and neither polls the
// other's queue.
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shipmentWorkflowId, taskQueues } from '../../contract/index.js';
import { startStackWorker, type ServiceProcess } from '../support/processes.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let purchases: ServiceProcess;
let tracking: ServiceProcess;
beforeAll(async () => {
  // The shipment workflows run only in the two processes below; a short first wait moves a parcel
  // to the `tracking` queue within the test.
  stack = await startTestStack({ trackingPollMinMs: 500, trackingPollMaxMs: 2_000 }, { groups: ['carriers', 'webhooks'] });
  [purchases, tracking] = await Promise.all([startStackWorker(stack, ['purchases']), startStackWorker(stack, ['tracking'])]);
}, 120_000);
afterAll(async () => {
  await purchases?.kill();
  await tracking?.kill();
  await stack?.stop();
});

/** The pids of the processes polling `taskQueue` for workflow tasks. */
async function pollerPids(taskQueue: string): Promise<number[]> {
  const { pollers } = await stack.temporal.workflowService.describeTaskQueue({
    namespace: stack.config.temporalNamespace,
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return [...new Set((pollers ?? []).map((p) => Number(p.identity?.split('@')[0])))].sort();
}

/** The pids of the workers that completed each workflow task of a run, in order. */
async function taskPids(workflowId: string, runId?: string): Promise<number[]> {
  const history = await stack.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => Number(e.workflowTaskCompletedEventAttributes!.identity?.split('@')[0]));
}

describe('worker groups `purchases` and `tracking` in processes of their own', () => {
  it('each polls only its own queue', async () => {
    const queues = taskQueues(stack.config.taskQueuePrefix);
    await eventually(async () => ((await pollerPids(queues.shipments)).length && (await pollerPids(queues.tracking)).length ? true : undefined), 30_000, 'both queues to have a poller');
    expect(await pollerPids(queues.shipments)).toEqual([purchases.pid]);
    expect(await pollerPids(queues.tracking)).toEqual([tracking.pid]);
  });

  it('a label is bought by the purchases process and tracked by the tracking process', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const body = { service: 'acme_ground', from: address(), to: address(), parcel: parcel() };
    const bought = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.status).toBe('purchased');
    const workflowId = shipmentWorkflowId(bought.body.id);
    const handle = stack.temporal.workflow.getHandle(workflowId);
    const purchaseRun = (await handle.describe()).runId;
    // After its first wait the parcel continues as new on `tracking`, whose process polls for it.
    const trackingRun = await eventually(async () => {
      const d = await handle.describe();
      return d.runId !== purchaseRun && d.taskQueue === taskQueues(stack.config.taskQueuePrefix).tracking && (await taskPids(workflowId, d.runId)).length > 0 ? d.runId : undefined;
    }, 60_000, 'the parcel to be tracked on the tracking queue');
    expect(new Set(await taskPids(workflowId, purchaseRun))).toEqual(new Set([purchases.pid]));
    expect(new Set(await taskPids(workflowId, trackingRun))).toEqual(new Set([tracking.pid]));
  }, 120_000);
});
