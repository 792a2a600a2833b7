import { and, asc, count, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { countItems, type BatchCounts, type BatchRecord } from '../../domain/index.js';
import type { Db } from '../connection.js';
import { batches, idempotencyKeys, shipments, type BatchRow, type ShipmentRow } from '../schema.js';
import { heldIdempotencyKey, type IdempotencyRow } from './idempotency.js';
import type { NewShipment } from './shipments.js';

type Owner = { accountId: string; livemode: boolean };
type NewBatch = typeof batches.$inferInsert;

/** Rows per insert: far below PostgreSQL's 65,535 parameters per statement. */
const INSERT_CHUNK = 200;

/**
 * A batch request (contract: Batches): in one transaction claim the idempotency key (bound to the
 * batch), insert the batch and every item's row, and start the batch's workflow (`start`) before the
 * commit, so that no batch is ever recorded without the workflow that finishes it. A workflow started
 * for a transaction that then rolls back finds no batch and ends (workflows/batch.ts). A key already
 * held answers `existing`, with the record that holds it.
 */
export async function recordBatchRequest(
  db: Db,
  p: {
    batch: NewBatch & { id: string; createdAt: Date };
    items: Array<NewShipment & { id: string }>;
    claim?: Owner & { key: string; fingerprint: string };
    start: () => Promise<void>;
  },
): Promise<{ kind: 'created' } | { kind: 'existing'; key: IdempotencyRow }> {
  for (;;) {
    const created = await db.transaction(async (tx) => {
      if (p.claim) {
        // A concurrent claim of the same key waits here on ours (unique index) until ours has ended.
        const claimed = await tx
          .insert(idempotencyKeys)
          .values({ ...p.claim, batchId: p.batch.id, createdAt: p.batch.createdAt })
          .onConflictDoNothing()
          .returning({ key: idempotencyKeys.key });
        if (!claimed.length) return false;
      }
      await tx.insert(batches).values(p.batch);
      for (let i = 0; i < p.items.length; i += INSERT_CHUNK) await tx.insert(shipments).values(p.items.slice(i, i + INSERT_CHUNK));
      await p.start();
      return true;
    });
    if (created) return { kind: 'created' };
    const held = await heldIdempotencyKey(db, p.claim!, p.batch.createdAt);
    if (held) return { kind: 'existing', key: held };
    // It had expired (now removed) or was released in between: claim it again.
  }
}

/** Each batch's items counted by status, in one query. */
async function countsOf(db: Db, rows: BatchRow[]): Promise<Map<string, BatchCounts>> {
  const out = new Map<string, BatchCounts>();
  if (!rows.length) return out;
  const grouped = await db
    .select({ batchId: shipments.batchId, status: shipments.status, n: count() })
    .from(shipments)
    .where(inArray(shipments.batchId, rows.map((r) => r.id)))
    .groupBy(shipments.batchId, shipments.status);
  for (const row of rows) {
    out.set(row.id, countItems(grouped.filter((g) => g.batchId === row.id).map((g) => ({ status: g.status, n: Number(g.n) })), row.total));
  }
  return out;
}

const recordOf = (row: BatchRow, counts: BatchCounts): BatchRecord => ({
  id: row.id,
  livemode: row.livemode,
  status: row.status,
  labelFormat: row.labelFormat,
  createdAt: row.createdAt,
  completedAt: row.completedAt,
  counts,
});

/** The columns read for a batch's JSON: never its label file. */
const batchColumns = {
  id: batches.id,
  accountId: batches.accountId,
  livemode: batches.livemode,
  status: batches.status,
  labelFormat: batches.labelFormat,
  total: batches.total,
  labelContentType: batches.labelContentType,
  labelContent: sql<Buffer | null>`null`,
  labelShipmentIds: sql<string[] | null>`null`,
  createdAt: batches.createdAt,
  completedAt: batches.completedAt,
};

async function withCounts(db: Db, rows: BatchRow[]): Promise<Array<BatchRecord & { accountId: string }>> {
  const counts = await countsOf(db, rows);
  return rows.map((row) => ({ ...recordOf(row, counts.get(row.id)!), accountId: row.accountId }));
}

/** A batch with its counts, whoever owns it (the workflow's steps). */
export async function findBatch(db: Db, id: string): Promise<(BatchRecord & { accountId: string }) | undefined> {
  const rows = await db.select(batchColumns).from(batches).where(eq(batches.id, id));
  return (await withCounts(db, rows))[0];
}

/** A batch of this account and mode, or undefined (others' are indistinguishable from none). */
export async function findOwnBatch(db: Db, owner: Owner, id: string): Promise<BatchRecord | undefined> {
  const rows = await db
    .select(batchColumns)
    .from(batches)
    .where(and(eq(batches.id, id), eq(batches.accountId, owner.accountId), eq(batches.livemode, owner.livemode)));
  return (await withCounts(db, rows))[0];
}

/** Newest first; one extra row tells whether there is more. */
export async function listBatches(db: Db, f: Owner & { before?: string; limit: number }): Promise<{ rows: BatchRecord[]; hasMore: boolean }> {
  const rows = await db
    .select(batchColumns)
    .from(batches)
    .where(and(eq(batches.accountId, f.accountId), eq(batches.livemode, f.livemode), f.before ? lt(batches.id, f.before) : undefined))
    .orderBy(desc(batches.id))
    .limit(f.limit + 1);
  const page = rows.slice(0, f.limit);
  return { rows: await withCounts(db, page), hasMore: rows.length > f.limit };
}

/**
 * A batch's items in item order, after the item `after` (a cursor is the last shipment id seen: its
 * place in the batch says where the next page starts).
 */
export async function listBatchItems(db: Db, f: { batchId: string; after?: string; limit: number }): Promise<{ rows: ShipmentRow[]; hasMore: boolean }> {
  const afterIndex = f.after
    ? sql`(select ${shipments.batchIndex} from ${shipments} where ${shipments.id} = ${f.after} and ${shipments.batchId} = ${f.batchId})`
    : undefined;
  const rows = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.batchId, f.batchId), afterIndex ? gt(shipments.batchIndex, afterIndex) : undefined))
    .orderBy(asc(shipments.batchIndex))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** One item of a batch, by its place. */
export async function findBatchItem(db: Db, batchId: string, index: number): Promise<ShipmentRow | undefined> {
  const [row] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.batchId, batchId), eq(shipments.batchIndex, index)));
  return row;
}
