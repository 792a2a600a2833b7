import { describe, expect, it } from 'vitest';
import type { DurableReport, LevelReport } from '../../tools/bench/durable.js';
import { FLOOR_TARGET, headline, headlineText } from '../../tools/bench/figures.js';
import type { FloorResult } from '../../tools/bench/floor-result.js';
import { parseOptions } from '../../tools/bench/options.js';

// `npm run bench` judges the durable purchase by two figures from one run: its CPU per purchase by
// process, and its throughput at 8 clients as a share of the no-op history floor (tools/bench/figures.ts).

const figures = (rps: number) => ({ requests: 200, ok: 200, errors: {}, throughput_rps: rps, latency_ms: null });
const level = (concurrency: number, rps: number, cpu?: Record<string, number>): LevelReport => ({
  concurrency,
  durable: figures(rps),
  direct: figures(rps * 4),
  ratio: { p50: 1, p99: 1, throughput: 0.25 },
  ...(cpu ? { cpu_ms_per_purchase: { durable: cpu, direct: { postgres: 1, total: 1 } } } : {}),
});
const durable = (levels: LevelReport[]): DurableReport => ({
  service: 'acme_ground',
  carrier: 'acme',
  levels,
  round_trips: { workflow_tasks: 3, activity_tasks: 1, local_activities: 2, total_dispatches: 4 },
});
const floor = (perSecond: number): FloorResult => ({
  clients: 8,
  workflows: 300,
  warmup: 100,
  perSecond,
  p50: 20,
  p99: 40,
  cpu: { temporal: 5, worker: 3, client: 1, total: 9 },
});
const CPU = { api: 4.1, workers: 6.2, temporal: 5.3, postgres: 2.4, simulator: 0.5, bench: 0.7, total: 19.2 };

describe("the bench's figures", () => {
  it('take the 8-client level: CPU by process, and the throughput as a share of the floor against the target', () => {
    const h = headline(durable([level(1, 10, CPU), level(8, 45, CPU), level(32, 50)]), floor(50));
    expect(h).toMatchObject({ clients: 8, durable_rps: 45, floor_rps: 50, ratio_to_floor: 0.9, target_ratio: FLOOR_TARGET, meets_target: true, missing: [] });
    expect(h.cpu_ms_per_purchase).toEqual(CPU);
    const text = headlineText(h).join('\n');
    expect(text).toContain('API 4.1, workers 6.2, Temporal server 5.3, PostgreSQL 2.4');
    expect(text).toContain('0.90x of the floor (target: at least 0.85x of the floor; met)');
  });

  it('say the target is not met below 0.85x', () => {
    const h = headline(durable([level(8, 20, CPU)]), floor(50));
    expect(h.ratio_to_floor).toBe(0.4);
    expect(h.meets_target).toBe(false);
    expect(headlineText(h).join('\n')).toContain('not met');
  });

  it('name what could not be measured rather than print a number for it', () => {
    const noEight = headline(durable([level(1, 10, CPU), level(32, 50, CPU)]), floor(50));
    expect(noEight.ratio_to_floor).toBeUndefined();
    expect(noEight.missing).toEqual(['durable: no level of 8 clients (--levels)']);
    const noCpu = headline(durable([level(8, 45)]), { status: 'failed', reason: 'the floor worker exited (1) before it was ready' });
    expect(noCpu.cpu_ms_per_purchase).toBeUndefined();
    expect(noCpu.ratio_to_floor).toBeUndefined();
    expect(headlineText(noCpu).join('\n')).toMatch(/not measured: CPU per purchase[\s\S]*not measured: floor: failed: the floor worker exited/);
  });

  it('run in the default scenario set: the durable purchase and the floor both', () => {
    const options = parseOptions([], { port: 3000 });
    expect(options.scenarios).toEqual(expect.arrayContaining(['durable', 'floor']));
    expect(options.levels).toContain(8);
  });
});
