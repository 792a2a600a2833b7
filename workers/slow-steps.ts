import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';

/**
 * A step slower than this, to start or to run, is logged: a local activity's time is its workflow
 * task's, and a workflow task over 10 s times out and runs again elsewhere, so the operator reading
 * the SDK's "Workflow task duration exceeded" warning needs to know which part took the time.
 */
export const SLOW_STEP_MS = 2_000;

class TimedActivity implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly now: () => number,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const started = this.now();
    const info = this.ctx.info;
    const waitedMs = started - info.currentAttemptScheduledTimestampMs;
    try {
      return await next(input);
    } finally {
      const ranMs = this.now() - started;
      if (waitedMs > SLOW_STEP_MS || ranMs > SLOW_STEP_MS) {
        this.ctx.log.warn('slow step', { activity: info.activityType, local: info.isLocal, attempt: info.attempt, waitedMs, ranMs });
      }
    }
  }
}

/** Times every activity of a worker: waited (scheduled to started) and ran; the slow ones are logged. */
export function timedActivities(now: () => number = Date.now): ActivityInterceptorsFactory {
  return (ctx) => ({ inbound: new TimedActivity(ctx, now) });
}

/**
 * Watches the process's event loop, where activities, local activities and label renders run: a
 * window whose longest delay passes `thresholdMs` is logged with its percentiles, so a stall that
 * holds every step of the process shows as such, not as many slow steps.
 */
export function watchEventLoop(log: (fields: Record<string, number>, msg: string) => void, opts: { windowMs?: number; thresholdMs?: number } = {}): () => void {
  const { windowMs = 10_000, thresholdMs = 1_000 } = opts;
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const ms = (ns: number) => Math.round(ns / 1e6);
  const timer = setInterval(() => {
    if (ms(delay.max) > thresholdMs) {
      log({ windowMs, p50Ms: ms(delay.percentile(50)), p99Ms: ms(delay.percentile(99)), maxMs: ms(delay.max) }, 'event loop delayed');
    }
    delay.reset();
  }, windowMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    delay.disable();
  };
}
