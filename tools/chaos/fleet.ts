import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, statSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateDatabase, openDatabase, startRestartablePostgres, type RestartableHandle } from '../../db/index.js';
import { childEnv } from '../../config/index.js';
import { simulatorCarrierEnv } from '../carrier-sim/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/index.js';
import { toolingSettings } from '../tooling-config.js';
import { startDevServer, type DevServer } from '../temporal/dev-server.js';
import { freePorts } from '../../util/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const SOURCES = ['api', 'workers', 'activities', 'workflows', 'carriers', 'db', 'domain', 'tools'];

/**
 * The service's processes run compiled JavaScript (dist/, from `npm run build`), as production does:
 * tsx would transpile every file again at each of the many restarts, seconds of CPU each on 2 cores.
 * The build is redone only when a source file is newer than dist/.
 */
export function ensureBuilt(build: boolean, log: (line: string) => void): void {
  const marker = path.join(DIST, 'api', 'main.js');
  const bundle = path.join(DIST, 'workflow-bundle.js');
  if (existsSync(marker) && existsSync(bundle) && (!build || newestSource() <= Math.min(statSync(marker).mtimeMs, statSync(bundle).mtimeMs))) {
    return;
  }
  if (!build && existsSync(marker)) return;
  log('building dist/ (npm run build): the processes run compiled JavaScript');
  const started = Date.now();
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error('npm run build failed');
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
}

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') || entry.name.endsWith('.sql')) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const dir of SOURCES) walk(path.join(ROOT, dir));
  return newest;
}

/** One of the service's processes, restartable; output goes to `<dir>/logs/<name>.log`. */
export interface ServiceProcess {
  name: string;
  kind: 'api' | 'worker' | 'simulator';
  /** Whether it is meant to be running now (false between a kill and its restart). */
  up: boolean;
  kill(): void;
  start(): void;
  /** Exits we did not cause (a crash), with their exit code or signal. */
  crashes: string[];
}

