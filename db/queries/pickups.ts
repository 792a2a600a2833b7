import { and, asc, desc, eq, lt } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { pickups, type PickupRow } from '../schema-forms.js';
import { users } from '../schema-portal.js';

export type NewPickup = typeof pickups.$inferInsert;
type Owner = { accountId: string; livemode: boolean };

export async function insertPickup(db: Db | Tx, row: NewPickup): Promise<PickupRow> {
  const [inserted] = await db.insert(pickups).values(row).returning();
  return inserted;
}

export async function findOwnPickup(db: Db, owner: Owner, id: string): Promise<PickupRow | undefined> {
  const [row] = await db
    .select()
    .from(pickups)
    .where(and(eq(pickups.id, id), eq(pickups.accountId, owner.accountId), eq(pickups.livemode, owner.livemode)));
  return row;
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
  const where = [eq(pickups.accountId, f.accountId), eq(pickups.livemode, f.livemode)];
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
