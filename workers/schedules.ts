import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import { ORPHAN_SWEEP_WORKFLOW, orphanSweepScheduleId, taskQueues } from '../contract/index.js';

/**
 * The fleet's own Schedule: every `orphanSweep.intervalMs`, fail pending shipments whose workflow
 * never started and free their keys, start the webhook deliveries of stored events that have none,
 * and settle shipments a closed run left pending or voiding (activities/sweep.ts). Created by the
 * `shipments` workers at
 * start, updated to the current settings if it exists; nobody has to remember to run it.
 */
export async function ensureOrphanSweepSchedule(client: Client, config: Config): Promise<void> {
  const { intervalMs, olderThanMs } = config.orphanSweep;
  if (intervalMs <= 0) return;
  const scheduleId = orphanSweepScheduleId(config.taskQueuePrefix);
  const options = {
    spec: { intervals: [{ every: intervalMs }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: ORPHAN_SWEEP_WORKFLOW,
      taskQueue: taskQueues(config.taskQueuePrefix).shipments,
      args: [{ olderThanMs }],
      workflowExecutionTimeout: Math.max(intervalMs * 5, 60_000),
      staticSummary:
        'Fail pending shipments whose workflow never started, and free their keys; start webhook deliveries no announcement started; settle shipments a closed run left pending or voiding',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: intervalMs * 2 },
  };
  try {
    await client.schedule.create({ scheduleId, ...options });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, ...options }));
  }
}
