import { Context } from '@temporalio/activity';

/**
 * Label renders started by a purchase's capture and not waited for (the answer goes out first). A
 * render lost with its process is not a loss: a download renders the missing file, once. A stopping
 * worker drains what it started before it closes the database.
 */
export class BackgroundRenders {
  private readonly running = new Set<Promise<void>>();

  start(shipmentId: string, renderFiles: () => Promise<void>): void {
    // The activity's logger, taken while its context is current: the render outlives the activity.
    const logger = activityLogger();
    const render: Promise<void> = renderFiles()
      .catch((err: unknown) => logger?.warn('label render after the purchase failed; a download will render the file', { shipmentId, error: (err as Error).message }))
      .finally(() => this.running.delete(render));
    this.running.add(render);
  }

  get size(): number {
    return this.running.size;
  }

  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}

function activityLogger() {
  try {
    return Context.current().log;
  } catch {
    return undefined; // called outside an activity (a test calling the function directly)
  }
}
