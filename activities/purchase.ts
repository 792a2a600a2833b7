import { ApplicationFailure } from '@temporalio/common';
import {
  beginPurchase,
  completePurchase,
  failPurchase,
  findShipment,
  InsufficientFundsError,
  latestQuote,
  settleStoppedPurchase,
  ShipmentMissingError,
  type Db,
  type ShipmentRow,
} from '../db/index.js';
import { carrierRates, priceCacheOf, shipmentHash, type CarrierAdapter, type ShipmentTerms } from '../carriers/index.js';
import {
  CODE,
  crossesBorder,
  customerFailureMessage,
  formatAmount,
  priceService,
  priceWithVat,
  type Address,
  type ErrorCode,
  type EventType,
  type Parcel,
  type PricedServiceSource,
  type ShipmentOptions,
} from '../domain/index.js';
import { FAILED_MEANWHILE } from '../contract/index.js';
import { missingRow, type ShipmentActivityDeps } from './shipments.js';

export interface ServiceCatalog {
  findService(
    code: string,
  ): { carrier: { code: string; name: string; pricing?: 'rate_card' | 'carrier'; capabilities?: { international?: boolean; returns?: boolean } }; service: PricedServiceSource } | undefined;
  /** The carrier adapters (the registry's); without them, carriers priced by their rating API are not offered. */
  adapter?(carrierCode: string, livemode: boolean): CarrierAdapter;
}

/** How long a purchase waits for a carrier's price before failing `carrier_unavailable`. */
export const PURCHASE_PRICING_DEADLINE_MS = 4_000;

/**
 * The price of a service for this parcel and route, with the quote's function; a service that is
 * unknown or not eligible is a final refusal (the purchase fails with `service_not_available`).
 */
export function priceOrRefuse(
  catalog: ServiceCatalog,
  p: { serviceCode: string; from: Address; to: Address; parcel: Parcel; vatRateBp: number; currency: string } & Omit<ShipmentTerms, 'customs'>,
) {
  const found = catalog.findService(p.serviceCode);
  // Across a border only with a carrier that ships abroad, a return only with one that makes return labels.
  const can = found?.carrier.capabilities;
  const takes = (!crossesBorder(p.from, p.to) || can?.international) && (!p.isReturn || can?.returns);
  const price = found && takes && priceService(found.service, p.parcel, p.from, p.to, p.vatRateBp, p.currency, p.options);
  if (!found || !price) {
    throw ApplicationFailure.nonRetryable(`Service ${p.serviceCode} is not available for this parcel and route.`, CODE.service_not_available);
  }
  return { found, price };
}

type PurchasePricing = { serviceCode: string; from: Address; to: Address; parcel: Parcel; vatRateBp: number; currency: string; shipmentId: string; accountId: string } & Omit<
  ShipmentTerms,
  'customs'
>;

/**
 * The price a purchase charges (contract: Carriers). A rate-card service: its card, as quoted. A
 * service priced by its carrier's rating API: the latest recorded quote for the same account, mode,
 * parcel and route while it is unexpired, exactly; after that the carrier's answer now (through the
 * process's price cache), refused as `price_changed` when it is higher than that quote. A carrier
 * that cannot be reached or refuses fails the purchase before anything is held or bought.
 */
export async function priceForPurchase(deps: { db: Db; catalog: ServiceCatalog; now: () => Date }, p: PurchasePricing) {
  const found = deps.catalog.findService(p.serviceCode);
  if (!found || found.carrier.pricing !== 'carrier' || !deps.catalog.adapter) return priceOrRefuse(deps.catalog, p);
  const refuse = (code: ErrorCode, message: string): never => {
    throw ApplicationFailure.nonRetryable(message, code);
  };
  const row = await findShipment(deps.db, p.shipmentId);
  if (!row) return missingRow(p.shipmentId);
  const livemode = row.livemode;
  // Sandbox quotes are not recorded: their fixed card prices a purchase the same.
  const last = livemode ? await latestQuote(deps.db, { accountId: p.accountId, livemode, serviceCode: p.serviceCode, shipmentHash: shipmentHash(p.parcel, p.from, p.to, p) }) : null;
  if (last && last.expiresAt > deps.now() && last.currency === p.currency) {
    return { found, price: { net: last.net, vat: last.vat, gross: last.gross, currency: last.currency } };
  }
  let adapter: CarrierAdapter;
  try {
    adapter = deps.catalog.adapter(found.carrier.code, livemode);
  } catch (err) {
    // A setting gone bad: retrying this step cannot mend it, so the purchase fails at once.
    return refuse(CODE.carrier_unavailable, `Carrier ${found.carrier.code} cannot be reached: ${(err as Error).message}`);
  }
  const answer = await carrierRates(adapter, priceCacheOf(deps.catalog), {
    livemode,
    parcel: p.parcel,
    from: p.from,
    to: p.to,
    currency: p.currency,
    deadlineMs: PURCHASE_PRICING_DEADLINE_MS,
    options: p.options,
    isReturn: p.isReturn,
  });
  if (!answer.ok) return refuse(answer.code, answer.message);
  const rate = answer.rates.find((r) => r.serviceCode === p.serviceCode);
  if (!rate) return refuse(CODE.service_not_available, `Service ${p.serviceCode} is not available for this parcel and route.`);
  const price = priceWithVat(rate.net, p.vatRateBp / 100, rate.currency);
  if (last && price.gross > last.gross) {
    refuse(CODE.price_changed, `The quote of ${formatAmount(last.gross)} ${last.currency} expired; ${found.carrier.name} now asks ${formatAmount(price.gross)}.`);
  }
  return { found, price };
}

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
    catalog: ServiceCatalog;
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
        if (done.shipment.status === 'failed') {
          // Failed meanwhile by another execution of this run, and the customer told so (FAILED_MEANWHILE).
          throw ApplicationFailure.nonRetryable(done.shipment.failureMessage ?? 'The purchase failed.', done.shipment.failureCode ?? CODE.internal_error, FAILED_MEANWHILE);
        }
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
