import { describe, expect, it } from 'vitest';
import { PURCHASE_WORKFLOW_TASK_SLOTS, splitCache, workflowTaskSlots } from '../../workers/run.js';

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

// A worker that takes more purchase tasks than it can run within the 5 s workflow task time-out lets
// the last ones time out while it lives on (workers/run.ts): the purchases take a few slots at most.
describe('the shipment workers’ workflow task slots', () => {
  it('hold the purchases to a few tasks at once and leave the parcels in flight the setting', () => {
    expect(PURCHASE_WORKFLOW_TASK_SLOTS).toBe(12);
    expect(workflowTaskSlots(40)).toEqual({ purchases: 12, tracking: 40 });
  });

  it('never give the purchases more than the setting', () => {
    expect(workflowTaskSlots(4)).toEqual({ purchases: 4, tracking: 4 });
  });
});
