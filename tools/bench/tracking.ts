/**
 * `npm run bench -- tracking --parcels N`: N purchased parcels in flight on the simulated carriers
 * (Acme and FedEx tracked in batches, SwiftPost one number a call, UPS under Track Alert), their
 * tracking started directly as a purchase would,
 * while the simulator walks each through a realistic week on a clock `--scale` times faster than the
 * wall's, the poll schedule's clock scaled with it (docs/benchmarks.md#tracking-at-scale). It starts
 * its own stack, every part a process (tracking-stack.ts), and reports CPU seconds per parcel-day of
 * each, carrier calls per parcel, memory per open workflow, and purchase throughput with the parcels
 * in flight against the same stack with none.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import proto from '@temporalio/proto';
import { adminCommands } from '../../admin/index.js';
import { taskQueues } from '../../contract/index.js';
import { cpuMs, machineTicks, speedProbeMs } from './cpu.js';
import { parseScenarioFlags } from './options.js';
import { machine } from './report.js';
import { startParcels, type BenchParcel } from './tracking-parcels.js';
import { purchaseRun, renderTracking, sidePhases, type PurchaseFigures, type TrackingReport } from './tracking-report.js';
import { rssBytes, startTrackingStack, type TrackingStack } from './tracking-stack.js';

const USAGE = `usage: npm run bench -- tracking [--parcels 1000] [--scale <n>] [--days 8] [--carriers acme,swiftpost,ups,fedex]
                                [--purchases 200] [--samples 3] [--clients 8] [--cache <n>] [--tracking-nice <n>]
                                [--spread --minutes 30] [--temporal dev|postgres] [--keep]
  --parcels    parcels in flight, spread over --carriers
  --scale      how many times faster the parcels' week runs than the wall clock (default 100000 / parcels,
               at most 2000: the load of 100,000 parcels on a real clock; a week then takes 7 days / scale)
  --days       simulated days to follow them (the week's last delivery comes by day 7)
  --purchases  purchases timed at --clients clients, before the parcels and again with them in flight
  --samples    how many times each is timed; the ratio is of the medians (with --spread the samples with
               the parcels are spread over the window, otherwise taken one after another from day 2.5)
  --cache      WORKER_MAX_CACHED_WORKFLOWS of the workers (default: the configuration's)
  --tracking-nice
               the parcels' queue (\`tracking\`) in a worker process of its own, run under nice(1) at
               this value, beside one for the rest (default: one worker process for every queue)
  --spread     the parcels somewhere in their week, as a merchant's in flight are, each polled from a
               point drawn over its wait, instead of all bought at once: the steady state, measured
               over --minutes of the wall clock (purchases timed halfway) instead of --days
  --minutes    with --spread: how long to measure once every parcel is in flight (default 30)
  --temporal   dev: the Temporal dev server on a SQLite file, as \`npm start\` runs it (default);
               postgres: temporal-server on a PostgreSQL of its own, with the configuration of
               \`npm run fleet\` (four history shards), its CPU counted as Temporal's
  --keep       keep the run's directory (logs, PostgreSQL, the Temporal SQLite file)
`;
const DAY_MS = 86_400_000;
const SAMPLE_MS = 5_000;
/** How long the stack is watched idle, before any parcel, for what it spends with nothing to do. */
const IDLE_MS = 30_000;
/** The `tracking` queue's workflow tasks waiting (two samples in a row) under which the stack has caught up with the start. */
const CAUGHT_UP_BACKLOG = 20;
/** How long at most to wait for it. */
const CATCH_UP_MAX_MS = 10 * 60_000;
const log = (line: string) => void process.stderr.write(`bench tracking: ${line}\n`);

