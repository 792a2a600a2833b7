import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { quotes } from '../schema.js';

export type QuoteRow = typeof quotes.$inferSelect;
export type NewQuote = Omit<typeof quotes.$inferInsert, 'id'>;

/** Stores the carrier-priced items of one quote (one statement, whatever their number). */
export async function recordQuotes(db: Db, rows: readonly NewQuote[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(quotes).values([...rows]);
}

/**
 * The latest quote of this service for this parcel and route (same account and mode), expired or
 * not: the purchase charges it while it is valid and compares the carrier's new price with it after.
 */
export async function latestQuote(
  db: Db,
  p: { accountId: string; livemode: boolean; serviceCode: string; shipmentHash: string },
): Promise<QuoteRow | null> {
  const [row] = await db
    .select()
    .from(quotes)
    .where(and(eq(quotes.accountId, p.accountId), eq(quotes.livemode, p.livemode), eq(quotes.serviceCode, p.serviceCode), eq(quotes.shipmentHash, p.shipmentHash)))
    .orderBy(desc(quotes.createdAt), desc(quotes.id))
    .limit(1);
  return row ?? null;
}
