import { and, asc, desc, eq, isNotNull, sql } from 'drizzle-orm';
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
  changes: Partial<Pick<AccountRow, 'apiEnabled' | 'apiEnabledAt' | 'lowBalanceThreshold' | 'creditLimit'>>,
): Promise<AccountRow | undefined> {
  const [row] = await db.update(accounts).set(changes).where(eq(accounts.id, id)).returning();
  return row;
}

/**
 * Records the account holder's request for API access; a second request keeps the first time, and
 * an account already enabled records none (its review is over). Undefined when nothing was recorded.
 */
export async function requestApiAccess(db: Db, id: string, now: Date): Promise<AccountRow | undefined> {
  const [row] = await db
    .update(accounts)
    .set({ apiAccessRequestedAt: sql`coalesce(${accounts.apiAccessRequestedAt}, ${now.toISOString()}::timestamptz)` })
    .where(and(eq(accounts.id, id), eq(accounts.apiEnabled, false)))
    .returning();
  return row;
}

/** Every account, newest first (the admin console's list). */
export async function listAccounts(db: Db, limit = 200): Promise<AccountRow[]> {
  return db.select().from(accounts).orderBy(desc(accounts.id)).limit(limit);
}

/** Accounts that asked for API access and are not enabled yet, oldest request first. */
export async function listAccessRequests(db: Db): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(and(isNotNull(accounts.apiAccessRequestedAt), eq(accounts.apiEnabled, false)))
    .orderBy(asc(accounts.apiAccessRequestedAt));
}
