// Item 7 of issue 13 on the time-skipping test server: tracking stops after a bounded quiet period
// (shorter in the sandbox), leaving the shipment's status as it was and saying why; a scan before the
// end restarts the period; a later scan, or a void, resumes it. The workflow and its activities are
// the real ones, on the run's PostgreSQL, for a sandbox shipment bought through the API.
import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVoid } from '../../api/shipment-workflow.js';
import { resumeTracking } from '../../api/resume.js';
import { findShipment, scansOf } from '../../db/index.js';
import {
  scansSignal,
  SEARCH_ATTRIBUTES,
  SHIPMENT_WORKFLOW,
  shipmentWorkflowId,
  taskQueues,
  TRACKING_QUIET_STOP_MS,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
} from '../../contract/index.js';
import { shipmentQueueActivities, carrierRegistryFor } from '../../workers/activities.js';
import { WORKFLOWS_PATH } from '../../workers/run.js';
import { createTimeSkippingEnv } from '../temporal-infra/time-skipping-env.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Installed already in this process.
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;
let stack: TestStack;
let env: TestWorkflowEnvironment;
let workers: Worker[];
let running: Promise<void[]>;
const prefix = `q${randomBytes(4).toString('hex')}-`;

beforeAll(async () => {
  // The API buys real sandbox shipments (their rows, labels and tracking numbers) on the dev server;
  // their tracking then runs on the time-skipping server, where days pass in seconds.
  stack = await startTestStack({}, {});
  env = await createTimeSkippingEnv();
  // The workflow keeps its search attributes up to date: the test server needs them registered.
  const { temporal: proto } = await import('@temporalio/proto');
  const types = proto.api.enums.v1.IndexedValueType;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, type === 'Bool' ? types.INDEXED_VALUE_TYPE_BOOL : types.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  const config = { ...stack.config, taskQueuePrefix: prefix };
  const activities = shipmentQueueActivities({ db: stack.database.db, config, registry: carrierRegistryFor(config) });
  // A resumed run tracks on the tracking queue (api/resume.ts); a shipment moves there after its first wait.
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  workers = await Promise.all(
    [taskQueues(prefix).shipments, taskQueues(prefix).tracking].map((taskQueue) =>
      Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities }),
    ),
  );
  running = Promise.all(workers.map((w) => w.run()));
}, 240_000);

afterAll(async () => {
  for (const w of workers ?? []) w.shutdown();
  await running;
  await env?.teardown();
  await stack?.stop();
});

/** A sandbox shipment bought through the API, and the input its tracking resumes with. */
async function sandboxShipment(): Promise<ShipmentWorkflowInput> {
  const acct = await createAccount(stack);
  const a = await call(stack, 'POST', '/api/v1/shipments', {
    key: acct.testKey,
    body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
  });
  expect(a.status, a.text).toBe(201);
  return {
    shipmentId: a.body.id,
    accountId: acct.id,
    livemode: false,
    fundingSource: 'wallet',
    currency: 'GBP',
    vatRateBp: 2000,
    serviceCode: 'acme_ground',
    from: address(),
    to: address(),
    parcel: parcel(),
    reference: null,
    queuePrefix: prefix,
    purchaseDeadlineMs: 60_000,
    tracking: { minPollMs: 15 * 60_000, maxPollMs: 12 * HOUR },
    resume: { status: 'purchased', carrier: 'acme', trackingNumber: a.body.tracking.number, seenScanIds: [], pollMs: 15 * 60_000 },
  };
}

const start = (input: ShipmentWorkflowInput) =>
  env.client.workflow.start<(i: ShipmentWorkflowInput) => Promise<ShipmentWorkflowResult>>(SHIPMENT_WORKFLOW, {
    workflowId: shipmentWorkflowId(input.shipmentId),
    taskQueue: taskQueues(prefix).shipments,
    args: [input],
  });

const scan = (id: string, status: 'in_transit' | 'delivered', at: number) => ({ id, occurredAt: new Date(at).toISOString(), status, description: 'Scanned', location: null });

