import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { closedLoop } from './load.js';
import { meanPhases, purchasePhases, type Phases, type TimedPurchase } from './purchase-phases.js';
import { describeMachine, type Machine } from './report.js';
import { summarize, type LatencySummary } from './stats.js';
import type { TrackingStack } from './tracking-stack.js';

export interface PurchaseFigures {
  purchased: number;
  failed: number;
  wall_ms: number;
  per_second: number;
  latency_ms: LatencySummary | null;
  /** The speed probe's time just before (tools/bench/cpu.ts), and the share of the machine's CPU stolen meanwhile. */
  machine?: { probe_ms: number; steal_share: number };
  /** Where a purchase's time went, the mean of each phase in ms (tools/bench/purchase-phases.ts). */
  phases_ms: Phases;
}

export interface TrackingReport {
  scenario: 'tracking';
  options: { parcels: number; scale: number; days: number; carriers: string[]; purchases: number; samples: number; clients: number; cache: number; trackingNice?: number; spread: boolean; minutes: number };
  machine: Machine;
  stack: string;
  parcels: Record<string, number>;
  /** Parcels in flight on a real clock that make the same load: the parcels × the scale. */
  equivalent_parcels_in_flight: number;
  start: { wall_s: number; cpu_ms_per_parcel: Record<string, number> };
  run: {
    wall_s: number;
    measured_from_day: number;
    simulated_days: number;
    parcel_days: number;
    still_in_flight: number;
    /** Cores each process spends with nothing in flight, measured before the parcels and taken off the next figure. */
    idle_cores: Record<string, number>;
    cpu_s_per_parcel_day: Record<string, number>;
    cpu_s_per_parcel_day_with_idle: Record<string, number>;
  };
  /** From the start on: a week's parcels' calls over their life (with --spread, the start and a stretch of it only). */
  carrier_calls_per_parcel: Record<string, Record<string, number>>;
  /** Over the measured stretch, per parcel-day: what the fleet asks of each carrier (the start left out). */
  carrier_calls_per_parcel_day: Record<string, Record<string, number>>;
  /** Parcel hours from a scan to its record, by carrier and status. */
  scan_delay_parcel_hours: Record<string, Record<string, { p50: number; p95: number }>>;
  track_alert: unknown;
  memory: {
    workers_rss_mb: { before: number; peak: number };
    temporal_rss_mb: { before: number; peak: number };
    workers_kb_per_open_workflow: number;
    temporal_kb_per_open_workflow: number;
  };
  purchases: {
    /** The median of the samples timed before the parcels. */
    idle: PurchaseFigures;
    /** The median of the samples timed among them, this one at the parcels' day `at_day` with `parcels_in_flight` open. */
    in_flight: (PurchaseFigures & { at_day: number; parcels_in_flight: number }) | undefined;
    /** The two medians' ratio. */
    ratio: number | null;
    /** Every sample's purchases a second, in the order they were timed. */
    samples: { idle: number[]; in_flight: number[] };
    /** The machine at each sample, in the same order: the same speed on both sides makes the ratio the parcels'. */
    machine: { idle: Array<NonNullable<PurchaseFigures['machine']>>; in_flight: Array<NonNullable<PurchaseFigures['machine']>> };
    /** Where a purchase's time went on each side: the mean of the samples' phases, in ms. */
    phases_ms: { idle: Phases; in_flight: Phases };
  };
}

const BODY = {
  service: 'acme_ground',
  from: { name: 'Bench Sender', line1: '1 High Street', city: 'London', postcode: 'EC1A 1BB', country: 'GB' },
  to: { name: 'Bench Buyer', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
  parcel: { weight_g: 1_200, length_mm: 300, width_mm: 200, height_mm: 100 },
};

/**
 * `count` live wallet purchases at `clients` closed-loop clients, each until it is purchased (a 202
 * is followed as a client would). Each has a reference, which keeps it apart from the bench's parcels.
 */
export async function purchaseRun(stack: TrackingStack, key: string, count: number, clients: number): Promise<PurchaseFigures> {
  let failed = 0;
  const run = randomUUID().slice(0, 8);
  const timed: TimedPurchase[] = [];
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const a = await request(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: a.statusCode, body: (await a.body.json()) as { id?: string; status?: string } };
  };
  const load = await closedLoop({ concurrency: clients, requests: count, timeMs: 60 * 60_000 }, async (i) => {
    const sentAt = Date.now();
    const a = await send('POST', '/api/v1/shipments', { ...BODY, reference: `bench-${run}-${i}` }, { 'idempotency-key': `${run}-${i}` });
    let status = a.body.status;
    while (a.status === 202 && status === 'pending') {
      await sleep(200);
      status = (await send('GET', `/api/v1/shipments/${a.body.id}`)).body.status;
    }
    if (status !== 'purchased') failed++;
    else if (a.body.id) timed.push({ shipmentId: a.body.id, sentAt, answeredAt: Date.now() });
    return a.status;
  });
  const purchased = load.requests - failed;
  return {
    purchased,
    failed,
    wall_ms: Math.round(load.wallMs),
    per_second: Math.round((purchased / Math.max(load.wallMs, 1)) * 1000 * 10) / 10,
    latency_ms: summarize(load.latencies),
    phases_ms: await purchasePhases(stack.temporal, timed),
  };
}

