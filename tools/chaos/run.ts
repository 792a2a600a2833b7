import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { openDatabase } from '../../db/index.js';
import { toolingSettings } from '../tooling-config.js';
import { adminCommands } from '../../admin/index.js';
import { createClients, startReceiver, type KeyOutcome } from './clients.js';
import { formatTable, runChecks, sweptDeliveries, undelivered, unsettled, type Check } from './checks.js';
import { explainUndelivered } from './explain.js';
import { ensureBuilt, startFleet, WORKER_PROCESSES, type Fleet } from './fleet.js';
import type { ChaosOptions } from './options.js';
import { seededRandom } from './random.js';
import { batchChecks, batchPlans, runBatch, type BatchRun } from './batches.js';
import { runPurchases } from './purchases.js';
import { discoverTerms, termsChecks, type TermsTally } from './terms.js';
import { carrierFaults, describeEvent, faultSchedule, type ChaosEvent } from './schedule.js';
import { STRAY_LABEL_SETTLE_MS } from '../../workflows/stray-label.js';
import { closedRunsCheck, ended, formatLatencyTable, formatSlowest, killRowsByWorker, latencyRows, soleCauseRows, strayChecksOpen, type Disruptions, type LatencyRow } from './latency.js';
import type { ChaosCurrency } from './routes.js';
import { addWaits, formatWaits, readPurchases, type PurchaseRead, type Touches } from './waits.js';

export interface ChaosResult {
  ok: boolean;
  checks: Check[];
  table: string;
  /** What actually happened, by kind: worker kills, API kills, Temporal and PostgreSQL restarts, carrier faults. */
  faults: Record<string, number>;
  /** Labels bought abroad, return labels, and of those the returns bought from a shipment. */
  bought: TermsTally;
  /** Every purchase's latency by what it met, and that as a table (p50, p95, p99, max). */
  latency: LatencyRow[];
  latencyTable: string;
  /** The worker-kill row by the worker killed. */
  killTable: string;
  /** Every purchase once, by the one thing that touched it (or several), from its history. */
  soleCauseTable: string;
  /** Each latency row's slowest purchase (key and shipment workflow). */
  slowest: string;
  /** Where the single purchases that took over SLOW_MS waited, from their workflow histories. */
  slowWaits: string;
  crashes: string[];
  dir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FUNDING = ['wallet', 'credit_line', 'card'] as const;

/** The chaos benchmark: the fleet as separate processes, careful clients, seeded faults, then the invariants. */
export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const random = seededRandom(o.seed);
  ensureBuilt(o.build, o.log);
  const dir = await mkdtemp(path.join(tmpdir(), 'parcel-chaos-'));
  await chmod(dir, 0o755);
  const schedule = faultSchedule(random, o.durationMs, WORKER_PROCESSES.length, 2);
  const carrier = carrierFaults();
  o.log(`seed ${o.seed}: ${o.purchases} purchases, concurrency ${o.concurrency}, ${o.batchItems} batch items, faults for ${o.durationMs / 1000} s`);
  o.log('fault schedule:');
  for (const e of schedule) o.log(`  ${describeEvent(e)}`);
  o.log(`  throughout: ${carrier.map((f) => `${f.carrier} ${f.operation} ${f.mode} ${Math.round(f.chance * 100)}%`).join(', ')}`);

