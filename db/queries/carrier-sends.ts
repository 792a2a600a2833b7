import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { carrierSends } from '../schema.js';

/** What a buy attempt learns as it fences off every earlier attempt at the same purchase. */
export interface EarlierSends {
  /** How long ago (ms, the database's clock) the latest earlier attempt sent its booking; null when none did. */
  sentMsAgo: number | null;
  /** Whether a later attempt has started already: this one must not send at all. */
  superseded: boolean;
}

/**
 * Starts attempt `attempt` of the buy under `reference`: from now on no earlier attempt can mark a
 * send (markCarrierSend), so whatever one of them sent, it marked before this statement. One
 * statement, so two attempts starting at once are ordered by the row's lock.
 *
 * `unknownSince`: an earlier attempt's outcome is unknown. When the ledger has no row for the
 * purchase yet, that attempt ran code that kept none, and it counts as sent then.
 */
export async function fenceCarrierSends(db: Db, reference: string, attempt: number, unknownSince?: Date): Promise<EarlierSends> {
  const [row] = await db
    .insert(carrierSends)
    .values({ reference, attempt, ...(unknownSince ? { sentAttempt: 0, sentAt: unknownSince } : {}) })
    .onConflictDoUpdate({ target: carrierSends.reference, set: { attempt: sql`greatest(${carrierSends.attempt}, excluded.attempt)` } })
    .returning({
      attempt: carrierSends.attempt,
      sentAttempt: carrierSends.sentAttempt,
      sentMsAgo: sql<number | null>`floor(extract(epoch from (now() - ${carrierSends.sentAt})) * 1000)::int`,
    });
  const sentEarlier = row.sentAttempt !== null && row.sentAttempt < attempt && row.sentMsAgo !== null;
  return { sentMsAgo: sentEarlier ? Math.max(0, Number(row.sentMsAgo)) : null, superseded: row.attempt > attempt };
}

/**
 * Marks attempt `attempt`'s send, just before it goes: false when a later attempt has started since
 * (fenceCarrierSends), and then it must not send.
 */
export async function markCarrierSend(db: Db, reference: string, attempt: number): Promise<boolean> {
  const marked = await db
    .update(carrierSends)
    .set({ sentAttempt: attempt, sentAt: sql`now()` })
    .where(and(eq(carrierSends.reference, reference), eq(carrierSends.attempt, attempt)))
    .returning({ reference: carrierSends.reference });
  return marked.length === 1;
}

/**
 * Attempt `attempt`'s send was answered (a refusal or a fault the carrier answered): nothing of it is
 * still in the making, so a later attempt need not wait for it and its mark is cleared. A later
 * attempt's mark is left alone.
 */
export async function clearCarrierSend(db: Db, reference: string, attempt: number): Promise<void> {
  await db
    .update(carrierSends)
    .set({ sentAttempt: null, sentAt: null })
    .where(and(eq(carrierSends.reference, reference), eq(carrierSends.sentAttempt, attempt)));
}
