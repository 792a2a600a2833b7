import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { idempotencyKeys } from '../schema.js';
import { preparedOn } from './prepared.js';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
type Scope = { accountId: string; livemode: boolean; key: string };

const where = (s: Scope) =>
  and(eq(idempotencyKeys.accountId, s.accountId), eq(idempotencyKeys.livemode, s.livemode), eq(idempotencyKeys.key, s.key));

/** Keys are kept 24 hours (contract: Idempotency). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * Claims the key for this request, or returns the live record that holds it. An expired record is
 * removed when met (`heldIdempotencyKey`), so the key works anew after 24 hours.
 */
export async function claimIdempotencyKey(
  db: Db | Tx,
  s: Scope & { fingerprint: string; shipmentId?: string; now: Date },
): Promise<{ claimed: true; row: IdempotencyRow } | { claimed: false; row: IdempotencyRow }> {
  for (;;) {
    const [inserted] = await db
      .insert(idempotencyKeys)
      .values({ accountId: s.accountId, livemode: s.livemode, key: s.key, fingerprint: s.fingerprint, shipmentId: s.shipmentId, createdAt: s.now })
      .onConflictDoNothing()
      .returning();
    if (inserted) return { claimed: true, row: inserted };
    const held = await heldIdempotencyKey(db, s, s.now);
    if (held) return { claimed: false, row: held };
    // It had expired (now removed) or was released in between: claim it again.
  }
}

/**
 * The live record that holds the key, or undefined once it is free: an expired record is removed
 * here, so the key works anew after 24 hours.
 */
export async function heldIdempotencyKey(db: Db | Tx, s: Scope, now: Date): Promise<IdempotencyRow | undefined> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
  const [existing] = await db.select().from(idempotencyKeys).where(where(s));
  if (!existing || existing.createdAt >= cutoff) return existing;
  await db.delete(idempotencyKeys).where(and(where(s), lt(idempotencyKeys.createdAt, cutoff)));
  return undefined;
}

/** Keeps the answer as it was sent (`json` keeps its text, so a replay has its keys in the same order). */
export async function saveIdempotentResponse(db: Db, s: Scope, status: number, sentBody: string): Promise<void> {
  await saveResponse(db).execute({ ...s, status, sentBody });
}

// Every keyed final answer is stored: prepared (see prepared.ts).
const saveResponse = preparedOn((db) =>
  db
    .update(idempotencyKeys)
    .set({ responseStatus: sql`${sql.placeholder('status')}::int`, responseBody: sql`${sql.placeholder('sentBody')}::json` })
    .where(
      and(
        eq(idempotencyKeys.accountId, sql.placeholder('accountId')),
        eq(idempotencyKeys.livemode, sql.placeholder('livemode')),
        eq(idempotencyKeys.key, sql.placeholder('key')),
      ),
    )
    .prepare('save_idempotent_response'),
);

/**
 * Frees the key after a failed attempt, so the same key may run anew (contract rule 4). With
 * `claimedAt`, only that claim is freed: a later claim of the same key (a retry that ran anew after
 * the key was freed once) is left alone.
 */
export async function releaseIdempotencyKey(db: Db, s: Scope, fingerprint?: string, claimedAt?: Date): Promise<void> {
  const cond = and(
    where(s),
    fingerprint ? eq(idempotencyKeys.fingerprint, fingerprint) : undefined,
    claimedAt ? eq(idempotencyKeys.createdAt, claimedAt) : undefined,
  );
  await db.delete(idempotencyKeys).where(cond);
}

/** Frees every key bound to a shipment whose purchase failed. */
export async function releaseKeysOfShipment(db: Db | Tx, shipmentId: string): Promise<void> {
  await db.delete(idempotencyKeys).where(eq(idempotencyKeys.shipmentId, shipmentId));
}