/** The report as a few lines of text, before its JSON. */
export function renderTracking(r: TrackingReport): string {
  const cpu = Object.entries(r.run.cpu_s_per_parcel_day)
    .map(([role, s]) => `${role} ${s}`)
    .join(', ');
  const callList = (per: Record<string, Record<string, number>>) =>
    Object.entries(per)
      .map(([carrier, ops]) => `${carrier}: ${Object.entries(ops).map(([op, n]) => `${op} ${n}`).join(', ') || 'none'}`)
      .join('; ');
  const p = r.purchases;
  const spread = r.options.spread;
  return [
    spread
      ? `tracking: ${Object.entries(r.parcels).map(([c, n]) => `${n} ${c}`).join(', ')} parcels in flight, each somewhere in its week (scale ${r.options.scale}: the load of ${r.equivalent_parcels_in_flight} parcels on a real clock)`
      : `tracking: ${Object.entries(r.parcels).map(([c, n]) => `${n} ${c}`).join(', ')} parcels in flight, a week in ${Math.round((7 * 1440) / r.options.scale)} min (scale ${r.options.scale}: the load of ${r.equivalent_parcels_in_flight} parcels on a real clock)`,
    describeMachine(r.machine),
    r.stack,
    spread
      ? `started in ${r.start.wall_s} s; measured for ${Math.round(r.run.wall_s - r.start.wall_s)} s from then: ${r.run.parcel_days} parcel-days, ${r.run.still_in_flight} still in flight at the end`
      : `started in ${r.start.wall_s} s; followed ${r.run.simulated_days} simulated days in ${r.run.wall_s} s, measured from day ${r.run.measured_from_day}: ${r.run.parcel_days} parcel-days, ${r.run.still_in_flight} still in flight at the end`,
    `CPU seconds per parcel-day (the idle stack's ${Object.values(r.run.idle_cores).reduce((a, b) => a + b, 0).toFixed(3)} cores taken off): ${cpu}`,
    spread
      ? `UPS polls per parcel-day: ${r.carrier_calls_per_parcel_day.ups?.track ?? 0} (Track Alert pushes instead)`
      : `UPS polls per parcel over its life: ${r.carrier_calls_per_parcel.ups?.track ?? 0} (Track Alert pushes instead)`,
    `hours from a delivery to its record, median and 95th percentile: ${Object.entries(r.scan_delay_parcel_hours)
      .map(([carrier, statuses]) => `${carrier} ${statuses.delivered?.p50 ?? '-'}, ${statuses.delivered?.p95 ?? '-'}`)
      .join('; ')}`,
    spread ? `carrier calls per parcel-day: ${callList(r.carrier_calls_per_parcel_day)}` : `carrier calls per parcel: ${callList(r.carrier_calls_per_parcel)}`,
    `memory: workers ${r.memory.workers_rss_mb.before} → ${r.memory.workers_rss_mb.peak} MB (${r.memory.workers_kb_per_open_workflow} KB per open workflow, cache ${r.options.cache}), Temporal ${r.memory.temporal_rss_mb.before} → ${r.memory.temporal_rss_mb.peak} MB (${r.memory.temporal_kb_per_open_workflow} KB per open workflow)`,
    `purchases/s at ${r.options.clients} clients, the median of ${r.options.samples}: ${p.idle.per_second} with nothing in flight (${p.samples.idle.join(', ')}), ${p.in_flight ? `${p.in_flight.per_second} with ${p.in_flight.parcels_in_flight} parcels in flight (day ${p.in_flight.at_day}; ${p.samples.in_flight.join(', ')})` : 'not measured with the parcels in flight'}${p.ratio === null ? '' : ` (${p.ratio}×)`}`,
    `the machine at each purchase sample (a fixed workload's ms before it; the CPU share stolen during it): ${machineList(p.machine.idle)} with nothing in flight, ${machineList(p.machine.in_flight) || '-'} with the parcels`,
    `where a purchase's time went, mean ms (nothing in flight → with the parcels): ${phaseList(p.phases_ms)}`,
  ].join('\n');
}

/** Each phase on both sides, the largest first. */
function phaseList(p: TrackingReport['purchases']['phases_ms']): string {
  const names = [...new Set([...Object.keys(p.idle), ...Object.keys(p.in_flight)])].sort((a, b) => (p.in_flight[b] ?? 0) - (p.in_flight[a] ?? 0));
  return names.map((n) => `${n} ${p.idle[n] ?? '-'} → ${p.in_flight[n] ?? '-'}`).join(', ');
}

/** A side's phases: the mean over its samples. */
export const sidePhases = (samples: PurchaseFigures[]): Phases => meanPhases(samples.map((s) => s.phases_ms));

const machineList = (samples: Array<NonNullable<PurchaseFigures['machine']>>) => samples.map((m) => `${m.probe_ms} (${m.steal_share})`).join(', ');
