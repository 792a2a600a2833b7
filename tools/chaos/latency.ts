import { Client, Connection } from '@temporalio/client';
import { SA } from '../../contract/index.js';
import type { Check } from './checks.js';
import type { PurchaseOutcome } from './purchases.js';
import { BUY_FAULT_KINDS } from './schedule.js';
import type { Touches } from './waits.js';

/**
 * What the run did to the fleet, in ms since it started: each worker SIGKILL, and each time an API
 * process, Temporal or PostgreSQL went down and was back.
 */
export interface Disruptions {
  /** Each worker SIGKILL, and which process it was (`worker-carriers-2`). */
  workerKills: Array<{ atMs: number; worker: string }>;
  outages: Array<{ what: 'API kill' | 'Temporal restart' | 'PostgreSQL restart'; downAt: number; backAt: number }>;
}

/** One row of the latency table: what the purchases met, and their latencies from that fault (or its recovery). */
export interface LatencyRow {
  met: string;
  from: string;
  latenciesMs: number[];
  /** The row's slowest purchase: its key and shipment, to look up in the Temporal UI. */
  slowest?: { ms: number; key: string; shipmentId?: string };
}

/** Adds a purchase's latency to a row, keeping the row's slowest. */
function record(row: LatencyRow, ms: number, p: PurchaseOutcome): void {
  row.latenciesMs.push(ms);
  if (!row.slowest || ms > row.slowest.ms) row.slowest = { ms, key: p.key, shipmentId: [...p.shipmentIds][0] };
}

/** The rows of one table: its carrier-fault, worker-kill and outage rows, by what they hold. */
interface FaultRows {
  carrier: Map<string, LatencyRow>;
  workerKill: LatencyRow;
  outage: Map<string, LatencyRow>;
}

const row = (met: string, from: string): LatencyRow => ({ met, from, latenciesMs: [] });

/**
 * The rows a purchase belongs in, each with its latency: its planted carrier fault (from the
 * request), `kill` (from the kill), each outage that began while it was in flight (from the moment
 * it was back).
 */
function rowsMet(rows: FaultRows, d: Disruptions, p: PurchaseOutcome, startedAt: number, endedAt: number, kill: Disruptions['workerKills'][number] | undefined) {
  const met: Array<[LatencyRow, number]> = [];
  if (p.planted?.met) met.push([rows.carrier.get(p.planted.kind)!, endedAt - startedAt]);
  if (kill) met.push([rows.workerKill, endedAt - kill.atMs]);
  for (const o of d.outages.filter((x) => x.downAt >= startedAt && x.downAt < endedAt)) met.push([rows.outage.get(o.what)!, Math.max(0, endedAt - o.backAt)]);
  return met;
}

/**
 * Every purchase's latency, by what it met (faults cost seconds). A purchase is in every row whose
 * fault it met: its planted carrier fault, a worker SIGKILL while it was in flight, an API, Temporal
 * or PostgreSQL outage that began while it was in flight (rowsMet); "nothing" when it met none of
 * them (from the request). Its end is when its client read the final state: a 201, a failure, or the
 * GET after a 202 that showed it done.
 */
export function latencyRows(purchases: readonly PurchaseOutcome[], d: Disruptions): LatencyRow[] {
  const nothing = row('nothing', 'the request');
  const rows: FaultRows = {
    carrier: new Map(BUY_FAULT_KINDS.map((kind) => [kind, row(`one carrier ${kind} on the buy`, 'the request')])),
    workerKill: row('a worker SIGKILL', 'the kill'),
    outage: new Map(OUTAGES.map(([what, met]) => [what, row(met, 'it was back')])),
  };
  for (const { p, startedAt, endedAt } of ended(purchases)) {
    const met = rowsMet(rows, d, p, startedAt, endedAt, firstKill(d, startedAt, endedAt));
    for (const [r, ms] of met) record(r, ms, p);
    if (!met.length) record(nothing, endedAt - startedAt, p);
  }
  return [nothing, rows.workerKill, ...rows.carrier.values(), ...rows.outage.values()];
}

/**
 * Every purchase once, by the one thing that touched it (each recovery target is for one fault): its
 * planted carrier fault and nothing else, a worker SIGKILL that took one of its tasks (read from its
 * history: a task lost with its worker, not a kill of a process that held none of its work) and
 * nothing else, one outage that began while it was in flight and nothing else, or nothing. A purchase
 * touched by two or more of these, by a carrier fault on a call other than its planted one (a carrier
 * call that failed beyond the planted fault's one), by a card processor fault, or by a task lost with
 * no kill in flight, is in the last row, from the request. A purchase whose history could not be read
 * counts as touched by a kill when one fell while it was in flight.
 */
