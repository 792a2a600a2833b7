import { describe, expect, it } from 'vitest';
import { runChaos } from '../../tools/chaos/run.js';

// The small chaos run (issue 12): the whole fleet as separate processes (its own durable PostgreSQL,
// Temporal dev server on a file, carrier simulator, two APIs, four workers), a few dozen purchases
// (some abroad with customs, some return labels) under every kind of fault at least once, then the
// invariants. `npm run chaos` is the full run.
describe('chaos (small run)', () => {
  it('never loses, doubles or strands a purchase or a void under crashes and carrier faults', async () => {
    const lines: string[] = [];
    const result = await runChaos({
      purchases: 30,
      batchItems: 20,
      concurrency: 6,
      seed: 12,
      durationMs: 45_000,
      settleMs: 240_000,
      build: true,
      log: (line) => lines.push(line),
    });
    // Every kind of fault happened at least once.
    expect(result.faults['worker SIGKILL']).toBeGreaterThanOrEqual(1);
    expect(result.faults['API SIGKILL']).toBe(1);
    expect(result.faults['Temporal restart']).toBe(1);
    expect(result.faults['PostgreSQL restart']).toBe(1);
    expect(result.faults['carrier fault kinds']).toBeGreaterThan(0);
    // Labels abroad with customs and return labels were bought under the faults, returns from a shipment among them.
    expect(result.bought.international, result.table).toBeGreaterThan(0);
    expect(result.bought.returns, result.table).toBeGreaterThan(0);
    expect(result.bought.returnsOfShipments, result.table).toBeGreaterThan(0);
    expect(result.ok, `${lines.join('\n')}\n\n${result.table}`).toBe(true);
  }, 1_200_000);
});
