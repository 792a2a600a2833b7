import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import { balanceToJson, CODE, firstIdAt, idRandomPart, shipmentToJson, type ErrorCode, type EventType } from '../../domain/index.js';
import { isUniqueViolation, type Db, type Tx } from '../connection.js';
import { accounts, events, idempotencyKeys, shipments, type AccountRow, type ShipmentRow } from '../schema.js';
import { heldIdempotencyKey, releaseKeysOfShipment, type IdempotencyRow } from './idempotency.js';
import { subscriptionsColumn, typesTakenBy } from './webhooks.js';
import { crossedLowBalance, entriesColumn, entriesFrom, moveWrites, oneStatement, planCapture, planHold, releaseIn, type ShipmentEntries } from './ledger.js';
import type { NewShipment } from './shipments.js';
import { preparedOn } from './prepared.js';
import { PgDialect, type PreparedQueryConfig } from 'drizzle-orm/pg-core';

/**
 * The purchase's own transactions (docs/architecture.md#a-shipments-life). Each is one round trip of
 * the workflow's critical path and idempotent, so a retried local activity changes nothing twice.
 * The row lock and the failed mark at the end are shared with the sweep's settling (orphans.ts).
 */

type KeyScope = { accountId: string; livemode: boolean; key: string };

/**
 * Records a purchase request: inserts the pending row and claims the Idempotency-Key (when there is
 * one) in one statement, so one round trip and one transaction: a key is never bound to a shipment
 * that does not exist, and a row is never left behind by a key that was already held. A key already
 * held answers `existing` with its record (a replay, a request in flight, or a reuse); an expired one
 * is removed and the key claimed anew.
 */
export async function recordPurchaseRequest(
  db: Db,
  row: NewPurchaseRow,
  claim?: KeyScope & { fingerprint: string },
): Promise<{ kind: 'created' } | { kind: 'existing'; key: IdempotencyRow }> {
  if (!claim) {
    await db.insert(shipments).values(row);
    return { kind: 'created' as const };
  }
  const statement = recordStatement(db, row);
  const values = { ...row, claimAccountId: claim.accountId, claimLivemode: claim.livemode, claimKey: claim.key, claimFingerprint: claim.fingerprint };
  for (;;) {
    try {
      await statement.execute(values);
      return { kind: 'created' as const };
    } catch (err) {
      if (!isUniqueViolation(err, 'idempotency_keys')) throw err;
    }
    const held = await heldIdempotencyKey(db, claim, row.createdAt);
    if (held) return { kind: 'existing' as const, key: held };
    // It had expired (now removed) or was released in between: claim it again.
  }
}

type NewPurchaseRow = NewShipment & { id: string; createdAt: Date };

/** Statement names by row shape: a name always stands for the one text of its shape. */
const recordShapes = new Map<string, string>();
const recordStatements = new WeakMap<Db, Map<string, RecordStatement>>();
type RecordStatement = { execute(values: Record<string, unknown>): Promise<unknown> };

/**
 * The row's insert and the key's claim as one statement, built once per row shape (which columns
 * are given, which are null) and prepared per connection: every keyed purchase runs it. A held key
 * is a unique violation, which undoes the row's insert with it. A concurrent claim of the same key
 * waits on ours (unique index), so it fails only once ours has committed.
 */
function recordStatement(db: Db, row: NewPurchaseRow): RecordStatement {
  const columns = Object.keys(row).filter((k) => row[k as keyof NewPurchaseRow] !== undefined).sort();
  const shape = columns.map((k) => (row[k as keyof NewPurchaseRow] === null ? `${k}=null` : k)).join(',');
  let name = recordShapes.get(shape);
  if (!name) recordShapes.set(shape, (name = `record_purchase_${recordShapes.size}`));
  let statements = recordStatements.get(db);
  if (!statements) recordStatements.set(db, (statements = new Map()));
  let statement = statements.get(name);
  if (!statement) {
    // null goes in as SQL, not as a value: a json column's encoder would store JSON null.
    const values = Object.fromEntries(columns.map((k) => [k, row[k as keyof NewPurchaseRow] === null ? sql`null` : sql.placeholder(k)])) as unknown as NewPurchaseRow;
    const insertRow = db.insert(shipments).values(values).returning({ id: shipments.id });
    const query = new PgDialect().sqlToQuery(sql`with created as (${insertRow.getSQL()})
        insert into ${idempotencyKeys} (account_id, livemode, key, fingerprint, shipment_id, created_at)
        select ${sql.placeholder('claimAccountId')}, ${sql.placeholder('claimLivemode')}, ${sql.placeholder('claimKey')}, ${sql.placeholder('claimFingerprint')}, created.id, ${sql.param(sql.placeholder('createdAt'), idempotencyKeys.createdAt)} from created`);
    statement = db._.session.prepareQuery<PreparedQueryConfig & { execute: unknown }>(query, undefined, name, false);
    statements.set(name, statement);
  }
  return statement;
}

/**
 * The purchase's row as the API answers it once the purchase has ended (findOwnShipment's query,
 * prepared: every purchase runs it; see prepared.ts).
 */
