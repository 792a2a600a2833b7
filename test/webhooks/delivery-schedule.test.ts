// The delivery workflow on the time-skipping test server: the exact retry schedule (hours in
// seconds), giving up after six attempts, stopping at the first 2xx, and the same body every time.
// Activities are mocks of the factory's type; the workflow is the real one.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryRequest, WebhookActivities } from '../../activities/webhooks.js';
import { WEBHOOK_DELIVERY_FAILED } from '../../domain/index.js';
import { type WebhookDeliveryInput, webhookWorkflowId } from '../../contract/index.js';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.js';
import { createTimeSkippingEnv } from '../temporal-infra/time-skipping-env.js';

const workflowsPath = fileURLToPath(new URL('../../workflows/webhook-delivery.ts', import.meta.url));
/** Spec §6: at once, then 10 s, 1 min, 5 min, 30 min and 2 h after each failure. */
const SCHEDULE_S = [0, 10, 70, 370, 2170, 9370];
const BODY = '{"id":"evt_schedule","object":"event","type":"shipment.purchased","data":{"object":{}}}';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Installed already in this process.
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

interface Call extends DeliveryRequest {
  /** The test server's clock when the attempt ran (skipped time). */
  at: number;
}

/** A mock receiver behind mocked activities: `answer` decides each attempt's outcome. */
function mockActivities(answer: (attempt: number, call: number) => DeliveryOutcome | Promise<DeliveryOutcome>) {
  const calls: Call[] = [];
  const activities: WebhookActivities = {
    loadWebhookEvent: async () => BODY,
    deliverWebhook: async (p) => {
      calls.push({ ...p, at: await env.currentTimeMs() });
      return answer(p.attempt, calls.length);
    },
  };
  return { activities, calls };
}

const failed = (statusCode = 500): DeliveryOutcome => ({ outcome: 'failed', statusCode, error: `HTTP ${statusCode}`, latencyMs: 3 });
const succeeded: DeliveryOutcome = { outcome: 'succeeded', statusCode: 200, latencyMs: 3 };

async function run(activities: WebhookActivities, during: (input: WebhookDeliveryInput, taskQueue: string) => Promise<void>) {
  const taskQueue = `webhooks-${randomUUID()}`;
  const input: WebhookDeliveryInput = {
    eventId: `evt_${randomUUID().replace(/-/g, '').slice(0, 26)}`,
    eventType: 'shipment.purchased',
    endpointId: `we_${randomUUID().replace(/-/g, '').slice(0, 26)}`,
    accountId: 'acc_test',
    livemode: false,
  };
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
  await worker.runUntil(during(input, taskQueue));
}

/** Seconds of each attempt after the first. */
const offsets = (calls: Call[]) => calls.map((c) => (c.at - calls[0].at) / 1000);

function expectSchedule(calls: Call[], expected: number[]) {
  const got = offsets(calls);
  expect(got).toHaveLength(expected.length);
  got.forEach((s, i) => {
    // Never early; late only by the instants the workflow and activity take to run.
    expect(s, `attempt ${i + 1} at ${s} s`).toBeGreaterThanOrEqual(expected[i]);
    expect(s, `attempt ${i + 1} at ${s} s`).toBeLessThan(expected[i] + 2);
  });
}

describe('webhook delivery schedule (time-skipping)', () => {
  it('makes six attempts at 0 s, 10 s, 70 s, 370 s, 2170 s and 9370 s to a receiver that always fails, then ends failed', async () => {
    const { activities, calls } = mockActivities(() => failed(503));
    await run(activities, async (input, taskQueue) => {
      const handle = await env.client.workflow.start(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: webhookWorkflowId(input.eventId, input.endpointId),
        args: [input],
      });
      const startedAt = (await handle.describe()).startTime.getTime();
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe(WEBHOOK_DELIVERY_FAILED);
      expect((cause as ApplicationFailure).message).toContain('HTTP 503');
      expect((await handle.describe()).status.name).toBe('FAILED');

      // The first attempt goes at once: well before the first back-off (10 s) could have run, whatever
      // the load on a shared machine makes of the instants between.
      expect(calls[0].at - startedAt).toBeLessThan(SCHEDULE_S[1] * 1000 / 2);
      expectSchedule(calls, SCHEDULE_S);
      expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
      // Only the sixth attempt is the final one, which records that the delivery gave up.
      expect(calls.map((c) => c.final)).toEqual([false, false, false, false, false, true]);
      // The same bytes and id every time; the workflow never rebuilds the body.
      expect(new Set(calls.map((c) => c.body))).toEqual(new Set([BODY]));
      expect(new Set(calls.map((c) => c.eventId))).toEqual(new Set([input.eventId]));

      // Nothing more is sent, however long we wait.
      await env.sleep('2 days');
      expect(calls).toHaveLength(6);
    });
  });

  it('stops at the first 2xx: a receiver that recovers after the third attempt gets exactly one acknowledged delivery', async () => {
    const { activities, calls } = mockActivities((attempt) => (attempt <= 3 ? failed() : succeeded));
    await run(activities, async (input, taskQueue) => {
      const result = await env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: webhookWorkflowId(input.eventId, input.endpointId),
        args: [input],
      });
      expect(result).toEqual({ outcome: 'delivered', attempts: 4 });
      expectSchedule(calls, SCHEDULE_S.slice(0, 4));
      await env.sleep('1 day');
      expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
      expect(new Set(calls.map((c) => c.body))).toEqual(new Set([BODY]));
    });
  });

  it('sends nothing more once the endpoint is deleted', async () => {
    const { activities, calls } = mockActivities((attempt) => (attempt <= 2 ? failed() : { outcome: 'endpoint_deleted' }));
    await run(activities, async (input, taskQueue) => {
      const result = await env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: webhookWorkflowId(input.eventId, input.endpointId),
        args: [input],
      });
      expect(result).toEqual({ outcome: 'endpoint_deleted', attempts: 2 });
      await env.sleep('1 day');
      expect(calls).toHaveLength(3);
    });
  });

  it('repeats an attempt whose activity was lost (same attempt, same body) without shifting the schedule', async () => {
    // Attempt 2's first run dies as a lost worker would; the activity's own retry makes it again.
    const { activities, calls } = mockActivities((attempt, call) => {
      if (attempt === 2 && call === 2) throw new Error('worker lost mid-attempt');
      return attempt < 4 ? failed() : succeeded;
    });
    await run(activities, async (input, taskQueue) => {
      const result = await env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: webhookWorkflowId(input.eventId, input.endpointId),
        args: [input],
      });
      expect(result).toEqual({ outcome: 'delivered', attempts: 4 });
      expect(calls.map((c) => c.attempt)).toEqual([1, 2, 2, 3, 4]);
      expect(new Set(calls.map((c) => c.body))).toEqual(new Set([BODY]));
      // The next attempt still waits its full delay after the failure of the repeated one.
      const [, , second, third, fourth] = calls;
      expect(third.at - second.at).toBeGreaterThanOrEqual(60_000);
      expect(fourth.at - third.at).toBeGreaterThanOrEqual(300_000);
      expect(fourth.at - third.at).toBeLessThan(302_000);
    });
  });
});
