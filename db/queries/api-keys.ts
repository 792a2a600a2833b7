import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { accounts, apiKeys, type AccountRow, type ApiKeyRow } from '../schema.js';
import { preparedOn } from './prepared.js';

export async function insertApiKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await db.insert(apiKeys).values(row).returning();
  return created;
}

/** The key with this hash and its account, whatever its state; the caller judges it. */
export async function findKeyByHash(db: Db, keyHash: string): Promise<{ key: ApiKeyRow; account: AccountRow } | undefined> {
  const [row] = await keyByHash(db).execute({ keyHash });
  return row;
}

// Every authenticated request runs it: prepared (see prepared.ts).
const keyByHash = preparedOn((db) =>
  db
    .select({ key: apiKeys, account: accounts })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
    .prepare('find_key_by_hash'),
);

/** Revokes the key (of `accountId`, when given); an already revoked key is returned as it is. */
export async function revokeApiKey(db: Db, id: string, now: Date, accountId?: string): Promise<ApiKeyRow | undefined> {
  const which = accountId === undefined ? eq(apiKeys.id, id) : and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId))!;
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(which, isNull(apiKeys.revokedAt)))
    .returning();
  if (row) return row;
  const [existing] = await db.select().from(apiKeys).where(which);
  return existing;
}

/** Keys are stored as SHA-256: they carry 190 random bits, so a slow hash adds nothing. */
export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new secret: `svc_test_` or `svc_live_` and 32 base62 characters (about 190 bits). */
export function generateApiKey(livemode: boolean): string {
  let secret = '';
  while (secret.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && secret.length < 32) secret += BASE62[byte % 62]; // no modulo bias
    }
  }
  return `svc_${livemode ? 'live' : 'test'}_${secret}`;
}

/** An account's keys, newest first, revoked ones included (the portal shows them as revoked). */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.id));
}

/** Notes a key's use, at most once a minute per key, so a busy key does not write on every request. */
export async function touchApiKey(db: Db, id: string, now: Date): Promise<void> {
  const minuteAgo = new Date(now.getTime() - 60_000);
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, minuteAgo))));
}
