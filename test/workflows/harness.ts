// The shipment workflow on the time-skipping test server, with every activity replaced by a mock of
// the type the worker registers (workers/activities.ts: shipmentQueueActivities). The workflows are
// the real ones (workflows/index.ts); each mock records its calls, in order, with where it ran.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Scan } from '../../carriers/types.js';
import {
  scansSignal,
  SEARCH_ATTRIBUTES,
  SHIPMENT_WORKFLOW,
  shipmentWorkflowId,
  type ShipmentWorkflowInput,
  type ShipmentWorkflowResult,
  stateQuery,
  taskQueues,
} from '../../contract/index.js';
import type { shipmentQueueActivities } from '../../workers/activities.js';
import { createTimeSkippingEnv } from '../temporal-infra/time-skipping-env.js';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Installed already in this process.
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Every activity of the `shipments` queue (and of the carrier queues), as the worker registers them. */
export type ShipmentQueueActivities = Required<ReturnType<typeof shipmentQueueActivities>>;
type Name = keyof ShipmentQueueActivities;
type Arg<N extends Name> = Parameters<ShipmentQueueActivities[N]>[0];
type Mocks = { [N in Name]?: (arg: Arg<N>) => ReturnType<ShipmentQueueActivities[N]> };

export interface Call {
  name: Name;
  arg: unknown;
  /** The test server's clock when the call began (skipped time included). */
  at: number;
  taskQueue: string;
  local: boolean;
  /** The workflow run that made the call (a continue-as-new starts a new run). */
  runId: string | undefined;
  /** A write made within this step (recordTracking's scans, marks and events), not an activity of its own. */
  within?: Name;
}

const WORKFLOWS = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

export interface ShipmentEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleWithSourceMap;
}

/** One time-skipping server and one workflow bundle for a test file; the search attributes registered. */
export async function startShipmentEnv(): Promise<ShipmentEnv> {
  const [env, bundle] = await Promise.all([createTimeSkippingEnv(), bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: new DefaultLogger('WARN') })]);
  const { temporal: proto } = await import('@temporalio/proto');
  const types = proto.api.enums.v1.IndexedValueType;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, type === 'Bool' ? types.INDEXED_VALUE_TYPE_BOOL : types.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return { env, bundle };
}

/**
 * The test file's time-skipping server and bundle: started before its tests, torn down after them.
 * The object is filled in by the file's `beforeAll`, so take its fields inside tests only.
 */
export function useShipmentEnv(): ShipmentEnv {
  const se = {} as ShipmentEnv;
  beforeAll(async () => {
    Object.assign(se, await startShipmentEnv());
  });
  afterAll(async () => {
    await se.env?.teardown();
  });
  return se;
}

export const CARRIER = 'acme';
export const TRACKING_NUMBER = 'ACME0000000001';