export async function main(argv: string[]): Promise<number> {
  const flags = parseScenarioFlags(
    argv,
    { parcels: '1000', scale: '', days: '8', carriers: 'acme,swiftpost,ups,fedex', purchases: '200', samples: '3', clients: '8', cache: '', 'tracking-nice': '', spread: 'no', minutes: '30', temporal: 'dev', keep: 'no' },
    USAGE,
    ['spread', 'keep'],
  );
  if ('exit' in flags) return flags.exit;
  const v = flags.values;
  const parcels = Number(v.parcels);
  const o = {
    parcels,
    scale: v.scale ? Number(v.scale) : Math.min(2000, Math.max(1, Math.round(100_000 / parcels))),
    days: Number(v.days),
    carriers: v.carriers.split(',').map((c) => c.trim()).filter(Boolean),
    purchases: Number(v.purchases),
    samples: Number(v.samples),
    clients: Number(v.clients),
    cache: v.cache ? Number(v.cache) : undefined,
    trackingNice: v['tracking-nice'] ? Number(v['tracking-nice']) : undefined,
    spread: v.spread !== 'no',
    minutes: Number(v.minutes),
    temporal: v.temporal as 'dev' | 'postgres',
  };
  const bad = [o.parcels, o.scale, o.days, o.purchases, o.clients, o.minutes].some((n) => !(n > 0)) || !(Number.isInteger(o.samples) && o.samples >= 1) || o.carriers.some((c) => !['acme', 'swiftpost', 'ups', 'fedex'].includes(c));
  const badNice = o.trackingNice !== undefined && !(Number.isInteger(o.trackingNice) && o.trackingNice >= 0 && o.trackingNice <= 19);
  if (bad || badNice || (o.cache !== undefined && !(o.cache >= 0)) || !['dev', 'postgres'].includes(o.temporal)) {
    process.stderr.write(USAGE);
    return 2;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-tracking-'));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its directory.
  await chmod(dir, 0o755);
  log(
    o.spread
      ? `${o.parcels} parcels spread over their week, measured for ${o.minutes} min (scale ${o.scale}); stack in ${dir}`
      : `${o.parcels} parcels, a week in ${Math.round((7 * DAY_MS) / o.scale / 60_000)} min (scale ${o.scale}); stack in ${dir}`,
  );
  const stack = await startTrackingStack({ dir, cachedWorkflows: o.cache, trackingNice: o.trackingNice, temporal: o.temporal, log });
  // Ctrl-C or a kill: the stack's processes go with the bench.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the stack`);
      void stack.stop().finally(() => process.exit(130));
    });
  }
  try {
    const report = await measure(stack, o);
    process.stdout.write(`${renderTracking(report)}\n\n${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } finally {
    await stack.stop();
    if (v.keep === 'no') await rm(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  }
}

type Options = {
  parcels: number;
  scale: number;
  days: number;
  carriers: string[];
  purchases: number;
  samples: number;
  clients: number;
  cache?: number;
  trackingNice?: number;
  spread: boolean;
  minutes: number;
  temporal: 'dev' | 'postgres';
};

function stackOf(o: Options): string {
  const workers =
    o.trackingNice === undefined
      ? 'workers (all queues, a prebuilt workflow bundle)'
      : `workers (purchases, carriers, webhooks, a prebuilt workflow bundle), tracking workers (tracking, at nice ${o.trackingNice})`;
  const temporal = o.temporal === 'postgres' ? 'temporal-server (four history shards) on an embedded PostgreSQL of its own' : 'Temporal dev server (SQLite)';
  return `separate processes: API, ${workers}, ${temporal}, embedded PostgreSQL, carrier simulator`;
}

/** The workers' resident memory: both processes' when the parcels have one of their own. */
const workersRss = (stack: TrackingStack) => rssBytes(stack.pids.workers) + (stack.pids.tracking_workers ? rssBytes(stack.pids.tracking_workers) : 0);

async function measure(stack: TrackingStack, o: Options): Promise<TrackingReport> {
  const admin = adminCommands(stack.database.db);
  const { id: accountId } = await admin.createAccount({ name: 'Tracking bench', funding: 'wallet' });
  await admin.enableApi(accountId);
  await admin.topUp(accountId, '10000000.00');
  const key = (await admin.createKey(accountId, { mode: 'live', scopes: 'all', rateLimit: '1000000/1' })).key;
  log('warming up: 30 purchases');
  await purchaseRun(stack, key, 30, o.clients);
  const idleSamples: PurchaseFigures[] = [];
  for (let i = 0; i < o.samples; i++) {
    log(`${o.purchases} purchases at ${o.clients} clients, nothing in flight (${i + 1} of ${o.samples})`);
    idleSamples.push(await timedOnMachine(() => purchaseRun(stack, key, o.purchases, o.clients)));
    log(`nothing in flight: ${idleSamples[i].per_second} purchases/s`);
  }

  log(`the stack idle for ${IDLE_MS / 1000} s: what it spends with nothing to track`);
  const idle0 = cpuMs(stack.pids);
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idleRate = Object.fromEntries(Object.entries(diff(idle0, cpuMs(stack.pids))).map(([role, ms]) => [role, ms / IDLE_MS]));
  const callsBefore = await simCalls(stack);
  const rssBefore = { workers: workersRss(stack), temporal: rssBytes(stack.pids.temporal) };
  const cpuBefore = cpuMs(stack.pids);
  const started = Date.now();
  const parcels = await startParcels({ stack, accountId, count: o.parcels, carriers: o.carriers, scale: o.scale, spread: o.spread, log });
  // The start ends once every workflow has run its first task: the UPS parcels' subscriptions are its last step.
  const ups = parcels.filter((p) => p.carrier === 'ups').length;
  for (let n = 0; (await trackAlertStats(stack)).subscribed < ups; n++) {
    if (n % 12 === 0) log(`waiting for the UPS parcels' Track Alert subscriptions (${(await trackAlertStats(stack)).subscribed} of ${ups})`);
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  await caughtUp(stack);
  const startedAll = Date.now();
  const cpuStarted = cpuMs(stack.pids);
  const callsStarted = await simCalls(stack);
  const run = await follow(stack, o, accountId, key, started, startedAll, idleRate);
  const callsEnd = await simCalls(stack);
  return {
    scenario: 'tracking',
    options: { ...o, cache: o.cache ?? stack.config.worker.maxCachedWorkflows },
    machine: machine(),
    stack: stackOf(o),
    parcels: countBy(parcels),
    equivalent_parcels_in_flight: o.parcels * o.scale,
    start: {
      wall_s: Math.round((startedAll - started) / 100) / 10,
      cpu_ms_per_parcel: perEach(diff(cpuBefore, cpuStarted), o.parcels),
    },
    run: run.figures,
    carrier_calls_per_parcel: callsPerParcel(callsBefore, callsEnd, parcels, run.purchaseCalls),
    carrier_calls_per_parcel_day: callsPerParcelDay(diffCalls(callsStarted, callsEnd), run.purchaseCalls, run.figures.parcel_days, o.carriers),
    scan_delay_parcel_hours: await scanDelays(stack, accountId, o.scale),
    track_alert: await trackAlertStats(stack),
    memory: {
      workers_rss_mb: { before: mb(rssBefore.workers), peak: mb(run.peak.workers) },
      temporal_rss_mb: { before: mb(rssBefore.temporal), peak: mb(run.peak.temporal) },
      workers_kb_per_open_workflow: Math.round((run.peak.workers - rssBefore.workers) / 1024 / o.parcels),
      temporal_kb_per_open_workflow: Math.round((run.peak.temporal - rssBefore.temporal) / 1024 / o.parcels),
    },
    purchases: purchaseFigures(idleSamples, run.inFlight),
  };
}

/**
 * Waits until the turns that fell due while the parcels were being started have been taken. On a busy
 * machine they wait in the `tracking` queue (100,000 parcels take some 20 minutes to start) and are
 * then taken at up to 1.4 cores for about a minute: the start's work, which a window opened at once
 * would count as the steady state's.
 */
async function caughtUp(stack: TrackingStack): Promise<void> {
  const since = Date.now();
  let first: number | undefined;
  let backlog = 0;
  for (let calm = 0; calm < 2 && Date.now() - since < CATCH_UP_MAX_MS; ) {
    const { stats } = await stack.temporal.workflowService.describeTaskQueue({
      namespace: stack.config.temporalNamespace,
      taskQueue: { name: taskQueues(stack.config.taskQueuePrefix).tracking },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      reportStats: true,
    });
    backlog = Number(stats?.approximateBacklogCount ?? 0);
    first ??= backlog;
    calm = backlog <= CAUGHT_UP_BACKLOG ? calm + 1 : 0;
    if (calm < 2) await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  log(`caught up with the start: the tracking queue's workflow tasks waiting ${first} → ${backlog} in ${Math.round((Date.now() - since) / 1000)} s`);
}

/**
 * Follows the parcels until none is in flight or `days` have passed on their clock, sampling CPU and
 * memory; once, when the parcels are in transit, times purchases among them (that stretch's CPU and
 * parcel-days are left out of the per-parcel-day figures).
 */
async function follow(stack: TrackingStack, o: Options, accountId: string, key: string, started: number, startedAll: number, idleRate: Record<string, number>) {
  let cpu = cpuMs(stack.pids);
  const spent: Record<string, number> = {};
  const idleSpent: Record<string, number> = {};
  let parcelDays = 0;
  let last = { at: Date.now(), open: await openCount(stack, accountId) };
  const peak = { workers: 0, temporal: 0 };
  const inFlight: InFlightSample[] = [];
  let purchaseCalls: Calls | undefined;
  const simDay = () => ((Date.now() - started) * o.scale) / DAY_MS;
  const timePurchases = async () => {
    const before = await simCalls(stack);
    log(`${o.purchases} purchases at ${o.clients} clients with ${last.open} parcels in flight (${inFlight.length + 1} of ${o.samples})`);
    const atDay = Math.round(simDay() * 100) / 100;
    const sample = { ...(await timedOnMachine(() => purchaseRun(stack, key, o.purchases, o.clients))), at_day: atDay, parcels_in_flight: last.open };
    inFlight.push(sample);
    log(`in flight: ${sample.per_second} purchases/s`);
    purchaseCalls = addCalls(purchaseCalls ?? {}, diffCalls(before, await simCalls(stack)));
  };
  // Spread parcels are measured for a while of the wall clock, their purchases timed at even points
  // of it (halfway for one sample); a week's parcels until they are delivered or `days` have passed,
  // timed one sample after another once in transit.
  const measuring = () => (o.spread ? Date.now() - startedAll < o.minutes * 60_000 : simDay() < o.days);
  const purchasesDue = () =>
    inFlight.length < o.samples &&
    (o.spread ? Date.now() - startedAll >= (o.minutes * 60_000 * (inFlight.length + 1)) / (o.samples + 1) : simDay() >= 2.5);
  while (last.open > 0 && measuring()) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    if (purchasesDue()) {
      await timePurchases();
      // Not the parcels' cost: start counting again from here.
      cpu = cpuMs(stack.pids);
      last = { at: Date.now(), open: await openCount(stack, accountId) };
      continue;
    }
    const now = { at: Date.now(), open: await openCount(stack, accountId) };
    const cpuNow = cpuMs(stack.pids);
    // The parcels' own: what the stack spends idle (polling its task queues, its timers) taken off.
    for (const [role, ms] of Object.entries(diff(cpu, cpuNow))) {
      spent[role] = (spent[role] ?? 0) + ms;
      idleSpent[role] = (idleSpent[role] ?? 0) + (idleRate[role] ?? 0) * (now.at - last.at);
    }
    parcelDays += (((last.open + now.open) / 2) * (now.at - last.at) * o.scale) / DAY_MS;
    cpu = cpuNow;
    last = now;
    peak.workers = Math.max(peak.workers, workersRss(stack));
    peak.temporal = Math.max(peak.temporal, rssBytes(stack.pids.temporal));
    log(`day ${simDay().toFixed(2)}: ${now.open} in flight, ${Math.round(parcelDays)} parcel-days, CPU ${fmt(spent)}`);
  }
  // A run that ends before day 2.5 (`--days`) times them at its end, its parcels still in flight.
  while (inFlight.length < o.samples && last.open > 0) await timePurchases();
  const days = Math.max(parcelDays, 1e-9);
  const perDay = Object.fromEntries(Object.entries(spent).map(([role, ms]) => [role, round3(Math.max(0, ms - (idleSpent[role] ?? 0)) / 1000 / days)]));
  const grossPerDay = Object.fromEntries(Object.entries(spent).map(([role, ms]) => [role, round3(ms / 1000 / days)]));
  const figures = {
    wall_s: Math.round((Date.now() - started) / 1000),
    /** The parcels' day the figures start from: the start (their workflows' first tasks) is apart. */
    measured_from_day: Math.round((((startedAll - started) * o.scale) / DAY_MS) * 100) / 100,
    simulated_days: Math.round(simDay() * 100) / 100,
    parcel_days: Math.round(parcelDays),
    still_in_flight: last.open,
    idle_cores: Object.fromEntries(Object.entries(idleRate).map(([role, rate]) => [role, round3(rate)])),
    cpu_s_per_parcel_day: withTotals(perDay),
    cpu_s_per_parcel_day_with_idle: withTotals(grossPerDay),
  };
  return { figures, peak, inFlight, purchaseCalls };
}

const withTotals = (perDay: Record<string, number>) => ({
  ...perDay,
  workers_and_temporal: round3((perDay.workers ?? 0) + (perDay.tracking_workers ?? 0) + (perDay.temporal ?? 0) + (perDay.temporal_store ?? 0)),
  total: round3(Object.values(perDay).reduce((a, b) => a + b, 0)),
});

/**
 * How long after a scan happened it was recorded, in parcel hours, by carrier and status (median and
 * 95th percentile): what the schedule promises (a poll within its wait, a push at once), and what
 * a stack that cannot keep up adds to it.
 */
async function scanDelays(stack: TrackingStack, accountId: string, scale: number) {
  const result = await stack.database.db.execute(sql`
    select s.carrier, t.status,
      percentile_cont(0.5) within group (order by extract(epoch from t.created_at - t.occurred_at)) as p50,
      percentile_cont(0.95) within group (order by extract(epoch from t.created_at - t.occurred_at)) as p95
    from tracking_events t join shipments s on s.id = t.shipment_id
    where s.account_id = ${accountId} and s.reference is null
    group by s.carrier, t.status`);
  const hours = (seconds: unknown) => Math.round(((Number(seconds) * scale) / 3600) * 100) / 100;
  const delays: Record<string, Record<string, { p50: number; p95: number }>> = {};
  for (const row of result.rows as Array<{ carrier: string; status: string; p50: unknown; p95: unknown }>) {
    (delays[row.carrier] ??= {})[row.status] = { p50: hours(row.p50), p95: hours(row.p95) };
  }
  return delays;
}

const trackAlertStats = async (stack: TrackingStack) => (await (await fetch(`${stack.simUrl}/_sim/ups/track-alert`)).json()) as { subscribed: number; pushed: number };

type Calls = Record<string, Record<string, number>>;
type InFlightSample = NonNullable<TrackingReport['purchases']['in_flight']>;
/** The simulator's count of requests, by carrier and operation. */
async function simCalls(stack: TrackingStack): Promise<Calls> {
  return ((await (await fetch(`${stack.simUrl}/_sim/stats`)).json()) as { calls: Calls }).calls;
}

async function openCount(stack: TrackingStack, accountId: string): Promise<number> {
  const result = await stack.database.db.execute(
    sql`select count(*)::int as n from shipments where account_id = ${accountId} and status in ('purchased', 'in_transit', 'exception') and reference is null`,
  );
  return Number((result.rows[0] as { n: number }).n);
}

function callsPerParcel(before: Record<string, Record<string, number>>, after: Record<string, Record<string, number>>, parcels: BenchParcel[], purchaseCalls?: Record<string, Record<string, number>>) {
  const made = diffCalls(before, after);
  const counts = countBy(parcels);
  return Object.fromEntries(
    Object.entries(counts).map(([carrier, n]) => [
      carrier,
      Object.fromEntries(Object.entries(made[carrier] ?? {}).map(([op, calls]) => [op, round3((calls - (purchaseCalls?.[carrier]?.[op] ?? 0)) / n)])),
    ]),
  );
}

/**
 * Carrier calls per parcel-day over the measured stretch (the start's, and those of the purchases
 * timed among the parcels, left out), by carrier and operation. Each carrier holds an even share of
 * the parcels, so of the parcel-days.
 */
function callsPerParcelDay(made: Calls, purchaseCalls: Calls | undefined, parcelDays: number, carriers: readonly string[]) {
  const perCarrier = Math.max(parcelDays, 1e-9) / carriers.length;
  return Object.fromEntries(
    Object.entries(made)
      .filter(([carrier]) => carriers.includes(carrier))
      .map(([carrier, ops]) => [carrier, Object.fromEntries(Object.entries(ops).map(([op, calls]) => [op, round3((calls - (purchaseCalls?.[carrier]?.[op] ?? 0)) / perCarrier)]))]),
  );
}

/**
 * A purchase sample with the machine's state beside it: the speed probe's time just before it, and
 * the share of the machine's CPU the hypervisor stole while it ran.
 */
async function timedOnMachine(run: () => Promise<PurchaseFigures>): Promise<PurchaseFigures> {
  const probe_ms = speedProbeMs();
  const before = machineTicks();
  const figures = await run();
  const after = machineTicks();
  const steal_share = Math.round(((after.steal - before.steal) / Math.max(1, after.total - before.total)) * 1000) / 1000;
  return { ...figures, machine: { probe_ms, steal_share } };
}

/**
 * The purchase figures: each sample, and the median sample of each side (by rate) for the ratio, so
 * that one slow or fast stretch of a shared machine does not decide it.
 */
function purchaseFigures(idle: PurchaseFigures[], inFlight: InFlightSample[]): TrackingReport['purchases'] {
  const median = <T extends PurchaseFigures>(samples: T[]): T | undefined => [...samples].sort((a, b) => a.per_second - b.per_second)[Math.floor((samples.length - 1) / 2)];
  const idleMedian = median(idle)!;
  const inFlightMedian = median(inFlight);
  return {
    idle: idleMedian,
    in_flight: inFlightMedian,
    ratio: inFlightMedian ? Math.round((inFlightMedian.per_second / idleMedian.per_second) * 100) / 100 : null,
    samples: { idle: idle.map((s) => s.per_second), in_flight: inFlight.map((s) => s.per_second) },
    machine: { idle: idle.flatMap((s) => s.machine ?? []), in_flight: inFlight.flatMap((s) => s.machine ?? []) },
    phases_ms: { idle: sidePhases(idle), in_flight: sidePhases(inFlight) },
  };
}

const addCalls = (a: Calls, b: Calls): Calls =>
  Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((carrier) => [carrier, sumOps(a[carrier] ?? {}, b[carrier] ?? {})]));
const sumOps = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((op) => [op, (a[op] ?? 0) + (b[op] ?? 0)]));

function diffCalls(before: Record<string, Record<string, number>>, after: Record<string, Record<string, number>>) {
  return Object.fromEntries(Object.entries(after).map(([carrier, ops]) => [carrier, diff(before[carrier] ?? {}, ops)]));
}
const diff = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v - (a[k] ?? 0)]));
const perEach = (ms: Record<string, number>, n: number) => Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round((v / n) * 10) / 10]));
function countBy(parcels: BenchParcel[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of parcels) counts[p.carrier] = (counts[p.carrier] ?? 0) + 1;
  return counts;
}
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const mb = (bytes: number) => Math.round(bytes / 1048576);
const fmt = (ms: Record<string, number>) => Object.entries(ms).map(([k, v]) => `${k} ${Math.round(v / 1000)} s`).join(', ');
