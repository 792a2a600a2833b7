import { createHash } from 'node:crypto';
import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { accounts, loginAttempts, users, webSessions, type AccountRow, type UserRow } from '../schema.js';

export async function insertUser(db: Db, row: typeof users.$inferInsert): Promise<UserRow> {
  const [created] = await db.insert(users).values(row).returning();
  return created;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase()));
  return row;
}

/** Session ids are bearer secrets: the table keeps only their hash, like API keys. */
export const hashSessionId = (id: string) => createHash('sha256').update(id).digest('hex');

export async function insertWebSession(
  db: Db,
  s: { id: string; userId: string; csrfToken: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.insert(webSessions).values({
    idHash: hashSessionId(s.id),
    userId: s.userId,
    csrfToken: s.csrfToken,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
  });
}

export interface WebSession {
  csrfToken: string;
  expiresAt: Date;
  user: UserRow;
  account: AccountRow;
}

/** The unexpired session with this id, its user and the user's account. */
export async function findWebSession(db: Db, id: string, now: Date): Promise<WebSession | undefined> {
  const [row] = await db
    .select({ csrfToken: webSessions.csrfToken, expiresAt: webSessions.expiresAt, user: users, account: accounts })
    .from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(eq(webSessions.idHash, hashSessionId(id)), gt(webSessions.expiresAt, now)));
  return row;
}

export async function deleteWebSession(db: Db, id: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.idHash, hashSessionId(id)));
}

/** Housekeeping at each sign-in: sessions past their expiry, and attempts older than `attemptsBefore`. */
export async function deleteStaleSignInData(db: Db, now: Date, attemptsBefore: Date): Promise<void> {
  await db.delete(webSessions).where(lt(webSessions.expiresAt, now));
  await db.delete(loginAttempts).where(lt(loginAttempts.at, attemptsBefore));
}

export async function recordLoginAttempt(db: Db, a: { email: string; ip: string; succeeded: boolean; at: Date }): Promise<void> {
  await db.insert(loginAttempts).values(a);
}

/** Failed sign-ins since `since`, for this email and for this client address. */
export async function countLoginFailures(db: Db, f: { email: string; ip: string; since: Date }): Promise<{ email: number; ip: number }> {
  const failures = (where: ReturnType<typeof eq>) =>
    db
      .select({ n: count() })
      .from(loginAttempts)
      .where(and(where, eq(loginAttempts.succeeded, false), gt(loginAttempts.at, f.since)));
  const [[byEmail], [byIp]] = await Promise.all([failures(eq(loginAttempts.email, f.email)), failures(eq(loginAttempts.ip, f.ip))]);
  return { email: byEmail.n, ip: byIp.n };
}
