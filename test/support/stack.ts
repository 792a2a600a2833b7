import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { request } from 'undici';
import { inject } from 'vitest';
import { freePort } from '../../util/index.js';
import { createApp } from '../../api/app.js';
import { encryptingDataConverter } from '../../codec/index.js';
import { checkLedger, insertShipment, openDatabase, type Database } from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import { type Config, parseConfig } from '../../config/index.js';
import { simulatorCarrierEnv } from '../../tools/carrier-sim/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { adminCommands, type CreateAccountOptions } from '../../admin/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import type { CarrierRegistry } from '../../carriers/index.js';
import { createWorkers, type QueueGroup, type WorkerFleet } from '../../workers/run.js';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { parseServiceConfig, type Tracing } from '../../runtime/index.js';
import { eventually } from './sim.js';


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

/** The run's shared services (from the global setup, or started by a script). */
export interface Infra {
  databaseUrl: string;
  temporalAddress: string;
  carrierSimUrl: string;
  workflowBundlePath: string;
}

export interface TestStack {
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

/**
 * A whole service for one test file on the run's shared PostgreSQL, Temporal and simulator: its own
 * API on a free port and its own workers on a private task-queue prefix.
 */
export async function startTestStack(
  overrides: Partial<Config> = {},
  options: {
    groups?: QueueGroup[];
    workers?: boolean;
    now?: () => Date;
    infra?: Infra;
    tracing?: Tracing;
    /** The carriers the API and workers use; `carrierRegistryFor(config)` when not given. */
    registry?: (config: Config) => CarrierRegistry;
  } = {},
): Promise<TestStack> {
  quietRuntime();
  const infra = options.infra ?? {
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    carrierSimUrl: inject('carrierSimUrl'),
    workflowBundlePath: inject('workflowBundlePath'),
  };
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

export interface TestAccount {
  id: string;
  /** Keys with every scope. */
  testKey: string;
  liveKey: string;
}

/** A fresh account with API access, a sandbox key and a live key: tests never share data. */
export async function createAccount(
  stack: TestStack,
  o: Partial<CreateAccountOptions> & { topUp?: string } = {},
): Promise<TestAccount> {
  const { id } = await stack.admin.createAccount({ name: o.name ?? 'Test Ltd', funding: o.funding ?? 'wallet', ...o });
  await stack.admin.enableApi(id);
  if (o.topUp) await stack.admin.topUp(id, o.topUp);
  const testKey = (await stack.admin.createKey(id, { mode: 'test' })).key;
  const liveKey = (await stack.admin.createKey(id, { mode: 'live' })).key;
  return { id, testKey, liveKey };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/** A customer's HTTP call. */
export async function call(
  stack: { url: string },
  method: string,
  path: string,
  o: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${stack.url}${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}

/** The ledger invariant after every scenario: balance = Σ entries, pending = open holds. */
export async function expectLedgerConsistent(stack: TestStack, accountId: string) {
  const { account, entriesBalance, entriesPending } = await checkLedger(stack.database.db, accountId);
  if (account.balance !== entriesBalance || account.pending !== entriesPending) {
    throw new Error(
      `ledger invariant broken for ${accountId}: balance ${account.balance} vs entries ${entriesBalance}, pending ${account.pending} vs holds ${entriesPending}`,
    );
  }
  return account;
}

/**
 * A pending shipment row of a live wallet purchase of acme_ground, as the API records a purchase
 * request, with no workflow started: what an API that stopped right after recording it leaves.
 * Such a row dated more than a few seconds back is failed by any test file's sweep Schedule (they
 * share the database and run every second): date it ahead of the clock to keep it from them.
 */
export async function insertPendingShipment(stack: TestStack, accountId: string, createdAt = new Date()): Promise<string> {
  const id = makeId('shp', createdAt.getTime(), randomBytes(16));
  await insertShipment(stack.database.db, {
    id,
    accountId,
    livemode: true,
    status: 'pending',
    serviceCode: 'acme_ground',
    fromAddress: address(),
    toAddress: address(),
    parcel: parcel(),
    currency: 'GBP',
    chargedTo: 'wallet',
    createdAt,
    updatedAt: createdAt,
  });
  return id;
}

export const address = (over: Record<string, string> = {}) => ({
  name: 'Ada Lovelace',
  line1: '1 Main Street',
  city: 'London',
  postcode: 'N1 9GU',
  country: 'GB',
  ...over,
});

export const parcel = (over: Record<string, number> = {}) => ({
  weight_g: 1200,
  length_mm: 300,
  width_mm: 200,
  height_mm: 100,
  ...over,
});

/**
 * Terminates a shipment's run once it has started `activity` (the carrier has the request), as an
 * operator would in the Temporal UI; returns the terminated run's id.
 */
export async function terminateDuring(stack: Pick<TestStack, 'temporal'>, shipmentId: string, activity: string): Promise<string> {
  const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(shipmentId));
  const runId = await eventually(async () => {
    const d = await handle.describe();
    return d.raw.pendingActivities?.some((a) => a.activityType?.name === activity) ? d.runId : undefined;
  }, 60_000, `${shipmentId} to call ${activity}`);
  await handle.terminate('terminated mid-way, as an operator would in the UI');
  return runId;
}
