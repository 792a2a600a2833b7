/**
 * The production topology on one machine (`npm run fleet`, and test/fleet/cluster.test.ts): a real
 * PostgreSQL with our database and Temporal's two, the Temporal server as one process per service,
 * two API processes, worker processes per queue group, the carrier simulator and (when its server
 * builds here) the Temporal UI. Every process is a child that dies with us; each writes to its own
 * log file under `<dataDir>/logs`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { request } from 'undici';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase } from '../../db/index.js';
import { childEnv, parseConfig, SEARCH_ATTRIBUTES, toolingSettings } from '../../domain/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { WORKFLOWS_PATH } from '../../workers/run.js';
import { freePorts } from '../../util/index.js';
import { killWithParent, portIsFree, parentDeathWrapped, readTail, sleep, stopChild, tcpConnects, type Log } from '../temporal/process-utils.js';
import { ensureTemporalServer, ensureTemporalUi } from '../temporal/server.js';
import {
  DEFAULT_TEMPORAL_PORTS,
  prepareNamespace,
  REPO_ROOT,
  setupTemporalSchema,
  TEMPORAL_SERVICES,
  temporalDbFromUrl,
  temporalEnv,
  temporalServerArgs,
  type TemporalPorts,
  type TemporalService,
} from './temporal-cluster.js';

export interface FleetOptions {
  /** Embedded PostgreSQL files, the workflow bundles and `logs/`. */
  dataDir: string;
  /** `default`: the well-known ports (API 3000 and 3001, frontend 7233, UI 8080, simulator 4010); `free`: any free ports (tests). */
  ports: 'default' | 'free';
  /** A PostgreSQL server to use instead of the embedded one: our database is this URL's, Temporal's two sit beside it. */
  databaseUrl?: string;
  namespace?: string;
  /** Worker deployment name (Worker Versioning). Default `parcel-shipping`. */
  deploymentName?: string;
  /** Extra environment for every API and worker process. */
  appEnv?: Record<string, string>;
  /** Build the Temporal UI server if it can be built here, and run it. Default true. */
  ui?: boolean;
  /** Temporal server log level. Default `warn`. */
  temporalLogLevel?: string;
  log: Log;
}

export interface FleetProcess {
  name: string;
  logFile: string;
  readonly pid: number | undefined;
  running(): boolean;
  /** Resolves when the current child exits. */
  exited(): Promise<void>;
  /** SIGTERM (or `signal`), SIGKILL after `graceMs`. */
  stop(graceMs?: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again (same command and environment) and waits until it is ready. */
  start(): Promise<void>;
}

/** A worker build: the workflow bundle its processes load and the build id they poll as. */
export interface WorkerBuild {
  buildId: string;
  bundlePath: string;
}

export interface Fleet {
  databaseUrl: string;
  /** postgres URL of Temporal's own database (`temporal`), for operators and tests. */
  temporalDatabaseUrl: string;
  temporalAddress: string;
  namespace: string;
  deploymentName: string;
  apiUrls: string[];
  simUrl: string;
  uiUrl: string | undefined;
  /** The build the fleet's workers run, and the deployment's current version. */
  build: WorkerBuild;
  processes: Map<string, FleetProcess>;
  /** `temporal-<service>` processes. */
  temporal(service: TemporalService): FleetProcess;
  /** Starts a worker process of `build` on `groups` (named `name`), ready when its workers poll. */
  startWorker(name: string, groups: string[], build: WorkerBuild, env?: Record<string, string>): Promise<FleetProcess>;
  /** Sets the deployment's current version (Worker Versioning) and waits until matching applies it. */
  setCurrentBuild(buildId: string): Promise<void>;
  stop(): Promise<void>;
}

/** Bundles the workflows at `workflowsPath` into `<dir>/workflow-bundle-<buildId>.js`; the build id is the bundle's hash. */
export async function buildWorkflowBundle(dir: string, workflowsPath = WORKFLOWS_PATH): Promise<WorkerBuild> {
  const quiet = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
  const buildId = createHash('sha256').update(code).digest('hex').slice(0, 12);
  const bundlePath = path.join(dir, `workflow-bundle-${buildId}.js`);
  await mkdir(dir, { recursive: true });
  await writeFile(bundlePath, code);
  return { buildId, bundlePath };
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 });
    await res.body.dump();
    return res.statusCode < 400;
  } catch {
    return false;
  }
}

