// Webhook delivery (workflows/webhook-delivery.ts) on the time-skipping server with the activities
// mocked through their factory's type: the five-step backoff walked step by step as an operator sees
// it, and giving up after the sixth attempt, both for a receiver that answers errors and for attempts
// that cannot be completed at all. (test/webhooks/delivery-schedule.test.ts checks the exact times.)
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, WebhookActivities } from '../../activities/webhooks.js';
import { CODE, WEBHOOK_DELIVERY_FAILED } from '../../domain/index.js';
import { WEBHOOK_WORKFLOW, type WebhookDeliveryInput, type WebhookDeliveryResult, webhookWorkflowId } from '../../contract/index.js';
import { currentDetails, HOUR, MINUTE, useShipmentEnv } from './harness.js';

const se = useShipmentEnv();

const BODY = '{"id":"evt_wf","type":"tracking.updated","data":{"object":{}}}';
const STEPS = [
  { wait: 10_000, said: '10 s' },
  { wait: MINUTE, said: '1 min' },
  { wait: 5 * MINUTE, said: '5 min' },
  { wait: 30 * MINUTE, said: '30 min' },
  { wait: 2 * HOUR, said: '2 h' },
];

function mockWebhookActivities(deliver: WebhookActivities['deliverWebhook']) {
  const calls: Array<{ name: keyof WebhookActivities; arg: unknown; at: number }> = [];
  const activities: WebhookActivities = {
    loadWebhookEvent: async (p) => {
      calls.push({ name: 'loadWebhookEvent', arg: p, at: await se.env.currentTimeMs() });
      return BODY;
    },
    deliverWebhook: async (p) => {
      calls.push({ name: 'deliverWebhook', arg: p, at: await se.env.currentTimeMs() });
      return deliver(p);
    },
  };
  const deliveries = () => calls.filter((c) => c.name === 'deliverWebhook') as Array<{ arg: Parameters<WebhookActivities['deliverWebhook']>[0]; at: number }>;
  return { activities, calls, deliveries };
}

