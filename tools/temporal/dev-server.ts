// The Temporal CLI's dev server (`temporal server start-dev`): our development and test Temporal, on
// a SQLite file, with the search attributes registered and the dispatch tuning of tuning.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { Connection as ClientConnection } from '@temporalio/client';
import { ensureTemporalCli } from './cli.js';
import {
  dialHost,
  formatDuration,
  killWithParent,
  parentDeathWrapped,
  portIsFree,
  readTail,
  sleep,
  stopChild,
  type Log,
} from './process-utils.js';
import { freePorts } from '../../util/index.js';
import { DISPATCH_TUNING } from './tuning.js';

const defaultLog: Log = (msg) => process.stderr.write(`[temporal-dev-server] ${msg}\n`);

export type SearchAttributeTypeName = 'Keyword' | 'Bool' | 'Int' | 'Text' | 'Datetime' | 'Double' | 'KeywordList';

/** temporal.api.enums.v1.IndexedValueType, as listSearchAttributes reports it. */
const INDEXED_VALUE_TYPE: Record<SearchAttributeTypeName, number> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

export interface DevServerOptions {
  /** Holds `temporal.sqlite` (state kept across restarts) and `temporal-server.log` (the server's output). */
  dataDir: string;
  /** IP the frontend and UI bind to. Default 127.0.0.1. */
  ip?: string;
  /** Frontend gRPC port. Default 7233; 0 picks a free port. */
  port?: number;
  /** UI port. Default: port + 1000 for a fixed port, a free port when port is 0; 0 picks a free port. */
  uiPort?: number;
  /**
   * Ports the caller has picked for its other processes and not bound yet: the ports picked here
   * (HTTP API, metrics, and any asked for with 0) are never one of them.
   */
  reservedPorts?: number[];
  /** Namespace created at start (besides "default", which always exists). Default "default". */
  namespace?: string;
  /** Custom search attributes registered at start, name -> type. */
  searchAttributes: Record<string, SearchAttributeTypeName>;
  log?: Log;
  /** CLI to run; default ensureTemporalCli(log). */
  cliPath?: string;
  /** Server log level. Default "warn". */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'never';
  /** Extra dynamic config (`--dynamic-config-value KEY=<JSON value>`), added to ours. */
  dynamicConfig?: Record<string, unknown>;
  /** Extra arguments to `temporal server start-dev`. */
  extraArgs?: string[];
  /** How long to wait for the frontend to answer. Default 90 s. */
  startTimeoutMs?: number;
  /** Grace period between SIGTERM and SIGKILL in stop(). Default 10 s. */
  stopTimeoutMs?: number;
  /** Picks the free ports (util's freePorts); tests hand out a taken one. */
  pickPorts?: (count: number, host: string, exclude: number[]) => Promise<number[]>;
}

export interface DevServer {
  /** host:port of the frontend, for Connection.connect / NativeConnection.connect. */
  address: string;
  uiUrl: string;
  /** The server's Prometheus metrics (persistence latency by operation, task queue latencies). */
  metricsUrl: string;
  namespace: string;
  pid: number;
  /** Where the server's own output goes. */
  logFile: string;
  /** SIGTERM, wait for exit, SIGKILL after stopTimeoutMs. Safe to call more than once. */
  stop(): Promise<void>;
}

const DEFAULT_DYNAMIC_CONFIG: Record<string, unknown> = {
  // No call home to check for a newer server (there is no internet here anyway).
  'frontend.enableServerVersionCheck': false,
  // A search attribute registered by a test is usable at once.
  'system.forceSearchAttributesCacheRefreshOnRead': true,
  // Dispatch without the 50 ms poll wait of the default queue processors (tuning.ts says why).
  ...DISPATCH_TUNING,
};

