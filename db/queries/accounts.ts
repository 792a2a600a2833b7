import { eq } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { accounts, type AccountRow } from '../schema.js';

export async function insertAccount(db: Db, row: typeof accounts.$inferInsert): Promise<AccountRow> {
  const [created] = await db.insert(accounts).values(row).returning();
  return created;
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}

export async function updateAccount(
  db: Db,
  id: string,
  changes: Partial<Pick<AccountRow, 'apiEnabled' | 'lowBalanceThreshold' | 'creditLimit'>>,
): Promise<AccountRow | undefined> {
  const [row] = await db.update(accounts).set(changes).where(eq(accounts.id, id)).returning();
  return row;
}
