// Temporal's time-skipping test server (the Java one: Maven artifact io.temporal:temporal-test-server,
// main class io.temporal.testserver.TestServer) on a machine that cannot reach Temporal's download
// site: Maven Central supplies the jars.
//
// The SDK's own way to run it, createTimeSkipping({ server: { executable: { type: 'existing-path' } } }),
// runs `<path> <port>` and gives up unless the port answers within 5 s; a JVM on a busy 2-core machine
// can miss that. So we start the JVM
// ourselves, wait for it as long as it takes, and hand its address to the test environment
// (test/temporal-infra/time-skipping-env.ts). One server per environment: time skipping is global to
// a server, so two environments must never share one.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cacheRoot,
  findOnPath,
  formatDuration,
  killWithParent,
  parentDeathWrapped,
  readTail,
  run,
  sleep,
  stopChild,
  tail,
  tcpConnects,
  type Log,
} from './process-utils.js';
import { toolingSettings } from '../tooling-config.js';
import { freePorts } from '../../util/index.js';

export const TEST_SERVER_MAIN_CLASS = 'io.temporal.testserver.TestServer';
const POM = fileURLToPath(new URL('./test-server-pom.xml', import.meta.url));
/** In `lib`: the classes a start of the server loads (JDK AppCDS), mapped by every later start. */
const CDS_ARCHIVE = 'app-cds.jsa';

const defaultLog: Log = (msg) => process.stderr.write(`[test-server] ${msg}\n`);

/** `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping/test-server` */
export function testServerDir(): string {
  return path.join(cacheRoot(), 'test-server');
}

async function jarsPresent(lib: string, stamp: string): Promise<boolean> {
  try {
    if ((await readFile(path.join(lib, '.pom-sha256'), 'utf8')).trim() !== stamp) return false;
    return (await readdir(lib)).some((f) => f.startsWith('temporal-test-server-') && f.endsWith('.jar'));
  } catch {
    return false;
  }
}

/**
 * Resolves the Java test server and its dependencies (tools/temporal/test-server-pom.xml) with Maven
 * into `${cache}/test-server/lib` unless they are there already, records beside them the classes a
 * start loads (an AppCDS archive: a JVM starts in about 0.9 s instead of 2 to 4 s on a busy machine), and
 * returns that directory. Maven and the archive write to names of this process's own, renamed into place
 * when complete, so a concurrent caller never sees half a directory. Needs `java` and `mvn` on PATH.
 */
export async function ensureTestServer(log: Log = defaultLog): Promise<string> {
  const lib = path.join(testServerDir(), 'lib');
  const stamp = createHash('sha256').update(await readFile(POM, 'utf8')).digest('hex');
  if (!(await jarsPresent(lib, stamp))) await resolveJars(lib, stamp, log);
  if (!(await stat(path.join(lib, CDS_ARCHIVE)).catch(() => undefined))) await recordClassArchive(lib, log);
  return lib;
}

async function resolveJars(lib: string, stamp: string, log: Log): Promise<void> {
  const mvn = await findOnPath('mvn');
  if (!mvn) throw new Error('cannot resolve the Temporal test server: no `mvn` on PATH (Debian: apt-get install maven)');
  const staging = path.join(testServerDir(), `.lib-${process.pid}`);
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
  try {
    await rename(staging, lib);
  } catch (e) {
    // Another process put its (identical) resolution there first.
    await rm(staging, { recursive: true, force: true });
    if (!(await jarsPresent(lib, stamp))) throw e;
  }
  log(`resolved the Temporal test server in ${formatDuration(Date.now() - started)}`);
}

/** One start of the server, ended gracefully so that the JVM writes the classes it loaded (best effort). */
async function recordClassArchive(lib: string, log: Log): Promise<void> {
  const recording = path.join(lib, `.${CDS_ARCHIVE}.${process.pid}`);
  try {
    const jvm = await launchJvm(lib, [`-XX:ArchiveClassesAtExit=${recording}`], 120_000);
    await stopChild(jvm.child, 60_000, 'SIGTERM');
    await rm(jvm.logFile, { force: true });
    await rename(recording, path.join(lib, CDS_ARCHIVE));
  } catch (e) {
    await rm(recording, { force: true });
    log(`no class archive for the test server (it starts slower): ${(e as Error).message}`);
  }
}

export interface TestServer {
  /** 127.0.0.1:<port>, for TestWorkflowEnvironment and connections. */
  address: string;
  pid: number;
  /** Kills the JVM (its state is worthless afterwards). Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Starts one Java test server on a free port and resolves once it accepts connections (no 5 s limit:
 * `startTimeoutMs`, default 120 s). The JVM is killed when this process exits or dies, even by SIGKILL
 * (`setpriv --pdeathsig`). Its output goes to a file in the temporary directory, printed on failure.
 */
export async function startTestServer(options: { log?: Log; startTimeoutMs?: number } = {}): Promise<TestServer> {
  const lib = await ensureTestServer(options.log ?? defaultLog);
  const jvm = await launchJvm(lib, [`-XX:SharedArchiveFile=${path.join(lib, CDS_ARCHIVE)}`], options.startTimeoutMs ?? 120_000);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= stopChild(jvm.child, 1_000, 'SIGKILL').then(() => rm(jvm.logFile, { force: true })));
  return { address: `127.0.0.1:${jvm.port}`, pid: jvm.child.pid as number, stop };
}

/** Runs the server's JVM on a free port with `extraArgs` and resolves once it listens. */
async function launchJvm(lib: string, extraArgs: string[], startTimeoutMs: number): Promise<{ port: number; child: ChildProcess; logFile: string }> {
  const javaHome = toolingSettings().javaHome;
  const java = javaHome ? path.join(javaHome, 'bin', 'java') : await findOnPath('java');
  if (!java) throw new Error('cannot run the Temporal test server: no `java` on PATH (Debian: apt-get install openjdk-17-jre-headless)');
  const [port] = (await freePorts(1, '127.0.0.1')) as [number];
  const jvmArgs = [
    // A small, quick-starting JVM: the server holds a few workflows for one test file.
    ...['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xss1m', '-Xmx512m', ...extraArgs],
    ...['-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-Dorg.slf4j.simpleLogger.logFile=System.err'],
    ...['-cp', `${lib}/*`, TEST_SERVER_MAIN_CLASS, String(port)],
  ];
  const logFile = path.join(os.tmpdir(), `parcel-test-server-${port}.log`);
  const out = await open(logFile, 'w');
  const [cmd, argv] = await parentDeathWrapped(java, jvmArgs, 'SIGKILL');
  const child = spawn(cmd, argv, { stdio: ['ignore', out.fd, out.fd] });
  await out.close();
  killWithParent(child, 'SIGKILL');
  let ended: string | undefined;
  child.once('error', (e) => (ended = e.message));
  child.once('exit', (code, signal) => (ended ??= `exit ${code ?? signal}`));

  const deadline = Date.now() + startTimeoutMs;
  while (!(await tcpConnects('127.0.0.1', port, 500))) {
    if (ended !== undefined || Date.now() > deadline) {
      const why = ended !== undefined ? `ended before listening (${ended})` : 'did not listen in time';
      const output = await readTail(logFile, 20);
      await stopChild(child, 1_000, 'SIGKILL');
      await rm(logFile, { force: true });
      throw new Error(`the Temporal test server on port ${port} ${why}:\n${output}`);
    }
    await sleep(100);
  }
  return { port, child, logFile };
}
