import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { labelFiles } from '../schema.js';

/** Where rendered label files live. PostgreSQL by default; an object store fits the same shape. */
export interface LabelStore {
  put(shipmentId: string, format: string, contentType: string, content: Uint8Array): Promise<void>;
  get(shipmentId: string, format: string): Promise<{ contentType: string; content: Buffer } | undefined>;
  /**
   * The stored file, or the one `make` produces, stored. `make` runs at most once per file, ever:
   * concurrent callers (the render after a purchase and an early download) wait for each other.
   */
  getOrMake(
    shipmentId: string,
    format: string,
    make: () => Promise<{ contentType: string; content: Uint8Array }>,
  ): Promise<{ contentType: string; content: Buffer }>;
  /**
   * Makes and stores every file of `formats` not stored yet, in one transaction, under the same
   * per-file locks as `getOrMake` (taken in the order given), so each file is still made at most once.
   */
  makeMissing(
    shipmentId: string,
    formats: readonly string[],
    make: (format: string) => Promise<{ contentType: string; content: Uint8Array }>,
  ): Promise<void>;
}

const lockKey = (shipmentId: string, format: string) => `label:${shipmentId}:${format}`;

/** The formats of a shipment's stored files (their names only, not their content). */
async function storedFormats(q: Db | Tx, shipmentId: string): Promise<Set<string>> {
  const rows = await q.select({ format: labelFiles.format }).from(labelFiles).where(eq(labelFiles.shipmentId, shipmentId));
  return new Set(rows.map((r) => r.format));
}

/** One stored file, read through the database or inside a transaction. */
async function fileOf(q: Db | Tx, shipmentId: string, format: string) {
  const [row] = await q
    .select({ contentType: labelFiles.contentType, content: labelFiles.content })
    .from(labelFiles)
    .where(and(eq(labelFiles.shipmentId, shipmentId), eq(labelFiles.format, format)));
  return row;
}

export function createPostgresLabelStore(db: Db): LabelStore {
  return {
    async put(shipmentId, format, contentType, content) {
      await db
        .insert(labelFiles)
        .values({ shipmentId, format, contentType, content: Buffer.from(content) })
        .onConflictDoNothing();
    },
    get: (shipmentId, format) => fileOf(db, shipmentId, format),
    async getOrMake(shipmentId, format, make) {
      const found = await fileOf(db, shipmentId, format);
      if (found) return found;
      return db.transaction(async (tx) => {
        // One maker per file across every process: a transaction-scoped advisory lock on its name.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lockKey(shipmentId, format)}, 0))`);
        const stored = await fileOf(tx, shipmentId, format);
        if (stored) return stored;
        const made = await make();
        const content = Buffer.from(made.content);
        await tx.insert(labelFiles).values({ shipmentId, format, contentType: made.contentType, content });
        return { contentType: made.contentType, content };
      });
    },
    async makeMissing(shipmentId, formats, make) {
      // Straight to the locks, with no read before them: the caller is the render after a capture,
      // when the files are not there yet unless a download came first.
      await db.transaction(async (tx) => {
        // The locks of every file in one round trip, in the order given: two callers with the same
        // order cannot deadlock, and a download holds one lock and waits for none.
        const locks = sql.join(
          formats.map((f) => sql`pg_advisory_xact_lock(hashtextextended(${lockKey(shipmentId, f)}, 0))`),
          sql`, `,
        );
        await tx.execute(sql`select ${locks}`);
        const meanwhile = await storedFormats(tx, shipmentId);
        const rows = [];
        for (const format of formats.filter((f) => !meanwhile.has(f))) {
          const made = await make(format);
          rows.push({ shipmentId, format, contentType: made.contentType, content: Buffer.from(made.content) });
        }
        if (rows.length) await tx.insert(labelFiles).values(rows);
      });
    },
  };
}
