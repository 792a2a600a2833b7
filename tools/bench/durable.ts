import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { captureFunds, holdFunds } from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import type { Config } from '../../config/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { adminCommands } from '../../admin/index.js';
import { openStackDatabase } from './account.js';
import { buyRequest } from './fixtures.js';
import { describeAnswer, type ApiClient } from './http.js';
import { cpuMs, perPurchase, selfCpuMs, stackProcesses, type StackProcesses } from './cpu.js';
import { closedLoop, type LoadResult } from './load.js';
import { cheapestService, SetupError } from './setup.js';
import { summarize, type LatencySummary } from './stats.js';

/**
 * The durable purchase's measure: our durable purchase (a live wallet purchase over HTTP: API, Temporal,
 * workers) beside a direct purchase with no Temporal (one transaction to hold, the carrier call, one
 * transaction to capture), on the same database and carrier simulator, at each concurrency level.
 */
export interface LevelReport {
  concurrency: number;
  durable: Figures;
  direct: Figures;
  /** durable ÷ direct: how many times slower (latency) or what share of the throughput. */
  ratio: { p50: number; p99: number; throughput: number };
  /**
   * CPU per purchase (ms) of each process of the `npm start` under test and of this bench, with
   * their total, when that stack runs on this machine (read from /proc around each load).
   */
  cpu_ms_per_purchase?: { durable: Record<string, number>; direct: Record<string, number> };
}
interface Figures {
  requests: number;
  ok: number;
  errors: Record<string, number>;
  throughput_rps: number;
  latency_ms: LatencySummary | null;
}
export interface DurableReport {
  service: string;
  carrier: string;
  levels: LevelReport[];
  /** Read from one purchase's history: what happened before the answer. */
  round_trips: { workflow_tasks: number; activity_tasks: number; local_activities: number; total_dispatches: number };
}

function figures(load: LoadResult, okStatus: (s: string) => boolean): Figures {
  const errors: Record<string, number> = {};
  let ok = 0;
  for (const [status, n] of load.outcomes) {
    if (okStatus(status)) ok += n;
    else errors[status] = n;
  }
  return {
    requests: load.requests,
    ok,
    errors,
    throughput_rps: Math.round((ok / Math.max(load.wallMs, 1)) * 1000 * 10) / 10,
    latency_ms: summarize(load.latencies),
  };
}
const ratio = (a: number | undefined, b: number | undefined) => (a && b ? Math.round((a / b) * 100) / 100 : NaN);

/** Counts, in the history of one purchase, the dispatches through the server before its answer. */
async function roundTrips(temporal: Client, shipmentId: string): Promise<DurableReport['round_trips']> {
  const events = (await temporal.workflow.getHandle(shipmentWorkflowId(shipmentId)).fetchHistory()).events ?? [];
  const answered = events.findIndex((e) => e.workflowExecutionUpdateCompletedEventAttributes);
  const before = events.slice(0, answered < 0 ? events.length : answered);
  // The answer's own workflow task schedules the render; it is not on the way to the answer.
  const workflowTasks = before.filter((e) => e.workflowTaskScheduledEventAttributes).length;
  const activityTasks = before.filter(
    (e) => e.activityTaskScheduledEventAttributes && !['storeLabels', 'announceEvents'].includes(e.activityTaskScheduledEventAttributes.activityType?.name ?? ''),
  ).length;
  const localActivities = before.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
  return { workflow_tasks: workflowTasks, activity_tasks: activityTasks, local_activities: localActivities, total_dispatches: workflowTasks + activityTasks };
}

