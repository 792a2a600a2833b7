import { and, asc, count, eq, inArray, isNull, lt } from 'drizzle-orm';
import type { ErrorCode } from '../../domain/index.js';
import type { Db } from '../connection.js';
import { batches, shipments, type ShipmentRow } from '../schema.js';
import { releaseIn } from './ledger.js';
import { lockShipment, markFailedIn } from './purchases.js';

/**
 * The orphan sweep's queries (activities/sweep.ts): purchases and voids whose workflow never started
 * or stopped before it ended, found and settled. Each settles under the shipment's lock, as the
 * purchase's own transactions do (purchases.ts), so a workflow that moves on meanwhile wins.
 */

/**
 * Settles a purchase whose workflow stopped (an operator's Terminate) before it ended: when the row is
 * still pending, the hold is released, the shipment failed and its keys freed, as a failed purchase
 * would (one transaction). A row that moved on meanwhile (a capture that committed as the run
 * stopped) is left as it is. Returns the row as it now stands.
 */
export async function settleStoppedPurchase(
  db: Db,
  p: { shipmentId: string; accountId: string; code: ErrorCode; message: string; now: Date },
): Promise<{ status: string; carrier: string | null; trackingNumber: string | null; settled: boolean }> {
  return db.transaction(async (tx) => {
    const row = await lockShipment(tx, p.shipmentId);
    if (row.status !== 'pending') return { status: row.status, carrier: row.carrier, trackingNumber: row.trackingNumber, settled: false };
    await releaseIn(tx, { accountId: p.accountId, shipmentId: p.shipmentId });
    await markFailedIn(tx, p);
    return { status: 'failed', carrier: row.carrier, trackingNumber: null, settled: true };
  });
}

/**
 * Shipments left `pending` or `voiding` since before `cutoff`: a purchase or a void under way, or
 * one whose workflow stopped before it ended (the sweep asks Temporal which).
 */
export async function unsettledShipments(db: Db, cutoff: Date, limit: number, accountId?: string): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(
      and(
        inArray(shipments.status, ['pending', 'voiding']),
        lt(shipments.updatedAt, cutoff),
        accountId === undefined ? undefined : eq(shipments.accountId, accountId),
      ),
    )
    .orderBy(shipments.updatedAt)
    .limit(limit);
}

/**
 * Pending shipments created before `cutoff` whose purchase never began (never priced). A batch's
 * items are not among them: each waits for its turn in its batch's workflow, which starts it.
 */
export async function unstartedPurchases(db: Db, cutoff: Date, accountId?: string): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(
      and(
        eq(shipments.status, 'pending'),
        isNull(shipments.priceGross),
        isNull(shipments.batchId),
        lt(shipments.createdAt, cutoff),
        accountId ? eq(shipments.accountId, accountId) : undefined,
      ),
    );
}

/**
 * Fails a pending shipment whose purchase never began and frees its keys, in one transaction; false
 * when its workflow began meanwhile (it priced the row under the same lock), so nothing is touched.
 */
export async function failUnstartedPurchase(db: Db, p: { shipmentId: string; code: ErrorCode; message: string; now: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await lockShipment(tx, p.shipmentId);
    if (row.status !== 'pending' || row.priceGross !== null) return false;
    await markFailedIn(tx, p);
    return true;
  });
}

/** Batches still `processing` that were created before `cutoff`, oldest first: their workflow may have stopped. */
export async function processingBatches(db: Db, cutoff: Date, limit: number, accountId?: string): Promise<Array<{ id: string; accountId: string }>> {
  return db
    .select({ id: batches.id, accountId: batches.accountId })
    .from(batches)
    .where(and(eq(batches.status, 'processing'), lt(batches.createdAt, cutoff), accountId === undefined ? undefined : eq(batches.accountId, accountId)))
    .orderBy(asc(batches.createdAt))
    .limit(limit);
}

/** A batch's items still `pending`, in item order. */
export async function pendingBatchItems(db: Db, batchId: string): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(and(eq(shipments.batchId, batchId), eq(shipments.status, 'pending')))
    .orderBy(asc(shipments.batchIndex));
}

/** How many of a batch's items are still `pending`. */
export async function pendingBatchItemCount(db: Db, batchId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(shipments)
    .where(and(eq(shipments.batchId, batchId), eq(shipments.status, 'pending')));
  return Number(row?.n ?? 0);
}
