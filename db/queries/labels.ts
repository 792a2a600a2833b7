import { and, eq } from 'drizzle-orm';
import type { Db } from '../connection.js';
import { labelFiles } from '../schema.js';

/** Where rendered label files live. PostgreSQL by default; an object store fits the same shape. */
export interface LabelStore {
  put(shipmentId: string, format: string, contentType: string, content: Uint8Array): Promise<void>;
  get(shipmentId: string, format: string): Promise<{ contentType: string; content: Buffer } | undefined>;
}

export function createPostgresLabelStore(db: Db): LabelStore {
  return {
    async put(shipmentId, format, contentType, content) {
      await db
        .insert(labelFiles)
        .values({ shipmentId, format, contentType, content: Buffer.from(content) })
        .onConflictDoNothing();
    },
    async get(shipmentId, format) {
      const [row] = await db
        .select({ contentType: labelFiles.contentType, content: labelFiles.content })
        .from(labelFiles)
        .where(and(eq(labelFiles.shipmentId, shipmentId), eq(labelFiles.format, format)));
      return row;
    },
  };
}
