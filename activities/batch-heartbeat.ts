import { Context } from '@temporalio/activity';

/** How often a step that waits tells Temporal it is alive: a lost worker's step is retried elsewhere soon. */
const HEARTBEAT_MS = 5_000;

/** The running activity's context; none outside an activity (a test calling a step directly). */
function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Runs `work`, heartbeating while it runs, and gives up waiting for it once the step is cancelled (a
 * worker shutting down, a heartbeat time-out): a step that waits for a purchase must not keep its
 * worker from stopping, and its retry joins the same purchase. Outside an activity (a test calling
 * it directly) it just runs.
 */
export async function heartbeating<T>(work: () => Promise<T>, details?: () => unknown): Promise<T> {
  const context = currentContext();
  const timer = context && setInterval(() => context.heartbeat(details?.()), HEARTBEAT_MS);
  const running = work();
  try {
    if (!context) return await running;
    running.catch(() => undefined); // abandoned on cancellation: its outcome is read again on the retry
    return await Promise.race([running, context.cancelled]);
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** The running activity's logger; none outside an activity (a test calling a step directly). */
export const activityLog = () => currentContext()?.log;