export interface Fleet {
  dir: string;
  databaseUrl: string;
  temporalAddress: string;
  simUrl: string;
  apiUrls: string[];
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  restartTemporal(): Promise<void>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The worker processes, by name and queue group. Two of each group a purchase needs, as a deployment
 * that rides out a worker's death runs them: with one `carriers` process, every carrier call waits
 * while it starts again (seconds on these cores).
 */
export const WORKER_PROCESSES = [
  ['worker-shipments-1', 'shipments'],
  ['worker-shipments-2', 'shipments'],
  ['worker-carriers-1', 'carriers'],
  ['worker-carriers-2', 'carriers'],
  ['worker-webhooks', 'webhooks'],
] as const;

export async function startFleet(dir: string, log: (line: string) => void): Promise<Fleet> {
  const [temporalPort, uiPort] = await freePorts(2);
  // The simulator's and the APIs' ports, kept from every start of the dev server (a restart picks
  // its own HTTP and metrics ports while an API may be down).
  const reservedPorts: number[] = [];
  const pg: RestartableHandle = await startRestartablePostgres(dir, { durable: true });
  log(`PostgreSQL on ${pg.port} (fsync on), data in ${dir}/postgres`);
  const database = openDatabase(pg.url, { max: 1 });
  await migrateDatabase(database);
  await database.close();

  const devServer = () =>
    startDevServer({
      dataDir: dir,
      port: temporalPort,
      uiPort,
      reservedPorts,
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      log: () => undefined,
    });
  let temporal: DevServer = await devServer();
  log(`Temporal dev server on ${temporal.address} (SQLite file ${dir}/temporal.sqlite, UI ${temporal.uiUrl})`);
  // Picked just before the processes that bind them start. Picked with the others at the start, a
  // port stayed unbound while PostgreSQL and Temporal started, long enough for the OS to hand it to
  // another process as the local port of a connection; the simulator then could not bind it.
  const [simPort, apiPort1, apiPort2] = await freePorts(3, '127.0.0.1', [temporalPort, uiPort]);
  reservedPorts.push(simPort, apiPort1, apiPort2);

  const logs = path.join(dir, 'logs');
  const env = (extra: Record<string, string>) => childEnv({
    NODE_ENV: 'development',
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporal.address,
    CARRIER_SIM_PORT: String(simPort),
    ...simulatorCarrierEnv(`http://127.0.0.1:${simPort}`),
    WORKFLOW_BUNDLE_PATH: path.join(DIST, 'workflow-bundle.js'),
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: toolingSettings().chaosLogLevel,
    // The carriers' time-out is production's (CARRIER_TIMEOUT_MS, 5 s): a time-out costs what it would there.
    // USPS's real quota (60 calls an hour) sets its queue to one call a second; the simulator has
    // none, and at one a second the run would measure USPS's queue, not the faults.
    CARRIER_USPS_RPS: '20',
    PURCHASE_WAIT_MS: '10000',
    WORKER_SHUTDOWN_GRACE_MS: '0',
    API_SHUTDOWN_GRACE_MS: '2000',
    ...extra,
  });
  const all: ServiceProcess[] = [];
  let stopped = false;
  // Should the harness itself die, its children go with it.
  process.once('exit', () => {
    for (const p of all) p.kill();
  });
  const service = (name: string, kind: ServiceProcess['kind'], entry: string, args: string[], extra: Record<string, string> = {}) => {
    let child: ChildProcess | undefined;
    let out: WriteStream | undefined;
    const proc: ServiceProcess = {
      name,
      kind,
      up: false,
      crashes: [],
      start() {
        // Already running (a restart timer firing after the end-of-faults restart): nothing to do.
        if (stopped || (proc.up && child && child.exitCode === null && child.signalCode === null)) return;
        proc.up = true;
        out ??= createWriteStream(path.join(logs, `${name}.log`), { flags: 'a' });
        const started = spawn(process.execPath, [path.join(DIST, entry), ...args], { cwd: ROOT, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
        child = started;
        started.stdout!.pipe(out, { end: false });
        started.stderr!.pipe(out, { end: false });
        started.on('exit', (code, signal) => {
          if (child !== started || !proc.up) return;
          // Not ours: record it and bring it back, as an orchestrator would.
          proc.crashes.push(`${new Date().toISOString()} exit ${code ?? signal}`);
          log(`!! ${name} exited by itself (${code ?? signal}); restarting it`);
          setTimeout(() => proc.up && child === started && proc.start(), 1_000);
        });
      },
      kill() {
        proc.up = false;
        child?.kill('SIGKILL');
      },
    };
    all.push(proc);
    return proc;
  };

  await import('node:fs/promises').then((fs) => fs.mkdir(logs, { recursive: true }));
  const simulator = service('carrier-sim', 'simulator', 'tools/carrier-sim/main.js', []);
  simulator.start();
  const apis = [apiPort1, apiPort2].map((port, i) =>
    service(`api-${i + 1}`, 'api', 'api/main.js', [], { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
  );
  const workers = WORKER_PROCESSES.map(([name, group]) => service(name, 'worker', 'workers/main.js', [group]));
  for (const p of [...apis, ...workers]) p.start();

  return {
    dir,
    databaseUrl: pg.url,
    temporalAddress: temporal.address,
    simUrl: `http://127.0.0.1:${simPort}`,
    apiUrls: [apiPort1, apiPort2].map((p) => `http://127.0.0.1:${p}`),
    apis,
    workers,
    async restartTemporal() {
      // Killed, not stopped: whatever it had not written to its SQLite file is lost, as in a crash.
      process.kill(temporal.pid, 'SIGKILL');
      await temporal.stop().catch(() => undefined);
      temporal = await devServer();
    },
    stopPostgres: () => pg.stop(),
    startPostgres: () => pg.start(),
    async stop() {
      stopped = true;
      for (const p of all) p.kill();
      await temporal.stop().catch(() => undefined);
      await pg.stop().catch(() => undefined);
    },
  };
}
