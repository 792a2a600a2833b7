import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * CPU time of the processes of a running `npm start`, read from /proc, so that the bench can say
 * where each purchase's CPU goes, and so what limits purchases/s. `npm start` names its
 * processes in `<DATA_DIR>/processes.json`; a process counts with every descendant it has (the
 * PostgreSQL backends under the postmaster), and with the children it has already reaped.
 */
export const PROCESSES_FILE = 'processes.json';

/** The processes of a stack, by role, as `npm start` writes them. */
export type StackProcesses = Record<string, number>;

/** Linux reports CPU times in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICK_MS = 10;

interface Stat {
  ppid: number;
  /** utime + stime: the process's own CPU, in ticks. */
  own: number;
  /** cutime + cstime: its reaped children's, in ticks. */
  reaped: number;
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and may itself hold spaces
 * and parentheses, so the fields are counted from the last ')'.
 */
export function parseStat(text: string): Stat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  // After the name: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
  const f = text.slice(close + 2).trim().split(/\s+/);
  const at = (field: number) => Number(f[field - 3]);
  const stat = { ppid: at(4), own: at(14) + at(15), reaped: at(16) + at(17) };
  return Object.values(stat).every(Number.isFinite) ? stat : undefined;
}

function readStats(procDir: string): Map<number, Stat> {
  const stats = new Map<number, Stat>();
  for (const name of readdirSync(procDir)) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = parseStat(readFileSync(path.join(procDir, name, 'stat'), 'utf8'));
      if (stat) stats.set(Number(name), stat);
    } catch {
      // the process ended while we read
    }
  }
  return stats;
}

/**
 * Milliseconds of CPU per role: each process, its live descendants and its reaped children. A
 * descendant that has a role of its own (the API under `npm start`'s process) counts only there.
 */
export function cpuMs(processes: StackProcesses, procDir = '/proc'): Record<string, number> {
  const stats = readStats(procDir);
  const named = new Set(Object.values(processes));
  const children = new Map<number, number[]>();
  for (const [pid, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  const tree = (pid: number): number => {
    const s = stats.get(pid);
    if (!s) return 0;
    const below = (children.get(pid) ?? []).filter((child) => !named.has(child));
    return s.own + s.reaped + below.reduce((sum, child) => sum + tree(child), 0);
  };
  return Object.fromEntries(Object.entries(processes).map(([role, pid]) => [role, tree(pid) * TICK_MS]));
}

/**
 * The processes of the `npm start` under `dataDir`, when there is one on this machine and every
 * process it names is still running; otherwise undefined (the stack runs elsewhere, or is gone).
 */
export function stackProcesses(dataDir: string, procDir = '/proc'): StackProcesses | undefined {
  try {
    const named = JSON.parse(readFileSync(path.join(path.resolve(dataDir), PROCESSES_FILE), 'utf8')) as StackProcesses;
    const pids = Object.values(named);
    if (!pids.length || !pids.every((pid) => Number.isInteger(pid) && existsSync(path.join(procDir, String(pid))))) return undefined;
    return named;
  } catch {
    return undefined;
  }
}

/** A process's own CPU (this bench's: its HTTP client, or its direct purchases), in ms. */
export function selfCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU per purchase (ms) by role over a stretch of work: after − before, ÷ purchases. */
export function perPurchase(before: Record<string, number>, after: Record<string, number>, purchases: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const role of Object.keys(after)) out[role] = Math.round(((after[role] - (before[role] ?? 0)) / Math.max(purchases, 1)) * 10) / 10;
  out.total = Math.round(Object.values(out).reduce((a, b) => a + b, 0) * 10) / 10;
  return out;
}

/**
 * The machine's speed at the moment: how long a fixed single-threaded workload takes (ms, the median
 * of five), which a shared host changes from one stretch to the next. Two figures timed minutes apart
 * are only comparable when this stayed put.
 */
export function speedProbeMs(): number {
  const block = Buffer.alloc(1 << 20, 7);
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    for (let i = 0; i < 48; i++) createHash('sha256').update(block).digest();
    times.push(performance.now() - started);
  }
  return Math.round(times.sort((a, b) => a - b)[2]);
}

/** The whole machine's CPU ticks so far (/proc/stat): all of them, and those the hypervisor stole. */
export function machineTicks(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already counted in user)
  return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}
