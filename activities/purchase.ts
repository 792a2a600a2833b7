import { ApplicationFailure } from '@temporalio/common';
import {
  beginPurchase,
  completePurchase,
  failPurchase,
  InsufficientFundsError,
  settleStoppedPurchase,
  ShipmentMissingError,
  type ShipmentRow,
} from '../db/index.js';
import { CODE, customerFailureMessage, type Address, type ErrorCode, type EventType, type Parcel, type ShipmentOptions } from '../domain/index.js';
import { missingRow, priceForPurchase, type ShipmentActivityDeps } from './shipments.js';

/** Retrying cannot make a missing row appear: fail where operators see it. */
function missing(err: unknown): never {
  if (err instanceof ShipmentMissingError) {
    missingRow(err.shipmentId);
  }
  throw err;
}

/**
 * The purchase's database steps, each one transaction, run as local activities beside the workflow
 * (docs/architecture.md#latency-count-the-round-trips): begin (price + hold), complete (capture +
 * purchased + events, then the label render in the background), fail (release + failed + keys freed).
 * Announcing the stored events to their webhook endpoints happens after the answer.
 */
export function createPurchaseActivities(
  deps: ShipmentActivityDeps & {
    /**
     * Starts rendering a purchased shipment's label files in this process, without waiting for it,
     * from the row the capture's transaction returned (no second read).
     */
    renderLabels?: (row: ShipmentRow & { trackingNumber: string }) => void;
  },
) {
  const now = deps.now ?? (() => new Date());
  const { db } = deps;

  return {
    /**
     * Prices the service as its quote did (the recorded quote of a carrier-priced service, or the
     * carrier asked again) and reserves the price when money moves.
     */
    async beginPurchase(p: {
      shipmentId: string;
      accountId: string;
      serviceCode: string;
      from: Address;
      to: Address;
      parcel: Parcel;
      vatRateBp: number;
      currency: string;
      hold: boolean;
      options?: ShipmentOptions;
      isReturn?: boolean;
    }): Promise<{ ok: true; carrier: string; gross: number; currency: string } | { ok: false; code: ErrorCode; message: string }> {
      const { found, price } = await priceForPurchase({ db, catalog: deps.catalog, now }, p);
      try {
        const begun = await beginPurchase(db, {
          shipmentId: p.shipmentId,
          accountId: p.accountId,
          price: { carrier: found.carrier.code, serviceName: found.service.name, ...price },
          hold: p.hold,
          now: now(),
        });
        return begun.ok ? { ok: true, carrier: found.carrier.code, gross: price.gross, currency: price.currency } : begun;
      } catch (err) {
        if (err instanceof InsufficientFundsError) {
          throw ApplicationFailure.nonRetryable('The balance does not cover the price of this label.', CODE.insufficient_funds);
        }
        return missing(err);
      }
    },

    /**
     * Capture, purchased and its events, in one transaction; returns the events to announce. With
     * `renderLabels`, the label files are then rendered in the background: the answer never waits for
     * them, and a download that comes first renders its file itself, once.
     */
    async completePurchase(p: {
      shipmentId: string;
      accountId: string;
      livemode: boolean;
      capture: boolean;
      trackingNumber: string;
      purchasedEventId: string;
      lowBalanceEventId: string;
      renderLabels?: boolean;
    }): Promise<Array<{ id: string; type: EventType }>> {
      try {
        const { renderLabels, ...purchase } = p;
        const done = await completePurchase(db, { ...purchase, now: now() });
        if (done.firstTime) deps.metrics?.purchases.inc({ outcome: 'purchased', livemode: String(p.livemode) });
        if (renderLabels) deps.renderLabels?.({ ...done.shipment, trackingNumber: p.trackingNumber });
        return done.events;
      } catch (err) {
        return missing(err);
      }
    },

    /**
     * Release, failed and keys freed, in one transaction. The customer reads our message for the
     * code, never the carrier's text (which stays in this activity's input, for operators).
     */
    async failPurchase(p: { shipmentId: string; accountId: string; livemode: boolean; code: ErrorCode; message: string }): Promise<void> {
      try {
        if (await failPurchase(db, { ...p, message: customerFailureMessage(p.code, p.message), now: now() })) {
          deps.metrics?.purchases.inc({ outcome: p.code, livemode: String(p.livemode) });
        }
      } catch (err) {
        missing(err);
      }
    },

    /**
     * A purchase whose workflow stopped before it ended (docs/operators-guide.md#cancel-and-terminate-in-the-temporal-ui):
     * released, failed and its keys freed when still pending; returns the row as it now stands.
     */
    async settleStoppedPurchase(p: { shipmentId: string; accountId: string; livemode: boolean; code: ErrorCode; message: string }) {
      try {
        const settled = await settleStoppedPurchase(db, { ...p, message: customerFailureMessage(p.code, p.message), now: now() });
        if (settled.settled) deps.metrics?.purchases.inc({ outcome: p.code, livemode: String(p.livemode) });
        return settled;
      } catch (err) {
        return missing(err);
      }
    },

    /** Starts the webhook deliveries of events the purchase stored (after the answer). */
    async announceEvents(p: { accountId: string; livemode: boolean; events: Array<{ id: string; type: EventType }> }): Promise<void> {
      for (const event of p.events) await deps.onEventRecorded?.({ ...event, accountId: p.accountId, livemode: p.livemode });
    },
  };
}
export type PurchaseActivities = ReturnType<typeof createPurchaseActivities>;
