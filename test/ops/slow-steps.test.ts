import { describe, expect, it, vi } from 'vitest';
import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { SLOW_STEP_MS, timedActivities } from '../../workers/slow-steps.js';

// An operator reading "Workflow task duration exceeded" needs to know which step took the time:
// its wait to start (a busy queue, a worker restarting) or its own run.
function run(scheduledAt: number, startAt: number, ranMs: number, isLocal: boolean) {
  let clock = startAt;
  const warn = vi.fn();
  const ctx = { info: { activityType: 'beginPurchase', isLocal, attempt: 1, currentAttemptScheduledTimestampMs: scheduledAt }, log: { warn } } as unknown as Context;
  const inbound = timedActivities(() => clock)(ctx).inbound!;
  const next = async () => {
    clock += ranMs;
    return 'done';
  };
  return { warn, result: inbound.execute!({} as ActivityExecuteInput, next) };
}

describe('slow steps', () => {
  it('logs a step that waited or ran too long, with both times, and nothing for a quick one', async () => {
    const waited = run(0, SLOW_STEP_MS + 500, 10, false);
    expect(await waited.result).toBe('done');
    expect(waited.warn).toHaveBeenCalledWith('slow step', { activity: 'beginPurchase', local: false, attempt: 1, waitedMs: SLOW_STEP_MS + 500, ranMs: 10 });

    const ran = run(1_000, 1_020, SLOW_STEP_MS + 1, true);
    await ran.result;
    expect(ran.warn).toHaveBeenCalledWith('slow step', expect.objectContaining({ local: true, waitedMs: 20, ranMs: SLOW_STEP_MS + 1 }));

    const quick = run(1_000, 1_050, 200, true);
    await quick.result;
    expect(quick.warn).not.toHaveBeenCalled();
  });
});
