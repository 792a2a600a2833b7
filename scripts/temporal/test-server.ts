// Temporal's time-skipping test server (the Java one: Maven artifact io.temporal:temporal-test-server,
// main class io.temporal.testserver.TestServer) for TestWorkflowEnvironment.createTimeSkipping, on a
// machine that cannot reach Temporal's download site. Maven Central supplies the jars.
//
// The SDK runs `<executable> <port>` and gives up unless the port answers within ~5 s; a JVM may start
// slower than that here. And one test server must not be shared by two environments at once: time
// skipping is global to a server, and two `result()` calls unlocking it together fail with "Unbalanced
// lock and unlock calls". So:
//   - ensureTestServer() resolves the jars into the cache and writes there `java-test-server` (runs the
//     JVM directly) and `temporal-test-server`, the executable to hand to the SDK: a forwarder that
//     listens on the requested port at once and holds connections until its backend answers.
//   - startTestServerPool() (from a vitest globalSetup) keeps a few JVMs started ahead of need; each
//     environment leases one for itself alone, and it is killed when that environment is torn down.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolingSettings } from '../../domain/index.js';
import { freePort } from '../../util/index.js';
import {
  cacheRoot,
  findOnPath,
  formatDuration,
  killWithParent,
  readTail,
  run,
  sleep,
  stopChild,
  tail,
  tcpConnects,
  withLock,
  type Log,
} from './process-utils.js';

export const TEST_SERVER_MAIN_CLASS = 'io.temporal.testserver.TestServer';
const here = path.dirname(fileURLToPath(import.meta.url));
const POM = path.join(here, 'test-server-pom.xml');
const FORWARDER = path.join(here, 'test-server-forwarder.mjs');
/** Env var naming the pool's unix socket, read by the forwarder. */
export const POOL_ENV = 'PARCEL_TEMPORAL_TEST_SERVER_POOL';
/** Env var naming the JVM launcher, read by the forwarder when there is no pool. */
export const LAUNCHER_ENV = 'PARCEL_TEMPORAL_JAVA_TEST_SERVER';

const defaultLog: Log = (msg) => process.stderr.write(`[test-server] ${msg}\n`);

/** `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/test-server` */
export function testServerDir(): string {
  return path.join(cacheRoot(), 'test-server');
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

async function writeExecutable(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content);
  await chmod(tmp, 0o755);
  await rename(tmp, file);
}

async function jarsPresent(lib: string, stamp: string): Promise<boolean> {
  try {
    if ((await readFile(path.join(lib, '.pom-sha256'), 'utf8')).trim() !== stamp) return false;
    return (await readdir(lib)).some((f) => f.startsWith('temporal-test-server-') && f.endsWith('.jar'));
  } catch {
    return false;
  }
}

export interface TestServerInstall {
  /** The executable to hand to the SDK (`existing-path`): the forwarder wrapper. */
  wrapper: string;
  /** Runs the JVM directly: `<launcher> <port> [--enable-time-skipping]`. */
  launcher: string;
  /** Directory of the jars (test server and dependencies). */
  lib: string;
}

/**
 * Resolves the Java test server and its dependencies (through scripts/temporal/test-server-pom.xml,
 * with Maven) into `${cache}/test-server/lib`, writes the launcher and the forwarder wrapper there, and
 * returns the wrapper's path. Without a pool (startTestServerPool), the wrapper starts a JVM of its own
 * per environment. Needs `java` (17+) and `mvn` on PATH.
 */
export async function ensureTestServer(log: Log = defaultLog): Promise<string> {
  return (await installTestServer(log)).wrapper;
}

