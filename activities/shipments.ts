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
} from '../db/index.js';
import type { Scan } from '../carriers/index.js';
import type { WorkerMetrics } from './metrics.js';
import { balanceToJson, CODE, shipmentToJson, type EventType } from '../domain/index.js';

type ShipmentChanges = Partial<
  Pick<ShipmentRow, 'status' | 'trackingNumber' | 'trackingStatus' | 'lastVoidError' | 'failureCode' | 'failureMessage'>
>;

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
    async recordEvent(p: {
      id: string;
      type: EventType;
      accountId: string;
      livemode: boolean;
      shipmentId: string | null;
      createdAt: string;
      object?: unknown;
    }): Promise<boolean> {
      let object = p.object;
      if (object === undefined && p.type === 'wallet.low_balance') {
        const account = await findAccount(db, p.accountId);
        object = account ? balanceToJson(account, p.livemode) : null;
      } else if (object === undefined && p.shipmentId) {
        const row = await findShipment(db, p.shipmentId);
        object = row ? shipmentToJson(row) : null;
      }
      const inserted = await insertEvent(db, {
        id: p.id,
        accountId: p.accountId,
        livemode: p.livemode,
        type: p.type,
        shipmentId: p.shipmentId,
        data: { object },
        createdAt: new Date(p.createdAt),
      });
      // Even when the event was already stored: a retry after a crash between the insert and the
      // fan-out must still fan out (the fan-out starts each delivery once, whatever happens).
      await deps.onEventRecorded?.({ id: p.id, type: p.type, accountId: p.accountId, livemode: p.livemode, shipmentId: p.shipmentId });
      return inserted;
    },

    /** Stores scans once each (by the carrier's scan id) and returns those that were new. */
    async recordScans(p: { shipmentId: string; scans: Array<Scan & { trackingEventId: string }> }): Promise<string[]> {
      const fresh: string[] = [];
      for (const scan of p.scans) {
        const inserted = await db
          .insert(schema.trackingEvents)
          .values({
            id: scan.trackingEventId,
            shipmentId: p.shipmentId,
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
    },
  };
}
export type ShipmentActivities = ReturnType<typeof createShipmentActivities>;
