// The Temporal CLI (its `server start-dev` is our development and test Temporal) on a machine that
// cannot reach Temporal's download site: find it, or build it from the Go module proxy, and run the
// dev server from it. See shared/architecture.md, "Getting Temporal on a machine that cannot reach
// its download site".
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { childEnv, toolingSettings } from '../../domain/index.js';
import { freePorts } from '../../util/index.js';
import type { Connection as ClientConnection } from '@temporalio/client';
import {
  cacheRoot,
  dialHost,
  findOnPath,
  formatDuration,
  isExecutableFile,
  killWithParent,
  parentDeathWrapped,
  portIsFree,
  readTail,
  run,
  sleep,
  stopChild,
  tail,
  withLock,
  type Log,
} from './process-utils.js';
import { DISPATCH_TUNING } from './tuning.js';

/** The CLI release built by `go install`: the last whose go.mod has no replace directive. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** Tried when TEMPORAL_CLI_VERSION does not build (also free of replace directives). */
export const TEMPORAL_CLI_FALLBACK_VERSIONS: readonly string[] = ['v1.5.0'];
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
const VERSION_VAR = 'github.com/temporalio/cli/temporalcli.Version';

const defaultLog: Log = (msg) => process.stderr.write(`[temporal-cli] ${msg}\n`);

/** Where `go install` puts the CLI: `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/bin/temporal`. */
export function cachedCliPath(): string {
  return path.join(cacheRoot(), 'bin', 'temporal');
}

interface Probe {
  ok: boolean;
  version?: string;
  reason?: string;
}

/** Runs `<bin> --version`; a usable CLI says `temporal version X` with X >= 1 (or an unstamped 0.0.0-DEV build). */
async function probeCli(bin: string): Promise<Probe> {
  if (!(await isExecutableFile(bin))) return { ok: false, reason: `${bin} is not an executable file` };
  const res = await run(bin, ['--version'], { timeoutMs: 60_000 });
  const out = `${res.stdout}${res.stderr}`.trim();
  const m = /temporal version (\S+)/.exec(out);
  if (res.code !== 0 || !m) {
    return { ok: false, reason: `\`${bin} --version\` failed (exit ${res.code ?? res.signal}): ${tail(out, 5)}` };
  }
  const version = m[1] ?? '';
  const major = Number.parseInt(version.replace(/^v/, ''), 10);
  if (version.startsWith('0.0.0-DEV') || major >= 1) return { ok: true, version };
  return { ok: false, version, reason: `${bin} is temporal ${version}; 1.x is needed (its start-dev flags differ)` };
}

/**
 * Other processes already running `go install github.com/temporalio/cli/cmd/temporal@…` into our cache
 * directory (Linux /proc; a process whose environment we cannot read counts, to be safe).
 */
async function foreignGoInstalls(gobin: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0');
      const isGo = argv[0] !== undefined && path.basename(argv[0]) === 'go';
      if (!isGo || !argv.includes('install') || !argv.some((a) => a.startsWith(`${CLI_MODULE}@`))) continue;
      let theirGobin: string | undefined;
      try {
        const environ = (await readFile(`/proc/${entry}/environ`, 'utf8')).split('\0');
        theirGobin = environ.find((v) => v.startsWith('GOBIN='))?.slice('GOBIN='.length) ?? '';
      } catch {
        theirGobin = undefined;
      }
      if (theirGobin === undefined || path.resolve(theirGobin || '.') === path.resolve(gobin)) pids.push(pid);
    } catch {
      // process gone or not ours to read
    }
  }
  return pids;
}

async function waitForForeignBuilds(gobin: string, log: Log): Promise<void> {
  const started = Date.now();
  let lastNotice = 0;
  for (;;) {
    const pids = await foreignGoInstalls(gobin);
    if (pids.length === 0) return;
    if (Date.now() - lastNotice > 30_000) {
      lastNotice = Date.now();
      log(
        `another \`go install ${CLI_MODULE}\` is running (pid ${pids.join(', ')}); waiting for it rather than building twice (${formatDuration(Date.now() - started)})`,
      );
    }
    await sleep(2_000);
  }
}

