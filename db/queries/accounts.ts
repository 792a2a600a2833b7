import { and, asc, desc, eq, ilike, isNotNull, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { accounts, type AccountRow } from '../schema.js';

export async function insertAccount(db: Db, row: typeof accounts.$inferInsert): Promise<AccountRow> {
  const [created] = await db.insert(accounts).values(row).returning();
  return created;
}

export async function findAccount(db: Db | Tx, id: string): Promise<AccountRow | undefined> {
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

/**
 * Accounts, newest first (the admin console's list): every one, or those whose id is `search` or
 * whose name contains it (case-insensitive), so an account beyond the first page can be found.
 */
export async function listAccounts(db: Db, limit = 200, search?: string): Promise<AccountRow[]> {
  const q = search?.trim();
  const like = q ? `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : '';
  return db
    .select()
    .from(accounts)
    .where(q ? or(eq(accounts.id, q), ilike(accounts.name, like)) : undefined)
    .orderBy(desc(accounts.id))
    .limit(limit);
}

/** Accounts enabled after a request in the portal, most recently enabled first (the review record). */
export async function listRecentlyEnabled(db: Db, limit = 20): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(and(isNotNull(accounts.apiAccessRequestedAt), isNotNull(accounts.apiEnabledAt)))
    .orderBy(desc(accounts.apiEnabledAt))
    .limit(limit);
}

/** Accounts that asked for API access and are not enabled yet, oldest request first. */
export async function listAccessRequests(db: Db): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(and(isNotNull(accounts.apiAccessRequestedAt), eq(accounts.apiEnabled, false)))
    .orderBy(asc(accounts.apiAccessRequestedAt));
}