  const fleet = await startFleet(dir, o.log);
  const receiver = await startReceiver(seededRandom(o.seed + 1));
  try {
    return await exercise(o, fleet, random, schedule, carrier, receiver, dir);
  } finally {
    await receiver.close();
    await fleet.stop();
    if (!toolingSettings().chaosKeep) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function waitForHttp(url: string, ms = 120_000) {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const res = await request(url);
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer in time`);
    await sleep(250);
  }
}

async function exercise(
  o: ChaosOptions,
  fleet: Fleet,
  random: ReturnType<typeof seededRandom>,
  schedule: ChaosEvent[],
  carrier: ReturnType<typeof carrierFaults>,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  dir: string,
): Promise<ChaosResult> {
  for (const url of fleet.apiUrls) await waitForHttp(`${url}/healthz`);
  await waitForHttp(`${fleet.simUrl}/_sim/carriers`);
  o.log(`fleet up: 2 API processes, workers ${WORKER_PROCESSES.map(([name]) => name.replace(/^worker-/, '')).join(', ')}, the carrier simulator`);

  // Accounts: wallet, credit line and card, each with a live key and a webhook endpoint; six in
  // GBP (acme and swiftpost on GB routes) and three in USD (UPS and USPS on US routes).
  const database = openDatabase(fleet.databaseUrl, { max: 2 });
  const admin = adminCommands(database.db);
  const accounts: Array<{ id: string; key: string; currency: ChaosCurrency }> = [];
  for (let i = 0; i < 9; i++) {
    const funding = FUNDING[i % FUNDING.length];
    const currency = i < 6 ? 'GBP' : 'USD';
    const { id } = await admin.createAccount({ name: `Chaos ${i}`, funding, currency, ...(funding === 'credit_line' ? { creditLimit: '100000.00' } : {}) });
    await admin.enableApi(id);
    if (funding === 'wallet') await admin.topUp(id, '100000.00');
    const key = (await admin.createKey(id, { mode: 'live', rateLimit: '100000/1' })).key;
    accounts.push({ id, key, currency });
  }
  // The batch phase's accounts: a wallet per currency, its batch far within its funds.
  const batchRuns: BatchRun[] = [];
  const plans = batchPlans(o.batchItems);
  for (const plan of plans) {
    if (plan.items === 0) continue;
    const { id } = await admin.createAccount({ name: `Chaos batches ${plan.currency}`, funding: 'wallet', currency: plan.currency });
    await admin.enableApi(id);
    await admin.topUp(id, '1000000.00');
    const key = (await admin.createKey(id, { mode: 'live', rateLimit: '100000/1' })).key;
    batchRuns.push({ accountId: id, key, currency: plan.currency, idempotencyKey: `chaos-${o.seed}-batch-${plan.currency}`, total: plan.items, id: null, final: null });
  }
  await database.close();
  const started = Date.now();
  const clients = createClients({ apiUrls: fleet.apiUrls, started, random, giveUpMs: Math.max(o.durationMs + o.settleMs, 300_000) });
  for (const a of [...accounts, ...batchRuns]) {
    const res = await clients.careful('POST', '/api/v1/webhook_endpoints', a.key, { url: receiver.url });
    if (res?.status !== 201) throw new Error(`webhook endpoint not created: ${res?.status} ${JSON.stringify(res?.body)}`);
  }

  // Which services go abroad and make returns: asked of the carriers through quotes, before any fault.
  o.log('services abroad and for returns, from quotes:');
  const pools = await discoverTerms(clients, { GBP: accounts.find((a) => a.currency === 'GBP')!.key, USD: accounts.find((a) => a.currency === 'USD')!.key }, o.log);

  // Carrier faults for the whole window.
  for (const f of carrier) {
    const res = await request(`${fleet.simUrl}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...f, times: -1 }) });
    if (res.statusCode !== 201) throw new Error(`fault refused: ${await res.body.text()}`);
    await res.body.dump();
  }

  const outages: Array<{ from: number; to: number; what: string }> = [];
  const disruptions: Disruptions = { workerKills: [], outages: [] };
  const done: Record<string, number> = { 'worker SIGKILL': 0, 'API SIGKILL': 0, 'Temporal restart': 0, 'PostgreSQL restart': 0 };
  const now = () => Date.now() - started;
  const GRACE = 15_000;
  const faultsDone = (async () => {
    for (const e of schedule) {
      await sleep(Math.max(0, e.atMs - now()));
      o.log(`  ${describeEvent(e)}`);
      switch (e.kind) {
        case 'kill-worker': {
          const w = fleet.workers[e.worker];
          w.kill();
          done['worker SIGKILL']++;
          // The webhooks worker has no part in a purchase: its kills are not what a purchase meets.
          if (!w.name.includes('webhooks')) disruptions.workerKills.push({ atMs: now(), worker: w.name });
          setTimeout(() => w.start(), e.downMs);
          break;
        }
        case 'kill-api': {
          const a = fleet.apis[e.api];
          a.kill();
          done['API SIGKILL']++;
          const from = now();
          await sleep(e.downMs);
          a.start();
          await waitForHttp(`${fleet.apiUrls[e.api]}/healthz`).catch(() => undefined);
          outages.push({ from, to: now() + GRACE, what: 'API restart' });
          disruptions.outages.push({ what: 'API kill', downAt: from, backAt: now() });
          break;
        }
        case 'restart-temporal': {
          const from = now();
          await fleet.restartTemporal();
          done['Temporal restart']++;
          outages.push({ from, to: now() + GRACE, what: 'Temporal restart' });
          disruptions.outages.push({ what: 'Temporal restart', downAt: from, backAt: now() });
          break;
        }
        case 'restart-postgres': {
          const from = now();
          await fleet.stopPostgres();
          await sleep(e.downMs);
          await fleet.startPostgres();
          done['PostgreSQL restart']++;
          outages.push({ from, to: now() + GRACE, what: 'PostgreSQL restart' });
          disruptions.outages.push({ what: 'PostgreSQL restart', downAt: from, backAt: now() });
          break;
        }
      }
    }
    await sleep(Math.max(0, o.durationMs - now()));
    // Faults stop: carriers behave, webhook endpoints answer 200, every process is up.
    await request(`${fleet.simUrl}/_sim/faults`, { method: 'DELETE' }).then((r) => r.body.dump());
    receiver.flaky = false;
    for (const p of [...fleet.apis, ...fleet.workers]) if (!p.up) p.start();
    o.log(`faults stopped at t+${Math.round(now() / 1000)} s`);
  })();

  // The batches start a tenth of the way in, so that every kind of fault meets them while they run.
  const giveUpMs = Math.max(o.durationMs + o.settleMs, 300_000);
  const batchesDone = (async () => {
    await sleep(Math.max(0, o.durationMs * 0.1 - now()));
    o.log(`  t+${(now() / 1000).toFixed(1)}s batches: ${batchRuns.map((r) => `${r.total} items in ${r.currency}`).join(', ')}`);
    await Promise.all(batchRuns.map((r) => runBatch(clients, r, plans.find((p) => p.currency === r.currency)!, pools, o.seed, giveUpMs)));
    o.log(`batches completed at t+${Math.round(now() / 1000)} s`);
  })();

  const outagesAtMs = schedule.filter((e) => e.kind !== 'kill-worker').map((e) => e.atMs);
  const outcomes = await runPurchases({ o, clients, accounts, pools, random, now, simUrl: fleet.simUrl, outagesAtMs });
  await batchesDone;
  o.log(`clients done at t+${Math.round(now() / 1000)} s`);
  await faultsDone;

  o.log(`waiting for nothing pending or voiding and every event delivered`);
  const settleUntil = Date.now() + o.settleMs;
  const ids = [...accounts.map((a) => a.id), ...batchRuns.map((r) => r.accountId)];
  let left = Infinity;
  let notDelivered: string[] = [];
  while (Date.now() < settleUntil) {
    left = await unsettled(fleet.databaseUrl, ids).catch(() => Infinity);
    notDelivered = left === 0 ? await undelivered(fleet.databaseUrl, ids, receiver).catch(() => ['?']) : ['?'];
    if (left === 0 && notDelivered.length === 0) break;
    await sleep(2_000);
  }
  o.log(`settled at t+${Math.round(now() / 1000)} s: ${left} pending or voiding, ${notDelivered.length} events not yet delivered`);
  if (notDelivered.length && !notDelivered.includes('?')) {
    await explainUndelivered({ databaseUrl: fleet.databaseUrl, temporalAddress: fleet.temporalAddress, receiver, started }, notDelivered, o.log).catch((err: Error) =>
      o.log(`  (could not explain them: ${err.message})`),
    );
  }

  // A failed purchase's run goes on looking for a label the carrier may still commit, for
  // STRAY_LABEL_SETTLE_MS after the failure, and USPS's last look is the one that cancels by the key:
  // until those looks are over, a failed purchase's label may still be live by design, so the labels
  // are checked after them.
  const strayUntil = Date.now() + STRAY_LABEL_SETTLE_MS + 60_000;
  let looking = await strayChecksOpen(fleet.temporalAddress).catch(() => -1);
  while (looking !== 0 && Date.now() < strayUntil) {
    await sleep(5_000);
    looking = await strayChecksOpen(fleet.temporalAddress).catch(() => -1);
  }
  o.log(`stray-label checks over at t+${Math.round(now() / 1000)} s: ${looking === -1 ? 'could not be counted' : `${looking} still looking`}`);

  const crashes = [...fleet.apis, ...fleet.workers].flatMap((p) => p.crashes.map((c) => `${p.name}: ${c}`));
  const swept = await sweptDeliveries(path.join(dir, 'logs'));
  const checks = await runChecks({ databaseUrl: fleet.databaseUrl, simUrl: fleet.simUrl, accountIds: ids, keys: outcomes, receiver, seen: clients.seen, outages, crashes, sweptDeliveries: swept });
  if (batchRuns.length) {
    checks.push(...(await batchChecks({ databaseUrl: fleet.databaseUrl, simUrl: fleet.simUrl, apiUrl: fleet.apiUrls[0], clients, runs: batchRuns, acked: receiver.acked })));
  }
  const terms = await termsChecks(fleet.databaseUrl, ids);
  checks.push(...terms.checks);
  checks.push(await closedRunsCheck(fleet.temporalAddress));
  const latency = latencyRows(outcomes, disruptions);
  const histories = await purchaseHistories(fleet.temporalAddress, outcomes);
  const touches = new Map<string, Touches>([...histories.read].map(([id, r]) => [id, r.touches]));
  const soleCause = soleCauseRows(outcomes, disruptions, touches);
  return {
    ok: checks.every((c) => c.ok),
    checks,
    table: formatTable(checks),
    faults: { ...done, 'carrier fault kinds': carrier.length, 'planted buy faults met': outcomes.filter((k) => k.planted?.met).length },
    bought: terms.tally,
    latency,
    latencyTable: formatLatencyTable(latency),
    killTable: formatLatencyTable(killRowsByWorker(outcomes, disruptions)),
    soleCauseTable: formatLatencyTable(soleCause) + histories.unread,
    // The rows of both tables: a row of the second is where a recovery target is missed.
    slowest: `${formatSlowest(latency)}\n${formatSlowest(soleCause)}`,
    slowWaits: slowPurchaseWaits(outcomes, histories, started),
    crashes,
    dir,
  };
}

