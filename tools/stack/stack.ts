import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { freePort } from '../../util/index.js';
import { createApp } from '../../api/app.js';
import { encryptingDataConverter } from '../../codec/index.js';
import { openDatabase, type Database } from '../../db/index.js';
import { type Config, parseConfig } from '../../config/index.js';
import { simulatorCarrierEnv } from '../carrier-sim/index.js';
import { adminCommands } from '../../admin/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import type { CarrierRegistry } from '../../carriers/index.js';
import { createWorkers, type QueueGroup, type WorkerFleet } from '../../workers/run.js';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { parseServiceConfig, type Tracing } from '../../runtime/index.js';
import type { Infra } from './infra.js';

let runtimeInstalled = false;
function quietRuntime() {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed in this process.
  }
}

/** A whole service on shared infrastructure: its API, its workers, its clients. */
export interface LocalStack {
  /** Label renders the workers' captures started and have not finished. */
  readonly workerRenders: { size: number };
  url: string;
  simUrl: string;
  config: Config;
  database: Database;
  temporal: Client;
  admin: ReturnType<typeof adminCommands>;
  /** Starts (again) the workers of this stack's queues; `stopWorkers` stops them. */
  startWorkers(): Promise<void>;
  stopWorkers(): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalStackOptions {
  groups?: QueueGroup[];
  workers?: boolean;
  now?: () => Date;
  tracing?: Tracing;
  /** The carriers the API and workers use; `carrierRegistryFor(config)` when not given. */
  registry?: (config: Config) => CarrierRegistry;
}

/**
 * A whole service on shared PostgreSQL, Temporal and simulator (a test file's, a benchmark's): its
 * own API on a free port and its own workers on a private task-queue prefix.
 */
export async function startLocalStack(infra: Infra, overrides: Partial<Config> = {}, options: LocalStackOptions = {}): Promise<LocalStack> {
  quietRuntime();
  const simUrl = infra.carrierSimUrl;
  // The port is chosen first so that absolute URLs (signed label links) point at this API.
  const port = await freePort();
  const config: Config = {
    // Every carrier against the shared simulator: the real ones with the settings their modules give it.
    ...parseServiceConfig({ CARRIER_SIM_PORT: new URL(simUrl).port, LOG_LEVEL: 'warn', ...simulatorCarrierEnv(simUrl) }),
    // Files of the same run may start stacks at once: isolate by task-queue prefix.
    taskQueuePrefix: `t${randomBytes(4).toString('hex')}-`,
    purchaseWaitMs: 15_000,
    purchaseDeadlineMs: 60_000,
    carrierTimeoutMs: 2_000,
    port,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    // Stopping a test's workers stands for losing them: no drain.
    worker: { ...parseConfig({}).worker, shutdownGraceMs: 0 },
    // One Schedule per test's task-queue prefix would be noise: the tests that need it turn it on.
    orphanSweep: { ...parseConfig({}).orphanSweep, intervalMs: 0 },
    // Every test comes from 127.0.0.1, across files: the per-address limit is tested on its own
    // addresses (test/security/address-limit.test.ts), so here it is out of the way.
    addressRateLimit: { count: 1_000_000, seconds: 10 },
    ...overrides,
  };
  const database = openDatabase(infra.databaseUrl, { max: 10 });
  const address = infra.temporalAddress;
  const connection = await Connection.connect({ address });
  const interceptors = options.tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  const temporal = new Client({ connection, namespace: config.temporalNamespace, dataConverter: encryptingDataConverter(config), interceptors });
  const registry = options.registry ? options.registry(config) : carrierRegistryFor(config);
  const native = await NativeConnection.connect({ address });

  let fleet: WorkerFleet | undefined;
  let running: Promise<void> | undefined;
  const startWorkers = async () => {
    if (fleet) return;
    fleet = await createWorkers({
      config,
      db: database.db,
      connection: native,
      registry,
      groups: options.groups ?? ['shipments', 'carriers', 'webhooks'],
      workflowBundle: { codePath: infra.workflowBundlePath },
      client: temporal,
      tracing: options.tracing,
    });
    running = fleet.run();
  };
  const stopWorkers = async () => {
    await fleet?.shutdown();
    await running;
    fleet = undefined;
  };
  if (options.workers !== false) await startWorkers();

  const app = await createApp({ config, db: database.db, temporal, catalog: registry, now: options.now, tracer: options.tracing?.tracer });
  const url = await app.listen({ port, host: '127.0.0.1' });

  return {
    url,
    simUrl,
    config,
    database,
    temporal,
    admin: adminCommands(database.db),
    startWorkers,
    stopWorkers,
    get workerRenders() {
      return { size: fleet?.renders.size ?? 0 };
    },
    async stop() {
      await app.close();
      await stopWorkers();
      await native.close();
      await connection.close();
      await database.close();
    },
  };
}