export async function runDurable(o: {
  client: ApiClient;
  config: Config;
  levels: number[];
  requests: number;
  timeMs: number;
  signal?: AbortSignal;
  log: (line: string) => void;
}): Promise<DurableReport> {
  const { config, client, log } = o;
  // The stack's database (the running `npm start`'s), never one of our own.
  // Its pool is as wide as the API's (DATABASE_POOL_MAX), so the direct path is not starved.
  const database = await openStackDatabase(config);
  const temporal = new Client({
    connection: await Connection.connect({ address: config.temporalAddress ?? '127.0.0.1:7233' }),
    namespace: config.temporalNamespace,
  });
  try {
    const admin = database.admin;
    const make = async (name: string) => {
      const account = await admin.createAccount({ name, funding: 'wallet' });
      await admin.enableApi(account.id);
      await admin.topUp(account.id, '10000000.00');
      return account.id;
    };
    const durableAccount = await make('Bench: durable purchases');
    const directAccount = await make('Bench: direct purchases');
    const { key } = await admin.createKey(durableAccount, { mode: 'live', scopes: 'all', rateLimit: '1000000/1' });
    const service = await cheapestService(client, key);
    const carrier = service.carrier;
    const adapter = carrierRegistryFor(config).adapter(carrier, true);
    log(`durable: live wallet purchases of ${service.code} against direct ones (${carrier} simulator), levels ${o.levels.join(', ')}`);

    const run = randomBytes(4).toString('hex');
    let last: string | undefined;
    const durable = async (i: number, tag: string) => {
      const answer = await client.send('POST', '/api/v1/shipments', {
        key,
        body: buyRequest(service.code, `bench-${run}-${tag}-${i}`),
        headers: { 'idempotency-key': `bench-${run}-${tag}-${i}` },
        parse: true,
      });
      if (answer.status === 201) last = (answer.json as { id: string }).id;
      else if (answer.status >= 400) log(`durable: ${describeAnswer(answer)}`);
      return answer.status;
    };
    const direct = async () => {
      const shipmentId = makeId('shp', Date.now(), randomBytes(16));
      await holdFunds(database.db, { accountId: directAccount, shipmentId, amount: service.gross });
      await adapter.buy({ reference: shipmentId, ...buyRequestParts(service.code) });
      await captureFunds(database.db, { accountId: directAccount, shipmentId });
      return 201;
    };
    // Warm both paths (JIT, connection pools, workflow cache) before measuring.
    await closedLoop({ concurrency: 4, requests: 20, timeMs: 60_000 }, (i) => durable(i, 'warm'));
    await closedLoop({ concurrency: 4, requests: 20, timeMs: 60_000 }, () => direct());

    const levels: LevelReport[] = [];
    const processes = stackProcesses(config.dataDir);
    if (!processes) log('durable: no npm start of this DATA_DIR on this machine: CPU per purchase not measured');
    for (const concurrency of o.levels) {
      const limits = { concurrency, requests: o.requests, timeMs: o.timeMs, signal: o.signal };
      // The direct path runs in this bench, on the stack's database and simulator only.
      const directCpu = cpuOver(processes, ['postgres', 'simulator']);
      const directLoad = figures(await closedLoop(limits, () => direct()), (s) => s === '201');
      const directMs = directCpu(directLoad.ok);
      const durableCpu = cpuOver(processes);
      const durableLoad = figures(await closedLoop(limits, (i) => durable(i, `c${concurrency}`)), (s) => s === '201');
      const durableMs = durableCpu(durableLoad.ok);
      levels.push({
        concurrency,
        durable: durableLoad,
        direct: directLoad,
        ratio: {
          p50: ratio(durableLoad.latency_ms?.p50, directLoad.latency_ms?.p50),
          p99: ratio(durableLoad.latency_ms?.p99, directLoad.latency_ms?.p99),
          throughput: ratio(durableLoad.throughput_rps, directLoad.throughput_rps),
        },
        ...(durableMs && directMs ? { cpu_ms_per_purchase: { durable: durableMs, direct: directMs } } : {}),
      });
      log(`durable: concurrency ${concurrency}: ${durableLoad.throughput_rps}/s against ${directLoad.throughput_rps}/s direct`);
    }
    if (!last) throw new SetupError('no durable purchase answered 201');
    return { service: service.code, carrier, levels, round_trips: await roundTrips(temporal, last) };
  } finally {
    await temporal.connection.close();
    await database.close();
  }
}

/** Starts counting the CPU of the stack's processes and this bench; the result divides by purchases. */
function cpuOver(all: StackProcesses | undefined, roles?: string[]): (purchases: number) => Record<string, number> | undefined {
  if (!all) return () => undefined;
  const processes = roles ? Object.fromEntries(Object.entries(all).filter(([role]) => roles.includes(role))) : all;
  const before = { ...cpuMs(processes), bench: selfCpuMs() };
  return (purchases) => perPurchase(before, { ...cpuMs(processes), bench: selfCpuMs() }, purchases);
}

function buyRequestParts(service: string) {
  const { from, to, parcel } = buyRequest(service, 'direct');
  return { serviceCode: service, from, to, parcel };
}
