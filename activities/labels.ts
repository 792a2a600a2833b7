import { Context } from '@temporalio/activity';
import { findShipment, type Db, type LabelStore } from '../db/index.js';
import { missingRow } from './shipments.js';
import { allLabelFiles } from '../labels/index.js';

/**
 * Renders the three label files once the purchase has been answered, and stores them. A download
 * that arrives first renders its file itself (the same function), so no file is ever rendered twice.
 */
export function createLabelActivities(deps: { db: Db; store: LabelStore; carrierName(code: string): string }) {
  return {
    async storeLabels(p: { shipmentId: string; trackingNumber: string }): Promise<void> {
      const row = await findShipment(deps.db, p.shipmentId);
      if (!row) missingRow(p.shipmentId);
      await allLabelFiles(deps.store, { ...row, trackingNumber: p.trackingNumber }, deps.carrierName);
    },
  };
}
export type LabelActivities = ReturnType<typeof createLabelActivities>;

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
