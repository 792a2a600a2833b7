/**
 * `npm run --silent ops -- reconcile`: the sweep run by hand, for an operator who does not want to
 * wait for the fleet's Schedule (workers/schedules.ts), which runs the same functions every minute:
 * pending shipments whose workflow never started are failed, and shipments left `pending` or
 * `voiding` by a run that closed mid-way get a run that settles them. Unlike the Schedule, it also
 * follows a settling run that itself closed unsettled with another: an operator asked for it.
 */
import type { Client } from '@temporalio/client';
import { settleStoppedShipments, sweepUnstartedPurchases, type SettlingShipment, type SweptShipment } from '../activities/index.js';
import type { Db } from '../db/index.js';

export { sweepUnstartedPurchases as reconcileOrphans } from '../activities/index.js';

export async function reconcile(
  db: Db,
  client: Client,
  o: { olderThanMs: number; queuePrefix: string; accountId?: string; now?: Date },
): Promise<{ failed: SweptShipment[]; settling: SettlingShipment[] }> {
  const failed = await sweepUnstartedPurchases(db, client, o);
  const { settling } = await settleStoppedShipments(db, client, { ...o, again: true });
  return { failed, settling };
}
