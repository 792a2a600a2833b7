import { ApplicationFailure } from '@temporalio/common';
import {
  findAccount,
  findShipment,
  latestQuote,
  markVoidingUnlessOnForm,
  schema,
  insertEvent,
  updateShipment,
  type Db,
  type ShipmentRow,
} from '../db/index.js';
import { carrierRates, priceCacheOf, shipmentHash, type CarrierAdapter, type Scan, type ShipmentTerms } from '../carriers/index.js';
import type { WorkerMetrics } from './metrics.js';
import {
  balanceToJson,
  CODE,
  crossesBorder,
  formatAmount,
  priceService,
  priceWithVat,
  shipmentToJson,
  type Address,
  type ErrorCode,
  type EventType,
  type Parcel,
  type PricedServiceSource,
} from '../domain/index.js';

export interface ServiceCatalog {
  findService(
    code: string,
  ): { carrier: { code: string; name: string; pricing?: 'rate_card' | 'carrier'; capabilities?: { international?: boolean; returns?: boolean } }; service: PricedServiceSource } | undefined;
  /** The carrier adapters (the registry's); without them, carriers priced by their rating API are not offered. */
  adapter?(carrierCode: string, livemode: boolean): CarrierAdapter;
}

/** How long a purchase waits for a carrier's price before failing `carrier_unavailable`. */
export const PURCHASE_PRICING_DEADLINE_MS = 4_000;

type ShipmentChanges = Partial<
  Pick<ShipmentRow, 'status' | 'trackingNumber' | 'trackingStatus' | 'lastVoidError' | 'failureCode' | 'failureMessage'>
>;

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

/** A step that expects the shipment's row found none: retrying cannot help, so operators see it. */
export function missingRow(shipmentId: string): never {
  throw ApplicationFailure.nonRetryable(`Shipment ${shipmentId} has no row in the database.`, CODE.shipment_missing);
}

/** What the shipment and purchase activities are built from (workers/activities.ts). */
export interface ShipmentActivityDeps {
  metrics?: WorkerMetrics;
  db: Db;
  catalog: ServiceCatalog;
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
