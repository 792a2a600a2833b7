import { describe, expect, it } from 'vitest';
import { formatLatencyTable, formatSlowest, killRowsByWorker, latencyRows, soleCauseRows } from '../../tools/chaos/latency.js';
import type { PurchaseOutcome } from '../../tools/chaos/purchases.js';

const purchase = (startedAt: number, endedAt: number, planted?: PurchaseOutcome['planted']): PurchaseOutcome => ({
  key: `k${startedAt}`,
  kind: 'purchase',
  outcome: 'purchased',
  shipmentIds: new Set([`shp_${startedAt}`]),
  lastStatus: 201,
  problemCode: null,
  startedAt,
  endedAt,
  ...(planted ? { planted } : {}),
});

describe('the chaos run’s latency table', () => {
  it('puts each purchase in every row of what it met, measured from the fault or from the recovery', () => {
    const rows = latencyRows(
      [
        purchase(0, 500),
        purchase(1_000, 4_000, { kind: '5xx', met: true }),
        // Planted but never met (its buy never happened): nothing, from the request.
        purchase(5_000, 5_300, { kind: '429', met: false }),
        // In flight at a worker kill at 10 s, with a planted time-out: in both rows.
        purchase(9_000, 16_000, { kind: 'time-out or slow', met: true }),
        // In flight when Temporal went down at 20 s; back at 24 s.
        purchase(19_000, 27_000),
        // Started after the outage began: it did not meet it.
        purchase(21_000, 21_400),
      ],
      { workerKills: [{ atMs: 10_000, worker: 'worker-shipments-1' }], outages: [{ what: 'Temporal restart', downAt: 20_000, backAt: 24_000 }] },
    );
    const by = Object.fromEntries(rows.map((r) => [r.met, r.latenciesMs]));
    expect(by.nothing).toEqual([500, 300, 400]);
    expect(by['one carrier 5xx on the buy']).toEqual([3_000]);
    expect(by['one carrier time-out or slow on the buy']).toEqual([7_000]);
    expect(by['a worker SIGKILL']).toEqual([6_000]);
    expect(by['in flight across the Temporal restart']).toEqual([3_000]);
    const table = formatLatencyTable(rows);
    expect(table).toContain('| nothing | the request | 3 | 0.4 s | 0.5 s | 0.5 s | 0.5 s |');
    expect(table).toContain('| in flight across the PostgreSQL restart | it was back | 0 | – | – | – | – |');
    // Each row names its slowest purchase, to be read in the Temporal UI.
    expect(formatSlowest(rows)).toContain('- a worker SIGKILL: 6.0 s, key k9000');
    expect(formatSlowest(rows)).not.toContain('PostgreSQL');
  });

  it('splits the worker-kill row by the group of the worker killed, from the first kill each purchase met', () => {
    const rows = killRowsByWorker([purchase(0, 9_000), purchase(1_000, 4_000), purchase(5_000, 12_000), purchase(20_000, 21_000)], {
      workerKills: [
        { atMs: 2_000, worker: 'worker-shipments-2' },
        { atMs: 6_000, worker: 'worker-carriers-1' },
        { atMs: 8_000, worker: 'worker-shipments-1' },
      ],
      outages: [],
    });
    expect(rows.map((r) => [r.met, r.latenciesMs])).toEqual([
      ['a SIGKILL of worker-shipments', [7_000, 2_000]],
      ['a SIGKILL of worker-carriers', [6_000]],
    ]);
  });

  it('puts every purchase in one row, by the one thing that touched it: a kill only when it took one of its tasks', () => {
    const touches = new Map([
      // In flight at the kill, but the dead worker held none of its work: nothing touched it.
      ['shp_9000', { lostTasks: 0, lostWith: 0, failedCarrierCalls: 0, failedCardCalls: 0 }],
      // Two tasks went with the killed worker (a workflow task, then the next stuck to its queue).
      ['shp_9500', { lostTasks: 2, lostWith: 1, failedCarrierCalls: 0, failedCardCalls: 0 }],
      // Its planted 5xx, and nothing else.
      ['shp_1000', { lostTasks: 0, lostWith: 0, failedCarrierCalls: 1, failedCardCalls: 0 }],
      // Its planted 429, and a lookup that failed too.
      ['shp_2000', { lostTasks: 0, lostWith: 0, failedCarrierCalls: 2, failedCardCalls: 0 }],
      // Its planted time-out, and the killed worker took its carrier call.
      ['shp_8000', { lostTasks: 1, lostWith: 1, failedCarrierCalls: 1, failedCardCalls: 0 }],
      // Its tasks went with two workers, killed one after the other: two kills.
      ['shp_9700', { lostTasks: 2, lostWith: 2, failedCarrierCalls: 0, failedCardCalls: 0 }],
      // A task lost with no kill in flight.
      ['shp_30000', { lostTasks: 1, lostWith: 1, failedCarrierCalls: 0, failedCardCalls: 0 }],
      // Its planted 5xx, and the card processor failed its capture once.
      ['shp_40000', { lostTasks: 0, lostWith: 0, failedCarrierCalls: 1, failedCardCalls: 1 }],
    ]);
    const rows = soleCauseRows(
      [
        purchase(1_000, 4_000, { kind: '5xx', met: true }),
        purchase(2_000, 3_000, { kind: '429', met: true }),
        purchase(8_000, 20_000, { kind: 'time-out or slow', met: true }),
        purchase(9_000, 12_000),
        purchase(9_500, 13_000),
        purchase(9_700, 19_000),
        // Its history could not be read: a kill in flight counts as touching it.
        purchase(9_800, 14_000),
        purchase(19_000, 27_000),
        purchase(30_000, 31_000),
        purchase(40_000, 42_000, { kind: '5xx', met: true }),
      ],
      { workerKills: [{ atMs: 10_000, worker: 'worker-carriers-1' }], outages: [{ what: 'Temporal restart', downAt: 20_000, backAt: 24_000 }] },
      touches,
    );
    const by = Object.fromEntries(rows.map((r) => [r.met, r.latenciesMs]));
    expect(by.nothing).toEqual([3_000]);
    expect(by['only a worker SIGKILL that took one of its tasks']).toEqual([3_000, 4_000]);
    expect(by['only one carrier 5xx on the buy']).toEqual([3_000]);
    expect(by['only one carrier 429 on the buy']).toEqual([]);
    expect(by['only the Temporal restart']).toEqual([3_000]);
    expect(by['two or more of these, or a fault on another of its calls']).toEqual([1_000, 12_000, 9_300, 1_000, 2_000]);
    // Each purchase in exactly one row.
    expect(rows.reduce((n, r) => n + r.latenciesMs.length, 0)).toBe(10);
  });
});