/** ensureTestServer, returning every path it prepared. */
export async function installTestServer(log: Log = defaultLog): Promise<TestServerInstall> {
  const dir = testServerDir();
  const lib = path.join(dir, 'lib');
  const pom = await readFile(POM, 'utf8');
  const stamp = createHash('sha256').update(pom).digest('hex');

  if (!(await jarsPresent(lib, stamp))) {
    await withLock(path.join(dir, '.resolve.lock'), 'resolving the Temporal test server jars', log, async () => {
      if (await jarsPresent(lib, stamp)) return;
      const mvn = await findOnPath('mvn');
      if (!mvn) throw new Error('cannot resolve the Temporal test server: no `mvn` on PATH (Debian: apt-get install maven)');
      const staging = path.join(dir, `.lib-${process.pid}`);
      await rm(staging, { recursive: true, force: true });
      const started = Date.now();
      log(`resolving ${TEST_SERVER_MAIN_CLASS} and its dependencies from Maven Central into ${lib}`);
      const res = await run(
        mvn,
        ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${staging}`],
        { timeoutMs: 15 * 60_000 },
      );
      if (res.code !== 0) {
        await rm(staging, { recursive: true, force: true });
        throw new Error(`mvn could not resolve the Temporal test server (exit ${res.code ?? res.signal}):\n${tail(`${res.stdout}${res.stderr}`, 30)}`);
      }
      await writeFile(path.join(staging, '.pom-sha256'), `${stamp}\n`);
      await rm(lib, { recursive: true, force: true });
      await rename(staging, lib);
      log(`resolved the Temporal test server in ${formatDuration(Date.now() - started)}`);
    });
  }

  const javaHome = toolingSettings().javaHome;
  const java = javaHome ? path.join(javaHome, 'bin', 'java') : await findOnPath('java');
  if (!java) throw new Error('cannot run the Temporal test server: no `java` on PATH (Debian: apt-get install openjdk-17-jre-headless)');
  const setpriv = process.platform === 'linux' ? await findOnPath('setpriv') : undefined;

  await mkdir(dir, { recursive: true });
  const launcher = path.join(dir, 'java-test-server');
  const forwarder = path.join(dir, 'forwarder.mjs');
  const wrapper = path.join(dir, 'temporal-test-server');
  // The JVM dies with whoever started it (the pool, or the forwarder), even if that one is SIGKILLed.
  const guard = setpriv ? `${shQuote(setpriv)} --pdeathsig SIGKILL -- ` : '';
  await writeExecutable(
    launcher,
    [
      '#!/bin/sh',
      '# Written by scripts/temporal/test-server.ts: Temporal\'s Java time-skipping test server.',
      '# Usage: java-test-server <port> [--enable-time-skipping]',
      `exec ${guard}${shQuote(java)} -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss1m -Xmx512m \\`,
      '  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.logFile=System.err \\',
      `  $PARCEL_TEMPORAL_TEST_SERVER_JAVA_OPTS -cp ${shQuote(`${lib}/*`)} ${TEST_SERVER_MAIN_CLASS} "$@"`,
      '',
    ].join('\n'),
  );
  const tmpForwarder = `${forwarder}.${process.pid}.tmp`;
  await copyFile(FORWARDER, tmpForwarder);
  await rename(tmpForwarder, forwarder);
  await writeExecutable(
    wrapper,
    [
      '#!/bin/sh',
      '# Written by scripts/temporal/test-server.ts: give this to TestWorkflowEnvironment.createTimeSkipping',
      "# as { type: 'existing-path' }. It runs `<this> <port>`; see forwarder.mjs.",
      `${LAUNCHER_ENV}=\${${LAUNCHER_ENV}:-${shQuote(launcher)}}`,
      `export ${LAUNCHER_ENV}`,
      `exec ${shQuote(process.execPath)} ${shQuote(forwarder)} "$@"`,
      '',
    ].join('\n'),
  );
  return { wrapper, launcher, lib };
}

export interface TestServerPoolOptions {
  /** Test servers kept started ahead of need (each environment takes one). Default 2, or env PARCEL_TEMPORAL_TEST_SERVER_SPARES. */
  spares?: number;
  log?: Log;
  /** How long a JVM may take to listen. Default 120 s. */
  startTimeoutMs?: number;
}

export interface TestServerPool {
  /** The executable to hand to createTimeSkipping (`existing-path`); it leases a server from this pool. */
  wrapperPath: string;
  /** The pool's unix socket (what the wrapper dials). */
  socketPath: string;
  /** Directory of this run's wrapper and the JVMs' output. */
  runDir: string;
  /** Kills every test server and ends every lease. */
  stop(): Promise<void>;
}

interface Backend {
  port: number;
  child: ChildProcess;
  ready: Promise<void>;
  state: 'starting' | 'ready' | 'dead';
  leased: boolean;
  logFile: string;
}

/**
 * Starts the pool of Java test servers for one test run and writes, in a fresh run directory, a
 * wrapper that leases from it. Servers start in the background; the first lease waits for one.
 */
export async function startTestServerPool(options: TestServerPoolOptions = {}): Promise<TestServerPool> {
  const log = options.log ?? defaultLog;
  const spares = Math.max(0, options.spares ?? toolingSettings().testServerSpares ?? 2);
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const install = await installTestServer(log);

  const runDir = await mkdtemp(path.join(os.tmpdir(), 'parcel-tss-'));
  const socketPath = path.join(runDir, 'pool.sock');
  const wrapperPath = path.join(runDir, 'temporal-test-server');
  await writeExecutable(
    wrapperPath,
    [
      '#!/bin/sh',
      '# Written by scripts/temporal/test-server.ts for one test run: leases a Java test server from the pool.',
      `${POOL_ENV}=${shQuote(socketPath)}`,
      `export ${POOL_ENV}`,
      `exec ${shQuote(install.wrapper)} "$@"`,
      '',
    ].join('\n'),
  );

  const backends = new Set<Backend>();
  const waiting: ((b: Backend) => void)[] = [];
  let stopped = false;

  const startBackend = async (): Promise<Backend> => {
    const port = await freePort();
    const logFile = path.join(runDir, `test-server-${port}.log`);
    const out = await open(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(install.launcher, [String(port)], { stdio: ['ignore', out.fd, out.fd] });
    } finally {
      await out.close();
    }
    killWithParent(child, 'SIGKILL');
    const started = Date.now();
    const backend: Backend = { port: port as number, child, state: 'starting', leased: false, logFile, ready: Promise.resolve() };
    let exitInfo: string | undefined;
    child.once('error', (e) => (exitInfo = e.message));
    child.once('exit', (code, signal) => {
      exitInfo ??= `exit ${code ?? signal}`;
      backend.state = 'dead';
      backends.delete(backend);
      if (!stopped) topUp();
    });
    backend.ready = (async () => {
      for (;;) {
        if (exitInfo !== undefined) throw new Error(`test server on port ${port} ended before listening (${exitInfo}): ${await readTail(logFile, 20)}`);
        if (Date.now() - started > startTimeoutMs) throw new Error(`test server on port ${port} did not listen within ${formatDuration(startTimeoutMs)}`);
        if (await tcpConnects('127.0.0.1', port as number, 500)) break;
        await sleep(100);
      }
      backend.state = 'ready';
    })();
    backend.ready.catch((e: Error) => {
      log(e.message);
      child.kill('SIGKILL');
    });
    backends.add(backend);
    return backend;
  };

  // Keep `spares` unleased servers starting or ready, plus one per waiting lease.
  const pending = new Set<Promise<unknown>>();
  const topUp = (): void => {
    if (stopped) return;
    const free = [...backends].filter((b) => !b.leased && b.state !== 'dead').length + pending.size;
    for (let i = free; i < spares + waiting.length; i++) {
      const p = startBackend()
        .then((b) => {
          if (waiting.length > 0 && !b.leased) {
            b.leased = true;
            (waiting.shift() as (b: Backend) => void)(b);
          }
        })
        .catch((e: Error) => log(`cannot start a test server: ${e.message}`))
        .finally(() => pending.delete(p));
      pending.add(p);
    }
  };

  const takeBackend = (): Promise<Backend> => {
    // Prefer one already listening, then the one furthest along.
    const candidates = [...backends].filter((b) => !b.leased && b.state !== 'dead');
    const chosen = candidates.find((b) => b.state === 'ready') ?? candidates[0];
    if (chosen) {
      chosen.leased = true;
      topUp();
      return Promise.resolve(chosen);
    }
    const p = new Promise<Backend>((resolve) => waiting.push(resolve));
    topUp();
    return p;
  };

  const leases = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    leases.add(socket);
    let backend: Backend | undefined;
    let closed = false;
    socket.setEncoding('utf8');
    socket.once('data', () => {
      void (async () => {
        try {
          backend = await takeBackend();
          if (closed) throw new Error('lease closed');
          await backend.ready;
          const b = backend;
          b.child.once('exit', () => socket.destroy());
          socket.write(`${JSON.stringify({ port: b.port })}\n`);
        } catch (e) {
          if (!closed) socket.end(`${JSON.stringify({ error: (e as Error).message })}\n`);
          if (backend) void stopChild(backend.child, 1_000, 'SIGKILL');
        }
      })();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      closed = true;
      leases.delete(socket);
      // The environment is gone: so is its server (time skipping state and all).
      if (backend) void stopChild(backend.child, 1_000, 'SIGKILL');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  topUp();
  log(`test server pool ready (${spares} spare JVMs starting; wrapper ${wrapperPath})`);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      stopped = true;
      for (const socket of leases) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...backends].map((b) => stopChild(b.child, 2_000, 'SIGKILL')));
      await Promise.allSettled([...pending]);
      await Promise.all([...backends].map((b) => stopChild(b.child, 2_000, 'SIGKILL')));
      await rm(runDir, { recursive: true, force: true });
    })());

  return { wrapperPath, socketPath, runDir, stop };
}
