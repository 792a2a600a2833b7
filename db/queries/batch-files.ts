import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { LABELLED_STATUSES } from '../../domain/index.js';
import type { Db } from '../connection.js';
import { batches, shipments, type ShipmentRow } from '../schema.js';

/** A batch's merged label file. */
export type MergedLabelFile = { contentType: string; content: Buffer };

/**
 * A merged file as made from the items that had a label when it was made, in item order. `file` is
 * null when there is none to serve: no item has a label, or some label does not exist in the batch's
 * format (activities/batch-file.ts).
 */
export type MadeBatchFile = { shipmentIds: string[]; file: MergedLabelFile | null };

/**
 * The ids of the batch's items that have a label now, in item order, as one SQL array: a stored file
 * is current while its `label_shipment_ids` equal it, checked in the statement that reads or writes it.
 */
const labelledNow = (batchId: string): SQL<string[]> =>
  sql`array(select ${shipments.id} from ${shipments} where ${shipments.batchId} = ${batchId} and ${inArray(shipments.status, [...LABELLED_STATUSES])} order by ${shipments.batchIndex})`;

const isCurrent = (batchId: string) => sql<boolean>`coalesce(${batches.labelShipmentIds} = ${labelledNow(batchId)}, false)`;

/** The batch's items that have a label now, in item order: what its merged file holds. */
export async function labelledBatchItems(db: Db, batchId: string): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(and(eq(shipments.batchId, batchId), inArray(shipments.status, [...LABELLED_STATUSES])))
    .orderBy(asc(shipments.batchIndex));
}

/**
 * A batch's stored merged file against its items now: `current` while it was made from exactly the
 * items that have a label now (a void since makes it stale), `labelled` how many have one now, and
 * the file itself only when it is current. Undefined for no such batch.
 */
export async function batchLabelState(
  db: Db,
  id: string,
): Promise<{ status: string; current: boolean; labelled: number; file: MergedLabelFile | null } | undefined> {
  const [row] = await db
    .select({
      status: batches.status,
      current: isCurrent(id),
      labelled: sql<number>`cardinality(${labelledNow(id)})`,
      contentType: batches.labelContentType,
      content: sql<Buffer | null>`case when ${isCurrent(id)} then ${batches.labelContent} end`,
    })
    .from(batches)
    .where(eq(batches.id, id));
  if (!row) return undefined;
  const file = row.current && row.contentType && row.content ? { contentType: row.contentType, content: row.content } : null;
  return { status: row.status, current: row.current, labelled: Number(row.labelled), file };
}

/**
 * Stores the merged file and marks the batch completed, once, provided the items with a label are
 * still those it was made from: false when the batch already was completed, or when an item was
 * voided while the file was made (the caller makes it again).
 */
export async function completeBatch(db: Db, id: string, made: MadeBatchFile, now: Date): Promise<boolean> {
  const done = await db
    .update(batches)
    .set({ status: 'completed', ...columnsOf(made), completedAt: now })
    .where(and(eq(batches.id, id), eq(batches.status, 'processing'), sql`${sql.param(made.shipmentIds)}::text[] = ${labelledNow(id)}`))
    .returning({ id: batches.id });
  return done.length > 0;
}

/**
 * Replaces a completed batch's merged file with one made again, provided the items with a label are
 * still those it was made from: a file made before a later void never overwrites a newer one.
 */
export async function storeBatchLabelFile(db: Db, id: string, made: MadeBatchFile): Promise<boolean> {
  const done = await db
    .update(batches)
    .set(columnsOf(made))
    .where(and(eq(batches.id, id), eq(batches.status, 'completed'), sql`${sql.param(made.shipmentIds)}::text[] = ${labelledNow(id)}`))
    .returning({ id: batches.id });
  return done.length > 0;
}

const columnsOf = (made: MadeBatchFile) => ({
  labelShipmentIds: made.shipmentIds,
  labelContentType: made.file?.contentType ?? null,
  labelContent: made.file?.content ?? null,
});

/** Whether a batch has a current merged label file stored (without reading it). */
export async function batchHasLabelFile(db: Db, id: string): Promise<boolean> {
  const [row] = await db
    .select({ current: isCurrent(id), contentType: batches.labelContentType })
    .from(batches)
    .where(eq(batches.id, id));
  return Boolean(row?.current && row.contentType);
}

/**
 * A completed batch's merged label file while it is current: never one that still holds a label
 * voided since it was made (the batch's label route has it made again, api/batch-label-file.ts).
 */
export async function batchLabelFile(db: Db, id: string): Promise<MergedLabelFile | undefined> {
  return (await batchLabelState(db, id))?.file ?? undefined;
}
