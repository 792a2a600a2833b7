// Workflows for the Temporal infrastructure tests (bundled by the Worker through workflowsPath).
import { defineQuery, setHandler, sleep } from '@temporalio/workflow';

export const phaseQuery = defineQuery<string>('phase');

export interface SleepyResult {
  startedAt: number;
  afterTwoHours: number;
  finishedAt: number;
}

/** Sleeps 2 hours, then 3 days; returns the workflow clock at each step. */
export async function sleepy(): Promise<SleepyResult> {
  let phase = 'sleeping 2h';
  setHandler(phaseQuery, () => phase);
  const startedAt = Date.now();
  await sleep('2 hours');
  const afterTwoHours = Date.now();
  phase = 'sleeping 3d';
  await sleep('3 days');
  phase = 'done';
  return { startedAt, afterTwoHours, finishedAt: Date.now() };
}

/** Returns at once: for checking that a workflow runs and carries its search attributes. */
export async function quick(name: string): Promise<string> {
  return `hello ${name}`;
}
