import { describe, expect, it } from 'vitest';
import { OUTAGE_PROBE_LEAD_MS, OUTAGE_PROBES, sendSchedule } from '../../tools/chaos/purchases.js';

// The chaos run's single purchases go out evenly, except a few sent just before each outage, so
// that the outage rows of its latency table measure more than the one or two in flight by chance.
describe('chaos: when the single purchases are sent', () => {
  it('spreads them over 85% of the window when nothing is down', () => {
    const { atMs, probes } = sendSchedule(300, 180_000, []);
    expect(atMs[0]).toBe(0);
    expect(atMs[299]).toBeCloseTo((299 * 180_000 * 0.85) / 300);
    expect(probes.size).toBe(0);
  });

  it('sends the next purchases over the lead before each outage, in order, never earlier than the one before', () => {
    const outages = [40_000, 75_000, 120_000];
    const { atMs, probes } = sendSchedule(300, 180_000, outages);
    expect(probes.size).toBe(3 * OUTAGE_PROBES);
    for (const outage of outages) {
      const before = [...probes].filter((i) => atMs[i] >= outage - OUTAGE_PROBE_LEAD_MS && atMs[i] < outage);
      expect(before).toHaveLength(OUTAGE_PROBES);
    }
    for (let i = 1; i < atMs.length; i++) expect(atMs[i]).toBeGreaterThanOrEqual(atMs[i - 1]);
    // Every purchase is still sent once, and the probes are the ones that were due next.
    expect(atMs).toHaveLength(300);
    const first = Math.min(...probes);
    expect(first).toBe(Math.ceil(((40_000 - OUTAGE_PROBE_LEAD_MS) * 300) / (180_000 * 0.85)));
  });

  it('takes at most one purchase in twenty per outage, so a small run keeps its planted faults', () => {
    expect(sendSchedule(30, 45_000, [10_000, 20_000, 30_000]).probes.size).toBe(3);
    expect(sendSchedule(10, 45_000, [10_000]).probes.size).toBe(0);
  });

  it('skips an outage after the last purchase is due', () => {
    expect(sendSchedule(100, 10_000, [9_990]).probes.size).toBe(0);
  });
});