async function logSays(file: string, from: number, text: string): Promise<boolean> {
  try {
    return (await readFile(file, 'utf8')).slice(from).includes(text);
  } catch {
    return false;
  }
}

interface Spec {
  name: string;
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Resolves true once the process serves; `offset` is where this start's output begins in the log. */
  ready: (offset: number) => Promise<boolean>;
  readyTimeoutMs: number;
}

function managed(spec: Spec, logDir: string, log: Log): FleetProcess {
  const logFile = path.join(logDir, `${spec.name}.log`);
  let child: ChildProcess | undefined;
  let exit: Promise<void> = Promise.resolve();
  const proc: FleetProcess = {
    name: spec.name,
    logFile,
    get pid() {
      return child?.pid;
    },
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    exited: () => exit,
    stop: async (graceMs = 15_000, signal: NodeJS.Signals = 'SIGTERM') => {
      if (child) await stopChild(child, graceMs, signal);
    },
    start: async () => {
      if (proc.running()) return;
      const out = await open(logFile, 'a');
      const offset = (await out.stat()).size;
      await out.writeFile(`\n=== ${new Date().toISOString()} ${spec.cmd} ${spec.args.join(' ')}\n`);
      const [cmd, argv] = await parentDeathWrapped(spec.cmd, spec.args, 'SIGTERM');
      try {
        child = spawn(cmd, argv, { cwd: REPO_ROOT, env: spec.env, stdio: ['ignore', out.fd, out.fd] });
      } finally {
        await out.close();
      }
      const c = child;
      killWithParent(c, 'SIGTERM');
      let spawnError: Error | undefined;
      c.once('error', (e) => (spawnError = e));
      exit = new Promise((resolve) => c.once('exit', () => resolve()));
      const deadline = Date.now() + spec.readyTimeoutMs;
      for (;;) {
        if (spawnError || c.exitCode !== null || c.signalCode !== null) {
          throw new Error(`${spec.name} exited while starting (${spawnError?.message ?? c.exitCode ?? c.signalCode}); ${logFile}:\n${await readTail(logFile, 30)}`);
        }
        if (await spec.ready(offset)) break;
        if (Date.now() > deadline) {
          await stopChild(c, 5_000);
          throw new Error(`${spec.name} did not get ready in ${spec.readyTimeoutMs / 1000} s; ${logFile}:\n${await readTail(logFile, 30)}`);
        }
        await sleep(250);
      }
      log(`${spec.name} is up (pid ${c.pid})`);
    },
  };
  return proc;
}

/** The groups of the worker processes: two `shipments`, one per carrier, one `webhooks`. */
export function workerLayout(): Array<{ name: string; groups: string[] }> {
  const carriers = carrierRegistryFor(parseConfig({})).definitions.map((d) => d.code);
  return [
    { name: 'worker-shipments-1', groups: ['shipments'] },
    { name: 'worker-shipments-2', groups: ['shipments'] },
    ...carriers.map((code) => ({ name: `worker-carrier-${code}`, groups: [`carrier-${code}`] })),
    { name: 'worker-webhooks', groups: ['webhooks'] },
  ];
}

