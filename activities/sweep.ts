import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { failUnstartedPurchase, undeliveredEvents, unstartedPurchases, type Db } from '../db/index.js';
import { FAILURE, firstIdAt, shipmentWorkflowId, type EventType } from '../domain/index.js';
import { createDeliveryStarter, type DeliveryStarter } from './webhook-fanout.js';

export interface SweptShipment {
  shipment_id: string;
  account_id: string;
  created_at: string;
}

/**
 * Pending shipments whose workflow never started: the API stopped between recording the purchase and
 * starting it, and no retry with the same key came. Nothing was bought or charged. Each is failed and
 * its idempotency keys freed in one transaction, unless its workflow began meanwhile (it priced the
 * row under the same lock), so a late retry and the sweep never both win.
 */
export async function sweepUnstartedPurchases(
  db: Db,
  client: Client,
  o: { olderThanMs: number; now?: Date; accountId?: string },
): Promise<SweptShipment[]> {
  const now = o.now ?? new Date();
  const candidates = await unstartedPurchases(db, new Date(now.getTime() - o.olderThanMs), o.accountId);
  const failed: SweptShipment[] = [];
  for (const row of candidates) {
    try {
      await client.workflow.getHandle(shipmentWorkflowId(row.id)).describe();
      continue; // its workflow exists and will price it: `ops stuck` explains it if it does not
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    const swept = await failUnstartedPurchase(db, {
      shipmentId: row.id,
      code: FAILURE.internalError,
      message: 'The purchase was never started (the API stopped first); nothing was bought or charged.',
      now,
    });
    if (swept) failed.push({ shipment_id: row.id, account_id: row.accountId, created_at: row.createdAt.toISOString() });
  }
  return failed;
}

export interface StartedDelivery {
  event_id: string;
  endpoint_id: string;
  event_created: string;
}

/** How far back the delivery sweep looks: an announcement is retried long before this. */
const DELIVERY_SWEEP_HORIZON_MS = 60 * 60_000;
/** At most this many deliveries started per run; the next run takes the rest. */
const DELIVERY_SWEEP_BATCH = 500;

/**
 * Stored events an endpoint takes, with no delivery attempt `olderThanMs` after they were stored
 * (within the last hour): each such delivery workflow is started, unless it already was (its id is
 * never reused, so a delivery that is only slow, or waiting for its account's turn, is untouched).
 * The purchase and the other steps announce their events themselves; this is the net under them
 * (the full chaos run on 1459d2a lost one announcement, since fixed: db/queries/purchases.ts).
 */
export async function startMissingDeliveries(
  db: Db,
  startDelivery: DeliveryStarter,
  o: { olderThanMs: number; now?: Date },
): Promise<StartedDelivery[]> {
  const now = (o.now ?? new Date()).getTime();
  const pairs = await undeliveredEvents(db, {
    from: firstIdAt('evt', now - DELIVERY_SWEEP_HORIZON_MS),
    to: firstIdAt('evt', now - o.olderThanMs),
    limit: DELIVERY_SWEEP_BATCH,
  });
  const started: StartedDelivery[] = [];
  for (const pair of pairs) {
    const event = { id: pair.eventId, type: pair.type as EventType, accountId: pair.accountId, livemode: pair.livemode };
    if (await startDelivery(event, pair.endpointId)) {
      started.push({ event_id: pair.eventId, endpoint_id: pair.endpointId, event_created: pair.createdAt.toISOString() });
    }
  }
  return started;
}

/** The sweeps as activities, for the Schedule's workflow. */
export function createSweepActivities(deps: { db: Db; client: Client; queuePrefix: string }) {
  const startDelivery = createDeliveryStarter({ temporal: deps.client, queuePrefix: deps.queuePrefix });
  return {
    sweepUnstartedPurchases: (p: { olderThanMs: number }) => sweepUnstartedPurchases(deps.db, deps.client, p),
    startMissingDeliveries: (p: { olderThanMs: number }) => startMissingDeliveries(deps.db, startDelivery, p),
  };
}
export type SweepActivities = ReturnType<typeof createSweepActivities>;
