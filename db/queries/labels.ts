import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { carrierLabels, labelFiles, shipments } from '../schema.js';

/** A real carrier's label as bought: its document (format and bytes) and its ZPL when that is apart. */
export interface StoredCarrierLabel {
  carrier: string;
  format: string;
  content: Buffer;
  /** The carrier's ZPL of the same label, when the document is not ZPL itself and the carrier gave it. */
  zpl: Buffer | null;
}

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
  /** The real carrier's label bought for the shipment, which its files are made from; undefined for labels we draw. */
  carrierLabel(shipmentId: string): Promise<StoredCarrierLabel | undefined>;
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
    carrierLabel: (shipmentId) => carrierLabelOf(db, shipmentId),
  };
}

export async function carrierLabelOf(db: Db, shipmentId: string): Promise<StoredCarrierLabel | undefined> {
  const [row] = await db
    .select({ carrier: carrierLabels.carrier, format: carrierLabels.format, content: carrierLabels.content, zpl: carrierLabels.zpl })
    .from(carrierLabels)
    .where(eq(carrierLabels.shipmentId, shipmentId));
  return row;
}

/**
 * Stores a real carrier's label as bought, keyed by the shipment (the purchase's reference). A retried
 * purchase stores nothing new: the document first stored stays, and a billed amount is only added
 * where the first answer had none (a purchase settled by lookup comes back without one).
 */
export async function storeCarrierLabel(
  db: Db,
  p: {
    shipmentId: string;
    carrier: string;
    format: string;
    content: Buffer;
    billed: { amount: number; currency: string } | null;
    trackingNumber?: string;
    carrierShipmentId?: string | null;
  },
): Promise<void> {
  await db
    .insert(carrierLabels)
    .values({
      shipmentId: p.shipmentId,
      carrier: p.carrier,
      format: p.format,
      content: p.content,
      billedAmount: p.billed?.amount ?? null,
      billedCurrency: p.billed?.currency ?? null,
      trackingNumber: p.trackingNumber ?? null,
      carrierShipmentId: p.carrierShipmentId ?? null,
    })
    .onConflictDoUpdate({
      target: carrierLabels.shipmentId,
      set: {
        // Ids kept from the first answer that gave them (a row stored before they were kept has none).
        trackingNumber: sql`coalesce(${carrierLabels.trackingNumber}, excluded.tracking_number)`,
        carrierShipmentId: sql`coalesce(${carrierLabels.carrierShipmentId}, excluded.carrier_shipment_id)`,
        // Amount and currency move together: both from the first answer that gave them.
        billedAmount: sql`coalesce(${carrierLabels.billedAmount}, excluded.billed_amount)`,
        billedCurrency: sql`case when ${carrierLabels.billedAmount} is null then excluded.billed_currency else ${carrierLabels.billedCurrency} end`,
      },
    });
}

/** Whether the carrier's ZPL of the shipment's label is stored (without reading the documents). */
export async function hasCarrierZpl(db: Db, shipmentId: string): Promise<boolean> {
  const rows = await db
    .select({ shipmentId: carrierLabels.shipmentId })
    .from(carrierLabels)
    .where(and(eq(carrierLabels.shipmentId, shipmentId), isNotNull(carrierLabels.zpl)));
  return rows.length > 0;
}

/** Adds the carrier's ZPL beside the stored document; the first one stored stays. */
export async function storeCarrierZpl(db: Db, shipmentId: string, zpl: Buffer): Promise<void> {
  await db
    .update(carrierLabels)
    .set({ zpl })
    .where(and(eq(carrierLabels.shipmentId, shipmentId), isNull(carrierLabels.zpl)));
}

/** What the carrier billed for a shipment's label, for reconciliation; undefined when not recorded. */
export async function carrierBilledOf(db: Db, shipmentId: string): Promise<{ amount: number; currency: string } | undefined> {
  const [row] = await db
    .select({ amount: carrierLabels.billedAmount, currency: carrierLabels.billedCurrency })
    .from(carrierLabels)
    .where(eq(carrierLabels.shipmentId, shipmentId));
  return row?.amount == null || row.currency == null ? undefined : { amount: row.amount, currency: row.currency };
}

/**
 * A purchase as stored when it was bought: the ids its label's row kept, else the shipment's tracking
 * number (labels we draw, rows stored before the ids were kept). Null when neither is stored.
 */
export async function storedCarrierPurchase(db: Db, shipmentId: string): Promise<{ trackingNumber: string; carrierShipmentId: string | null } | null> {
  const [label] = await db
    .select({ trackingNumber: carrierLabels.trackingNumber, carrierShipmentId: carrierLabels.carrierShipmentId })
    .from(carrierLabels)
    .where(eq(carrierLabels.shipmentId, shipmentId));
  if (label?.trackingNumber) return { trackingNumber: label.trackingNumber, carrierShipmentId: label.carrierShipmentId };
  const [shipment] = await db.select({ trackingNumber: shipments.trackingNumber }).from(shipments).where(eq(shipments.id, shipmentId));
  return shipment?.trackingNumber ? { trackingNumber: shipment.trackingNumber, carrierShipmentId: null } : null;
}
