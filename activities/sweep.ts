import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { failUnstartedPurchase, unstartedPurchases, type Db } from '../db/index.js';
import { FAILURE, shipmentWorkflowId } from '../domain/index.js';

export interface SweptShipment {
  shipment_id: string;
  account_id: string;
  created_at: string;
}

/**
 * Pending shipments whose workflow never started: the API stopped between recording the purchase and
 * starting it, and no retry with the same key came. Nothing was bought or charged. Each is failed and
 * its idempotency keys freed in one transaction, unless its workflow began meanwhile (it priced the
 * row under the same lock), so a late retry and the sweep never both win.
 */
export async function sweepUnstartedPurchases(
  db: Db,
  client: Client,
  o: { olderThanMs: number; now?: Date; accountId?: string },
): Promise<SweptShipment[]> {
  const now = o.now ?? new Date();
  const candidates = await unstartedPurchases(db, new Date(now.getTime() - o.olderThanMs), o.accountId);
  const failed: SweptShipment[] = [];
  for (const row of candidates) {
    try {
      await client.workflow.getHandle(shipmentWorkflowId(row.id)).describe();
      continue; // its workflow exists and will price it: `ops stuck` explains it if it does not
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    const swept = await failUnstartedPurchase(db, {
      shipmentId: row.id,
      code: FAILURE.internalError,
      message: 'The purchase was never started (the API stopped first); nothing was bought or charged.',
      now,
    });
    if (swept) failed.push({ shipment_id: row.id, account_id: row.accountId, created_at: row.createdAt.toISOString() });
  }
  return failed;
}

/** The sweep as an activity, for the Schedule's workflow. */
export function createSweepActivities(deps: { db: Db; client: Client }) {
  return {
    sweepUnstartedPurchases: (p: { olderThanMs: number }) => sweepUnstartedPurchases(deps.db, deps.client, p),
  };
}
export type SweepActivities = ReturnType<typeof createSweepActivities>;
