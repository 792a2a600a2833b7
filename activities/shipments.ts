import { ApplicationFailure } from '@temporalio/common';
import {
  findAccount,
  findShipment,
  markVoidingUnlessOnForm,
  schema,
  insertEvent,
  updateShipment,
  type Db,
  type ShipmentRow,
  type Tx,
} from '../db/index.js';
import type { Scan } from '../carriers/index.js';
import type { WorkerMetrics } from './metrics.js';
import { balanceToJson, CODE, shipmentToJson, type EventType } from '../domain/index.js';

type ShipmentChanges = Partial<
  Pick<ShipmentRow, 'status' | 'trackingNumber' | 'trackingStatus' | 'lastVoidError' | 'failureCode' | 'failureMessage'>
>;

/** An event made in the workflow (its id and time there), to be stored once and fanned out. */
export interface EventToStore {
  id: string;
  type: EventType;
  accountId: string;
  livemode: boolean;
  shipmentId: string | null;
  createdAt: string;
  /** The payload; absent: the shipment as it is when the event is stored (the balance, for `wallet.low_balance`). */
  object?: unknown;
}

/** A scan with the id of its row in `tracking_events`, made in the workflow. */
export type ScanToStore = Scan & { trackingEventId: string };

/** One write of a tracking step, in the order the workflow planned: the shipment's tracking status (and status), or an event. */
export type TrackingWrite = { mark: Required<Pick<ShipmentChanges, 'trackingStatus'>> & Pick<ShipmentChanges, 'status'> } | { event: EventToStore };

/** A step that expects the shipment's row found none: retrying cannot help, so operators see it. */
export function missingRow(shipmentId: string): never {
  throw ApplicationFailure.nonRetryable(`Shipment ${shipmentId} has no row in the database.`, CODE.shipment_missing);
}

/** What the shipment and purchase activities are built from (workers/activities.ts). */
export interface ShipmentActivityDeps {
  metrics?: WorkerMetrics;
  db: Db;
  now?: () => Date;
  /** Runs after each event is stored (webhook fan-out); must be idempotent, as it runs again on retries. */
  onEventRecorded?: (event: { id: string; type: EventType; accountId: string; livemode: boolean; shipmentId?: string | null }) => Promise<void>;
}

/** The read model and the event log: what the API reads and what webhooks deliver. */
export function createShipmentActivities(deps: ShipmentActivityDeps) {
  const now = deps.now ?? (() => new Date());
  const { db } = deps;
  const fanOut = async (e: EventToStore) =>
    deps.onEventRecorded?.({ id: e.id, type: e.type, accountId: e.accountId, livemode: e.livemode, shipmentId: e.shipmentId });

  return {
    /**
     * Updates the read model. Marking it `voiding` begins a void: refused, with nothing changed, for
     * a shipment on a SCAN form (the form's transaction locks the same row), and the form is returned.
     */
    async markShipment(p: { shipmentId: string; changes: ShipmentChanges }): Promise<{ onForm: string } | undefined> {
      if (p.changes.status === 'voiding') {
        const begun = await markVoidingUnlessOnForm(db, p.shipmentId, p.changes, now());
        if (begun.form) return { onForm: begun.form };
        if (!begun.row) missingRow(p.shipmentId);
        return undefined;
      }
      const row = await updateShipment(db, p.shipmentId, p.changes, now());
      if (!row) missingRow(p.shipmentId);
      if (p.changes.status === 'purchased' && row) deps.metrics?.purchases.inc({ outcome: 'purchased', livemode: String(row.livemode) });
      return undefined;
    },

    /**
     * Stores an event once under the id the workflow made. The payload is the shipment as it is
     * now, unless the workflow gives the object (tracking updates, balances).
     */
    async recordEvent(p: EventToStore): Promise<boolean> {
      const inserted = await storeEvent(db, p);
      // Even when the event was already stored: a retry after a crash between the insert and the
      // fan-out must still fan out (the fan-out starts each delivery once, whatever happens).
      await fanOut(p);
      return inserted;
    },

    /** Stores scans once each (by the carrier's scan id) and returns those that were new. */
    async recordScans(p: { shipmentId: string; scans: ScanToStore[] }): Promise<string[]> {
      return storeScans(db, p.shipmentId, p.scans);
    },

    /**
     * A tracking step in one activity: the new scans stored, then the writes in the workflow's order
     * (the shipment's tracking status and status, each event). One transaction, so the shipment is
     * never seen half-moved, and a retry finds all or nothing done: it stores nothing twice (scans
     * and events by their ids) and sets the shipment to what it set. The events' fan-out follows the
     * commit, on every attempt, as recordEvent's does. A workflow task on a worker that has evicted
     * the workflow replays its whole history: one step instead of one per write saves those replays.
     */
    async recordTracking(p: { shipmentId: string; scans: ScanToStore[]; writes: TrackingWrite[] }): Promise<void> {
      const events = await db.transaction(async (tx) => {
        await storeScans(tx, p.shipmentId, p.scans);
        const stored: EventToStore[] = [];
        for (const write of p.writes) {
          if ('mark' in write) {
            if (!(await updateShipment(tx, p.shipmentId, write.mark, now()))) missingRow(p.shipmentId);
          } else {
            await storeEvent(tx, write.event);
            stored.push(write.event);
          }
        }
        return stored;
      });
      for (const event of events) await fanOut(event);
    },
  };
}
export type ShipmentActivities = ReturnType<typeof createShipmentActivities>;

/**
 * Stores an event once under the id the workflow made; false when it was stored already. Without an
 * object, its payload is the shipment (or the balance) as it reads in `q`: within a transaction, after
 * the writes before it.
 */
async function storeEvent(q: Db | Tx, p: EventToStore): Promise<boolean> {
  let object = p.object;
  if (object === undefined && p.type === 'wallet.low_balance') {
    const account = await findAccount(q, p.accountId);
    object = account ? balanceToJson(account, p.livemode) : null;
  } else if (object === undefined && p.shipmentId) {
    const row = await findShipment(q, p.shipmentId);
    object = row ? shipmentToJson(row) : null;
  }
  return insertEvent(q, {
    id: p.id,
    accountId: p.accountId,
    livemode: p.livemode,
    type: p.type,
    shipmentId: p.shipmentId,
    data: { object },
    createdAt: new Date(p.createdAt),
  });
}

/** Stores scans once each (by the carrier's scan id) and returns the carrier ids of those that were new. */
async function storeScans(q: Db | Tx, shipmentId: string, scans: ScanToStore[]): Promise<string[]> {
  const fresh: string[] = [];
  for (const scan of scans) {
    const inserted = await q
      .insert(schema.trackingEvents)
      .values({
        id: scan.trackingEventId,
        shipmentId,
        carrierScanId: scan.id,
        occurredAt: new Date(scan.occurredAt),
        status: scan.status,
        description: scan.description,
        location: scan.location,
        carrierCode: scan.carrierCode ?? null,
      })
      .onConflictDoNothing()
      .returning({ id: schema.trackingEvents.carrierScanId });
    if (inserted.length) fresh.push(scan.id);
  }
  return fresh;
}
