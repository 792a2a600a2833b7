import { asc, eq } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { trackingEvents } from '../schema.js';

/** Every scan of a shipment, oldest first. */
export async function scansOf(db: Db, shipmentId: string) {
  return db
    .select()
    .from(trackingEvents)
    .where(eq(trackingEvents.shipmentId, shipmentId))
    .orderBy(asc(trackingEvents.occurredAt), asc(trackingEvents.id));
}
