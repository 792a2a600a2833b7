import { describe, expect, it } from 'vitest';
import { splitCache } from '../../workers/run.js';

// WORKER_MAX_CACHED_WORKFLOWS bounds a worker process's memory (docs/operators-guide.md, "Tracking at
// scale"); its shipments group runs two workflow workers, purchases and tracking, which share it.
describe('the shipment workers’ workflow cache', () => {
  it('gives a fifth to purchases and the rest to the parcels in flight, within the process’s bound', () => {
    expect(splitCache(1000, 40)).toEqual({ purchases: 200, tracking: 800 });
    expect(splitCache(600, 40)).toEqual({ purchases: 120, tracking: 480 });
  });

  it('keeps each at least its workflow task concurrency, and both off at 0', () => {
    expect(splitCache(100, 40)).toEqual({ purchases: 40, tracking: 60 });
    expect(splitCache(10, 40)).toEqual({ purchases: 10, tracking: 10 });
    expect(splitCache(0, 40)).toEqual({ purchases: 0, tracking: 0 });
  });
});
