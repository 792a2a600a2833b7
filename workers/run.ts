import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { BackgroundRenders, createCarrierActivities, createWebhookActivities, type WorkerMetrics } from '../activities/index.js';
import type { CarrierRegistry } from '../carriers/index.js';
import type { Db } from '../db/index.js';
import type { Config } from '../config/index.js';
import { taskQueues } from '../contract/index.js';
import { batchQueueActivities, carrierLabelSink, carrierSendLedger, carrierRate, shipmentQueueActivities } from './activities.js';
import { ensureOrphanSweepSchedule } from './schedules.js';
import { encryptingDataConverter } from '../codec/index.js';
import { workerTracing, type WorkerTracingDeps } from './tracing.js';
import { withHeartbeats } from './heartbeat.js';
import { timedActivities } from './slow-steps.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Workflow interceptors bundled with the workflows (OpenTelemetry: workflow spans joined to the caller's trace). */
export const WORKFLOW_INTERCEPTOR_MODULES = [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

const ignore = () => undefined;
/** webpack's progress lines are noise in a worker's log; its errors still throw. */
export const quietBundler = { log: ignore, trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

/** The prebuilt bundle with tracing's workflow interceptors, beside the plain one (tools/build-workflows.ts). */
export const tracedBundlePath = (bundlePath: string) => bundlePath.replace(/(\.js)?$/, '.traced.js');

/**
 * The queue groups a worker process can serve: `shipments` (which is `purchases` and `tracking`),
 * `carriers` (or one `carrier-<code>`), `webhooks`. `tracking` alone is the parcels in flight, for a
 * process of its own at a lower CPU priority (nice(1)) beside one that serves `purchases`.
 */
export type QueueGroup = 'shipments' | 'purchases' | 'tracking' | 'carriers' | 'webhooks' | `carrier-${string}`;

/** Which of the two shipment queues a process's groups serve: `shipments` is both. */
function shipmentQueuesOf(groups: readonly QueueGroup[]): { purchases: boolean; tracking: boolean } {
  const both = groups.includes('shipments');
  return { purchases: both || groups.includes('purchases'), tracking: both || groups.includes('tracking') };
}

export interface WorkerFleet {
  workers: Worker[];
  /** Label renders started by purchases' captures in this process and not finished yet. */
  renders: BackgroundRenders;
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface WorkerDeps {
  config: Config;
  db: Db;
  connection: NativeConnection;
  registry: CarrierRegistry;
  groups: QueueGroup[];
  /** A prebuilt workflow bundle; without it, workflows are bundled from source at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Starts the webhook deliveries of each stored event; without it, events are stored but not pushed. */
  client?: Client;
  metrics?: WorkerMetrics;
  /** OpenTelemetry (runtime/tracing.ts); without it, workflow spans go nowhere and activities are not traced. */
  tracing?: WorkerTracingDeps;
}

/** Explicit tuning per process, from configuration (docs/operators-guide.md#configuration). */
function workerTuning(config: Config) {
  return {
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceMs,
    // A workflow task waiting for a worker that is gone (killed, its cache with it) moves to the
    // shared queue after 1 s instead of the default 10 s, so a purchase, a void or a scan is not held
    // that long. In a default chaos run, a live worker took its sticky tasks within 0.4 s at p99
    // (4 of 2,106 waited over 1 s, none over 1.4 s): a task moved costs a replay of its short
    // history on another worker, where each one stuck to a dead worker cost a purchase the whole wait.
    stickyQueueScheduleToStartTimeout: '1 second',
    // Worker Versioning: every worker of a build polls as one version of the deployment; a running
    // workflow moves to the current version at its next task, so new builds keep old histories
    // replaying (patched()) rather than pinning weeks-long shipments to old workers.
    ...(config.worker.buildId
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true as const,
            version: { deploymentName: config.worker.deploymentName, buildId: config.worker.buildId },
            defaultVersioningBehavior: 'AUTO_UPGRADE' as const,
          },
        }
      : {}),
  };
}

/**
 * The workflows a process serves: the prebuilt bundle, or one bundled once for every worker of this
 * process (development), with the workflow interceptors inside as the prebuilt bundle has them
 * (tools/build-workflows.ts).
 */
async function workflowsOption(deps: WorkerDeps): Promise<Pick<WorkerOptions, 'workflowBundle'>> {
  if (deps.workflowBundle) return { workflowBundle: deps.workflowBundle };
  const serve = shipmentQueuesOf(deps.groups);
  if (!serve.purchases && !serve.tracking && !deps.groups.includes('webhooks')) return {};
  return {
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      // Tracing's workflow interceptors double the bundle (every new workflow evaluates it)
      // and wrap every call in more promises: bundled only when there is a tracer to feed.
      workflowInterceptorModules: deps.tracing ? WORKFLOW_INTERCEPTOR_MODULES : [],
      logger: quietBundler,
    }),
  };
}

