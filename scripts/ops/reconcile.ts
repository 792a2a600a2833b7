import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { and, eq, lt } from 'drizzle-orm';
import { releaseKeysOfShipment, schema, updateShipment, type Db } from '../../db/index.js';
import { shipmentWorkflowId } from '../../domain/index.js';

/**
 * Pending shipments that have no workflow: the API stopped between recording the shipment and
 * starting its purchase, so the caller never got an answer and nothing was bought or charged. They
 * are marked failed (never started now: the caller may already have bought again) and their
 * idempotency keys freed.
 */
export async function reconcileOrphans(
  db: Db,
  client: Client,
  o: { olderThanMs: number; now?: Date; accountId?: string },
): Promise<Array<{ shipment_id: string; account_id: string; created_at: string }>> {
  const now = o.now ?? new Date();
  const cutoff = new Date(now.getTime() - o.olderThanMs);
  const candidates = await db
    .select()
    .from(schema.shipments)
    .where(
      and(
        eq(schema.shipments.status, 'pending'),
        lt(schema.shipments.createdAt, cutoff),
        o.accountId ? eq(schema.shipments.accountId, o.accountId) : undefined,
      ),
    );
  const failed = [];
  for (const row of candidates) {
    try {
      await client.workflow.getHandle(shipmentWorkflowId(row.id)).describe();
      continue; // its workflow exists: `ops stuck` explains it
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    await updateShipment(
      db,
      row.id,
      {
        status: 'failed',
        failureCode: 'internal_error',
        failureMessage: 'The purchase was never started (the API stopped first); nothing was bought or charged.',
      },
      now,
    );
    await releaseKeysOfShipment(db, row.id);
    failed.push({ shipment_id: row.id, account_id: row.accountId, created_at: row.createdAt.toISOString() });
  }
  return failed;
}