/** A purchase slower than this is one whose waits the run reads back (the issue's 10 s and 15 s targets). */
const SLOW_MS = 10_000;

/** Each single purchase's first run read back (its waits and what touched it), and a line on those that could not be. */
async function purchaseHistories(temporalAddress: string, outcomes: readonly KeyOutcome[]): Promise<{ read: Map<string, PurchaseRead>; unread: string }> {
  const ids = [...ended(outcomes)].flatMap(({ p }) => [...p.shipmentIds].slice(0, 1));
  let reason = '';
  const read = await readPurchases(temporalAddress, ids).catch((err: Error) => {
    reason = ` (${err.message})`;
    return new Map<string, PurchaseRead>();
  });
  const missing = ids.length - read.size;
  return { read, unread: missing ? `\n${missing} of ${ids.length} histories could not be read${reason}: a kill in flight counts as touching those purchases` : '' };
}

/**
 * Where the single purchases over SLOW_MS waited, as a table, from the histories that could be read,
 * with the time before the workflow started (the API's part of the request) and from its outcome to
 * the client's read (the API's answer, or the GET that showed it). `started`: the run's start (epoch ms).
 */
function slowPurchaseWaits(outcomes: readonly KeyOutcome[], histories: Awaited<ReturnType<typeof purchaseHistories>>, started: number): string {
  const slow = [...ended(outcomes)].filter(({ startedAt, endedAt }) => endedAt - startedAt > SLOW_MS);
  if (!slow.length) return `no single purchase took over ${SLOW_MS / 1000} s`;
  const waits: Array<ReadonlyMap<string, number>> = [];
  for (const { p, startedAt, endedAt } of slow) {
    const read = histories.read.get([...p.shipmentIds][0] ?? '');
    if (!read) continue;
    const around = new Map<string, number>(read.waits);
    if (read.startedAt !== undefined) around.set(BEFORE_THE_WORKFLOW, Math.max(0, read.startedAt - (started + startedAt)));
    if (read.outcomeAt !== undefined) around.set(AFTER_THE_OUTCOME, Math.max(0, started + endedAt - read.outcomeAt));
    waits.push(around);
  }
  const unread = slow.length - waits.length ? ` (${slow.length - waits.length} could not be read)` : '';
  return `${slow.length} purchases over ${SLOW_MS / 1000} s, from their workflows' histories${unread}:\n${formatWaits(addWaits(waits))}`;
}

const BEFORE_THE_WORKFLOW = 'the request before its workflow started (the API)';
const AFTER_THE_OUTCOME = "from its outcome to the client's read (the API's answer, or the GET that showed it)";
