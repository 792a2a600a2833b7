import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { events, type EventRow } from '../schema.js';

/** Stores an event once: its id is made in the workflow, so a retried activity adds nothing. */
export async function insertEvent(db: Db | Tx, row: typeof events.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(events).values(row).onConflictDoNothing().returning({ id: events.id });
  return inserted.length > 0;
}

export async function findOwnEvent(db: Db, owner: { accountId: string; livemode: boolean }, id: string) {
  const [row] = await db
    .select()
    .from(events)
    .where(and(eq(events.id, id), eq(events.accountId, owner.accountId), eq(events.livemode, owner.livemode)));
  return row;
}

export async function listEvents(
  db: Db,
  f: { accountId: string; livemode: boolean; type?: string; shipmentId?: string; before?: string; limit: number },
): Promise<{ rows: EventRow[]; hasMore: boolean }> {
  const where = [eq(events.accountId, f.accountId), eq(events.livemode, f.livemode)];
  if (f.type) where.push(eq(events.type, f.type));
  if (f.shipmentId) where.push(eq(events.shipmentId, f.shipmentId));
  if (f.before) where.push(lt(events.id, f.before));
  const rows = await db.select().from(events).where(and(...where)).orderBy(desc(events.id)).limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}