describe('tracking stops after a quiet period', () => {
  it('stops a sandbox shipment after the sandbox quiet period, its status unchanged, saying why', async () => {
    const input = await sandboxShipment();
    const handle = await start(input);
    const result = await handle.result();
    // The workflow's own clock: from its first run's start event to its last run's completion (it
    // goes on as new on the tracking queue after its first wait).
    const first = (await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory()).events!;
    const events = (await env.client.workflow.getHandle(handle.workflowId).fetchHistory()).events!;
    const at = (e: (typeof events)[number]) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
    const elapsed = at(events[events.length - 1]) - at(first[0]);
    expect(result.status).toBe('purchased');
    expect(result.trackingStopped?.quietForMs).toBeGreaterThanOrEqual(TRACKING_QUIET_STOP_MS.sandbox);
    // Bounded: within one (longest) poll interval of the quiet period, and shorter than live's.
    expect(elapsed).toBeGreaterThanOrEqual(TRACKING_QUIET_STOP_MS.sandbox);
    expect(elapsed).toBeLessThanOrEqual(TRACKING_QUIET_STOP_MS.sandbox + 12 * HOUR + HOUR);
    expect(TRACKING_QUIET_STOP_MS.sandbox).toBeLessThan(TRACKING_QUIET_STOP_MS.live);
    expect((await findShipment(stack.database.db, input.shipmentId))!.status).toBe('purchased');
    // Operators read why in the workflow's result and its current details (the UI's summary).
    const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toMatch(/tracking stopped: no new scan for 3(\.\d)? d/);
  });

  it('a scan during the period starts it again; a scan after the stop resumes tracking', async () => {
    const input = await sandboxShipment();
    const handle = await start(input);
    // Not on a poll boundary: the sandbox polls at 36 h and then every 12 h, so 2 d would put the
    // signal within milliseconds of a poll timer. The time-skipping server rejects a workflow task
    // that cancels a timer which fired while the task ran ("invalid history builder state for
    // action") and the run stalls; a real server drops the fired event instead.
    await env.sleep(2 * DAY - HOUR);
    const t0 = await env.currentTimeMs();
    await handle.signal(scansSignal, [scan('early', 'in_transit', t0)]);
    const result = await handle.result();
    expect(result.status).toBe('in_transit');
    expect(result.trackingStopped).toBeDefined();
    expect((await env.currentTimeMs()) - t0).toBeGreaterThanOrEqual(TRACKING_QUIET_STOP_MS.sandbox);

    // A scan after the stop: a new run picks up where the last one stopped and records it.
    const late = await env.currentTimeMs();
    expect(await resumeTracking(env.client, input.shipmentId, [scan('late', 'delivered', late)])).toBe(true);
    const resumed = env.client.workflow.getHandle(shipmentWorkflowId(input.shipmentId));
    const final = (await resumed.result()) as ShipmentWorkflowResult;
    expect(final).toEqual({ status: 'delivered' });
    expect((await scansOf(stack.database.db, input.shipmentId)).map((s) => s.carrierScanId)).toEqual(['early', 'late']);
    expect((await findShipment(stack.database.db, input.shipmentId))!.status).toBe('delivered');
    // Ended for good: nothing to resume.
    expect(await resumeTracking(env.client, input.shipmentId, [])).toBe(false);
  });

  it('a void after the stop resumes the workflow and voids', async () => {
    const input = await sandboxShipment();
    const handle = await start(input);
    expect((await handle.result()).trackingStopped).toBeDefined();
    await expect(startVoid(env.client, input.shipmentId, 'void-after-quiet', 30_000)).rejects.toThrow();
    expect(await resumeTracking(env.client, input.shipmentId, [])).toBe(true);
    const voided = await startVoid(env.client, input.shipmentId, 'void-after-quiet', 30_000);
    expect(voided).toEqual({ done: true, outcome: { ok: true } });
    expect((await findShipment(stack.database.db, input.shipmentId))!.status).toBe('voided');
  });
});