export async function ownPurchaseRow(db: Db, owner: { accountId: string; livemode: boolean }, id: string): Promise<ShipmentRow | undefined> {
  const [row] = await ownRow(db).execute({ id, ...owner });
  return row;
}

const ownRow = preparedOn((db) =>
  db
    .select()
    .from(shipments)
    .where(
      and(
        eq(shipments.id, sql.placeholder('id')),
        eq(shipments.accountId, sql.placeholder('accountId')),
        eq(shipments.livemode, sql.placeholder('livemode')),
      ),
    )
    .prepare('own_purchase_row'),
);

type Locked = { row: ShipmentRow; account?: AccountRow; entries?: ShipmentEntries; subscriptions: Array<string[] | null> };

/**
 * A purchase's rows, in one round trip: the shipment locked, and when money moves its account locked
 * (after the shipment, as everywhere) with the shipment's ledger entries; with `subscriptions`, the
 * event lists of the owner's webhook endpoints.
 *
 * The locked rows come back as they are once the locks are held (PostgreSQL re-reads a row that
 * changed while it waited), but the entries and subscriptions are read as of the statement's start.
 * Only another attempt at the same step writes this shipment's entries, and it holds the shipment's
 * lock while it does: if it committed while this one waited, the shipment row already shows it
 * (purchased, for a capture); a hold it made is not seen, and holding again fails on the ledger's
 * unique (shipment, kind) index, which the step's retry then finds held. Nothing moves twice.
 */
async function lockPurchase(tx: Tx, p: { shipmentId: string; accountId: string; money: boolean; subscriptions?: boolean }): Promise<Locked> {
  const subscriptions = p.subscriptions ? subscriptionsColumn(shipments) : sql<Array<string[] | null>>`'[]'::json`;
  if (!p.money) {
    const [found] = await tx
      .select({ row: shipments, subscriptions })
      .from(shipments)
      .where(eq(shipments.id, p.shipmentId))
      .for('update');
    if (!found) throw new ShipmentMissingError(p.shipmentId);
    return { row: found.row, subscriptions: found.subscriptions };
  }
  const [found] = await tx
    .select({ row: shipments, account: accounts, entries: entriesColumn(p.shipmentId), subscriptions })
    .from(shipments)
    .innerJoin(accounts, eq(accounts.id, shipments.accountId))
    .where(eq(shipments.id, p.shipmentId))
    .for('update');
  if (!found) throw new ShipmentMissingError(p.shipmentId);
  if (found.account.id !== p.accountId) throw new Error(`shipment ${p.shipmentId} belongs to another account than ${p.accountId}`);
  return {
    row: found.row,
    account: found.account,
    entries: entriesFrom(found.entries),
    subscriptions: found.subscriptions,
  };
}

export type BeginOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };

type BeginPurchase = {
  shipmentId: string;
  accountId: string;
  price: { carrier: string; serviceName: string; net: number; vat: number; gross: number };
  hold: boolean;
  now: Date;
};

/**
 * Prices the pending shipment and reserves the money in one transaction of four round trips (begin,
 * the locks and reads, the writes as one statement, commit). A shipment that is no longer pending
 * (the orphan sweep failed it before its workflow ran) reports that failure instead. Idempotent,
 * also when two executions of the step run at once (a workflow task taken over from a worker too
 * slow to finish it, whose local activity still runs): the one that waited for the row's lock read
 * the ledger in that statement's snapshot, from before the other's hold, and the ledger's unique
 * index refuses its second hold. It then reads again, in a transaction that sees the hold.
 */
export async function beginPurchase(db: Db, p: BeginPurchase): Promise<BeginOutcome> {
  try {
    return await beginOnce(db, p);
  } catch (err) {
    if (!isUniqueViolation(err, 'ledger_entries')) throw err;
    return await beginOnce(db, p);
  }
}

async function beginOnce(db: Db, p: BeginPurchase): Promise<BeginOutcome> {
  return db.transaction(async (tx) => {
    const { row, account, entries } = await lockPurchase(tx, { shipmentId: p.shipmentId, accountId: p.accountId, money: p.hold });
    if (row.status === 'failed') {
      return { ok: false as const, code: row.failureCode ?? CODE.internal_error, message: row.failureMessage ?? 'The purchase failed.' };
    }
    // Refusing here (insufficient funds) rolls back the transaction: the row stays unpriced.
    const hold = account && entries ? planHold(account, entries, p.price.gross) : null;
    await oneStatement(tx, [
      tx
        .update(shipments)
        .set({
          carrier: p.price.carrier,
          serviceName: p.price.serviceName,
          priceNet: p.price.net,
          priceVat: p.price.vat,
          priceGross: p.price.gross,
          updatedAt: p.now,
        })
        .where(eq(shipments.id, p.shipmentId))
        .getSQL(),
      ...(hold ? moveWrites(p.accountId, p.shipmentId, hold) : []),
    ]);
    return { ok: true as const };
  });
}

