import os from 'node:os';
import type { BenchOptions } from './options.js';
import type { DurableReport, LevelReport } from './durable.js';
import { headlineText, type Headline } from './figures.js';
import type { FloorResult } from './floor-result.js';
import type { ScenarioOutcome } from './scenarios.js';
import { summarize, type LatencySummary } from './stats.js';

export interface Machine {
  cpu_model: string;
  cpu_count: number;
  total_memory_bytes: number;
  node: string;
  platform: string;
  arch: string;
  os_release: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model.trim() || 'unknown',
    cpu_count: cpus.length,
    total_memory_bytes: os.totalmem(),
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    os_release: os.release(),
  };
}

/** One line: model × cores, memory, Node, platform. */
export function describeMachine(m: Machine): string {
  return `${m.cpu_model} × ${m.cpu_count}, ${gib(m.total_memory_bytes)} RAM, Node ${m.node}, ${m.platform} ${m.arch}`;
}

export interface ScenarioReport {
  name: string;
  endpoint: string;
  status: 'ran' | 'skipped' | 'failed';
  reason?: string;
  note?: string;
  requests?: number;
  ok?: number;
  /** Every outcome by status code (2xx included): a purchase answers 201, or 202 while still pending. */
  statuses?: Record<string, number>;
  /** Non-2xx answers by status code, and `network:<code>` for requests that got no answer. */
  errors?: Record<string, number>;
  throughput_rps?: number;
  /** Over every request that got an HTTP answer, sending to last body byte. */
  latency_ms?: LatencySummary | null;
  wall_ms?: number;
  stopped_by?: string;
}

export interface BenchReport {
  started_at: string;
  machine: Machine;
  target: { url: string; mode: string; key: 'given' | 'created'; account_id?: string; top_up?: string };
  load: { concurrency: number; requests_per_scenario: number; time_limit_ms: number; duration_bound: boolean };
  scenarios: ScenarioReport[];
  /** The `durable` scenario: our purchase against a direct one, per concurrency level. */
  durable?: DurableReport | { status: 'failed'; reason: string };
  /** The `floor` scenario: the purchase's history with no-op steps, on a Temporal dev server of its own. */
  floor?: FloorResult | { status: 'failed'; reason: string };
  /** The durable purchase's CPU by process and its share of the floor's throughput, from this run. */
  figures?: Headline;
}

const is2xx = (status: string) => /^2\d\d$/.test(status);

