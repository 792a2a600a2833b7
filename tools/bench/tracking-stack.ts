import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { encryptingDataConverter } from '../../codec/index.js';
import { childEnv, devCarrierWebhookSecret, parseConfig, type Config } from '../../config/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/index.js';
import type { CarrierRegistry } from '../../carriers/index.js';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase, runningPostmaster, type Database } from '../../db/index.js';
import { carrierRegistryFor, parseServiceConfig } from '../../runtime/index.js';
import { freePorts } from '../../util/index.js';
import { simulatorCarrierEnv } from '../carrier-sim/index.js';
import { startDevServer } from '../temporal/dev-server.js';
import { killWithParent, stopChild } from '../temporal/process-utils.js';
import { quietBundler, splitCache, WORKFLOWS_PATH } from '../../workers/run.js';
import { startTemporalOnPostgres } from './temporal-on-postgres.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The tracking bench's stack, every part a process of its own so that each one's CPU can be read
 * from /proc: PostgreSQL (embedded), the Temporal dev server (SQLite) or Temporal on a PostgreSQL
 * of its own as `npm run fleet` runs it, the carrier simulator, the workers (`all`) and the API, as
 * `npm start` runs them, in a directory of the bench's own.
 */
export interface TrackingStack {
  apiUrl: string;
  simUrl: string;
  config: Config;
  database: Database;
  temporal: Client;
  /** The carriers as the workers reach them (the simulator): what a parcel's scans look like to its workflow. */
  carriers: CarrierRegistry;
  /**
   * The pid of each process, by role (PostgreSQL: its postmaster, whose backends count with it);
   * `tracking_workers` when the parcels in flight have a worker process of their own;
   * `temporal_store` when Temporal runs on PostgreSQL (its own postmaster).
   */
  pids: Record<'workers' | 'api' | 'temporal' | 'postgres' | 'simulator', number> & { tracking_workers?: number; temporal_store?: number };
  stop(): Promise<void>;
}

/** Carriers' limits lifted far above what the machine reaches: the bench measures us, and reports the calls. */
const LIFTED_RPS = '2000';

export interface TrackingStackOptions {
  dir: string;
  cachedWorkflows?: number;
  /**
   * The parcels in flight (`tracking`) in a worker process of their own at this nice value, beside
   * one for the rest (`purchases carriers webhooks`); without it, one process serves every queue.
   */
  trackingNice?: number;
  /** `dev`: the dev server on SQLite (as `npm start`); `postgres`: temporal-server on PostgreSQL (as `npm run fleet`). */
  temporal?: 'dev' | 'postgres';
  log: (line: string) => void;
}

