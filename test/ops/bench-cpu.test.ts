import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuMs, parseStat, perPurchase, stackProcesses, PROCESSES_FILE } from '../../tools/bench/cpu.js';

// `npm run bench` says where a purchase's CPU goes, per process of the `npm start` under test, from
// /proc: here on a /proc of our own making, where every figure is known.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A /proc entry: pid (comm) state ppid … utime stime cutime cstime …, as Linux writes it. */
function proc(root: string, pid: number, comm: string, ppid: number, [utime, stime, cutime, cstime]: number[]) {
  mkdirSync(path.join(root, String(pid)), { recursive: true });
  const fields = ['S', ppid, pid, pid, 0, -1, 4194304, 0, 0, 0, 0, utime, stime, cutime, cstime, 20, 0, 1, 0];
  writeFileSync(path.join(root, String(pid), 'stat'), `${pid} (${comm}) ${fields.join(' ')}\n`);
}

function fakeProc(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'proc-'));
  dirs.push(root);
  proc(root, 10, 'node', 1, [100, 50, 5, 5]); // npm start's own process: the simulator
  proc(root, 11, 'node', 10, [40, 2, 0, 0]); // the API, its child
  proc(root, 12, 'postgres', 10, [10, 10, 20, 0]); // the postmaster, its child too
  proc(root, 13, 'postgres: postgres postgres [local] idle', 12, [30, 0, 0, 0]);
  proc(root, 14, 'postgres: (odd) name) x', 12, [5, 5, 0, 0]); // a name with spaces and parentheses
  proc(root, 15, 'sh', 13, [1, 1, 0, 0]); // a backend's own child
  proc(root, 20, 'unrelated', 1, [999, 999, 0, 0]);
  return root;
}

describe("the bench's CPU per purchase", () => {
  it('counts each process with its descendants and reaped children, and a named descendant only under its own role', () => {
    const root = fakeProc();
    expect(cpuMs({ simulator: 10, api: 11, postgres: 12 }, root)).toEqual({
      simulator: (100 + 50 + 5 + 5) * 10, // not the API's nor PostgreSQL's, though they are its children
      api: (40 + 2) * 10,
      postgres: (10 + 10 + 20 + 30 + 5 + 5 + 1 + 1) * 10,
    });
  });

  it('reads the fields after the last parenthesis of the command name', () => {
    expect(parseStat('7 (a) b) (c) S 3 7 7 0 -1 0 0 0 0 0 11 12 13 14 20 0')).toEqual({ ppid: 3, own: 23, reaped: 27 });
    expect(parseStat('garbage')).toBeUndefined();
    const self = parseStat(readFileSync('/proc/self/stat', 'utf8'));
    expect(self?.ppid).toBe(process.ppid);
    expect(self?.own).toBeGreaterThanOrEqual(0);
  });

  it('takes the processes npm start names, only while every one of them runs', () => {
    const root = fakeProc();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'data-'));
    dirs.push(dataDir);
    expect(stackProcesses(dataDir, root), 'no file: no npm start here').toBeUndefined();
    writeFileSync(path.join(dataDir, PROCESSES_FILE), JSON.stringify({ api: 11, postgres: 12 }));
    expect(stackProcesses(dataDir, root)).toEqual({ api: 11, postgres: 12 });
    writeFileSync(path.join(dataDir, PROCESSES_FILE), JSON.stringify({ api: 11, workers: 99 }));
    expect(stackProcesses(dataDir, root), 'a process that is gone: a stale file').toBeUndefined();
  });

  it('divides by the purchases and adds a total', () => {
    expect(perPurchase({ api: 1000, bench: 50 }, { api: 3000, bench: 250 }, 100)).toEqual({ api: 20, bench: 2, total: 22 });
  });
});