/**
 * Finishes a bought purchase in one transaction: capture the charge, mark the shipment purchased,
 * store `shipment.purchased` and, when the charge crosses the low-balance threshold,
 * `wallet.low_balance`. Four round trips: begin, the locks and reads, the writes as one statement,
 * commit; the rows the writes leave (the shipment, the account) follow from the locked ones, so they
 * are not read again. The event ids come from the workflow. A retry after the commit stores nothing
 * again and still reports the crossing (its event is there). `events` lists the stored events that
 * some webhook endpoint takes: only those have deliveries to start after the answer (none, and the
 * workflow schedules no announcement at all).
 */
export async function completePurchase(
  db: Db,
  p: {
    shipmentId: string;
    accountId: string;
    capture: boolean;
    trackingNumber: string;
    purchasedEventId: string;
    lowBalanceEventId: string;
    now: Date;
  },
): Promise<{ events: Array<{ id: string; type: EventType }>; firstTime: boolean; shipment: ShipmentRow }> {
  return db.transaction(async (tx) => {
    const { row, account, entries, subscriptions } = await lockPurchase(tx, {
      shipmentId: p.shipmentId,
      accountId: p.accountId,
      money: p.capture,
      subscriptions: true,
    });
    const toAnnounce = (written: Array<{ id: string; type: EventType }>) => {
      const taken = typesTakenBy(subscriptions, [...new Set(written.map((e) => e.type))]);
      return written.filter((e) => taken.has(e.type));
    };
    if (row.status !== 'pending') {
      const found = await eventsOfCapture(tx, row, [p.purchasedEventId, p.lowBalanceEventId]);
      return { events: toAnnounce(found), firstTime: false, shipment: row };
    }
    const capture = account && entries ? planCapture(account, entries) : null;
    const set = { status: 'purchased' as const, trackingNumber: p.trackingNumber, trackingStatus: 'label_created' as const, updatedAt: p.now };
    const purchased: ShipmentRow = { ...row, ...set };
    const base = { accountId: p.accountId, livemode: row.livemode, createdAt: p.now };
    const written: Array<{ id: string; type: EventType }> = [{ id: p.purchasedEventId, type: 'shipment.purchased' }];
    const writes = [
      ...(capture ? moveWrites(p.accountId, p.shipmentId, capture.move) : []),
      tx.update(shipments).set(set).where(eq(shipments.id, p.shipmentId)).getSQL(),
      tx
        .insert(events)
        .values({ ...base, id: p.purchasedEventId, type: 'shipment.purchased', shipmentId: p.shipmentId, data: { object: shipmentToJson(purchased) } })
        .getSQL(),
    ];
    if (capture && crossedLowBalance(capture.result)) {
      // The payload is the balance as it stands when the event is stored: the account after the capture.
      writes.push(
        tx
          .insert(events)
          .values({ ...base, id: p.lowBalanceEventId, type: 'wallet.low_balance', shipmentId: null, data: { object: balanceToJson(capture.after, row.livemode) } })
          .getSQL(),
      );
      written.push({ id: p.lowBalanceEventId, type: 'wallet.low_balance' });
    }
    await oneStatement(tx, writes);
    return { events: toAnnounce(written), firstTime: true, shipment: purchased };
  });
}

/**
 * The events an earlier attempt of this capture stored, found by the random part of the ids the
 * workflow passed. The capture is a local activity: it commits inside a workflow task, and when its
 * worker dies before completing that task, the task runs again from the last completed one on
 * another worker. The workflow's ids then keep their random part (its randomness is seeded by the
 * run) but take the new task's time, so the ids stored are not the ids passed now: announcing the
 * ids passed would start no delivery, and the webhook would be lost.
 */
async function eventsOfCapture(tx: Tx, row: ShipmentRow, ids: string[]): Promise<Array<{ id: string; type: EventType }>> {
  // The ids were made after the shipment's row (an hour's margin for the clocks of other machines).
  const since = firstIdAt('evt', row.createdAt.getTime() - 3_600_000);
  const found = await tx
    .select({ id: events.id, type: events.type })
    .from(events)
    .where(
      and(
        eq(events.accountId, row.accountId),
        eq(events.livemode, row.livemode),
        gte(events.id, since),
        inArray(sql`right(${events.id}, 16)`, ids.map(idRandomPart)),
      ),
    );
  return found.map((e) => ({ id: e.id, type: e.type as EventType }));
}

/**
 * Ends a purchase that bought nothing, in one transaction: the hold released, the shipment failed,
 * and its idempotency keys freed. The key is freed here and only here (contract: Idempotency, rule 4).
 * Returns false when it had already ended: a retry, or a purchase another execution of the same run
 * captured (a workflow task taken over from a worker too slow to finish it, whose local activities
 * still ran): a purchased row is never failed.
 */
export async function failPurchase(
  db: Db,
  p: { shipmentId: string; accountId: string; code: ErrorCode; message: string; now: Date },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await lockShipment(tx, p.shipmentId);
    if (row.status !== 'pending') return false;
    await releaseIn(tx, { accountId: p.accountId, shipmentId: p.shipmentId });
    await markFailedIn(tx, p);
    return true;
  });
}

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