/** What every worker of a process shares: connection, namespace, codec, tuning, tracing. */
type CommonOptions = Pick<WorkerOptions, 'connection' | 'namespace' | 'dataConverter' | 'interceptors' | 'sinks'> & ReturnType<typeof workerTuning>;

async function shipmentWorkers(
  deps: WorkerDeps,
  common: CommonOptions,
  workflows: Pick<WorkerOptions, 'workflowBundle'>,
  renders: BackgroundRenders,
  serve: { purchases: boolean; tracking: boolean },
): Promise<Worker[]> {
  const { config, registry, metrics } = deps;
  const queues = taskQueues(config.taskQueuePrefix);
  const activities = shipmentQueueActivities({ db: deps.db, config, registry, client: deps.client, metrics, renders });
  const split = splitCache(config.worker.maxCachedWorkflows, config.worker.maxConcurrentWorkflowTasks);
  // A process that serves one of the two queues gives it the whole cache.
  const cache = serve.purchases && serve.tracking ? split : { purchases: config.worker.maxCachedWorkflows, tracking: config.worker.maxCachedWorkflows };
  // The purchases on `shipments`; the parcels in flight on `tracking` (contract: taskQueues), with the
  // same workflows and activities, so that their tasks never wait in line ahead of a purchase's.
  const workers: Worker[] = [];
  const slots = workflowTaskSlots(config.worker.maxConcurrentWorkflowTasks);
  const served = [
    ...(serve.purchases ? [[queues.shipments, cache.purchases, slots.purchases] as const] : []),
    ...(serve.tracking ? [[queues.tracking, cache.tracking, slots.tracking] as const] : []),
  ];
  for (const [taskQueue, maxCachedWorkflows, maxConcurrentWorkflowTaskExecutions] of served) {
    workers.push(
      await Worker.create({
        ...common,
        ...workflows,
        interceptors: withHeartbeats(common.interceptors),
        taskQueue,
        activities,
        maxCachedWorkflows,
        maxConcurrentWorkflowTaskExecutions,
      }),
    );
  }
  if (serve.purchases && deps.client) {
    workers.push(
      await Worker.create({ ...common, taskQueue: queues.batches, activities: batchQueueActivities({ db: deps.db, registry, client: deps.client }) }),
    );
    await ensureOrphanSweepSchedule(deps.client, config);
  }
  return workers;
}

/**
 * How many purchase workflow tasks a process runs at once, at most. A purchase's task runs its local
 * steps (price-and-hold, capture) beside its workflow code on the process's own two threads, so on a
 * saturated machine a worker that takes more tasks than it can run within the 5 s workflow task
 * time-out (SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS) lets the last ones time out while it lives on; each is
 * then run again from its history elsewhere, CPU the cores do not have, and a void whose task keeps
 * timing out is not accepted within 20 s (a 503). Default chaos runs on one 2-core machine, by slots:
 * - 40 (the SDK's default): over 100 such time-outs a run, tasks running 4.4 s at p99 and 7.0 s at
 *   the longest, and a void answered 503 in each of three runs;
 * - 16: 3 time-outs, the longest task 4.9 s;
 * - 12: 1 time-out, 2.4 s at p99 and 3.8 s at the longest, and the batches done soonest;
 * - 8: none, 3.0 s at the longest, but single purchases' tasks waited for a slot 14 s at p99 (11 s
 *   at 12), the kill row's slowest purchase 30 s after its kill (24 s at 12).
 * A killed worker also loses every task it holds: the more slots, the more tasks lost per kill.
 */
export const PURCHASE_WORKFLOW_TASK_SLOTS = 12;

/**
 * Workflow task concurrency of the two shipment workers: WORKER_MAX_CONCURRENT_WORKFLOW_TASKS, and at
 * most PURCHASE_WORKFLOW_TASK_SLOTS for the purchases. The parcels in flight keep the setting: each
 * turn holds its slot while it polls the carrier (a UPS read can take 10 s), and 100,000 parcels in
 * flight need many turns at once.
 */