/** `go install` one version into a private GOBIN, then move the binary into the cache. */
async function goInstall(go: string, version: string, log: Log, failures: string[]): Promise<string | undefined> {
  const binDir = path.dirname(cachedCliPath());
  const buildDir = path.join(binDir, `.build-${process.pid}`);
  const logFile = path.join(binDir, 'go-install.log');
  const stamp = `-X ${VERSION_VAR}=${version.replace(/^v/, '')}`;
  const attempts: { label: string; ldflags: string }[] = [
    { label: '', ldflags: stamp },
    { label: ' with -checklinkname=0', ldflags: `-checklinkname=0 ${stamp}` },
  ];
  for (const [i, attempt] of attempts.entries()) {
    await rm(buildDir, { recursive: true, force: true });
    await mkdir(buildDir, { recursive: true });
    const args = ['install', `-ldflags=${attempt.ldflags}`, `${CLI_MODULE}@${version}`];
    log(`building the Temporal CLI ${version}${attempt.label}: go ${args.join(' ')} (several minutes the first time; log: ${logFile})`);
    const started = Date.now();
    const heartbeat = setInterval(() => log(`still building the Temporal CLI ${version} (${formatDuration(Date.now() - started)})`), 30_000);
    let res;
    try {
      res = await run(go, args, {
        env: childEnv({ GOBIN: buildDir, GOFLAGS: [toolingSettings().goFlags, '-buildvcs=false'].filter(Boolean).join(' ') }),
        timeoutMs: 45 * 60_000,
      });
    } finally {
      clearInterval(heartbeat);
    }
    const output = `${res.stdout}${res.stderr}`;
    const handle = await open(logFile, 'a');
    await handle.writeFile(`\n=== ${new Date().toISOString()} go ${args.join(' ')} -> exit ${res.code ?? res.signal}\n${output}`);
    await handle.close();
    const built = path.join(buildDir, 'temporal');
    if (res.code === 0) {
      const probe = await probeCli(built);
      if (probe.ok) {
        await rename(built, cachedCliPath());
        await rm(buildDir, { recursive: true, force: true });
        log(`built the Temporal CLI ${version} in ${formatDuration(Date.now() - started)}: ${cachedCliPath()}`);
        return cachedCliPath();
      }
      failures.push(`go install ${version}${attempt.label} built a binary that does not run: ${probe.reason}`);
      break;
    }
    // Only a go:linkname link error is worth the second attempt.
    if (i === 0 && /linkname/i.test(output)) {
      log(`go install ${version} hit a go:linkname link error; retrying with -ldflags=-checklinkname=0`);
      continue;
    }
    failures.push(`go install ${version}${attempt.label} failed (exit ${res.code ?? res.signal}):\n${tail(output, 15)}`);
    break;
  }
  await rm(buildDir, { recursive: true, force: true });
  return undefined;
}

/** Last resort: the SDK's own download of the CLI (works only where Temporal's download site is reachable). */
async function sdkDownload(log: Log, failures: string[]): Promise<string | undefined> {
  const downloadDir = path.join(cacheRoot(), 'sdk-download');
  await mkdir(downloadDir, { recursive: true });
  const existing = async (): Promise<string | undefined> => {
    for (const name of await readdir(downloadDir)) {
      if (name.startsWith('temporal-sdk-typescript-') && !name.endsWith('.downloading')) {
        const bin = path.join(downloadDir, name);
        if ((await probeCli(bin)).ok) return bin;
      }
    }
    return undefined;
  };
  const already = await existing();
  if (already) return already;
  log(`trying the SDK's own download of the Temporal CLI into ${downloadDir}`);
  let testing: typeof import('@temporalio/testing');
  try {
    testing = await import('@temporalio/testing');
  } catch (e) {
    failures.push(`SDK download: @temporalio/testing is not installed (${(e as Error).message})`);
    return undefined;
  }
  const attempt = (async () => {
    const env = await testing.TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'cached-download', downloadDir }, log: { format: 'json', level: 'error' } },
    });
    await env.teardown();
  })();
  const timeout = sleep(180_000).then(() => {
    throw new Error('no answer within 180 s');
  });
  try {
    await Promise.race([attempt, timeout]);
  } catch (e) {
    attempt.catch(() => undefined);
    failures.push(`SDK download failed: ${(e as Error).message}`);
    return undefined;
  }
  const bin = await existing();
  if (!bin) failures.push(`SDK download: no working temporal-sdk-typescript-* binary in ${downloadDir} afterwards`);
  return bin;
}

/**
 * Path of a working `temporal` CLI (1.x). Looks, in order, at: env TEMPORAL_CLI; `temporal` on PATH;
 * the cache `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/bin/temporal`; `go install` of
 * TEMPORAL_CLI_VERSION into that cache (retried with `-checklinkname=0` on a go:linkname link error,
 * then the fallback versions); and last the SDK's own download. Throws, saying what each step found,
 * when none gives a CLI. Concurrent callers share one build (a lock file in the cache).
 */
