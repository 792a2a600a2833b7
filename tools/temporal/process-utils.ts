// Small helpers shared by the Temporal tooling in this folder: the cache location, free ports,
// running a command, and making sure the servers we start never outlive us.
import { execFile, type ChildProcess } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../../config/index.js';
import { toolingSettings } from '../tooling-config.js';

export type Log = (msg: string) => void;

/** `${XDG_CACHE_HOME ?? ~/.cache}/parcel-shipping`: outside the repo, shared by every clone on the machine. */
export function cacheRoot(): string {
  const xdg = toolingSettings().xdgCacheHome;
  const base = xdg !== undefined && xdg !== '' ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'parcel-shipping');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const st = await stat(file);
    if (!st.isFile()) return false;
    await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on PATH (like `which`), or undefined. */
export async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of toolingSettings().path.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, capturing its output (never throws for a non-zero exit). */
export function run(
  cmd: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        env: options.env ?? childEnv(),
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 0,
        maxBuffer: 64 * 1024 * 1024,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        const err = error as (NodeJS.ErrnoException & { code?: number | string; signal?: NodeJS.Signals }) | null;
        let code: number | null = 0;
        if (err) code = typeof err.code === 'number' ? err.code : null;
        const extra = err && typeof err.code === 'string' ? `\n${err.message}` : '';
        resolve({ code, signal: err?.signal ?? null, stdout: String(stdout), stderr: String(stderr) + extra });
      },
    );
  });
}

/** Last `lines` lines of a text, for error messages. */
export function tail(text: string, lines = 40): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

export async function readTail(file: string, lines = 40): Promise<string> {
  try {
    return tail(await readFile(file, 'utf8'), lines);
  } catch {
    return '';
  }
}


/** True when nothing listens on host:port and we may bind it. */
export async function portIsFree(host: string, port: number): Promise<boolean> {
  const server = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Resolves once a TCP connection to host:port succeeds. */
export function tcpConnects(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean): void => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The address clients should dial for a server bound to `ip` (a wildcard bind is dialled on loopback). */
export function dialHost(ip: string): string {
  if (ip === '0.0.0.0' || ip === '') return '127.0.0.1';
  if (ip === '::' || ip === '[::]') return '[::1]';
  return ip.includes(':') && !ip.startsWith('[') ? `[${ip}]` : ip;
}

let setprivPath: string | undefined | null = null;

async function setpriv(): Promise<string | undefined> {
  if (setprivPath === null) {
    setprivPath = process.platform === 'linux' ? await findOnPath('setpriv') : undefined;
    if (setprivPath !== undefined) {
      const probe = await run(setprivPath, ['--pdeathsig', 'SIGTERM', '--', 'true'], { timeoutMs: 10_000 });
      if (probe.code !== 0) setprivPath = undefined;
    }
  }
  return setprivPath;
}

/**
 * Command and arguments that run `cmd args` so that the kernel sends it `signal` when this process
 * dies, even by SIGKILL (Linux `setpriv --pdeathsig`, which execs the command: same pid). Where
 * setpriv is missing the command runs as is, and only the exit handlers below protect us.
 */
export async function parentDeathWrapped(
  cmd: string,
  args: readonly string[],
  signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM',
): Promise<[string, string[]]> {
  const sp = await setpriv();
  return sp === undefined ? [cmd, [...args]] : [sp, ['--pdeathsig', signal, '--', cmd, ...args]];
}

const liveChildren = new Map<ChildProcess, NodeJS.Signals>();
let handlersInstalled = false;

function killLiveChildren(): void {
  for (const [child, signal] of liveChildren) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
    }
  }
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killLiveChildren);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      killLiveChildren();
      // If nobody else handles this signal, keep its default meaning: die by it.
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, handler);
  }
}

/** Registers a child to be signalled when this process exits or is interrupted. */
export function killWithParent(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  installExitHandlers();
  liveChildren.set(child, signal);
  child.once('exit', () => liveChildren.delete(child));
}

/** Waits for a child to exit; SIGTERM (or `signal`) first, SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}