export function soleCauseRows(purchases: readonly PurchaseOutcome[], d: Disruptions, touches: ReadonlyMap<string, Touches>): LatencyRow[] {
  const nothing = row('nothing', 'the request');
  const rows: FaultRows = {
    carrier: new Map(BUY_FAULT_KINDS.map((kind) => [kind, row(`only one carrier ${kind} on the buy`, 'the request')])),
    workerKill: row('only a worker SIGKILL that took one of its tasks', 'the kill'),
    outage: new Map(OUTAGES.map(([what, , only]) => [what, row(only, 'it was back')])),
  };
  const several = row('two or more of these, or a fault on another of its calls', 'the request');
  for (const { p, startedAt, endedAt } of ended(purchases)) {
    const touched = touches.get([...p.shipmentIds][0] ?? '');
    const kill = firstKill(d, startedAt, endedAt);
    const met = rowsMet(rows, d, p, startedAt, endedAt, touched?.lostTasks === 0 ? undefined : kill);
    const otherFaults = (touched?.failedCarrierCalls ?? 0) - (p.planted?.met ? 1 : 0) > 0 || (touched?.failedCardCalls ?? 0) > 0;
    // A task lost with no kill in flight by the run's clock: lost to something the run did not plant.
    const lostWithoutKill = !kill && (touched?.lostTasks ?? 0) > 0;
    // Tasks lost with two worker processes: two kills, each of which took one of its tasks.
    const twoKills = (touched?.lostWith ?? 0) > 1;
    if (met.length > 1 || otherFaults || lostWithoutKill || twoKills) record(several, endedAt - startedAt, p);
    else if (met.length === 1) record(met[0][0], met[0][1], p);
    else record(nothing, endedAt - startedAt, p);
  }
  return [nothing, rows.workerKill, ...rows.carrier.values(), ...rows.outage.values(), several];
}

/**
 * The worker-kill row split by the worker killed (its group: the two `shipments` processes are one
 * group), from the first kill a purchase met: what a kill costs depends on what that process held.
 */
export function killRowsByWorker(purchases: readonly PurchaseOutcome[], d: Disruptions): LatencyRow[] {
  const rows = new Map<string, LatencyRow>();
  for (const { p, startedAt, endedAt } of ended(purchases)) {
    const kill = firstKill(d, startedAt, endedAt);
    if (!kill) continue;
    const group = kill.worker.replace(/-\d+$/, '');
    if (!rows.has(group)) rows.set(group, { met: `a SIGKILL of ${group}`, from: 'the kill', latenciesMs: [] });
    record(rows.get(group)!, endedAt - kill.atMs, p);
  }
  return [...rows.values()];
}

/** The single purchases that ended (not the batches' items), with their times. */
export function* ended(purchases: readonly PurchaseOutcome[]) {
  for (const p of purchases) {
    if (p.kind !== 'purchase' || p.outcome === 'unfinished' || p.startedAt === undefined || p.endedAt === undefined) continue;
    yield { p, startedAt: p.startedAt, endedAt: p.endedAt };
  }
}

/** The first worker SIGKILL while a purchase was in flight. */
const firstKill = (d: Disruptions, startedAt: number, endedAt: number) => d.workerKills.find((k) => k.atMs >= startedAt && k.atMs < endedAt);

/** Each outage: its row in the table of every row a purchase met, and in the table of its one cause. */
const OUTAGES = [
  ['API kill', 'in flight when an API process was SIGKILLed', 'only an API process SIGKILLed while it was in flight'],
  ['Temporal restart', 'in flight across the Temporal restart', 'only the Temporal restart'],
  ['PostgreSQL restart', 'in flight across the PostgreSQL restart', 'only the PostgreSQL restart'],
] as const;

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function formatLatencyTable(rows: readonly LatencyRow[]): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = ['| purchases that met | measured from | n | p50 | p95 | p99 | max |', '|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    const sorted = [...r.latenciesMs].sort((a, b) => a - b);
    const cells = sorted.length ? [50, 95, 99].map((p) => s(percentile(sorted, p))).concat(s(sorted[sorted.length - 1])) : ['–', '–', '–', '–'];
    lines.push(`| ${r.met} | ${r.from} | ${sorted.length} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Each row's slowest purchase, by key and shipment: where to start reading why it took that long. */
export function formatSlowest(rows: readonly LatencyRow[]): string {
  return rows
    .filter((r) => r.slowest)
    .map((r) => `- ${r.met}: ${(r.slowest!.ms / 1000).toFixed(1)} s, key ${r.slowest!.key}${r.slowest!.shipmentId ? `, shipment/${r.slowest!.shipmentId}` : ''}`)
    .join('\n');
}

/**
 * Shipment runs that ended their purchase failed and are still open: each is looking for a label the
 * carrier may commit late (workflows/stray-label.ts), and cancels it at the latest by its last look.
 */
export async function strayChecksOpen(temporalAddress: string): Promise<number> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const { count } = await new Client({ connection }).workflow.count(`ExecutionStatus = "Running" AND ${SA.ShipmentStatus.name} = "failed"`);
    return count;
  } finally {
    await connection.close();
  }
}

/**
 * Every workflow of the run closed as a business process ends, or still runs: none Failed, Terminated
 * or TimedOut. A carrier's answer, however odd, ends a shipment `failed`, never its workflow Failed.
 */
export async function closedRunsCheck(temporalAddress: string): Promise<Check> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = new Client({ connection });
    const bad: string[] = [];
    let total = 0;
    for await (const w of client.workflow.list({ query: 'ExecutionStatus != "Running"' })) {
      total++;
      if (w.status.name === 'FAILED' || w.status.name === 'TERMINATED' || w.status.name === 'TIMED_OUT') bad.push(`${w.workflowId} ${w.status.name}`);
    }
    const sample = bad.length ? `${bad.length}: ${bad.slice(0, 4).join('; ')}${bad.length > 4 ? '; …' : ''}` : `${total} closed runs, none Failed, Terminated or TimedOut`;
    return { name: 'no workflow ended Failed, Terminated or TimedOut', ok: bad.length === 0, detail: sample };
  } finally {
    await connection.close();
  }
}
