import { and, eq } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { shipmentDocuments } from '../schema.js';

/** A shipment's customs paperwork as stored: once per shipment and type, never made twice. */
export interface StoredDocument {
  format: string;
  content: Buffer;
}

export async function findShipmentDocument(db: Db, shipmentId: string, type: string): Promise<StoredDocument | undefined> {
  const [row] = await db
    .select({ format: shipmentDocuments.format, content: shipmentDocuments.content })
    .from(shipmentDocuments)
    .where(and(eq(shipmentDocuments.shipmentId, shipmentId), eq(shipmentDocuments.type, type)));
  return row;
}

/**
 * Stores a document unless one of its type is there already, and answers the stored one: two
 * requests that drew it at once keep the first, so every download serves the same bytes.
 */
export async function storeShipmentDocument(db: Db, p: { shipmentId: string; type: string; format: string; content: Buffer }): Promise<StoredDocument> {
  await db.insert(shipmentDocuments).values(p).onConflictDoNothing();
  return (await findShipmentDocument(db, p.shipmentId, p.type))!;
}