/** Free ports in 20000–32767 (Temporal's cluster_membership table keeps ports as smallint). */
async function freeLowPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const p = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.includes(p) && (await portIsFree('127.0.0.1', p))) ports.push(p);
  }
  return ports;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const { log } = options;
  const namespace = options.namespace ?? 'default';
  const deploymentName = options.deploymentName ?? 'parcel-shipping';
  const dataDir = path.resolve(options.dataDir);
  const logDir = path.join(dataDir, 'logs');
  await mkdir(logDir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its directory.
  await chmod(dataDir, 0o755).catch(() => undefined);

  const processes = new Map<string, FleetProcess>();
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    // Apps first (they drain), then the cluster, then PostgreSQL.
    const order = [...processes.values()].reverse();
    await Promise.all(order.filter((p) => !p.name.startsWith('temporal-')).map((p) => p.stop(20_000)));
    await Promise.all(order.filter((p) => p.name.startsWith('temporal-')).map((p) => p.stop(15_000)));
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };

  try {
    const free = options.ports === 'free' ? await freePorts(14) : [];
    // Temporal stores membership ports as a smallint: they must be below 32768, unlike most free ports.
    const low = options.ports === 'free' ? await freeLowPorts(4) : [];
    const ports: TemporalPorts =
      options.ports === 'free'
        ? {
            frontend: free[0],
            frontendHttp: free[1],
            frontendMembership: low[0],
            history: free[3],
            historyMembership: low[1],
            matching: free[5],
            matchingMembership: low[2],
            worker: free[7],
            workerMembership: low[3],
          }
        : DEFAULT_TEMPORAL_PORTS;
    const apiPorts = options.ports === 'free' ? [free[9], free[10]] : [3000, 3001];
    const simPort = options.ports === 'free' ? free[11] : 4010;
    const uiPort = options.ports === 'free' ? free[12] : 8080;
    if (options.ports === 'default') {
      const taken = [];
      for (const p of [...Object.values(ports), ...apiPorts, simPort, uiPort]) if (await tcpConnects('127.0.0.1', p, 300)) taken.push(p);
      if (taken.length) throw new Error(`ports already in use: ${taken.join(', ')} (is \`npm start\` or another fleet running?)`);
    }

    // The binaries, PostgreSQL and the first workflow bundle at once.
    log('preparing: the Temporal server binaries (built once, minutes), PostgreSQL, the workflow bundle');
    const [binaries, pg, build, uiBin] = await Promise.all([
      ensureTemporalServer(log),
      options.databaseUrl
        ? Promise.resolve({ url: options.databaseUrl, stop: async () => undefined })
        : ensureEmbeddedPostgres(dataDir),
      buildWorkflowBundle(path.join(dataDir, 'bundles')),
      options.ui === false ? Promise.resolve(undefined) : ensureTemporalUi(log).catch(() => undefined),
    ]);
    stops.push(() => pg.stop());
    const database = openDatabase(pg.url, { max: 2 });
    await migrateDatabase(database);
    await database.close();

    const db = temporalDbFromUrl(pg.url);
    await setupTemporalSchema(binaries, db, log);
    const temporalDatabaseUrl = (() => {
      const u = new URL(pg.url);
      u.pathname = '/temporal';
      return u.toString();
    })();

    // The cluster: one process per service.
    const tEnv = childEnv(temporalEnv(db, ports, options.temporalLogLevel ?? 'warn'));
    for (const service of TEMPORAL_SERVICES) {
      processes.set(
        `temporal-${service}`,
        managed(
          {
            name: `temporal-${service}`,
            cmd: binaries.server,
            args: temporalServerArgs(service),
            env: tEnv,
            // The worker service serves no gRPC: it is up once it has joined the ring (membership port).
            ready: () => tcpConnects('127.0.0.1', service === 'worker' ? ports.workerMembership : ports[service], 500),
            readyTimeoutMs: 120_000,
          },
          logDir,
          log,
        ),
      );
    }
    // The first process writes the cluster's metadata record; the others, started together after it, read it.
    const [first, ...rest] = TEMPORAL_SERVICES;
    await processes.get(`temporal-${first}`)!.start();
    await Promise.all(rest.map((s) => processes.get(`temporal-${s}`)!.start()));
    const temporalAddress = `127.0.0.1:${ports.frontend}`;
    await prepareNamespace({
      address: temporalAddress,
      namespace,
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      timeoutMs: 180_000,
      alive: () => {
        const dead = [...processes.values()].filter((p) => p.name.startsWith('temporal-') && !p.running());
        return dead.length ? `${dead.map((p) => p.name).join(', ')} exited; see ${dead[0].logFile}` : undefined;
      },
      log,
    });
    log(`the Temporal cluster serves on ${temporalAddress} (namespace ${namespace})`);

    let uiUrl: string | undefined;
    if (uiBin) {
      const ui = managed(
        {
          name: 'temporal-ui',
          cmd: uiBin,
          args: ['--root', path.join(REPO_ROOT, 'deploy', 'temporal', 'ui'), '--config', 'config', '--env', 'parcel-shipping', 'start'],
          env: childEnv({
            TEMPORAL_ADDRESS: temporalAddress,
            TEMPORAL_UI_PORT: String(uiPort),
            TEMPORAL_UI_HOST: '127.0.0.1',
            TEMPORAL_DEFAULT_NAMESPACE: namespace,
          }),
          ready: () => httpOk(`http://127.0.0.1:${uiPort}/`),
          readyTimeoutMs: 60_000,
        },
        logDir,
        log,
      );
      try {
        await ui.start();
        processes.set('temporal-ui', ui);
        uiUrl = `http://localhost:${uiPort}`;
      } catch (e) {
        log(`the Temporal UI did not start: ${(e as Error).message.split('\n')[0]}`);
      }
    }

    // The carrier simulator (the only stand-in: the carriers' and the card processor's APIs).
    const sim = managed(
      {
        name: 'carrier-sim',
        cmd: process.execPath,
        args: ['--import', 'tsx', 'carriers/simulator/main.ts'],
        env: childEnv({ CARRIER_SIM_PORT: String(simPort) }),
        ready: () => httpOk(`http://127.0.0.1:${simPort}/_sim/carriers`),
        readyTimeoutMs: 60_000,
      },
      logDir,
      log,
    );
    processes.set(sim.name, sim);
    await sim.start();

    const tooling = toolingSettings();
    const appEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => childEnv({
      NODE_ENV: tooling.nodeEnv ?? 'development',
      LOG_LEVEL: tooling.fleetLogLevel,
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: namespace,
      CARRIER_SIM_PORT: String(simPort),
      WORKER_DEPLOYMENT_NAME: deploymentName,
      ...options.appEnv,
      ...extra,
    });

    const startWorker = async (name: string, groups: string[], b: WorkerBuild, env: Record<string, string> = {}) => {
      const p = managed(
        {
          name,
          cmd: process.execPath,
          args: ['--import', 'tsx', 'workers/main.ts', ...groups],
          env: appEnv({ WORKFLOW_BUNDLE_PATH: b.bundlePath, WORKER_BUILD_ID: b.buildId, ...env }),
          ready: (offset) => logSays(path.join(logDir, `${name}.log`), offset, '"msg":"workers started"'),
          readyTimeoutMs: 120_000,
        },
        logDir,
        log,
      );
      processes.set(name, p);
      await p.start();
      return p;
    };

    const connection = await Connection.connect({ address: temporalAddress });
    stops.push(() => connection.close());
    const setCurrentBuild = async (buildId: string) => {
      const deadline = Date.now() + 120_000;
      let last = '';
      for (;;) {
        try {
          await connection.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity: 'npm run fleet' });
          const { workerDeploymentInfo: info } = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
          const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
          // 1: ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS (task queues still being told; 1.29 reports 0).
          if (current === buildId && Number(info?.routingConfigUpdateState) !== 1) return;
          last = `current ${current ?? 'none'}, routing update state ${String(info?.routingConfigUpdateState)}`;
        } catch (e) {
          last = (e as Error).message;
        }
        if (Date.now() > deadline) throw new Error(`could not make build ${buildId} current: ${last}`);
        await sleep(500);
      }
    };

    // Workers of the first build, then that build made current so new workflows go to it.
    const layout = workerLayout();
    await Promise.all(layout.map((w) => startWorker(w.name, w.groups, build)));
    await setCurrentBuild(build.buildId);

    const apiUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
    const apis: FleetProcess[] = [];
    for (const [i, port] of apiPorts.entries()) {
      const name = `api-${i + 1}`;
      const p = managed(
        {
          name,
          cmd: process.execPath,
          args: ['--import', 'tsx', 'api/main.ts'],
          env: appEnv({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://localhost:${port}` }),
          ready: () => httpOk(`http://127.0.0.1:${port}/healthz`),
          readyTimeoutMs: 120_000,
        },
        logDir,
        log,
      );
      processes.set(name, p);
      apis.push(p);
    }
    await Promise.all(apis.map((p) => p.start()));

    return {
      databaseUrl: pg.url,
      temporalDatabaseUrl,
      temporalAddress,
      namespace,
      deploymentName,
      apiUrls,
      simUrl: `http://127.0.0.1:${simPort}`,
      uiUrl,
      build,
      processes,
      temporal: (service) => processes.get(`temporal-${service}`)!,
      startWorker,
      setCurrentBuild,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
