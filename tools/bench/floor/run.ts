/**
 * `npm run bench -- sdk-floor [--clients 8] [--workflows 300] [--warmup 100]`: what the Temporal
 * dev server and the TypeScript SDK alone cost for one purchase, with nothing of ours in it: no
 * HTTP, no database, no carrier, no payload encryption. It starts its own dev server (tuned as
 * `npm start` runs it), a worker process serving the purchase's shape with no-op activities
 * (floor/workflows.ts) and, in this process, clients making Update-With-Start calls as the API does,
 * `--clients` at a time. Prints throughput, latency and each process's CPU per purchase, with the
 * machine. `npm run bench` runs it too (the `floor` scenario, 8 clients) and gives the durable
 * purchase's throughput as a share of it, both measured in that one run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenarioFlags } from '../options.js';
import { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../../contract/index.js';
import { startDevServer } from '../../temporal/dev-server.js';
import { killWithParent } from '../../temporal/process-utils.js';
import { cpuMs, selfCpuMs } from '../cpu.js';
import { describeMachine, machine } from '../report.js';
import { percentile } from '../stats.js';
import { floorPurchase } from './shape.js';
import type { FloorResult } from '../floor-result.js';

const log = (line: string) => void process.stderr.write(`bench sdk-floor: ${line}\n`);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function startWorker(address: string, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tools/bench/floor/worker.ts'), address, taskQueue], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  killWithParent(child, 'SIGTERM');
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the floor worker exited (${code}) before it was ready`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
  });
}

async function load(client: Client, taskQueue: string, count: number, clients: number, prefix: string) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t0 = performance.now();
        await floorPurchase(client, taskQueue, `${prefix}-${i}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}


/**
 * Starts a dev server and a floor worker of its own, warms them with `warmup` purchases, measures
 * `workflows` more, and stops both. `npm run bench` runs it beside the durable purchase, so that the
 * ratio of the two comes from one run on one machine.
 */
export async function runFloor(o: { clients: number; workflows: number; warmup: number; log: (line: string) => void }): Promise<FloorResult> {
  const { clients, workflows, warmup } = o;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-floor-'));
  const server = await startDevServer({ dataDir: dir, port: 0, uiPort: 0, searchAttributes: { ...SEARCH_ATTRIBUTES }, log: o.log });
  let worker: ChildProcess | undefined;
  try {
    const taskQueue = 'floor';
    worker = await startWorker(server.address, taskQueue);
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection });
      if (warmup) await load(client, taskQueue, warmup, clients, 'warm');
      const roles = { temporal: server.pid, worker: worker.pid! };
      const before = cpuMs(roles);
      const selfBefore = selfCpuMs();
      const run = await load(client, taskQueue, workflows, clients, 'run');
      const after = cpuMs(roles);
      const self = selfCpuMs() - selfBefore;
      const per = (ms: number) => Math.round((ms / workflows) * 10) / 10;
      const cpu = { temporal: per(after.temporal - before.temporal), worker: per(after.worker - before.worker), client: per(self) };
      const total = Math.round((cpu.temporal + cpu.worker + cpu.client) * 10) / 10;
      return { clients, workflows, warmup, ...run, cpu: { ...cpu, total } };
    } finally {
      await connection.close();
    }
  } finally {
    worker?.kill('SIGTERM');
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function main(argv: string[]): Promise<number> {
  const usage = 'usage: npm run bench -- sdk-floor [--clients <n>] [--workflows <n>] [--warmup <n>]\n';
  const flags = parseScenarioFlags(argv, { clients: '8', workflows: '300', warmup: '100' }, usage);
  if ('exit' in flags) return flags.exit;
  const { values } = flags;
  const clients = Number(values.clients);
  const workflows = Number(values.workflows);
  const warmup = Number(values.warmup);
  if (![clients, workflows].every((n) => Number.isInteger(n) && n >= 1) || !Number.isInteger(warmup) || warmup < 0) {
    process.stderr.write(usage);
    return 2;
  }
  const result = await runFloor({ clients, workflows, warmup, log });
  const { cpu } = result;
  const on = machine();
  process.stdout.write(
    [
      `The purchase's shape with no-op steps: ${workflows} purchases, ${clients} clients (after ${warmup} to warm up), on ${describeMachine(on)}`,
      `purchases/s ${result.perSecond.toFixed(1)}   p50 ${result.p50.toFixed(1)} ms   p99 ${result.p99.toFixed(1)} ms`,
      `CPU per purchase, ms: temporal ${cpu.temporal}   worker ${cpu.worker}   client ${cpu.client}   total ${cpu.total}`,
      '',
    ].join('\n'),
  );
  process.stdout.write(`${JSON.stringify({ scenario: 'sdk-floor', machine: on, ...result }, null, 2)}\n`);
  return 0;
}
