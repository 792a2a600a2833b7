import type { CarrierAdapter } from '../carriers/index.js';
import { markPickupUnsettled, unconfirmedPickups, type Db } from '../db/index.js';
import type { Address } from '../domain/index.js';

/** A pickup the sweep settled: the booking the carrier made was cancelled, or it had made none. */
export interface SettledPickup {
  pickup_id: string;
  carrier: string;
  outcome: 'cancelled_at_carrier' | 'not_booked';
  confirmation: string | null;
}

/** A pickup left for an operator (`ops stuck` lists it), and why. */
export interface UnsettledPickup {
  pickup_id: string;
  carrier: string;
  why: string;
}

/**
 * Bookings whose carrier answer was lost (`unconfirmed`, or `requested` and abandoned), settled as
 * their customer was told: nothing booked, nothing charged. A carrier that finds a booking by our
 * reference (UPS's Pickup Pending Status) is asked: a booking it made is cancelled there, and either
 * way the pickup ends `failed`. One it cannot find by our reference (USPS reads a pickup only by its
 * confirmation number), or cannot tell about yet, is left `unconfirmed` for an operator.
 */
export async function settleUnconfirmedPickups(
  db: Db,
  adapter: (carrier: string, livemode: boolean) => CarrierAdapter,
  o: { olderThanMs: number; now?: Date; accountId?: string },
): Promise<{ settled: SettledPickup[]; left: UnsettledPickup[] }> {
  const now = o.now ?? new Date();
  const settled: SettledPickup[] = [];
  const left: UnsettledPickup[] = [];
  for (const row of await unconfirmedPickups(db, new Date(now.getTime() - o.olderThanMs), o.accountId)) {
    const carrier = adapter(row.carrier, row.livemode);
    if (!carrier.findPickup || !carrier.cancelPickup) {
      left.push({ pickup_id: row.id, carrier: row.carrier, why: `${row.carrier} cannot be asked for a booking by our reference: ask it whether one was made` });
      continue;
    }
    try {
      const window = { start: row.windowStart.toISOString(), end: row.windowEnd.toISOString() };
      const found = await carrier.findPickup(row.id, window, row.address as Address);
      if (found === 'unknown') {
        left.push({ pickup_id: row.id, carrier: row.carrier, why: `${row.carrier} tells pending pickups of today and tomorrow only: asked again then` });
        continue;
      }
      if (found) await carrier.cancelPickup(found.confirmation);
      await markPickupUnsettled(db, row.id, 'failed', found?.confirmation);
      settled.push({ pickup_id: row.id, carrier: row.carrier, outcome: found ? 'cancelled_at_carrier' : 'not_booked', confirmation: found?.confirmation ?? null });
    } catch (err) {
      left.push({ pickup_id: row.id, carrier: row.carrier, why: `the carrier could not be asked: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return { settled, left };
}
