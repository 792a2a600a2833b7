import { uuid4 } from '@temporalio/workflow';
import { makeId, type IdPrefix } from '../domain/workflow.js';

/**
 * Ids made inside the workflow are part of its history once the workflow task that made them has
 * completed, so a retried activity that stores an event can never mint a second one. A local
 * activity runs before its task completes: if the task is lost with its worker, it runs again and
 * makes the ids again, with the same random part (the run's randomness is seeded) and the new task's
 * time (the capture's retry finds its events so: db/queries/purchases.ts, eventsOfCapture).
 *
 * `atMs` is the id's time, the task's by default. Ids made in one task all share its time, so their
 * random parts alone would order them: a step that makes several ids to be listed in order gives
 * each its own millisecond after the task's (workflows/tracking-writes.ts, planTracking).
 */
export function workflowId(prefix: IdPrefix, atMs = Date.now()): string {
  const hex = uuid4().replace(/-/g, '');
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return makeId(prefix, atMs, bytes);
}
