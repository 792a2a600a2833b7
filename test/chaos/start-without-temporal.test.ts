import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { request } from 'undici';
import { freePorts } from '../../util/index.js';
import { eventually } from '../support/sim.js';

// Fault 14: a worker or API process started while Temporal is down waits for it and connects once it
// is back, instead of exiting (an orchestrator would otherwise restart it in a loop). Temporal "comes
// back" here as a TCP relay to the run's dev server opening on the port the processes were given.
const children: ChildProcess[] = [];
const relays: net.Server[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const r of relays) await new Promise((resolve) => r.close(resolve));
});

function relay(port: number, target: string): Promise<net.Server> {
  const [host, targetPort] = target.split(':');
  const server = net.createServer((socket) => {
    const upstream = net.connect(Number(targetPort), host);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  relays.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

function start(entry: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: {
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      CARRIER_SIM_PORT: new URL(inject('carrierSimUrl')).port,
      WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
      TASK_QUEUE_PREFIX: `w${randomBytes(4).toString('hex')}-`,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

async function answers(url: string): Promise<number | undefined> {
  try {
    const res = await request(url);
    await res.body.dump();
    return res.statusCode;
  } catch {
    return undefined;
  }
}

describe('processes started while Temporal is down', () => {
  it('the API and a worker wait for Temporal, then serve, instead of exiting', async () => {
    const [temporalPort, apiPort] = await freePorts(2);
    const temporalAddress = `127.0.0.1:${temporalPort}`;
    const api = start('api/main.ts', [], { TEMPORAL_ADDRESS: temporalAddress, PORT: String(apiPort), HOST: '127.0.0.1' });
    const worker = start('workers/main.ts', ['shipments', 'webhooks'], { TEMPORAL_ADDRESS: temporalAddress });
    // Both have tried, failed, and are still there, waiting.
    await eventually(async () => (/Temporal is not reachable yet/.test(api.output()) ? true : undefined), 60_000, 'the API to report waiting');
    await eventually(async () => (/Temporal is not reachable yet/.test(worker.output()) ? true : undefined), 60_000, 'the worker to report waiting');
    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();

    await relay(temporalPort, inject('temporalAddress'));
    await eventually(async () => ((await answers(`http://127.0.0.1:${apiPort}/healthz`)) === 200 ? true : undefined), 60_000, 'the API to serve');
    await eventually(async () => (/workers started/.test(worker.output()) ? true : undefined), 60_000, 'the worker to start');
    expect(worker.child.exitCode).toBeNull();
  });
});