async function withDelivery(
  activities: WebhookActivities,
  during: (handle: WorkflowHandle<(i: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>>, input: WebhookDeliveryInput) => Promise<void>,
) {
  const id = randomBytes(6).toString('hex');
  const taskQueue = `wf${id}-webhooks`;
  const input: WebhookDeliveryInput = { eventId: `evt_wf${id}`, eventType: 'tracking.updated', endpointId: `we_wf${id}`, accountId: 'acc_wf', livemode: true };
  const worker = await Worker.create({ connection: se.env.nativeConnection, taskQueue, workflowBundle: se.bundle, activities });
  await worker.runUntil(async () => {
    const handle = await se.env.client.workflow.start<(i: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>>(WEBHOOK_WORKFLOW, {
      taskQueue,
      workflowId: webhookWorkflowId(input.eventId, input.endpointId),
      args: [input],
    });
    await during(handle, input);
  });
}

const failedWith = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause;
};

describe('webhook delivery (time-skipping, mocked activities)', () => {
  it('a failing receiver: five waits of 10 s, 1 min, 5 min, 30 min and 2 h, each told to operators, then gives up after the sixth attempt', async () => {
    const answer: DeliveryOutcome = { outcome: 'failed', statusCode: 500, error: 'HTTP 500', latencyMs: 4 };
    const mocks = mockWebhookActivities(async () => answer);
    await withDelivery(mocks.activities, async (handle, input) => {
      for (const [i, step] of STEPS.entries()) {
        const attempt = i + 1;
        await expect.poll(() => mocks.deliveries().length, { timeout: 20_000, interval: 50 }).toBe(attempt);
        await expect.poll(() => currentDetails(handle), { timeout: 20_000, interval: 50 }).toBe(`attempt ${attempt} failed (HTTP 500); attempt ${attempt + 1} in ${step.said}`);
        // Just short of the wait, nothing more is sent; at the wait, the next attempt goes.
        await se.env.sleep(step.wait - 1000);
        expect(mocks.deliveries()).toHaveLength(attempt);
        await se.env.sleep(1000);
      }
      const cause = await failedWith(handle.result());
      expect(cause.type).toBe(WEBHOOK_DELIVERY_FAILED);
      expect(cause.message).toBe(`Webhook ${input.eventId} to ${input.endpointId} failed after 6 attempts; the last: HTTP 500`);
      expect(await currentDetails(handle)).toBe('failed: 6 attempts, the last: HTTP 500');

      const sent = mocks.deliveries();
      expect(sent.map((c) => c.arg.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(sent.map((c) => c.arg.final)).toEqual([false, false, false, false, false, true]);
      expect(sent.every((c) => c.arg.body === BODY && c.arg.eventId === input.eventId && c.arg.endpointId === input.endpointId)).toBe(true);
      sent.slice(1).forEach((c, i) => {
        expect(c.at - sent[i].at).toBeGreaterThanOrEqual(STEPS[i].wait);
        expect(c.at - sent[i].at).toBeLessThan(STEPS[i].wait + 5_000);
      });
      // The body was built once, before the first attempt.
      expect(mocks.calls.filter((c) => c.name === 'loadWebhookEvent')).toHaveLength(1);
      expect(mocks.calls[0].arg).toEqual({ eventId: input.eventId, accountId: input.accountId, livemode: true });
    });
  });

  it('attempts that cannot be completed at all count as failed attempts: the schedule goes on and gives up after six', async () => {
    const mocks = mockWebhookActivities(async () => {
      throw new Error('worker lost mid-attempt');
    });
    await withDelivery(mocks.activities, async (handle) => {
      const cause = await failedWith(handle.result());
      expect(cause.type).toBe(WEBHOOK_DELIVERY_FAILED);
      expect(cause.message).toContain('the last: the attempt could not be completed');
      const sent = mocks.deliveries();
      // Each attempt is tried by its activity five times (a lost worker), then the schedule moves on.
      expect(sent.map((c) => c.arg.attempt)).toEqual([1, 2, 3, 4, 5, 6].flatMap((a) => [a, a, a, a, a]));
      const firstOf = (a: number) => sent.find((c) => c.arg.attempt === a)!;
      const lastOf = (a: number) => sent.filter((c) => c.arg.attempt === a).at(-1)!;
      for (const [i, step] of STEPS.entries()) {
        expect(firstOf(i + 2).at - lastOf(i + 1).at).toBeGreaterThanOrEqual(step.wait);
      }
    });
  });

  it('waiting for a slot of a busy account is never a delivery attempt, however long it takes', async () => {
    // Fairness (activities/webhooks.ts): an account using its share of the worker's slots gets its
    // delivery back at once, to be retried shortly. Twelve such answers outlast the activity's own
    // five retries; the attempt is then scheduled again as attempt 1, with no backoff, and goes.
    let busy = 12;
    const mocks = mockWebhookActivities(async () => {
      if (busy-- > 0) {
        throw ApplicationFailure.create({ type: CODE.webhook_account_busy, message: 'account acc_wf already has 8 webhook attempts in flight here', nextRetryDelay: 1000 });
      }
      return { outcome: 'succeeded', statusCode: 200, latencyMs: 3 };
    });
    await withDelivery(mocks.activities, async (handle) => {
      expect(await handle.result()).toEqual({ outcome: 'delivered', attempts: 1 });
      const sent = mocks.deliveries();
      expect(sent).toHaveLength(13);
      expect(sent.every((c) => c.arg.attempt === 1 && !c.arg.final)).toBe(true);
      // No step of the backoff was waited: about a second between tries, never 10 s.
      expect(sent.at(-1)!.at - sent[0].at).toBeLessThan(10 * 1_500);
    });
  });

  it('a receiver that recovers is not sent to again', async () => {
    const mocks = mockWebhookActivities(async (p) =>
      p.attempt < 3 ? { outcome: 'failed', statusCode: null, error: 'connection failed (ECONNREFUSED)', latencyMs: null } : { outcome: 'succeeded', statusCode: 204, latencyMs: 7 },
    );
    await withDelivery(mocks.activities, async (handle) => {
      expect(await handle.result()).toEqual({ outcome: 'delivered', attempts: 3 });
      expect(await currentDetails(handle)).toBe('delivered at attempt 3 (HTTP 204 in 7 ms)');
      await se.env.sleep('1 day');
      expect(mocks.deliveries()).toHaveLength(3);
    });
  });
});