export function workflowTaskSlots(configured: number): { purchases: number; tracking: number } {
  return { purchases: Math.min(configured, PURCHASE_WORKFLOW_TASK_SLOTS), tracking: configured };
}

/**
 * WORKER_MAX_CACHED_WORKFLOWS is the process's, shared by its two shipment workers: a fifth for the
 * purchases (each is cached for the seconds it runs; one waiting for its first poll may be evicted
 * and replays its short history), the rest for the parcels in flight. Each at least its workflow task
 * concurrency, which the SDK requires of a cache; 0 keeps both off.
 */
export function splitCache(total: number, concurrency: number): { purchases: number; tracking: number } {
  if (total === 0) return { purchases: 0, tracking: 0 };
  const floor = Math.min(total, concurrency);
  const purchases = Math.max(Math.ceil(total / 5), floor);
  return { purchases, tracking: Math.max(total - purchases, floor) };
}

/** `carriers` (every carrier) or `carrier-<code>`: each carrier's purchase queue and tracking queue. */
async function carrierWorkers(deps: WorkerDeps, common: CommonOptions, group: QueueGroup): Promise<Worker[]> {
  const { config, registry, metrics } = deps;
  const queues = taskQueues(config.taskQueuePrefix);
  const codes = group === 'carriers' ? registry.definitions.map((d) => d.code) : [group.slice('carrier-'.length)];
  const workers: Worker[] = [];
  for (const code of codes) {
    const definition = registry.carrier(code);
    if (!definition) throw new Error(`unknown carrier queue ${group}`);
    // The carrier's limit holds across every worker polling these queues (fleet-wide), split so
    // that tracking polls never delay a purchase (splitCarrierRate).
    const rate = carrierRate(config, registry, code);
    const ownQueues = [{ taskQueue: queues.carrier(code), perSecond: rate.purchases }];
    if (rate.tracking > 0) ownQueues.push({ taskQueue: queues.carrierTracking(code), perSecond: rate.tracking });
    for (const { taskQueue, perSecond } of ownQueues) {
      workers.push(
        await Worker.create({
          ...common,
          taskQueue,
          activities: createCarrierActivities({ adapter: registry.adapter, metrics, labels: carrierLabelSink(deps.db), sends: carrierSendLedger(deps.db) }),
          maxTaskQueueActivitiesPerSecond: perSecond,
        }),
      );
    }
  }
  return workers;
}

export async function createWorkers(deps: WorkerDeps): Promise<WorkerFleet> {
  const { config } = deps;
  const traced = workerTracing(deps.tracing, []);
  const common: CommonOptions = {
    connection: deps.connection,
    namespace: config.temporalNamespace,
    // Every payload is encrypted and decrypted here (codec/), as in every client.
    dataConverter: encryptingDataConverter(config),
    ...workerTuning(config),
    ...traced,
    // Every step's wait and run time: the slow ones are logged (workers/slow-steps.ts).
    interceptors: { ...traced.interceptors, activity: [...(traced.interceptors?.activity ?? []), timedActivities()] },
  };
  const workflows = await workflowsOption(deps);
  const workers: Worker[] = [];
  const renders = new BackgroundRenders();
  const serve = shipmentQueuesOf(deps.groups);
  if (serve.purchases || serve.tracking) workers.push(...(await shipmentWorkers(deps, common, workflows, renders, serve)));
  for (const group of new Set(deps.groups)) {
    if (group === 'shipments' || group === 'purchases' || group === 'tracking') continue;
    if (group === 'carriers' || group.startsWith('carrier-')) workers.push(...(await carrierWorkers(deps, common, group)));
    else if (group === 'webhooks') {
      const activities = createWebhookActivities({ db: deps.db, config, metrics: deps.metrics });
      workers.push(await Worker.create({ ...common, ...workflows, taskQueue: taskQueues(config.taskQueuePrefix).webhooks, activities }));
    } else throw new Error(`unknown queue group "${group}"`);
  }
  return {
    workers,
    renders,
    run: async () => {
      await Promise.all(workers.map((w) => w.run()));
      // Label renders the last purchases started: finished before the caller closes the database.
      await renders.drain();
    },
    shutdown: async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    },
  };
}
