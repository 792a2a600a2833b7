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

/**
 * About one call in five to each carrier operation meets a fault: errors, time-outs, slow answers,
 * answers lost after the carrier committed, and bookings committed after our deadline.
 */
export function carrierFaults(): CarrierFault[] {
  const faults: CarrierFault[] = [];
  for (const carrier of ALL_CARRIER_MODULES.filter((m) => m.simulatorPath !== undefined).map((m) => m.definition.code)) {
    for (const operation of ['buy', 'lookup', 'cancel', 'track']) {
      const writes = operation === 'buy' || operation === 'cancel';
      faults.push({ carrier, operation, mode: 'error', status: 503, chance: 0.06 });
      faults.push({ carrier, operation, mode: 'timeout', chance: 0.04 });
      faults.push({ carrier, operation, mode: 'slow', delay_ms: 1_200, chance: 0.05 });
      if (writes) faults.push({ carrier, operation, mode: 'lost_answer', chance: 0.05 });
      if (operation === 'buy') faults.push({ carrier, operation, mode: 'late_commit', delay_ms: 3_000, chance: 0.03 });
    }
  }
  for (const operation of ['authorize', 'capture', 'void', 'refund']) {
    faults.push({ carrier: 'cardpay', operation, mode: 'error', status: 503, chance: 0.05 });
    faults.push({ carrier: 'cardpay', operation, mode: 'lost_answer', chance: 0.05 });
  }
  return faults;
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
