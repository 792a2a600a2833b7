/**
 * The production topology on one machine (`npm run fleet`, and test/fleet/cluster.test.ts): a real
 * PostgreSQL with our database and Temporal's two, the Temporal server as one process per service,
 * two API processes, worker processes per queue group, the carrier simulator and (when its server
 * builds here) the Temporal UI. Every process is a child that dies with us; each writes to its own
 * log file under `<dataDir>/logs`.
 */
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase } from '../../db/index.js';
import { childEnv } from '../../config/index.js';
import { simulatorCarrierEnv } from '../carrier-sim/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/index.js';
import { toolingSettings } from '../tooling-config.js';
import { tcpConnects, type Log } from '../temporal/process-utils.js';
import { ensureTemporalServer, ensureTemporalUi } from '../temporal/server.js';
import { fleetPorts } from './ports.js';
import { httpOk, logSays, managed, type FleetProcess } from './process.js';
import {
  prepareNamespace,
  REPO_ROOT,
  setCurrentDeploymentVersion,
  setupTemporalSchema,
  TEMPORAL_SERVICES,
  temporalDbFromUrl,
  temporalEnv,
  temporalServerArgs,
  type TemporalService,
} from './temporal-cluster.js';
import { buildWorkflowBundle, workerLayout, type WorkerBuild } from './workers.js';

export type { FleetProcess } from './process.js';
export { buildWorkflowBundle, workerLayout, type WorkerBuild } from './workers.js';

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
    const { temporal: ports, api: apiPorts, sim: simPort, ui: uiPort } = await fleetPorts(options.ports);

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
          env: {
            ...childEnv(),
            TEMPORAL_ADDRESS: temporalAddress,
            TEMPORAL_UI_PORT: String(uiPort),
            TEMPORAL_UI_HOST: '127.0.0.1',
            TEMPORAL_DEFAULT_NAMESPACE: namespace,
          },
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
        args: ['--import', 'tsx', 'tools/carrier-sim/main.ts'],
        env: childEnv({ CARRIER_SIM_PORT: String(simPort) }),
        ready: () => httpOk(`http://127.0.0.1:${simPort}/_sim/carriers`),
        readyTimeoutMs: 60_000,
      },
      logDir,
      log,
    );
    processes.set(sim.name, sim);
    await sim.start();

    const appEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
      ...childEnv(),
      NODE_ENV: toolingSettings().nodeEnv ?? 'development',
      LOG_LEVEL: toolingSettings().fleetLogLevel,
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: namespace,
      CARRIER_SIM_PORT: String(simPort),
      ...simulatorCarrierEnv(`http://127.0.0.1:${simPort}`),
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
    const setCurrentBuild = (buildId: string) => setCurrentDeploymentVersion(connection, namespace, deploymentName, buildId);

    // Workers of the first build, then that build made current so new workflows go to it.
    // A worker per carrier the processes' environment enables: UPS and USPS on the simulator too.
    const layout = workerLayout({ ...simulatorCarrierEnv(`http://127.0.0.1:${simPort}`), ...options.appEnv });
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
