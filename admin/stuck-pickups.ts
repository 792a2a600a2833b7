import { unconfirmedPickups, type Db } from '../db/index.js';

/** A pickup whose carrier answer was lost and that the orphan sweep could not settle: an operator's. */
export interface StuckPickup {
  pickup_id: string;
  account_id: string;
  carrier: string;
  status: string;
  /** The carrier's confirmation where it is known (a booking made but not undone), else null. */
  confirmation: string | null;
  window_start: string;
  created_at: string;
  what_to_do: string;
}

/**
 * Pickups left `unconfirmed` (or abandoned while `requested`) for longer than `olderThanMs`. The
 * sweep settles those a carrier can be asked about by our reference (UPS); the rest (USPS reads a
 * pickup only by its confirmation number) are listed here until an operator settles them.
 */
export async function findStuckPickups(db: Db, o: { olderThanMs: number; now?: Date; accountId?: string }): Promise<StuckPickup[]> {
  const now = o.now ?? new Date();
  const rows = await unconfirmedPickups(db, new Date(now.getTime() - o.olderThanMs), o.accountId);
  return rows.map((r) => ({
      pickup_id: r.id,
      account_id: r.accountId,
      carrier: r.carrier,
      status: r.status,
      confirmation: r.confirmation || null,
      window_start: r.windowStart.toISOString(),
      created_at: r.createdAt.toISOString(),
      what_to_do: r.confirmation
        ? `cancel ${r.carrier.toUpperCase()} pickup ${r.confirmation} at the carrier: it was booked but not charged`
        : `ask ${r.carrier.toUpperCase()} whether a pickup was booked for ${r.windowStart.toISOString().slice(0, 10)} at this address, and cancel it there: nothing was charged`,
    }));
}

/** `ops stuck`'s text for them, one block each. */
export function formatStuckPickups(pickups: StuckPickup[]): string {
  const lines = pickups.flatMap((p) => [
    `${p.pickup_id}  pickup ${p.status} since ${p.created_at}  carrier ${p.carrier}  account ${p.account_id}  window from ${p.window_start}`,
    `  the carrier's answer to the booking was lost: ${p.what_to_do}`,
  ]);
  return lines.length ? `${lines.join('\n')}\n` : '';
}
