// `npm run bench -- sdk-floor` measures what the Temporal server and the SDK alone cost for one
// purchase, with no-op steps (tools/bench/floor/). It says something only while its workflow makes
// the very history a real purchase makes: here both run on the same server, and their histories are
// compared event by event, up to the answer and the first tracking poll's timer.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { floorActivities, floorCarrierQueue, floorPurchase, floorWorkflowId } from '../../tools/bench/floor/shape.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const { EventType } = temporal.api.enums.v1;

/** The history's event types once it rests: the purchase answered, tracking's first timer started. */
async function restingHistory(workflowId: string): Promise<string[]> {
  return eventually(
    async () => {
      const events = (await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const types = events.map((e) => EventType[e.eventType ?? 0]);
      const answered = types.includes('EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED');
      return answered && types.includes('EVENT_TYPE_TIMER_STARTED') ? types : undefined;
    },
    30_000,
    `${workflowId} to answer and wait for its first tracking poll`,
  );
}

describe('the SDK floor benchmark', () => {
  it('makes the history of a real live purchase, event for event', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const bought = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    expect(bought.status, bought.text).toBe(201);
    const real = await restingHistory(`shipment/${bought.body.id}`);

    const taskQueue = `floor-${randomBytes(4).toString('hex')}`;
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('../../tools/bench/floor/workflows.ts', import.meta.url)),
      logger: new DefaultLogger('WARN'),
    });
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    try {
      const [workflows, carrier] = await Promise.all([
        Worker.create({ connection, taskQueue, workflowBundle, activities: floorActivities }),
        Worker.create({ connection, taskQueue: floorCarrierQueue(taskQueue), activities: floorActivities }),
      ]);
      const id = randomBytes(6).toString('hex');
      const floor = await workflows.runUntil(
        carrier.runUntil(async () => {
          // As the bench makes them: payloads in the clear (the stack's client encrypts).
          await floorPurchase(new Client({ connection: stack.temporal.connection }), taskQueue, id);
          return restingHistory(floorWorkflowId(id));
        }),
      );
      // Event for event, but for workflow tasks that a loaded machine lets time out and run again:
      // the same events otherwise, and as many completed workflow tasks.
      const commands = (types: string[]) => types.filter((t) => !t.startsWith('EVENT_TYPE_WORKFLOW_TASK_'));
      const completedTasks = (types: string[]) => types.filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED').length;
      expect(commands(floor)).toEqual(commands(real));
      expect(completedTasks(floor)).toBe(completedTasks(real));
    } finally {
      await connection.close();
    }
    // The purchase's commands, as the README counts them: two local activities (their markers), one
    // activity on the carrier's queue, then the tracking timer.
    expect(real.filter((t) => t === 'EVENT_TYPE_MARKER_RECORDED')).toHaveLength(2);
    expect(real.filter((t) => t === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toHaveLength(1);
  }, 120_000);
});
