// The real delivery activities and workflow on the time-skipping server, over HTTP to a receiver on
// loopback whose clock is the test server's: every attempt is signed afresh, so the sixth attempt,
// 2 h 36 min after the first, still passes the receiver's five-minute check; body and id never change.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createWebhookActivities } from '../../activities/webhooks.js';
import {
  encryptWebhookSecret,
  generateWebhookSecret,
  insertEvent,
  insertWebhookEndpoint,
  listWebhookDeliveries,
  openDatabase,
  type Database,
} from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import { parseConfig } from '../../config/index.js';
import { webhookWorkflowId } from '../../contract/index.js';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.js';
import { createTimeSkippingEnv } from '../temporal-infra/time-skipping-env.js';
import { signatureTime, specVerify, startReceiver, type Receiver } from './receiver.js';

const workflowsPath = fileURLToPath(new URL('../../workflows/webhook-delivery.ts', import.meta.url));
const id = (prefix: 'acc' | 'evt' | 'we') => makeId(prefix, Date.now(), randomBytes(16));

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Installed already in this process.
}

let env: TestWorkflowEnvironment;
let database: Database;
let receiver: Receiver;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
  database = openDatabase(inject('databaseUrl'), { max: 4 });
  // Fails the first five attempts and acknowledges the sixth; its clock is the test server's.
  receiver = await startReceiver(
    (_r, n) => (n < 6 ? 500 : 204),
    () => env.currentTimeMs(),
  );
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
  await env?.teardown();
});

describe('signing at every attempt (time-skipping, real activities, HTTP on loopback)', () => {
  it('signs each of six attempts with its own time, over the same bytes, so the last still verifies', async () => {
    const config = { ...parseConfig({}), webhookAllowPrivate: true };
    const accountId = id('acc');
    const endpointId = id('we');
    const eventId = id('evt');
    const secret = generateWebhookSecret();
    await insertWebhookEndpoint(database.db, {
      id: endpointId,
      accountId,
      livemode: true,
      url: receiver.url,
      events: null,
      secretCiphertext: encryptWebhookSecret(secret, config.webhookSecretKey, endpointId),
    });
    await insertEvent(database.db, {
      id: eventId,
      accountId,
      livemode: true,
      type: 'wallet.low_balance',
      shipmentId: null,
      data: { object: { object: 'balance', available: '12.50', note: 'naïve ✓' } },
      createdAt: new Date('2026-01-02T03:04:05.000Z'),
    });

    // The activity's clock is the test server's: the attempt's scheduled time, skipped hours included.
    const activities = createWebhookActivities({
      db: database.db,
      config,
      now: () => new Date(Context.current().info.currentAttemptScheduledTimestampMs),
    });
    const taskQueue = `webhooks-signing-${endpointId}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
    const result = await worker.runUntil(
      env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: webhookWorkflowId(eventId, endpointId),
        args: [{ eventId, eventType: 'wallet.low_balance', endpointId, accountId, livemode: true }],
      }),
    );
    expect(result).toEqual({ outcome: 'delivered', attempts: 6 });

    const got = receiver.of(eventId);
    expect(got).toHaveLength(6);
    const first = got[0];
    const last = got[5];
    expect((last.at - first.at) / 1000).toBeGreaterThanOrEqual(9370);
    for (const [i, r] of got.entries()) {
      // The independent check, with the receiver's own (skipped) clock.
      expect(specVerify(r.raw, r.headers['x-svc-signature'] as string, secret, r.at / 1000), `attempt ${i + 1}`).toBe(true);
      expect(Math.abs(r.at / 1000 - signatureTime(r.headers['x-svc-signature'] as string))).toBeLessThan(300);
      expect(r.headers['x-svc-delivery-attempt']).toBe(String(i + 1));
      expect(r.headers['x-svc-event-id']).toBe(eventId);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.raw.equals(first.raw)).toBe(true);
    }
    // Had the first signature been reused, the sixth attempt would have failed the five-minute check.
    expect(specVerify(last.raw, first.headers['x-svc-signature'] as string, secret, last.at / 1000)).toBe(false);
    expect(first.body).toEqual({
      id: eventId,
      object: 'event',
      type: 'wallet.low_balance',
      created_at: '2026-01-02T03:04:05.000Z',
      livemode: true,
      data: { object: { object: 'balance', available: '12.50', note: 'naïve ✓' } },
    });

    // The delivery log: one row per attempt, newest first, the last one the acknowledgement.
    const { rows } = await listWebhookDeliveries(database.db, { endpointId, limit: 10 });
    expect(rows.map((r) => [r.attempt, r.outcome, r.statusCode, r.final])).toEqual([
      [6, 'succeeded', 204, false],
      [5, 'failed', 500, false],
      [4, 'failed', 500, false],
      [3, 'failed', 500, false],
      [2, 'failed', 500, false],
      [1, 'failed', 500, false],
    ]);
    for (const r of rows) {
      expect(r.latencyMs).toBeGreaterThanOrEqual(0);
      expect(r.error).toBe(r.outcome === 'failed' ? 'HTTP 500' : null);
    }
    expect((rows[0].attemptedAt.getTime() - rows[5].attemptedAt.getTime()) / 1000).toBeGreaterThanOrEqual(9370);
  });
});