/**
 * Runs `temporal server start-dev` on a SQLite file in `dataDir` and resolves once the frontend answers,
 * the namespace is describable and every requested search attribute is registered. The server gets
 * SIGTERM if this process dies (even by SIGKILL, through `setpriv --pdeathsig` on Linux) or exits.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const log = options.log ?? defaultLog;
  const ip = options.ip ?? '127.0.0.1';
  const host = dialHost(ip);
  const namespace = options.namespace ?? 'default';
  const cli = options.cliPath ?? (await ensureTemporalCli(log));

  for (const [name, type] of Object.entries(options.searchAttributes)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid search attribute name ${JSON.stringify(name)}`);
    if (!(type in INDEXED_VALUE_TYPE)) throw new Error(`invalid search attribute type ${JSON.stringify(type)} for ${name}`);
  }

  for (let attempt = 1; ; attempt++) {
    const outcome = await startOnce(options, { log, ip, host, namespace, cli });
    if ('server' in outcome) return outcome.server;
    // A port we picked as free was bound by another process before the server bound it (any process
    // can be handed it as the local port of a connection): picked again, not reported as a failure.
    if (outcome.lostPort === undefined || attempt >= 3) throw outcome.error;
    log(`port ${outcome.lostPort} was taken before the Temporal dev server bound it; starting it again on other ports`);
  }
}

async function startOnce(
  options: DevServerOptions,
  { log, ip, host, namespace, cli }: { log: Log; ip: string; host: string; namespace: string; cli: string },
): Promise<{ server: DevServer } | { error: Error; lostPort?: number }> {
  const bindHost = ip === '' ? '0.0.0.0' : ip;
  const requestedPort = options.port ?? 7233;
  const uiPicked = options.uiPort === 0 || (options.uiPort === undefined && requestedPort === 0);
  const needFree = (requestedPort === 0 ? 1 : 0) + (uiPicked ? 1 : 0);
  // The HTTP API and metrics ports too: the CLI would pick each of them as a free port of its own
  // before the frontend binds, and once picked the very port we chose for the frontend (the server
  // then exits: "bind: address already in use"). Taken in one call, the four are distinct, and
  // none is a port the caller chose (the frontend's and the UI's included) but has not bound yet.
  const chosen = [requestedPort, options.uiPort ?? 0, ...(options.reservedPorts ?? [])].filter((p) => p > 0);
  const free = await (options.pickPorts ?? freePorts)(needFree + 2, bindHost, chosen);
  const [httpPort, metricsPort] = free.splice(needFree, 2);
  const port = requestedPort === 0 ? (free.shift() as number) : requestedPort;
  const uiPort =
    options.uiPort !== undefined && options.uiPort !== 0
      ? options.uiPort
      : options.uiPort === undefined && requestedPort !== 0
        ? Math.min(port + 1000, 65535)
        : (free.shift() as number);
  for (const [what, p, picked] of [
    ['frontend', port, requestedPort === 0],
    ['UI', uiPort, uiPicked],
  ] as const) {
    if (!(await portIsFree(bindHost, p))) {
      const error = new Error(`cannot start the Temporal dev server: ${what} port ${bindHost}:${p} is already in use (another Temporal dev server?)`);
      if (picked) return { error, lostPort: p };
      throw error;
    }
  }

  await mkdir(options.dataDir, { recursive: true });
  const dbFile = path.join(path.resolve(options.dataDir), 'temporal.sqlite');
  const logFile = path.join(path.resolve(options.dataDir), 'temporal-server.log');

  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--http-port',
    String(httpPort),
    '--metrics-port',
    String(metricsPort),
    '--db-filename',
    dbFile,
    '--log-level',
    options.logLevel ?? 'warn',
    '--log-format',
    'json',
    // SQLite's default rollback journal creates, syncs and deletes a journal file on every write, on
    // the server's one database connection: WAL only appends, which costs the
    // server far less CPU per purchase. `normal` syncs at checkpoints: a killed server loses nothing,
    // only a machine crash can lose the last transactions (README: Benchmarks).
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
  ];
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const [name, type] of Object.entries(options.searchAttributes)) args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries({ ...DEFAULT_DYNAMIC_CONFIG, ...options.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  args.push(...(options.extraArgs ?? []));

  const out = await open(logFile, 'a');
  await out.writeFile(`\n=== ${new Date().toISOString()} ${cli} ${args.join(' ')}\n`);
  const [cmd, argv] = await parentDeathWrapped(cli, args, 'SIGTERM');
  let child: ChildProcess;
  try {
    child = spawn(cmd, argv, { stdio: ['ignore', out.fd, out.fd] });
  } finally {
    await out.close();
  }
  killWithParent(child, 'SIGTERM');
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));
  const address = `${host}:${port}`;
  const uiUrl = `http://${host === '127.0.0.1' ? 'localhost' : host}:${uiPort}`;
  log(`starting the Temporal dev server on ${address} (UI ${uiUrl}, data ${dbFile}, log ${logFile})`);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= stopChild(child, options.stopTimeoutMs ?? 10_000));

  const started = Date.now();
  try {
    await waitUntilReady({
      address,
      namespace,
      searchAttributes: options.searchAttributes,
      deadline: started + (options.startTimeoutMs ?? 90_000),
      exited: () => spawnError ?? (child.exitCode !== null || child.signalCode !== null ? `exit ${child.exitCode ?? child.signalCode}` : undefined),
    });
  } catch (e) {
    await stop();
    const tail = await readTail(logFile);
    const error = new Error(`the Temporal dev server did not start: ${(e as Error).message}\n--- ${logFile} (tail) ---\n${tail}`);
    const picked = [httpPort, metricsPort, ...(requestedPort === 0 ? [port] : []), ...(uiPicked ? [uiPort] : [])];
    const lostPort = e instanceof FatalStartError ? undefined : picked.find((p) => tail.includes(`:${p}: bind: address already in use`));
    return { error, lostPort };
  }
  log(`the Temporal dev server is ready on ${address} after ${formatDuration(Date.now() - started)}`);
  return { server: { address, uiUrl, metricsUrl: `http://${host}:${metricsPort}/metrics`, namespace, pid: child.pid as number, logFile, stop } };
}

async function waitUntilReady(opts: {
  address: string;
  namespace: string;
  searchAttributes: Record<string, SearchAttributeTypeName>;
  deadline: number;
  exited: () => Error | string | undefined;
}): Promise<void> {
  const { Connection } = await import('@temporalio/client');
  let lastError = 'no answer yet';
  for (;;) {
    const gone = opts.exited();
    if (gone !== undefined) throw new Error(`the server process ended (${gone instanceof Error ? gone.message : gone})`);
    if (Date.now() > opts.deadline) throw new Error(`no answer on ${opts.address} in time; last error: ${lastError}`);
    let connection: ClientConnection | undefined;
    try {
      connection = await Connection.connect({ address: opts.address, connectTimeout: '2s' });
      await connection.workflowService.describeNamespace({ namespace: opts.namespace });
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: opts.namespace });
      const missing: string[] = [];
      for (const [name, type] of Object.entries(opts.searchAttributes)) {
        const have = customAttributes?.[name];
        if (have === undefined || have === null) missing.push(name);
        else if (Number(have) !== INDEXED_VALUE_TYPE[type]) {
          throw new FatalStartError(
            `search attribute ${name} is already registered with another type (indexed value type ${String(have)}, wanted ${type}); delete the data directory or rename the attribute`,
          );
        }
      }
      if (missing.length === 0) return;
      lastError = `search attributes not registered yet: ${missing.join(', ')}`;
    } catch (e) {
      if (e instanceof FatalStartError) throw e;
      lastError = (e as Error).message;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(250);
  }
}

class FatalStartError extends Error {}
