import type { FloorResult } from './floor-result.js';
import type { DurableReport } from './durable.js';

/**
 * The two figures `npm run bench` is judged by, from one run: what a durable purchase costs in CPU,
 * process by process, and its throughput as a share of the same-shape history with no-op steps (the
 * floor: the Temporal server and the SDK alone), both at the same number of clients. A ratio taken
 * inside one run holds on a busy or a slow machine, where absolute rates do not.
 */
export const FIGURE_CLIENTS = 8;
/** The durable purchase should reach this share of the floor's throughput. */
export const FLOOR_TARGET = 0.85;

/** The stack's processes as `npm start` names them (tools/start.ts), in the order they are printed. */
const PROCESS_NAMES: Record<string, string> = {
  api: 'API',
  workers: 'workers',
  temporal: 'Temporal server',
  postgres: 'PostgreSQL',
  simulator: 'npm start (carrier simulator)',
  bench: 'bench client',
};

export interface Headline {
  clients: number;
  /** CPU per durable purchase (ms) by process, with `total`; absent when the stack is not on this machine. */
  cpu_ms_per_purchase?: Record<string, number>;
  durable_rps?: number;
  floor_rps?: number;
  /** durable_rps ÷ floor_rps. */
  ratio_to_floor?: number;
  target_ratio: number;
  meets_target?: boolean;
  /** What could not be measured, and why. */
  missing: string[];
}

type DurableOutcome = DurableReport | { status: 'failed'; reason: string } | undefined;
type FloorOutcome = FloorResult | { status: 'failed'; reason: string } | undefined;

export function headline(durable: DurableOutcome, floor: FloorOutcome, clients = FIGURE_CLIENTS): Headline {
  const out: Headline = { clients, target_ratio: FLOOR_TARGET, missing: [] };
  if (!durable) out.missing.push('durable: not run (--scenarios without durable)');
  else if ('status' in durable) out.missing.push(`durable: failed: ${durable.reason}`);
  else {
    const level = durable.levels.find((l) => l.concurrency === clients);
    if (!level) out.missing.push(`durable: no level of ${clients} clients (--levels)`);
    else {
      out.durable_rps = level.durable.throughput_rps;
      if (level.cpu_ms_per_purchase) out.cpu_ms_per_purchase = level.cpu_ms_per_purchase.durable;
      else out.missing.push('CPU per purchase: no `npm start` of this DATA_DIR on this machine');
    }
  }
  if (!floor) out.missing.push('floor: not run (--scenarios without floor)');
  else if ('status' in floor) out.missing.push(`floor: failed: ${floor.reason}`);
  else out.floor_rps = Math.round(floor.perSecond * 10) / 10;
  if (out.durable_rps !== undefined && out.floor_rps) {
    out.ratio_to_floor = Math.round((out.durable_rps / out.floor_rps) * 100) / 100;
    out.meets_target = out.ratio_to_floor >= FLOOR_TARGET;
  }
  return out;
}

export function headlineText(h: Headline): string[] {
  const lines = [`Figures (this run, ${h.clients} clients):`];
  const cpu = h.cpu_ms_per_purchase;
  if (cpu) {
    const roles = [...Object.keys(PROCESS_NAMES).filter((r) => r in cpu), ...Object.keys(cpu).filter((r) => !(r in PROCESS_NAMES) && r !== 'total')];
    lines.push(`  CPU per durable purchase, ms: ${roles.map((r) => `${PROCESS_NAMES[r] ?? r} ${cpu[r]}`).join(', ')}; total ${cpu.total}`);
  }
  if (h.ratio_to_floor !== undefined) {
    lines.push(
      `  Durable purchase throughput ${h.durable_rps}/s against the no-op history floor's ${h.floor_rps}/s: ` +
        `${h.ratio_to_floor.toFixed(2)}x of the floor (target: at least ${h.target_ratio}x of the floor; ${h.meets_target ? 'met' : 'not met'})`,
    );
  }
  for (const reason of h.missing) lines.push(`  not measured: ${reason}`);
  return lines;
}
