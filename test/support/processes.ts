import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { simulatorCarrierEnv } from '../../tools/carrier-sim/index.js';
import type { TestStack } from './stack.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One of the service's processes (`api/main.ts`, `workers/main.ts`), as an operator runs it: it can be SIGKILLed. */
export interface ServiceProcess {
  /** The API's URL (an API process); empty for a worker. */
  url: string;
  lines: string[];
  /** Its process id: a worker's identity in Temporal is `<pid>@<host>`. */
  pid: number;
  /** SIGKILL, as a crash or an OOM kill: nothing drains. */
  kill(): Promise<void>;
}

/**
 * The environment of a process that joins `stack`: its database, Temporal, simulator and task-queue
 * prefix, so that what it starts runs on the stack's workers and what it polls is the stack's.
 */
export function stackEnv(stack: TestStack, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TASK_QUEUE_PREFIX: stack.config.taskQueuePrefix,
    CARRIER_SIM_PORT: new URL(stack.simUrl).port,
    ...simulatorCarrierEnv(stack.simUrl),
    CARRIER_TIMEOUT_MS: String(stack.config.carrierTimeoutMs),
    PURCHASE_WAIT_MS: String(stack.config.purchaseWaitMs),
    PURCHASE_DEADLINE_MS: String(stack.config.purchaseDeadlineMs),
    WORKER_SHUTDOWN_GRACE_MS: '0',
    // The stack's tests start the sweep Schedule themselves when they need it.
    ORPHAN_SWEEP_INTERVAL_MS: '0',
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** Starts `entry` (relative to the repository) with `args`; resolves once a line matches `ready`. */
export async function startServiceProcess(entry: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const url = await new Promise<string>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`${entry} did not start in time\n${stderr}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? '');
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}\n${stderr}`));
    });
  });
  return {
    url,
    lines,
    pid: child.pid!,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** An API process of `stack` on a free port. */
export const startStackApi = (stack: TestStack, extra: Record<string, string> = {}) =>
  startServiceProcess('api/main.ts', [], stackEnv(stack, { PORT: '0', HOST: '127.0.0.1', ...extra }), /Server listening at/);

/** A worker process of `stack` polling `groups`. */
export const startStackWorker = (stack: TestStack, groups: string[]) =>
  startServiceProcess('workers/main.ts', groups, stackEnv(stack), /"queues":\[/);

/**
 * A TCP proxy to `target` (`host:port`) that can stop carrying bytes: a dependency that stops
 * answering, without closing anything, as a network partition looks to its clients.
 */
export async function startFreezableProxy(target: string): Promise<{ address: string; freeze(): void; close(): Promise<void> }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk) => frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => frozen || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    address: `127.0.0.1:${address.port}`,
    freeze: () => {
      frozen = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