export async function ensureTemporalCli(log: Log = defaultLog): Promise<string> {
  const failures: string[] = [];

  const fromEnv = toolingSettings().temporalCli;
  if (fromEnv !== undefined) {
    const probe = await probeCli(fromEnv);
    if (probe.ok) return fromEnv;
    throw new Error(`TEMPORAL_CLI=${fromEnv} is not a working Temporal CLI: ${probe.reason}`);
  }

  const onPath = await findOnPath('temporal');
  if (onPath) {
    const probe = await probeCli(onPath);
    if (probe.ok) return onPath;
    failures.push(`PATH: ${probe.reason}`);
    log(`ignoring ${onPath}: ${probe.reason}`);
  }

  const cached = cachedCliPath();
  if ((await probeCli(cached)).ok) return cached;

  const built = await withLock(path.join(path.dirname(cached), '.temporal-build.lock'), 'building the Temporal CLI', log, async () => {
    // Someone may have finished while we waited for the lock, or be building without it.
    if ((await probeCli(cached)).ok) return cached;
    const go = await findOnPath('go');
    if (!go) {
      failures.push('go install: no `go` on PATH');
      return undefined;
    }
    // A build started by hand (e.g. `GOBIN=<cache>/bin go install …`) is waited for, not duplicated.
    await waitForForeignBuilds(path.dirname(cached), log);
    const probe = await probeCli(cached);
    if (probe.ok) return cached;
    if (probe.reason && !probe.reason.includes('not an executable file')) {
      log(`the cached CLI does not work (${probe.reason}); rebuilding it`);
      await rm(cached, { force: true });
    }
    for (const version of [TEMPORAL_CLI_VERSION, ...TEMPORAL_CLI_FALLBACK_VERSIONS]) {
      const bin = await goInstall(go, version, log, failures);
      if (bin) return bin;
    }
    return undefined;
  });
  if (built) return built;

  const downloaded = await sdkDownload(log, failures);
  if (downloaded) return downloaded;

  throw new Error(
    [
      'No Temporal CLI could be had. Tried:',
      '- env TEMPORAL_CLI: not set',
      ...(onPath ? [] : ['- PATH: no temporal']),
      `- cache: nothing usable at ${cached}`,
      ...failures.map((f) => `- ${f}`),
      `Install Go (https://go.dev) and run \`GOBIN=${path.dirname(cached)} go install ${CLI_MODULE}@${TEMPORAL_CLI_VERSION}\`, or point TEMPORAL_CLI at a temporal 1.x binary.`,
    ].join('\n'),
  );
}

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
}

export interface DevServer {
  /** host:port of the frontend, for Connection.connect / NativeConnection.connect. */
  address: string;
  uiUrl: string;
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

  const bindHost = ip === '' ? '0.0.0.0' : ip;
  const requestedPort = options.port ?? 7233;
  const needFree = (requestedPort === 0 ? 1 : 0) + (options.uiPort === 0 || (options.uiPort === undefined && requestedPort === 0) ? 1 : 0);
  const free = needFree > 0 ? await freePorts(needFree, bindHost) : [];
  const port = requestedPort === 0 ? (free.shift() as number) : requestedPort;
  const uiPort =
    options.uiPort !== undefined && options.uiPort !== 0
      ? options.uiPort
      : options.uiPort === undefined && requestedPort !== 0
        ? Math.min(port + 1000, 65535)
        : (free.shift() as number);
  for (const [what, p] of [
    ['frontend', port],
    ['UI', uiPort],
  ] as const) {
    if (!(await portIsFree(bindHost, p))) {
      throw new Error(`cannot start the Temporal dev server: ${what} port ${bindHost}:${p} is already in use (another Temporal dev server?)`);
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
    '--db-filename',
    dbFile,
    '--log-level',
    options.logLevel ?? 'warn',
    '--log-format',
    'json',
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
    throw new Error(`the Temporal dev server did not start: ${(e as Error).message}\n--- ${logFile} (tail) ---\n${await readTail(logFile)}`);
  }
  log(`the Temporal dev server is ready on ${address} after ${formatDuration(Date.now() - started)}`);
  return { address, uiUrl, namespace, pid: child.pid as number, logFile, stop };
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