export function scenarioReport(outcome: ScenarioOutcome): ScenarioReport {
  if (outcome.status !== 'ran') return { name: outcome.name, endpoint: outcome.endpoint, status: outcome.status, reason: outcome.reason };
  const { load } = outcome;
  const errors: Record<string, number> = {};
  const statuses = Object.fromEntries([...load.outcomes].sort(([a], [b]) => a.localeCompare(b)));
  let ok = 0;
  for (const [key, n] of Object.entries(statuses)) {
    if (is2xx(key)) ok += n;
    else errors[key] = n;
  }
  return {
    name: outcome.name,
    endpoint: outcome.endpoint,
    status: 'ran',
    ...(outcome.note ? { note: outcome.note } : {}),
    requests: load.requests,
    ok,
    statuses,
    errors,
    throughput_rps: load.wallMs > 0 ? Math.round((load.requests / load.wallMs) * 1000 * 10) / 10 : 0,
    latency_ms: summarize(load.latencies),
    wall_ms: Math.round(load.wallMs),
    stopped_by: load.stoppedBy,
  };
}

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;
const ms = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const numeric = (c: number) => c >= 2 && c !== 4;
  return rows
    .map((r) => r.map((cell, c) => (numeric(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd())
    .join('\n');
}

/** The human-readable form: machine, target, one row per scenario, then notes. */
export function renderText(report: BenchReport): string {
  const m = report.machine;
  const t = report.target;
  const bound = report.load.duration_bound
    ? `${report.load.time_limit_ms / 1000} s (at most ${report.load.requests_per_scenario} requests) per scenario`
    : `${report.load.requests_per_scenario} requests per scenario`;
  const lines = [
    `Machine   ${describeMachine(m)}`,
    `Target    ${t.url}, ${t.mode} mode, ${t.key === 'created' ? `demo account ${t.account_id} (wallet topped up ${t.top_up})` : 'key given'}`,
    `Load      closed loop, concurrency ${report.load.concurrency}, ${bound}`,
    '',
  ];
  const rows = [['scenario', 'status', 'requests', 'ok', 'errors', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'wall s']];
  const notes: string[] = [];
  for (const s of report.scenarios) {
    if (s.status !== 'ran') {
      rows.push([s.name, s.status, '-', '-', '-', '-', '-', '-', '-', '-', '-']);
      notes.push(`${s.name}: ${s.status}: ${s.reason} (${s.endpoint})`);
      continue;
    }
    const errors = Object.entries(s.errors ?? {}).map(([k, n]) => `${k}×${n}`).join(' ') || '0';
    const l = s.latency_ms ?? undefined;
    rows.push([
      s.name,
      s.status,
      String(s.requests),
      String(s.ok),
      errors,
      String(s.throughput_rps),
      ms(l?.p50),
      ms(l?.p95),
      ms(l?.p99),
      ms(l?.max),
      ((s.wall_ms ?? 0) / 1000).toFixed(2),
    ]);
    if (s.note) notes.push(`${s.name}: ${s.note}`);
    if (s.stopped_by === 'time' && !report.load.duration_bound) notes.push(`${s.name}: stopped at the ${report.load.time_limit_ms / 1000} s safety limit`);
    if (s.stopped_by === 'interrupted') notes.push(`${s.name}: interrupted; partial results`);
    if (s.errors?.['429']) notes.push(`${s.name}: 429 rate_limited: the key's allowance is spent (keys the bench creates have a high limit)`);
  }
  return [
    ...lines,
    ...durableText(report.durable),
    ...floorText(report.floor),
    ...(rows.length > 1 ? [table(rows)] : []),
    ...(notes.length ? ['', ...notes] : []),
    ...(report.figures ? ['', `Machine   ${describeMachine(m)}`, ...headlineText(report.figures)] : []),
  ].join('\n');
}

function durableText(d: BenchReport['durable']): string[] {
  if (!d) return [];
  if ('status' in d) return [`durable: failed: ${d.reason}`, ''];
  const rows = [['clients', 'durable p50', 'p99', '/s', 'direct p50', 'p99', '/s', 'p50 ×', 'p99 ×', 'throughput ×', 'errors']];
  for (const l of d.levels) {
    const errors = Object.entries({ ...l.durable.errors }).map(([k, n]) => `${k}×${n}`).join(' ') || '0';
    rows.push([
      String(l.concurrency),
      ms(l.durable.latency_ms?.p50),
      ms(l.durable.latency_ms?.p99),
      String(l.durable.throughput_rps),
      ms(l.direct.latency_ms?.p50),
      ms(l.direct.latency_ms?.p99),
      String(l.direct.throughput_rps),
      String(l.ratio.p50),
      String(l.ratio.p99),
      String(l.ratio.throughput),
      errors,
    ]);
  }
  const r = d.round_trips;
  return [
    `Durable purchase (live wallet, ${d.service}) against a direct one (hold, ${d.carrier} call, capture; no Temporal), ms:`,
    table(rows),
    `Server round trips before the answer: ${r.total_dispatches} dispatches (${r.workflow_tasks} workflow tasks, ${r.activity_tasks} activity task) and ${r.local_activities} local activities in the worker`,
    ...cpuText(d.levels),
    '',
  ];
}

function floorText(f: BenchReport['floor']): string[] {
  if (!f) return [];
  if ('status' in f) return [`floor: failed: ${f.reason}`, ''];
  return [
    `No-op history floor (the purchase's shape, no-op steps; ${f.workflows} purchases after ${f.warmup} to warm up, ${f.clients} clients): ` +
      `${f.perSecond.toFixed(1)}/s, p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms`,
    `  CPU per purchase, ms: temporal ${f.cpu.temporal}, worker ${f.cpu.worker}, client ${f.cpu.client}; total ${f.cpu.total}`,
    '',
  ];
}

/** Where each purchase's CPU went, per process (from /proc), when the stack ran on this machine. */
function cpuText(levels: LevelReport[]): string[] {
  const measured = levels.filter((l) => l.cpu_ms_per_purchase);
  if (!measured.length) return [];
  const roles = [...new Set(measured.flatMap((l) => Object.keys(l.cpu_ms_per_purchase!.durable)))].filter((role) => role !== 'total');
  const rows = [['clients', 'path', ...roles, 'total']];
  for (const l of measured) {
    for (const [path, cpu] of Object.entries(l.cpu_ms_per_purchase!)) {
      rows.push([String(l.concurrency), path, ...roles.map((role) => (role in cpu ? String(cpu[role]) : '-')), String(cpu.total)]);
    }
  }
  return ['', 'CPU per purchase, ms (all processes on this machine, from /proc; the direct path runs in the bench):', table(rows)];
}

export function skeleton(options: BenchOptions, startedAt: Date): Omit<BenchReport, 'target' | 'scenarios'> {
  return {
    started_at: startedAt.toISOString(),
    machine: machine(),
    load: {
      concurrency: options.concurrency,
      requests_per_scenario: options.requests,
      time_limit_ms: options.timeMs,
      duration_bound: options.timed,
    },
  };
}
