// The batch workflow (workflows/batch.ts) on the time-skipping server with its steps mocked through
// the worker's activity types: every item bought once, never more than BATCH_CONCURRENCY at a time,
// BATCH_ITEMS_PER_RUN items per run (continue-as-new keeps each history small), the progress in the
// current details, and batch.completed recorded once at the end.
import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import type { BatchActivities } from '../../activities/index.js';
import { describe, expect, it } from 'vitest';
import { BATCH_CONCURRENCY, BATCH_ITEMS_PER_RUN, BATCH_WORKFLOW, batchWorkflowId, taskQueues, type BatchWorkflowInput, type BatchWorkflowResult } from '../../contract/index.js';
import { currentDetails, HOUR, MINUTE, mockActivities, useShipmentEnv } from './harness.js';

const se = useShipmentEnv();

describe('batch workflow', () => {
  it('buys 250 items in runs of 100, at most 16 at once, each once, then completes and records batch.completed once', async () => {
    const id = randomBytes(6).toString('hex');
    const taskQueue = `wf${id}-shipments`;
    let inFlight = 0;
    let most = 0;
    const calls: Array<{ name: keyof BatchActivities; arg: { batchId: string; index?: number }; runId?: string }> = [];
    const record = (name: keyof BatchActivities, arg: { batchId: string; index?: number }) =>
      calls.push({ name, arg, runId: Context.current().info.workflowExecution?.runId });
    // The batch's steps, on the batches queue; the event it records goes through the shipments queue's mocks.
    const steps: BatchActivities = {
      batchRecorded: async (p) => {
        record('batchRecorded', p);
        return true;
      },
      purchaseBatchItem: async (p) => {
        record('purchaseBatchItem', p);
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        return p.index % 10 === 3 ? 'failed' : 'purchased';
      },
      completeBatch: async (p) => {
        record('completeBatch', p);
        return {
          id: p.batchId, object: 'batch', livemode: true, status: 'completed', label_format: 'pdf_6x4',
          counts: { total: 250, pending: 0, purchased: 225, failed: 25 }, created_at: new Date(0).toISOString(), completed_at: new Date(0).toISOString(),
        };
      },
    };
    const mocks = mockActivities(se.env, `shp_wf${id}`);
    const input: BatchWorkflowInput = {
      batchId: `bat_wf${id}`,
      accountId: 'acc_workflowtest',
      livemode: true,
      total: 250,
      next: 0,
      purchased: 0,
      failed: 0,
      purchase: {
        fundingSource: 'wallet',
        currency: 'GBP',
        vatRateBp: 2000,
        queuePrefix: `wf${id}-`,
        purchaseDeadlineMs: 15 * MINUTE,
        tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR },
      },
    };
    const worker = await Worker.create({ connection: se.env.nativeConnection, taskQueue, workflowBundle: se.bundle, activities: mocks.activities });
    const batchWorker = await Worker.create({ connection: se.env.nativeConnection, taskQueue: taskQueues(input.purchase.queuePrefix).batches, activities: steps });
    const result = await batchWorker.runUntil(() => worker.runUntil(async () => {
      const handle = await se.env.client.workflow.start<(i: BatchWorkflowInput) => Promise<BatchWorkflowResult>>(BATCH_WORKFLOW, {
        taskQueue,
        workflowId: batchWorkflowId(input.batchId),
        args: [input],
      });
      const out = await handle.result();
      expect(await currentDetails(handle)).toBe('bought 225 of 250, 25 failed; completed');
      // The last run's history holds its own items only.
      const history = await handle.fetchHistory();
      expect(history.events!.length).toBeLessThan(BATCH_ITEMS_PER_RUN * 10);
      return out;
    }));
    expect(result).toEqual({ status: 'completed', purchased: 225, failed: 25 });
    const items = calls.filter((c) => c.name === 'purchaseBatchItem');
    expect(items.map((c) => c.arg.index!).sort((a, b) => a - b)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(most).toBeLessThanOrEqual(BATCH_CONCURRENCY);
    // Three runs: items 0-99, 100-199, 200-249.
    const runs = [...new Set(items.map((c) => c.runId))];
    expect(runs).toHaveLength(3);
    expect(calls.filter((c) => c.name === 'completeBatch')).toHaveLength(1);
    const events = mocks.of('recordEvent');
    expect(events).toHaveLength(1);
    expect(events[0].arg).toMatchObject({ type: 'batch.completed', shipmentId: null, accountId: 'acc_workflowtest', object: { id: input.batchId, status: 'completed' } });
    expect(calls.filter((c) => c.name === 'batchRecorded')).toHaveLength(1);
  }, 120_000);
});
