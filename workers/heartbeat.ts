import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next, WorkerOptions } from '@temporalio/worker';

/**
 * How often a running activity of the `shipments` queue heartbeats; the workflow gives these
 * activities a heartbeat time-out of a few beats (workflows/proxies.ts), as the carrier calls have.
 */
export const ACTIVITY_HEARTBEAT_MS = 1_000;

/**
 * Heartbeats while an activity runs, so that one whose worker was SIGKILLed (its database step, a
 * card authorization) is run again by another worker after the heartbeat time-out (5 s), not after
 * its start-to-close time-out (30 s). No beat at the start: most activities end before the first is
 * due and cost the server none. Local activities cannot heartbeat (they are the workflow task's).
 */
class HeartbeatingActivity implements ActivityInboundCallsInterceptor {
  constructor(private readonly ctx: Context) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (this.ctx.info.isLocal) return next(input);
    const timer = setInterval(() => this.ctx.heartbeat(), ACTIVITY_HEARTBEAT_MS);
    try {
      return await next(input);
    } finally {
      clearInterval(timer);
    }
  }
}

const heartbeats: ActivityInterceptorsFactory = (ctx) => ({ inbound: new HeartbeatingActivity(ctx) });

/** A worker's interceptors with the heartbeat's added to its activities'. */
export function withHeartbeats(interceptors: WorkerOptions['interceptors'] = {}): NonNullable<WorkerOptions['interceptors']> {
  return { ...interceptors, activity: [...(interceptors.activity ?? []), heartbeats] };
}