export async function startTrackingStack(o: TrackingStackOptions): Promise<TrackingStack> {
  await mkdir(path.join(o.dir, 'logs'), { recursive: true });
  const stops: Array<() => Promise<unknown>> = [];
  const pg = await ensureEmbeddedPostgres(o.dir);
  stops.push(() => pg.stop());
  const migrations = openDatabase(pg.url, { max: 1 });
  await migrateDatabase(migrations);
  await migrations.close();
  // Built once, as production workers load it (npm run build:workflows): a worker process that
  // bundles at start holds webpack's memory for good, which is not what a deployment pays.
  const workflowBundlePath = path.join(o.dir, 'workflow-bundle.js');
  await writeFile(workflowBundlePath, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundler })).code);
  const temporalServer =
    o.temporal === 'postgres'
      ? await startTemporalOnPostgres(o.dir, parseConfig({}).temporalNamespace, o.log)
      : await startDevServer({ dataDir: o.dir, port: 0, uiPort: 0, searchAttributes: { ...SEARCH_ATTRIBUTES }, log: () => undefined });
  stops.push(() => temporalServer.stop());
  const [simPort, apiPort] = await freePorts(2, '127.0.0.1');
  const simUrl = `http://127.0.0.1:${simPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env: Record<string, string> = {
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporalServer.address,
    ...simulatorCarrierEnv(simUrl),
    CARRIER_SIM_PORT: String(simPort),
    CARRIER_SIM_HOST: '127.0.0.1',
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: apiUrl,
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(['ACME', 'SWIFTPOST', 'UPS', 'USPS', 'FEDEX'].map((c) => [`CARRIER_${c}_RPS`, LIFTED_RPS])),
    PURCHASE_WAIT_MS: '60000',
    WORKFLOW_BUNDLE_PATH: workflowBundlePath,
    ...(o.cachedWorkflows !== undefined ? { WORKER_MAX_CACHED_WORKFLOWS: String(o.cachedWorkflows) } : {}),
  };
  const config = parseConfig(env);
  const service = (name: string, entry: string, args: string[] = [], own: { nice?: number; env?: Record<string, string> } = {}): ChildProcess => {
    const nice = own.nice ?? 0;
    const out = createWriteStream(path.join(o.dir, 'logs', `${name}.log`));
    const node = [process.execPath, '--import', 'tsx', path.join(ROOT, entry), ...args];
    // nice(1) execs node in its own process: the pid is node's, and every thread it starts inherits the value.
    const [command, ...argv] = nice > 0 ? ['nice', '-n', String(nice), ...node] : node;
    const child = spawn(command!, argv, { cwd: ROOT, env: childEnv({ ...env, ...own.env }), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
    killWithParent(child, 'SIGTERM');
    stops.push(() => stopChild(child, 10_000));
    return child;
  };
  try {
    const simulator = service('simulator', 'tools/carrier-sim/main.ts');
    await waitFor(`${simUrl}/_sim/carriers`, simulator, 'the carrier simulator');
    const split = o.trackingNice !== undefined;
    // Split, each process gets its queue's share of the one process's cache (splitCache), so that
    // the two layouts hold as many workflows.
    const cache = splitCache(config.worker.maxCachedWorkflows, config.worker.maxConcurrentWorkflowTasks);
    const workers = split
      ? service('workers', 'workers/main.ts', ['purchases', 'carriers', 'webhooks'], { env: { WORKER_MAX_CACHED_WORKFLOWS: String(cache.purchases) } })
      : service('workers', 'workers/main.ts', ['all']);
    const trackingWorkers = split
      ? service('tracking-workers', 'workers/main.ts', ['tracking'], { nice: o.trackingNice, env: { WORKER_MAX_CACHED_WORKFLOWS: String(cache.tracking) } })
      : undefined;
    const api = service('api', 'api/main.ts');
    await waitFor(`${apiUrl}/healthz`, api, 'the API');
    // What "Manage Webhook Credentials" registers with UPS: Track Alert pushes to this API.
    const push = `${apiUrl}/api/v1/carrier-webhooks/ups`;
    await post(`${simUrl}/_sim/ups/track-alert`, { url: `${push}/track-alert`, token_url: `${push}/oauth/token`, client_id: 'ups', client_secret: devCarrierWebhookSecret('ups') });
    const database = openDatabase(pg.url, { max: 4 });
    stops.push(() => database.close());
    const connection = await Connection.connect({ address: temporalServer.address });
    stops.push(() => connection.close());
    const temporal = new Client({ connection, namespace: config.temporalNamespace, dataConverter: encryptingDataConverter(config) });
    const postmaster = runningPostmaster(o.dir);
    if (!postmaster) throw new Error('the embedded PostgreSQL has no postmaster pid');
    const metrics = 'metricsUrl' in temporalServer ? `, its metrics ${temporalServer.metricsUrl}` : '';
    o.log(`stack up: API ${apiUrl}, simulator ${simUrl}, Temporal ${temporalServer.address}${metrics}, logs in ${path.join(o.dir, 'logs')}`);
    return {
      apiUrl,
      simUrl,
      config,
      database,
      temporal,
      carriers: carrierRegistryFor(parseServiceConfig(env)),
      pids: {
        workers: workers.pid!,
        api: api.pid!,
        temporal: temporalServer.pid,
        postgres: postmaster,
        simulator: simulator.pid!,
        ...(trackingWorkers ? { tracking_workers: trackingWorkers.pid! } : {}),
        ...('storePid' in temporalServer ? { temporal_store: temporalServer.storePid } : {}),
      },
      stop: () => stopAll(stops),
    };
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
}

async function stopAll(stops: Array<() => Promise<unknown>>): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}

async function waitFor(url: string, child: ChildProcess, what: string, timeoutMs = 180_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; ) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before it answered ${url}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
}

export async function post(url: string, body: unknown): Promise<any> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`POST ${url} answered ${answer.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A process's resident memory in bytes (VmRSS), or 0 once it is gone. */
export function rssBytes(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}