export const scan = (id: string, status: Scan['status'], at: number): Scan => ({
  id,
  occurredAt: new Date(at).toISOString(),
  status,
  description: `Scan ${id}`,
  location: { city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
});

/** What a mock answers when a test does not say otherwise: everything works at once. */
function defaults(shipmentId: string): Required<Mocks> {
  const purchase = { reference: shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: false };
  return {
    markShipment: async () => undefined,
    recordEvent: async () => true,
    recordScans: async (p) => p.scans.map((s) => s.id),
    // Replaced in mockActivities by its writes, each recorded as the activity that made it before.
    recordTracking: async () => undefined,
    refundFunds: async () => true,
    beginPurchase: async () => ({ ok: true as const, carrier: CARRIER, gross: 1200, currency: 'GBP' }),
    completePurchase: async (p) => [
      { id: p.purchasedEventId, type: 'shipment.purchased' as const },
    ],
    failPurchase: async () => undefined,
    settleStoppedPurchase: async () => ({ status: 'failed', carrier: CARRIER, trackingNumber: null, settled: true }),
    announceEvents: async () => undefined,
    authorizeCard: async () => undefined,
    captureCard: async () => undefined,
    voidCard: async () => undefined,
    refundCard: async () => undefined,
    sweepUnstartedPurchases: async () => [],
    startMissingDeliveries: async () => [],
    settleStoppedShipments: async () => ({ settling: [], unsettled: [] }),
    settleStoppedBatches: async () => ({ settling: [], unsettled: [] }),
    settleUnconfirmedPickups: async () => ({ settled: [], left: [] }),
    buyLabel: async () => purchase,
    findPurchase: async () => null,
    cancelLabel: async () => undefined,
    fetchScans: async () => [],
    // Replaced in mockActivities by the test's fetchScans answer: the loop's poll reads what a poll on the carrier's queue would.
    pollTracking: async () => [],
    subscribeTracking: async (p) => ({ subscribed: p.trackingNumbers, refused: [] }),
  };
}

/**
 * Mocks of every activity, recording each call; `mocks` replaces the answers a test cares about.
 * recordTracking, unless a test gives its own, makes its writes through the mocks of the activities
 * that made them one by one (recordScans, then each markShipment and recordEvent in its order), each
 * recorded `within` it: a test of those writes reads them the same whichever path made them.
 */
export function mockActivities(env: TestWorkflowEnvironment, shipmentId: string, mocks: Mocks = {}) {
  const calls: Call[] = [];
  const answers = { ...defaults(shipmentId), ...mocks } as Record<Name, (arg: unknown) => Promise<unknown>>;
  const recorded = (name: Name, within?: Name) => async (arg: unknown) => {
    const info = Context.current().info;
    calls.push({ name, arg, at: await env.currentTimeMs(), taskQueue: info.taskQueue, local: info.isLocal, runId: info.workflowExecution?.runId, ...(within ? { within } : {}) });
    return answers[name](arg);
  };
  if (!mocks.pollTracking) answers.pollTracking = (arg) => answers.fetchScans(arg);
  if (!mocks.recordTracking) {
    answers.recordTracking = async (arg) => {
      const p = arg as Arg<'recordTracking'>;
      await recorded('recordScans', 'recordTracking')({ shipmentId: p.shipmentId, scans: p.scans });
      for (const write of p.writes) {
        if ('mark' in write) await recorded('markShipment', 'recordTracking')({ shipmentId: p.shipmentId, changes: write.mark });
        else await recorded('recordEvent', 'recordTracking')(write.event);
      }
    };
  }
  const activities = Object.fromEntries((Object.keys(answers) as Name[]).map((name) => [name, recorded(name)])) as unknown as ShipmentQueueActivities;
  return {
    activities,
    calls,
    /** The names of the calls so far, in order (recordTracking's writes after it). */
    names: () => calls.map((c) => c.name),
    of: <N extends Name>(name: N): Array<Omit<Call, 'arg'> & { arg: Arg<N> }> => calls.filter((c) => c.name === name) as never,
  };
}

export type MockedActivities = ReturnType<typeof mockActivities>;

/** A live, wallet-funded shipment of the `acme` carrier, on task queues of its own. */
export function shipmentInput(over: Partial<ShipmentWorkflowInput> = {}): ShipmentWorkflowInput {
  const id = randomBytes(6).toString('hex');
  return {
    shipmentId: `shp_wf${id}`,
    accountId: 'acc_workflowtest',
    livemode: true,
    fundingSource: 'wallet',
    currency: 'GBP',
    vatRateBp: 2000,
    serviceCode: 'acme_ground',
    from: { name: 'Ada Sender', line1: '1 High Street', city: 'London', postcode: 'EC1A 1BB', country: 'GB' },
    to: { name: 'Bob Receiver', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
    parcel: { weight_g: 1200, length_mm: 300, width_mm: 200, height_mm: 100 },
    reference: 'order-42',
    queuePrefix: `wf${id}-`,
    purchaseDeadlineMs: 15 * MINUTE,
    strayLabelSettleMs: 2 * MINUTE,
    tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR },
    ...over,
  };
}

/** The tracking state of a shipment already bought: its workflow starts in the tracking loop. */
export function purchasedInput(over: Partial<ShipmentWorkflowInput> = {}, seenScanIds: string[] = []): ShipmentWorkflowInput {
  const input = shipmentInput(over);
  return {
    ...input,
    resume: { status: 'purchased', carrier: CARRIER, trackingNumber: TRACKING_NUMBER, seenScanIds, pollMs: input.tracking.minPollMs },
    ...over,
  };
}

export type ShipmentHandle = WorkflowHandle<(input: ShipmentWorkflowInput) => Promise<ShipmentWorkflowResult>>;

/**
 * Runs `during` with a worker on the shipment's `shipments` queue (workflows, every activity) and one
 * on its carrier's queue (the carrier calls of live shipments), both with the mocks. A workflow still
 * running at the end is terminated, so nothing of one test lives on in the next.
 */
export async function withWorkers<T>(
  { env, bundle }: ShipmentEnv,
  input: ShipmentWorkflowInput,
  mocks: MockedActivities,
  during: (handle: ShipmentHandle) => Promise<T>,
): Promise<T> {
  const queues = taskQueues(input.queuePrefix);
  const connection = env.nativeConnection;
  const shipments = await Worker.create({ connection, taskQueue: queues.shipments, workflowBundle: bundle, activities: mocks.activities });
  // A shipment tracks on a queue of its own after its first wait (workflows/tracking.ts).
  const tracking = await Worker.create({ connection, taskQueue: queues.tracking, workflowBundle: bundle, activities: mocks.activities });
  const carrier = await Worker.create({ connection, taskQueue: queues.carrier(CARRIER), activities: mocks.activities });
  // Tracking polls have a queue of their own (its share of the carrier's rate).
  const carrierTracking = await Worker.create({ connection, taskQueue: queues.carrierTracking(CARRIER), activities: mocks.activities });
  const handle: ShipmentHandle = env.client.workflow.getHandle(shipmentWorkflowId(input.shipmentId));
  const run = async () => {
    try {
      return await during(handle);
    } finally {
      const status = await handle.describe().then(
        (d) => d.status.name,
        () => 'NONE',
      );
      if (status === 'RUNNING') await endShipment(handle);
    }
  };
  return await carrierTracking.runUntil(carrier.runUntil(tracking.runUntil(shipments.runUntil(run()))));
}

/**
 * Ends a shipment still running at the end of a test. A tracking shipment ends as it would for real,
 * on a delivered scan: terminating a running workflow leaves the test server's time skipping locked
 * for the tests that follow (they would then wait in real time). Anything else is terminated.
 */
export async function endShipment(handle: ShipmentHandle): Promise<void> {
  const status = await handle.query(stateQuery).then(
    (s) => s.status,
    () => 'unknown',
  );
  if (['purchased', 'in_transit', 'exception'].includes(status)) {
    await handle.signal(scansSignal, [scan(`test-over-${randomBytes(4).toString('hex')}`, 'delivered', Date.now())]);
    await handle.result();
  } else {
    await handle.terminate('test over');
  }
}

export function startShipment({ env }: ShipmentEnv, input: ShipmentWorkflowInput) {
  const queues = taskQueues(input.queuePrefix);
  return env.client.workflow.start<(input: ShipmentWorkflowInput) => Promise<ShipmentWorkflowResult>>(SHIPMENT_WORKFLOW, {
    workflowId: shipmentWorkflowId(input.shipmentId),
    // A run that only tracks starts where tracking runs (api/resume.ts); a purchase or a settling run on `shipments`.
    taskQueue: input.resume && !input.settle ? queues.tracking : queues.shipments,
    args: [input],
  });
}

/** What operators read in the Temporal UI: the workflow's current details. */
export async function currentDetails(handle: WorkflowHandle): Promise<string | undefined> {
  const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return meta.currentDetails;
}

/** Waits (real time, on a condition) until the mocks have received `name` at least `count` times. */
export async function called(mocks: MockedActivities, name: Name, count = 1): Promise<void> {
  await expect.poll(() => mocks.of(name).length, { timeout: 20_000, interval: 50, message: `${name} called ${count} time(s)` }).toBeGreaterThanOrEqual(count);
}

/** Resolves when the activity's cancellation arrives; heartbeats meanwhile, as the carrier activity does. */
export async function hangUntilCancelled(): Promise<never> {
  const ctx = Context.current();
  for (;;) {
    ctx.heartbeat();
    await ctx.sleep(200); // throws CancelledFailure once the workflow cancels the activity
  }
}
