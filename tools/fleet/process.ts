// One process of the fleet: started with its own log file under `<dataDir>/logs`, dying with us
// (`setpriv --pdeathsig`), ready when its check says so, and restartable (the chaos and cluster tests
// stop and start processes).
import { spawn, type ChildProcess } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { killWithParent, parentDeathWrapped, readTail, sleep, stopChild, type Log } from '../temporal/process-utils.js';
import { REPO_ROOT } from './temporal-cluster.js';

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

export async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await request(url, { headersTimeout: 2_000, bodyTimeout: 2_000 });
    await res.body.dump();
    return res.statusCode < 400;
  } catch {
    return false;
  }
}

export async function logSays(file: string, from: number, text: string): Promise<boolean> {
  try {
    return (await readFile(file, 'utf8')).slice(from).includes(text);
  } catch {
    return false;
  }
}

export interface Spec {
  name: string;
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Resolves true once the process serves; `offset` is where this start's output begins in the log. */
  ready: (offset: number) => Promise<boolean>;
  readyTimeoutMs: number;
}

export function managed(spec: Spec, logDir: string, log: Log): FleetProcess {
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
