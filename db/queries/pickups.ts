import { and, asc, desc, eq, inArray, lt } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { pickups, type PickupRow } from '../schema-forms.js';
import { users } from '../schema-portal.js';
import { claimIdempotencyKey, type IdempotencyRow } from './idempotency.js';

export type NewPickup = typeof pickups.$inferInsert;
type Owner = { accountId: string; livemode: boolean };

/**
 * What a customer sees. A booking is recorded `requested` before the carrier is asked, and ends
 * `scheduled`, or `failed` (the carrier refused: nothing booked, nothing charged), or `unconfirmed`
 * (the carrier's answer was lost and it cannot be asked again safely: for an operator). Those three
 * are ours alone: the API neither lists nor shows them (404), as no pickup was promised.
 */
export const PUBLIC_PICKUP_STATUSES = ['scheduled', 'cancelled'] as const;

export async function insertPickup(db: Db | Tx, row: NewPickup): Promise<PickupRow> {
  const [inserted] = await db.insert(pickups).values(row).returning();
  return inserted;
}

/**
 * Claims the Idempotency-Key and records the pickup in one transaction, the key bound to the pickup
 * (its `shipment_id` names the pickup here), so a retry after a crash finds the booking it must
 * resolve. Without a key the pickup is recorded alone. `existing` is the record that holds the key.
 */
export async function recordPickup(
  db: Db,
  row: NewPickup,
  key: { accountId: string; livemode: boolean; key: string; fingerprint: string; now: Date } | undefined,
): Promise<{ kind: 'new'; row: PickupRow } | { kind: 'existing'; key: IdempotencyRow }> {
  return db.transaction(async (tx) => {
    if (key) {
      const claim = await claimIdempotencyKey(tx, { ...key, shipmentId: row.id });
      if (!claim.claimed) return { kind: 'existing', key: claim.row };
    }
    return { kind: 'new', row: await insertPickup(tx, row) };
  });
}

/** A pickup by id, whatever its status (the booking's own steps). */
export async function findPickup(db: Db | Tx, id: string, lock = false): Promise<PickupRow | undefined> {
  const query = db.select().from(pickups).where(eq(pickups.id, id));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function findOwnPickup(db: Db, owner: Owner, id: string): Promise<PickupRow | undefined> {
  const [row] = await db
    .select()
    .from(pickups)
    .where(and(eq(pickups.id, id), eq(pickups.accountId, owner.accountId), eq(pickups.livemode, owner.livemode), inArray(pickups.status, [...PUBLIC_PICKUP_STATUSES])));
  return row;
}

/** Confirms a booking the carrier made: in the transaction that charges its fee. */
export async function markPickupScheduled(tx: Tx, id: string, fields: Pick<PickupRow, 'confirmation' | 'priceNet' | 'priceVat' | 'currency'>): Promise<PickupRow> {
  const [row] = await tx
    .update(pickups)
    .set({ ...fields, status: 'scheduled' })
    .where(eq(pickups.id, id))
    .returning();
  return row;
}

/** Ends a booking that is not scheduled: `failed` or `unconfirmed` (with the carrier's confirmation when it is known). */
export async function markPickupUnsettled(db: Db, id: string, status: 'failed' | 'unconfirmed', confirmation?: string): Promise<void> {
  await db
    .update(pickups)
    .set({ status, ...(confirmation ? { confirmation } : {}) })
    .where(and(eq(pickups.id, id), inArray(pickups.status, ['requested', 'unconfirmed'])));
}

/** Marks a scheduled pickup cancelled; undefined when it was not scheduled any more (a concurrent cancel). */
export async function markPickupCancelled(db: Db, id: string, now: Date): Promise<PickupRow | undefined> {
  const [row] = await db
    .update(pickups)
    .set({ status: 'cancelled', cancelledAt: now })
    .where(and(eq(pickups.id, id), eq(pickups.status, 'scheduled')))
    .returning();
  return row;
}

export async function listPickups(db: Db, f: Owner & { before?: string; limit: number }) {
  const where = [eq(pickups.accountId, f.accountId), eq(pickups.livemode, f.livemode), inArray(pickups.status, [...PUBLIC_PICKUP_STATUSES])];
  if (f.before) where.push(lt(pickups.id, f.before));
  const rows = await db
    .select()
    .from(pickups)
    .where(and(...where))
    .orderBy(desc(pickups.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** The e-mail of the account's first portal user: the contact a carrier that asks for one is given. */
export async function accountContactEmail(db: Db, accountId: string): Promise<string | undefined> {
  const [row] = await db.select({ email: users.email }).from(users).where(eq(users.accountId, accountId)).orderBy(asc(users.createdAt)).limit(1);
  return row?.email;
}

/**
 * Bookings whose carrier answer was lost (`unconfirmed`), or abandoned while `requested`, recorded
 * before `before`: for the orphan sweep to settle, and for operators (`ops stuck`) when it cannot.
 */
export async function unconfirmedPickups(db: Db, before: Date, accountId?: string): Promise<PickupRow[]> {
  return db
    .select()
    .from(pickups)
    .where(and(inArray(pickups.status, ['requested', 'unconfirmed']), lt(pickups.createdAt, before), ...(accountId ? [eq(pickups.accountId, accountId)] : [])))
    .orderBy(asc(pickups.createdAt))
    .limit(100);
}
