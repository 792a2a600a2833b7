import { and, desc, eq, gt, lt, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { shipments, type ShipmentRow } from '../schema.js';

export type NewShipment = typeof shipments.$inferInsert;

/** Inserts the pending row; a second insert of the same id changes nothing. */
export async function insertShipment(db: Db, row: NewShipment): Promise<void> {
  await db.insert(shipments).values(row).onConflictDoNothing();
}

export async function findShipment(db: Db | Tx, id: string): Promise<ShipmentRow | undefined> {
  const [row] = await db.select().from(shipments).where(eq(shipments.id, id));
  return row;
}

/** A shipment of this account and mode, or undefined (others' are indistinguishable from none). */
export async function findOwnShipment(
  db: Db,
  owner: { accountId: string; livemode: boolean },
  id: string,
): Promise<ShipmentRow | undefined> {
  const [row] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.id, id), eq(shipments.accountId, owner.accountId), eq(shipments.livemode, owner.livemode)));
  return row;
}

export async function findOwnShipmentByTracking(
  db: Db,
  owner: { accountId: string; livemode: boolean },
  trackingNumber: string,
): Promise<ShipmentRow | undefined> {
  const [row] = await db
    .select()
    .from(shipments)
    .where(
      and(
        eq(shipments.trackingNumber, trackingNumber),
        eq(shipments.accountId, owner.accountId),
        eq(shipments.livemode, owner.livemode),
      ),
    );
  return row;
}

export async function updateShipment(
  db: Db | Tx,
  id: string,
  changes: Partial<Omit<ShipmentRow, 'id' | 'accountId' | 'livemode' | 'createdAt'>>,
  now: Date,
): Promise<ShipmentRow | undefined> {
  const [row] = await db
    .update(shipments)
    .set({ ...changes, updatedAt: now })
    .where(eq(shipments.id, id))
    .returning();
  return row;
}

export interface ShipmentFilter {
  accountId: string;
  livemode: boolean;
  status?: string;
  reference?: string;
  createdAfter?: Date;
  /** Only the items of this batch. */
  batchId?: string;
  /** Ids sort by creation time, so the cursor is the last id seen. */
  before?: string;
  limit: number;
}

/** Newest first; one extra row tells whether there is more. */
export async function listShipments(db: Db, f: ShipmentFilter): Promise<{ rows: ShipmentRow[]; hasMore: boolean }> {
  const where: SQL[] = [eq(shipments.accountId, f.accountId), eq(shipments.livemode, f.livemode)];
  if (f.status) where.push(eq(shipments.status, f.status));
  if (f.reference !== undefined) where.push(eq(shipments.reference, f.reference));
  if (f.createdAfter) where.push(gt(shipments.createdAt, f.createdAfter));
  if (f.batchId !== undefined) where.push(eq(shipments.batchId, f.batchId));
  if (f.before) where.push(lt(shipments.id, f.before));
  const rows = await db
    .select()
    .from(shipments)
    .where(and(...where))
    .orderBy(desc(shipments.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** The shipment a carrier's tracking number belongs to, whoever owns it (carrier pushes). */
export async function findShipmentByTracking(db: Db, carrier: string, trackingNumber: string): Promise<ShipmentRow | undefined> {
  const [row] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.trackingNumber, trackingNumber), eq(shipments.carrier, carrier)));
  return row;
}
