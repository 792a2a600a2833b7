import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { accounts, apiKeys, type AccountRow, type ApiKeyRow } from '../schema.js';

export async function insertApiKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await db.insert(apiKeys).values(row).returning();
  return created;
}

/** The key with this hash and its account, whatever its state; the caller judges it. */
export async function findKeyByHash(db: Db, keyHash: string): Promise<{ key: ApiKeyRow; account: AccountRow } | undefined> {
  const [row] = await db
    .select({ key: apiKeys, account: accounts })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.keyHash, keyHash));
  return row;
}

export async function revokeApiKey(db: Db, id: string, now: Date): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  if (row) return row;
  const [existing] = await db.select().from(apiKeys).where(eq(apiKeys.id, id));
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
