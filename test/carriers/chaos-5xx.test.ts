import { describe, expect, it } from 'vitest';
import { unexpected5xx } from '../../tools/chaos/checks.js';

// The chaos run's check of 5xx answers: a 503 to a request in flight while Temporal restarted is the
// contract's answer (retry with the same key), even when it comes after the outage's window closed.
describe('the chaos run’s check of 5xx answers', () => {
  const outages = [{ from: 63_800, to: 83_000 }];
  const voidAt = (sentAtMs: number, atMs: number, status = 503, code: string | null = 'service_unavailable') => ({
    sentAtMs,
    atMs,
    status,
    code,
    what: 'POST /api/v1/shipments/shp_1/void',
  });

  it('takes a 503 to a request sent during an outage and answered after it', () => {
    expect(unexpected5xx([voidAt(66_000, 86_600)], outages)).toEqual([]);
  });

  it('still flags a 503 to a request sent and answered outside every outage, and any 500', () => {
    expect(unexpected5xx([voidAt(84_000, 86_600)], outages)).toEqual(['503 service_unavailable at t+86.6s on POST /api/v1/shipments/shp_1/void']);
    expect(unexpected5xx([voidAt(66_000, 70_000, 500, 'internal_error')], outages)).toHaveLength(1);
  });
});
