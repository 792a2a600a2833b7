import { eq } from 'drizzle-orm';
import type { ErrorCode } from '../../domain/index.js';
import type { Tx } from '../connection.js';
import { shipments, type ShipmentRow } from '../schema.js';
import { releaseKeysOfShipment } from './idempotency.js';

/** What the purchase's transactions (purchases.ts) and the sweep's (orphans.ts) share. */

/** The step expects the shipment row and it is not there: retrying cannot make it appear. */
export class ShipmentMissingError extends Error {
  constructor(readonly shipmentId: string) {
    super(`shipment ${shipmentId} has no row in the database`);
  }
}

/** The shipment row, locked for the transaction. */
export async function lockShipment(tx: Tx, shipmentId: string): Promise<ShipmentRow> {
  const [row] = await tx.select().from(shipments).where(eq(shipments.id, shipmentId)).for('update');
  if (!row) throw new ShipmentMissingError(shipmentId);
  return row;
}

/** The shipment failed and its idempotency keys freed: the one place a purchase's key is freed. */
export async function markFailedIn(tx: Tx, p: { shipmentId: string; code: ErrorCode; message: string; now: Date }): Promise<void> {
  await tx
    .update(shipments)
    .set({ status: 'failed', failureCode: p.code, failureMessage: p.message, updatedAt: p.now })
    .where(eq(shipments.id, p.shipmentId));
  await releaseKeysOfShipment(tx, p.shipmentId);
}
