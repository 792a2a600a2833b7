import { isRecord } from '../../carriers/index.js';
import { SimHttpError, type SimApi } from './sim-types.js';

/**
 * `slow` carries the request out at once and answers after `delay_ms`; `late_commit` holds the
 * request and only carries it out after `delay_ms` (then answers, if the client is still there): a
 * carrier still committing when the client's deadline has passed.
 */
export const FAULT_MODES = ['error', 'timeout', 'lost_answer', 'rate_limit', 'garbage', 'slow', 'decline', 'late_commit'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

/** A fault as the control API takes it and shows it (snake_case, like the request). */
export interface Fault {
  id: string;
  carrier: string;
  operation: string;
  mode: FaultMode;
  status: number;
  /** How many more requests it applies to; -1 until cleared. */
  times: number;
  match: string | null;
  delay_ms: number;
  retry_after: number;
  /** The carrier's own error code in an `error` answer (default `simulated_error`). */
  code: string;
  /** The share of matching requests it applies to (0 to 1, default 1): a carrier that fails now and then. */
  chance: number;
}

export interface FaultStore {
  add(input: unknown): Fault;
  /** Clears every fault, or only those created with this `match`; returns how many. */
  clear(match?: string): number;
  list(): Fault[];
  /** The first fault for this API and operation whose `match` occurs in one of the texts, used up by one. */
  take(api: string, operation: string, texts: readonly string[]): Fault | undefined;
}

export function createFaultStore(apis: readonly SimApi[]): FaultStore {
  let faults: Fault[] = [];
  let counter = 0;

  return {
    add(input) {
      const fault = parseFault(input, apis, `flt_${++counter}`);
      faults.push(fault);
      return { ...fault };
    },
    clear(match) {
      const before = faults.length;
      faults = match === undefined ? [] : faults.filter((f) => f.match !== match);
      return before - faults.length;
    },
    list: () => faults.map((f) => ({ ...f })),
    take(api, operation, texts) {
      const fault = faults.find(
        (f) =>
          f.carrier === api &&
          f.operation === operation &&
          (f.match === null || texts.some((t) => t.includes(f.match as string))) &&
          (f.chance >= 1 || Math.random() < f.chance),
      );
      if (!fault) return undefined;
      if (fault.times > 0 && --fault.times === 0) faults = faults.filter((f) => f !== fault);
      return { ...fault };
    },
  };
}

function parseFault(input: unknown, apis: readonly SimApi[], id: string): Fault {
  if (!isRecord(input)) throw bad('The fault must be a JSON object.');
  const api = apis.find((a) => a.code === input.carrier);
  if (!api) throw bad(`carrier must be one of ${apis.map((a) => a.code).join(', ')}.`);
  if (typeof input.operation !== 'string' || !api.operations.includes(input.operation)) {
    throw bad(`operation must be one of ${api.operations.join(', ')} for ${api.code}.`);
  }
  if (!(FAULT_MODES as readonly unknown[]).includes(input.mode)) throw bad(`mode must be one of ${FAULT_MODES.join(', ')}.`);
  const status = integerOr(input.status, 500, 'status');
  if (status < 400 || status > 599) throw bad('status must be an HTTP error status (400 to 599).');
  const times = integerOr(input.times, 1, 'times');
  if (times === 0 || times < -1) throw bad('times must be a positive integer, or -1 for "until cleared".');
  const delayMs = integerOr(input.delay_ms, 1000, 'delay_ms');
  if (delayMs < 0 || delayMs > 600_000) throw bad('delay_ms must be between 0 and 600000.');
  const retryAfter = integerOr(input.retry_after, 1, 'retry_after');
  if (retryAfter < 0) throw bad('retry_after must be a non-negative number of seconds.');
  const chance = input.chance === undefined || input.chance === null ? 1 : input.chance;
  if (typeof chance !== 'number' || !(chance > 0 && chance <= 1)) throw bad('chance must be a number above 0 and at most 1.');
  if (input.match !== undefined && input.match !== null && (typeof input.match !== 'string' || input.match === '')) {
    throw bad('match must be a non-empty string.');
  }
  return {
    id,
    carrier: api.code,
    operation: input.operation,
    mode: input.mode as FaultMode,
    status,
    times,
    match: typeof input.match === 'string' ? input.match : null,
    delay_ms: delayMs,
    retry_after: retryAfter,
    code: typeof input.code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(input.code) ? input.code : 'simulated_error',
    chance,
  };
}

function integerOr(value: unknown, fallback: number, name: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw bad(`${name} must be an integer.`);
  return value;
}

function bad(message: string): SimHttpError {
  return new SimHttpError(400, 'invalid_fault', message);
}
