import { ALL_CARRIER_MODULES } from '../../carriers/index.js';
import type { Random } from './random.js';

export type ChaosEvent =
  | { atMs: number; kind: 'kill-worker'; worker: number; downMs: number }
  | { atMs: number; kind: 'kill-api'; api: number; downMs: number }
  | { atMs: number; kind: 'restart-temporal' }
  | { atMs: number; kind: 'restart-postgres'; downMs: number };

/** A carrier (or card processor) fault the simulator applies to a share of calls while faults run. */
export interface CarrierFault {
  carrier: string;
  operation: string;
  mode: string;
  chance: number;
  status?: number;
  delay_ms?: number;
  /** Only requests that carry this text (the batch items' recipients): the single purchases meet planted faults. */
  match?: string;
}

/**
 * The seeded fault schedule: a worker SIGKILLed every few seconds and restarted, one API process
 * SIGKILLed and restarted, the Temporal server killed and restarted, PostgreSQL restarted; the
 * carrier faults run for the whole window.
 */
export function faultSchedule(random: Random, durationMs: number, workers: number, apis: number): ChaosEvent[] {
  const events: ChaosEvent[] = [];
  for (let at = random.int(1_500, 3_000); at < durationMs - 2_000; at += random.int(3_000, 7_000)) {
    events.push({ atMs: at, kind: 'kill-worker', worker: random.int(0, workers - 1), downMs: random.int(300, 2_000) });
  }
  const at = (from: number, to: number) => Math.round(durationMs * (from + (to - from) * random.next()));
  events.push({ atMs: at(0.15, 0.3), kind: 'kill-api', api: random.int(0, apis - 1), downMs: random.int(1_000, 3_000) });
  events.push({ atMs: at(0.35, 0.5), kind: 'restart-temporal' });
  events.push({ atMs: at(0.6, 0.75), kind: 'restart-postgres', downMs: random.int(2_000, 4_000) });
  return events.sort((a, b) => a.atMs - b.atMs);
}

/** What every batch item's addresses carry (tools/chaos/terms.ts: `Batch recipient i`, `Batch customer i`). */
export const BATCH_MARK = 'Batch ';

/** A single purchase's recipient (or, for a return label, its customer): unique, a text a fault can match. */
export const purchaseMark = (who: 'Recipient' | 'Customer', i: number) => `${who}-${String(i).padStart(5, '0')}`;

/**
 * The faults the simulator applies at random while faults run, to about one call in five of each
 * carrier operation but the buy: errors, time-outs, slow answers and lost answers on the lookups,
 * cancellations and tracking reads, and on the card processor. A purchase's buy meets the fault
 * planted for it instead (plannedBuyFault), so that the latency table can say what each purchase met.
 */
export function carrierFaults(): CarrierFault[] {
  const faults: CarrierFault[] = [];
  for (const carrier of ALL_CARRIER_MODULES.filter((m) => m.simulatorPath !== undefined).map((m) => m.definition.code)) {
    for (const operation of ['lookup', 'cancel', 'track']) {
      faults.push({ carrier, operation, mode: 'error', status: 503, chance: 0.06 });
      faults.push({ carrier, operation, mode: 'timeout', chance: 0.04 });
      faults.push({ carrier, operation, mode: 'slow', delay_ms: 1_200, chance: 0.05 });
      if (operation === 'cancel') faults.push({ carrier, operation, mode: 'lost_answer', chance: 0.05 });
    }
    // Batch items are bought under random buy faults (their latency is not in the table).
    faults.push({ carrier, operation: 'buy', mode: 'error', status: 503, chance: 0.06, match: BATCH_MARK });
    faults.push({ carrier, operation: 'buy', mode: 'timeout', chance: 0.04, match: BATCH_MARK });
    faults.push({ carrier, operation: 'buy', mode: 'lost_answer', chance: 0.05, match: BATCH_MARK });
    faults.push({ carrier, operation: 'buy', mode: 'late_commit', delay_ms: 3_000, chance: 0.03, match: BATCH_MARK });
  }
  for (const operation of ['authorize', 'capture', 'void', 'refund']) {
    faults.push({ carrier: 'cardpay', operation, mode: 'error', status: 503, chance: 0.05 });
    faults.push({ carrier: 'cardpay', operation, mode: 'lost_answer', chance: 0.05 });
  }
  return faults;
}

/** The kinds of carrier fault a purchase's buy meets, as the latency table names them. */
export const BUY_FAULT_KINDS = ['5xx', '429', 'time-out or slow', 'lost or late answer'] as const;
export type BuyFaultKind = (typeof BUY_FAULT_KINDS)[number];

/** A fault planted for one purchase's buy (its first call to the carrier), matched by its recipient. */
export interface PlannedBuyFault {
  kind: BuyFaultKind;
  fault: { carrier?: string; operation: 'buy'; mode: string; status?: number; retry_after?: number; delay_ms?: number };
}

/**
 * About one purchase in five meets one carrier fault on its buy, as in the run that measured the
 * faults' cost: a 503, a 429 with a Retry-After of 1 to 3 s, a time-out or an answer slow by 1 to 9 s,
 * or an answer lost after the carrier bought (or a booking committed 3 s late). Null: none.
 */
export function plannedBuyFault(random: Random): PlannedBuyFault | null {
  if (!random.chance(0.2)) return null;
  const kind = random.pick(BUY_FAULT_KINDS);
  switch (kind) {
    case '5xx':
      return { kind, fault: { operation: 'buy', mode: 'error', status: 503 } };
    case '429':
      return { kind, fault: { operation: 'buy', mode: 'rate_limit', retry_after: random.int(1, 3) } };
    case 'time-out or slow':
      return random.chance(0.3)
        ? { kind, fault: { operation: 'buy', mode: 'timeout' } }
        : { kind, fault: { operation: 'buy', mode: 'slow', delay_ms: random.int(1_000, 9_000) } };
    case 'lost or late answer':
      return random.chance(0.7)
        ? { kind, fault: { operation: 'buy', mode: 'lost_answer' } }
        : { kind, fault: { operation: 'buy', mode: 'late_commit', delay_ms: 3_000 } };
  }
}

export function describeEvent(e: ChaosEvent): string {
  const t = `t+${(e.atMs / 1000).toFixed(1)}s`.padEnd(9);
  switch (e.kind) {
    case 'kill-worker':
      return `${t} SIGKILL worker #${e.worker + 1}, restart after ${e.downMs} ms`;
    case 'kill-api':
      return `${t} SIGKILL api-${e.api + 1}, restart after ${e.downMs} ms`;
    case 'restart-temporal':
      return `${t} SIGKILL the Temporal server, start it again on the same SQLite file`;
    case 'restart-postgres':
      return `${t} stop PostgreSQL, start it again after ${e.downMs} ms`;
  }
}
