import { createHash } from 'node:crypto';
import { and, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { accounts, type AccountRow } from '../schema.js';
import { loginAttempts, users, webSessions, type UserRow } from '../schema-portal.js';

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

export type LoginAttemptReservation = { throttled: true } | { throttled: false; id: number };

/**
 * Counts this email's and this address's failures since `since` and, while both are under their
 * limits, records the attempt as a failure before anyone checks its password; `loginAttemptSucceeded`
 * turns it into a success afterwards. Attempts on one email (and from one address) are serialised
 * across every process by transaction-scoped advisory locks, so a burst cannot all count the same
 * few failures: the Nth attempt sees the N-1 before it, pending ones included. A throttled attempt
 * is not recorded (it checks no password). Locks are taken email first, then address, in one
 * statement, so two sign-ins never wait for each other in opposite orders. The locks are held only
 * for the count and the insert (no password hashing inside), and a wait for them is bounded by the
 * pool's lock_timeout.
 */
export async function reserveLoginAttempt(
  db: Db,
  a: { email: string; ip: string; at: Date; since: Date; maxPerEmail: number; maxPerIp: number },
): Promise<LoginAttemptReservation> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`login_attempts:email:${a.email}`}, 0)), pg_advisory_xact_lock(hashtextextended(${`login_attempts:ip:${a.ip}`}, 0))`,
    );
    const [failures] = await tx
      .select({
        byEmail: sql<number>`count(*) filter (where ${loginAttempts.email} = ${a.email})`.mapWith(Number),
        byIp: sql<number>`count(*) filter (where ${loginAttempts.ip} = ${a.ip})`.mapWith(Number),
      })
      .from(loginAttempts)
      .where(and(or(eq(loginAttempts.email, a.email), eq(loginAttempts.ip, a.ip)), eq(loginAttempts.succeeded, false), gt(loginAttempts.at, a.since)));
    if (failures.byEmail >= a.maxPerEmail || failures.byIp >= a.maxPerIp) return { throttled: true };
    const [row] = await tx
      .insert(loginAttempts)
      .values({ email: a.email, ip: a.ip, succeeded: false, at: a.at })
      .returning({ id: loginAttempts.id });
    return { throttled: false, id: row.id };
  });
}

/** The reserved attempt `id` had the right password. */
export async function loginAttemptSucceeded(db: Db, id: number): Promise<void> {
  await db.update(loginAttempts).set({ succeeded: true }).where(eq(loginAttempts.id, id));
}
