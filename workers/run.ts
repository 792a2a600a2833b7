import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createCarrierActivities } from '../activities/carriers.js';
import { createWebhookActivities } from '../activities/webhooks.js';
import type { CarrierRegistry } from '../carriers/index.js';
import type { Db } from '../db/index.js';
import { taskQueues, type Config } from '../domain/index.js';
import type { WorkerMetrics } from '../activities/metrics.js';
import { shipmentQueueActivities } from './activities.js';
import { workerTracing, type WorkerTracingDeps } from './tracing.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Workflow interceptors bundled with the workflows (OpenTelemetry: workflow spans joined to the caller's trace). */
export const WORKFLOW_INTERCEPTOR_MODULES = [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/** The queue groups a worker process can serve: `shipments`, `carriers` (or one `carrier-<code>`), `webhooks`. */
export type QueueGroup = 'shipments' | 'carriers' | 'webhooks' | `carrier-${string}`;

export interface WorkerFleet {
  workers: Worker[];
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

export async function createWorkers(deps: {
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
  /** OpenTelemetry (scripts/tracing.ts); without it, workflow spans go nowhere and activities are not traced. */
  tracing?: WorkerTracingDeps;
}): Promise<WorkerFleet> {
  const { config, connection, registry, metrics } = deps;
  // Explicit tuning per process, from configuration (README: Configuration).
  const tuning = {
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceMs,
  };
  const queues = taskQueues(config.taskQueuePrefix);
  const namespace = config.temporalNamespace;
  const workflows = deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: WORKFLOWS_PATH };
  // A prebuilt bundle has them inside already (scripts/build-workflows.ts).
  const traced = workerTracing(deps.tracing, deps.workflowBundle ? [] : WORKFLOW_INTERCEPTOR_MODULES);
  const workers: Worker[] = [];

  for (const group of deps.groups) {
    if (group === 'shipments') {
      workers.push(
        await Worker.create({
          connection,
          namespace,
          taskQueue: queues.shipments,
          ...tuning,
          ...workflows,
          ...traced,
          activities: shipmentQueueActivities({ db: deps.db, config, registry, client: deps.client, metrics }),
        }),
      );
    } else if (group === 'carriers' || group.startsWith('carrier-')) {
      const codes = group === 'carriers' ? registry.definitions.map((d) => d.code) : [group.slice('carrier-'.length)];
      for (const code of codes) {
        const definition = registry.carrier(code);
        if (!definition) throw new Error(`unknown carrier queue ${group}`);
        workers.push(
          await Worker.create({
            connection,
            namespace,
            taskQueue: queues.carrier(code),
            ...tuning,
            ...traced,
            activities: createCarrierActivities({ adapter: registry.adapter, metrics }),
            // The carrier's limit holds across every worker polling this queue (issue: fleet-wide).
            maxTaskQueueActivitiesPerSecond: config.carrierRateLimits[code] ?? definition.rateLimitPerSecond,
          }),
        );
      }
    } else if (group === 'webhooks') {
      workers.push(
        await Worker.create({
          connection,
          namespace,
          taskQueue: queues.webhooks,
          ...tuning,
          ...workflows,
          ...traced,
          activities: createWebhookActivities({ db: deps.db, config, metrics }),
        }),
      );
    } else {
      throw new Error(`unknown queue group "${group}"`);
    }
  }
  return {
    workers,
    run: async () => {
      await Promise.all(workers.map((w) => w.run()));
    },
    shutdown: async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    },
  };
}
