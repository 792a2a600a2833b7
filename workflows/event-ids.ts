import { uuid4 } from '@temporalio/workflow';
import { makeId, type IdPrefix } from '../domain/workflow.js';

/**
 * Ids made inside the workflow are part of its history, so a retried activity that stores an
 * event can never mint a second one.
 */
export function workflowId(prefix: IdPrefix): string {
  const hex = uuid4().replace(/-/g, '');
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return makeId(prefix, Date.now(), bytes);
}
