import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { shipments, type ShipmentRow } from '../schema.js';
import { scanFormShipments, scanForms, type ScanFormRow } from '../schema-forms.js';

export type NewScanForm = typeof scanForms.$inferInsert;
type Owner = { accountId: string; livemode: boolean };

/** The shipments of this account and mode among these ids (others' are indistinguishable from none). */
export async function findOwnShipments(db: Db, owner: Owner, ids: readonly string[]): Promise<ShipmentRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(shipments)
    .where(and(inArray(shipments.id, [...ids]), eq(shipments.accountId, owner.accountId), eq(shipments.livemode, owner.livemode)));
}

/** Which of these shipments are on a form already, and on which. */
export async function formsOfShipments(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select().from(scanFormShipments).where(inArray(scanFormShipments.shipmentId, [...ids]));
  return new Map(rows.map((r) => [r.shipmentId, r.scanFormId]));
}

/** The form a shipment is on, if any: such a shipment is handed over and can no longer be voided. */
export async function scanFormOfShipment(db: Db, shipmentId: string): Promise<string | undefined> {
  const [row] = await db.select().from(scanFormShipments).where(eq(scanFormShipments.shipmentId, shipmentId));
  return row?.scanFormId;
}

/**
 * Records a form and its shipments in one transaction, their shipment rows locked first (in id order,
 * so two forms never deadlock): a void takes the same lock (`markVoidingUnlessOnForm`), so a form and
 * a void of one shipment never both happen. A shipment no longer `purchased` (a void under way or
 * done) is refused, and so is one that a concurrent form took meanwhile (the shipment key): then
 * nothing is recorded, and the refused ids are returned with their status or their form.
 */
export async function insertScanForm(db: Db, row: NewScanForm): Promise<{ taken: string[]; notPurchased: Array<{ id: string; status: string }> }> {
  try {
    const notPurchased = await db.transaction(async (tx) => {
      const locked = await lockShipments(tx, row.shipmentIds);
      const refused = locked.filter((s) => s.status !== 'purchased');
      if (refused.length) return refused;
      await tx.insert(scanForms).values(row);
      await tx.insert(scanFormShipments).values(row.shipmentIds.map((shipmentId) => ({ shipmentId, scanFormId: row.id })));
      return [];
    });
    return { taken: [], notPurchased };
  } catch (error) {
    const taken = await formsOfShipments(db, row.shipmentIds);
    if (taken.size > 0) return { taken: [...taken.keys()], notPurchased: [] };
    throw error;
  }
}

async function lockShipments(tx: Tx, ids: readonly string[]): Promise<Array<{ id: string; status: string }>> {
  return tx
    .select({ id: shipments.id, status: shipments.status })
    .from(shipments)
    .where(inArray(shipments.id, [...ids]))
    .orderBy(asc(shipments.id))
    .for('update');
}

/**
 * The void's first step: marks the shipment voiding unless it is on a SCAN form, in one transaction
 * with its row locked, as `insertScanForm` locks it. Returns the updated row, or the form that holds
 * the shipment (then nothing changed); neither when there is no such shipment.
 */
export async function markVoidingUnlessOnForm(
  db: Db,
  shipmentId: string,
  changes: Partial<Omit<ShipmentRow, 'id' | 'accountId' | 'livemode' | 'createdAt'>>,
  now: Date,
): Promise<{ row?: ShipmentRow; form?: string }> {
  return db.transaction(async (tx) => {
    if ((await lockShipments(tx, [shipmentId])).length === 0) return {};
    const [onForm] = await tx.select().from(scanFormShipments).where(eq(scanFormShipments.shipmentId, shipmentId));
    if (onForm) return { form: onForm.scanFormId };
    const [row] = await tx.update(shipments).set({ ...changes, updatedAt: now }).where(eq(shipments.id, shipmentId)).returning();
    return { row };
  });
}

/**
 * A form is recorded, its shipments with it, before the carrier is asked to make it (so that a void
 * is refused from that moment: a form and a void never both happen), without its file. It has one
 * once the carrier made it (`confirmScanForm`); until then it is no form of the customer's, and an
 * unconfirmed one whose carrier answer was lost holds its shipments until an operator settles it.
 */
const confirmed = sql`octet_length(${scanForms.content}) > 0`;

/** The carrier made the form: its number and its file. */
export async function confirmScanForm(db: Db, id: string, form: { carrierFormId: string; content: Buffer }): Promise<void> {
  await db.update(scanForms).set(form).where(eq(scanForms.id, id));
}

/** The carrier refused the form: nothing holds its shipments any more (a void may go ahead). */
export async function releaseScanForm(db: Db, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(scanFormShipments).where(eq(scanFormShipments.scanFormId, id));
    await tx.delete(scanForms).where(and(eq(scanForms.id, id), sql`not (${confirmed})`));
  });
}

/** Forms recorded before `before` whose carrier never confirmed them (its answer was lost), oldest first. */
export async function unconfirmedScanForms(db: Db, before: Date, accountId?: string): Promise<ScanFormRow[]> {
  return db
    .select()
    .from(scanForms)
    .where(and(sql`not (${confirmed})`, lt(scanForms.createdAt, before), ...(accountId ? [eq(scanForms.accountId, accountId)] : [])))
    .orderBy(asc(scanForms.createdAt))
    .limit(100);
}

/** A form by its id alone: its signed link is the credential. */
export async function findScanForm(db: Db, id: string): Promise<ScanFormRow | undefined> {
  const [row] = await db.select().from(scanForms).where(and(eq(scanForms.id, id), confirmed));
  return row;
}

export async function findOwnScanForm(db: Db, owner: Owner, id: string): Promise<ScanFormRow | undefined> {
  const [row] = await db
    .select()
    .from(scanForms)
    .where(and(eq(scanForms.id, id), eq(scanForms.accountId, owner.accountId), eq(scanForms.livemode, owner.livemode), confirmed));
  return row;
}

/** A page of forms, newest first, without their files. */
export async function listScanForms(db: Db, f: Owner & { before?: string; limit: number }) {
  const where = [eq(scanForms.accountId, f.accountId), eq(scanForms.livemode, f.livemode), confirmed];
  if (f.before) where.push(lt(scanForms.id, f.before));
  const rows = await db
    .select({ id: scanForms.id, livemode: scanForms.livemode, carrier: scanForms.carrier, shipmentIds: scanForms.shipmentIds, createdAt: scanForms.createdAt })
    .from(scanForms)
    .where(and(...where))
    .orderBy(desc(scanForms.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}
