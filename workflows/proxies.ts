import { proxyActivities, proxyLocalActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { CarrierActivities, LedgerActivities, PaymentActivities, PurchaseActivities, ShipmentActivities } from '../activities/index.js';
import { CODE } from '../domain/workflow.js';

/**
 * Our own database and rendering: retried until they work, since they cannot fail for good. What
 * fails them is our own PostgreSQL restarting (a few seconds: 2 to 4 s in the chaos runs), so the
 * retries stay at most 2 s apart: an activity learns within 2 s that it is back, where a 30 s cap
 * kept a purchase waiting 28.6 s after a 0.5 s restart. Our own database, so no carrier to spare.
 */
const local = {
  startToCloseTimeout: '30 seconds',
  // They heartbeat every second while they run (workers/heartbeat.ts): a step whose worker was
  // SIGKILLed runs again elsewhere 5 s on, as a carrier call does, not 30 s on.
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds' },
} as const;

/** What each activity does, as operators read it in the Temporal UI. */
const SUMMARIES: Record<string, string> = {
  refundFunds: 'refund the charge in the ledger',
  markShipment: 'update the shipment read model',
  recordEvent: 'record an event (webhooks fan out from it)',
  recordScans: 'store the new carrier scans',
  recordTracking: "store the new carrier scans, the shipment's tracking status and their events (one transaction)",
  authorizeCard: 'authorize the card',
  captureCard: 'capture the card payment',
  voidCard: 'void the card authorization',
  refundCard: 'refund the card',
  beginPurchase: 'price the service and reserve the price (one transaction)',
  completePurchase: 'capture, mark purchased and store its events (one transaction)',
  failPurchase: 'release the hold, mark failed and free the idempotency keys (one transaction)',
  announceEvents: "start the webhook deliveries of the purchase's events",
};

/** Every call of these activities carries its summary (the proxy's options stay as they are). */
function summarised<T extends object>(activities: T): T {
  return new Proxy(activities, {
    get(target, name) {
      const activity = Reflect.get(target, name) as { executeWithOptions(o: object, args: unknown[]): Promise<unknown> };
      const summary = SUMMARIES[String(name)];
      return summary ? (...args: unknown[]) => activity.executeWithOptions({ summary }, args) : activity;
    },
  });
}

export function shipmentActivities() {
  return summarised(
    proxyActivities<ShipmentActivities & LedgerActivities & PurchaseActivities>({
      ...local,
      retry: { ...local.retry, nonRetryableErrorTypes: [CODE.insufficient_funds, CODE.service_not_available] },
    }),
  );
}

/**
 * The purchase's own database transactions, as local activities: they run in the workflow's worker
 * without a dispatch through the server, which is most of a purchase's latency
 * (docs/architecture.md#latency-count-the-round-trips). Retried like any activity, at most 2 s apart
 * as the database activities above are (a PostgreSQL restart); a missing row or a refusal is final.
 */
export function purchaseSteps() {
  return summarised(
    proxyLocalActivities<PurchaseActivities>({
      startToCloseTimeout: '10 seconds',
      retry: {
        initialInterval: '200 milliseconds',
        backoffCoefficient: 2,
        maximumInterval: '2 seconds',
        nonRetryableErrorTypes: [CODE.insufficient_funds, CODE.service_not_available, CODE.shipment_missing],
      },
    }),
  );
}

/** The card processor: another company's service, retried as a carrier is (below), not as our database. */
export function paymentActivities() {
  return summarised(
    proxyActivities<PaymentActivities>({
      ...local,
      retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', nonRetryableErrorTypes: [CODE.card_declined] },
    }),
  );
}

/**
 * How every carrier call runs; each step builds its own calls from it, with their summary (what
 * operators read in the Temporal UI), their queue (contract: carrierCallQueue) and their time limit.
 * The carrier activity heartbeats every second, so a lost carrier worker is noticed in seconds.
 * Retryable failures back off under this policy (or the carrier's Retry-After, which the activity's
 * failure carries as its next retry delay); refusals and ambiguous outcomes are non-retryable and the
 * workflow decides. The policy is the buy's (purchase.ts: 0.5 s doubling to 5 s, Stripe's), for the
 * lookups that settle a lost buy answer and the cancellations of a void: a single 5xx cost the chaos
 * run's purchases 15 s at p50 under a 1 s, 30 s policy.
 */
export const CARRIER_CALL = {
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
} as const;

/** A step's carrier calls, as `proxyActivities` makes them. */
export type CarrierCalls = ActivityInterfaceFor<CarrierActivities>;

/**
 * The tracking loop's poll as a local activity, run by the workflow's own worker: a turn that finds
 * nothing is then one workflow task (its timer fired, the poll recorded as a marker, the next timer),
 * some 6 history events, where the poll as an activity on the carrier's queue takes a dispatch through
 * the server, a second workflow task and 11 events. With 100,000 parcels in flight the Temporal
 * server's share of a turn is most of its CPU (docs/benchmarks.md#tracking-at-scale).
 *
 * Retried as a carrier call is (CARRIER_CALL) within `withinMs`, after which the loop polls again
 * later; a UPS read can take 10 s, so 30 s an attempt. A local activity runs again whenever its
 * workflow task does not complete, so only a read is one: the write of the scans it finds stays an
 * activity (recordTracking), whose input the server keeps once, with the event ids made from it.
 */
export function pollTrackingLocally(summary: string, withinMs: number, ...args: Parameters<CarrierActivities['pollTracking']>) {
  return proxyLocalActivities<CarrierActivities>({ startToCloseTimeout: '30 seconds', scheduleToCloseTimeout: withinMs, retry: CARRIER_CALL.retry }).pollTracking.executeWithOptions(
    { summary },
    args,
  );
}
