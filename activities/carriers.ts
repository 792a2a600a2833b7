import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { CarrierError, type BoughtLabel, type CarrierAdapter, type CarrierMoney, type LabelDocument, type Purchase, type PurchaseRequest, type Scan, type SendLedger, type StoredPurchase } from '../carriers/index.js';
import { CARRIER_REASON, CODE } from '../domain/index.js';
import type { WorkerMetrics } from './metrics.js';
import { createTrackingCalls } from './tracking-calls.js';

export interface CarrierTarget {
  carrier: string;
  livemode: boolean;
}

/**
 * A carrier failure as what Temporal should do with it (docs/architecture.md#errors). The carrier's
 * client classified it once (carriers/kit/): its kind maps to a failure type here, never re-read.
 */
function toActivityFailure(err: unknown, carrier: string, operation: string): unknown {
  if (!(err instanceof CarrierError)) return err;
  // The reason travels with the failure: a cancel refused because the label was scanned is a 409 to the customer.
  const details = [
    {
      carrier,
      status: err.details.status ?? null,
      retryAfterMs: err.details.retryAfterMs ?? null,
      reason: err.details.reason ?? null,
      // The carrier's own code, for operators reading the failure in the workflow's history.
      carrierErrorCode: err.details.carrierErrorCode ?? null,
    },
  ];
  switch (err.kind) {
    case 'definitive':
      return ApplicationFailure.create({
        type: CODE.carrier_error,
        message: err.message,
        nonRetryable: true,
        details,
        // A tracking number the carrier does not know (yet) is an expected answer to a poll, not a fault.
        ...(operation === 'track' && err.details.reason === CARRIER_REASON.notFound ? { category: ApplicationFailureCategory.BENIGN } : {}),
      });
    case 'ambiguous':
      return ApplicationFailure.create({ type: CODE.carrier_ambiguous, message: err.message, nonRetryable: true, details });
    case 'retryable':
      return ApplicationFailure.create({
        type: CODE.carrier_retryable,
        message: err.message,
        nonRetryable: false,
        details,
        // Honour the carrier's Retry-After rather than our own backoff.
        nextRetryDelay: err.details.retryAfterMs,
      });
  }
}

/** A buy step's number in the ledger of sends leaves room for this many runs of its activity. */
const SEND_ATTEMPTS_PER_STEP = 100;

/** How often a carrier activity heartbeats while it runs; the buy's heartbeat time-out is a few of these. */
export const CARRIER_HEARTBEAT_MS = 1_000;

/** The activity's context, or undefined when called outside an activity (unit tests). */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Heartbeats while `work` runs (fault 14): a carrier worker that dies mid-call is noticed after the
 * activity's heartbeat time-out (seconds), not after its whole start-to-close time-out.
 */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const ctx = activityContext();
  // A local activity has no heartbeat: its own time-outs bound it, inside the workflow's task.
  if (!ctx || ctx.info.isLocal) return work();
  // No beat at the start: the heartbeat time-out runs from the start, and most calls end well
  // before the first beat is due, so they cost the server no heartbeat at all.
  const timer = setInterval(() => ctx.heartbeat(), CARRIER_HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Where a real carrier's label is kept once bought (db/queries/labels.ts in the workers). */
export interface CarrierLabelSink {
  /**
   * Stores the bought document and billed amount under the shipment id, with the purchase's ids
   * (tracking number, the carrier's shipment id) that cancel it later; harmless to repeat.
   */
  store(p: {
    shipmentId: string;
    carrier: string;
    label: LabelDocument;
    billed: CarrierMoney | null;
    trackingNumber: string;
    carrierShipmentId: string | null;
  }): Promise<void>;
  /** The purchase as stored when it was bought (its label's row, else the shipment's tracking number); null when none is. */
  storedPurchase(shipmentId: string): Promise<{ trackingNumber: string; carrierShipmentId: string | null } | null>;
  /** Whether the carrier's ZPL of the shipment's label is stored already. */
  hasZpl(shipmentId: string): Promise<boolean>;
  storeZpl(shipmentId: string, zpl: LabelDocument): Promise<void>;
  /** Keeps the customs paperwork the carrier gave with the label, once per shipment and type. */
  storeDocument?(shipmentId: string, document: NonNullable<BoughtLabel['documents']>[number]): Promise<void>;
}

/** How long a poll waits for others to join it in one call, where the carrier takes many numbers in one. */
export const TRACKING_BATCH_WINDOW_MS = 100;

/**
 * Carrier calls; they run on the `carrier-<code>` queue, whose rate limit holds fleet-wide, except the
 * tracking loop's poll (`pollTracking`), which a workflow's worker runs with a limit of its own.
 */
export function createCarrierActivities(deps: {
  adapter(carrier: string, livemode: boolean): CarrierAdapter;
  metrics?: WorkerMetrics;
  /** Keeps the label documents real carriers make; without it they are dropped (our renderer draws). */
  labels?: CarrierLabelSink;
  /**
   * The carrier's tracking share of its rate, fleet-wide (activities/tracking-admission.ts), for the
   * polls a workflow's own worker makes (`pollTracking`); without it they are not limited.
   */
  admitTracking?: (t: CarrierTarget) => Promise<void>;
  /** The ledger of a purchase's sends (db/queries/carrier-sends.ts), for one attempt at its buy; without it none is kept. */
  sends?: (reference: string, attempt: number) => SendLedger;
}) {
  const tracking = createTrackingCalls(TRACKING_BATCH_WINDOW_MS);
  const admittedTracking = createTrackingCalls(TRACKING_BATCH_WINDOW_MS, deps.admitTracking);
  async function call<T>(t: CarrierTarget, operation: string, fn: (a: CarrierAdapter) => Promise<T>): Promise<T> {
    const started = performance.now();
    let result = 'ok';
    try {
      return await heartbeating(() => fn(deps.adapter(t.carrier, t.livemode)));
    } catch (err) {
      result = err instanceof CarrierError ? err.kind : 'error';
      throw toActivityFailure(err, t.carrier, operation);
    } finally {
      if (t.livemode) {
        deps.metrics?.carrierCalls.observe({ carrier: t.carrier, operation, result }, (performance.now() - started) / 1000);
      }
    }
  }
  /**
   * The carrier's ZPL of a label bought as an image or PDF, by its recovery or reprint operation
   * (no carrier makes both in one purchase). The purchase stands without it: a failure is logged and
   * the label's PDFs still come from the bought document. Asked for once: USPS limits reprints.
   */
  async function recoverZpl(t: CarrierTarget, purchase: StoredPurchase): Promise<void> {
    const labels = deps.labels!;
    const adapter = deps.adapter(t.carrier, t.livemode);
    if (!adapter.recoverLabel || !adapter.definition.capabilities.labelFormats.includes('zpl')) return;
    if (await labels.hasZpl(purchase.reference)) return;
    try {
      const zpl = await call(t, 'recover', (a) => a.recoverLabel!(purchase, 'zpl'));
      if (zpl.format !== 'zpl') throw new Error(`asked for ZPL, the carrier answered ${zpl.format}`);
      await labels.storeZpl(purchase.reference, zpl);
    } catch (err) {
      activityContext()?.log.warn('the carrier ZPL of a bought label could not be had; its zpl file is not available', {
        shipmentId: purchase.reference,
        carrier: t.carrier,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** The purchase as stored in our database, given (the workflow's own record), or null. */
  async function storedPurchase(reference: string, given?: Omit<StoredPurchase, 'reference'>): Promise<StoredPurchase | null> {
    if (given) return { reference, ...given };
    const stored = await deps.labels?.storedPurchase(reference);
    return stored ? { reference, ...stored } : null;
  }

  /** Keeps what a carrier's settlement of a lost answer made again: the label, and the purchase's ids. */
  async function keepSettled(t: CarrierTarget, found: Purchase | BoughtLabel | null): Promise<void> {
    if (!found || !deps.labels || !('label' in found) || !found.label) return;
    await deps.labels.store({
      shipmentId: found.reference,
      carrier: t.carrier,
      label: found.label,
      billed: found.billed,
      trackingNumber: found.trackingNumber,
      carrierShipmentId: found.carrierShipmentId ?? null,
    });
  }

  return {
    /**
     * `attempt` is the purchase's attempt at the buy (1, 2, … from its workflow): with it, the carrier
     * keeps its sends in the purchase's ledger (deps.sends), where a later attempt sees them.
     */
    async buyLabel(t: CarrierTarget & { request: PurchaseRequest; attempt?: number }): Promise<Purchase> {
      // A retried attempt may follow one whose request reached the carrier and is still committing.
      const activityAttempt = activityContext()?.info.attempt ?? 1;
      const earlierAttempt = t.request.earlierAttempt || activityAttempt > 1;
      // Each run of the activity is an attempt of its own: the workflow's attempt, then Temporal's retry.
      const sends = t.attempt === undefined ? undefined : deps.sends?.(t.request.reference, t.attempt * SEND_ATTEMPTS_PER_STEP + Math.min(activityAttempt, SEND_ATTEMPTS_PER_STEP - 1));
      const bought = await call(t, 'buy', (a) => a.buy({ ...t.request, earlierAttempt }, sends));
      const { reference, trackingNumber, serviceCode, cancelled, label, billed } = bought;
      const carrierShipmentId = bought.carrierShipmentId ?? null;
      // The label document, the bill and the purchase's ids go to the database here, keyed by our
      // reference, before anything else can fail: a cancel takes them from there (never a lookup at
      // the carrier), and the workflow keeps the purchase only, as a label would weigh on its history.
      if (label && deps.labels) {
        await deps.labels.store({ shipmentId: reference, carrier: t.carrier, label, billed, trackingNumber, carrierShipmentId });
        // The carrier's commercial invoice is served by GET /shipments/{id}/documents, stored before the purchase is answered.
        for (const document of bought.documents ?? []) await deps.labels.storeDocument?.(reference, document);
        if (label.format !== 'zpl') await recoverZpl(t, { reference, trackingNumber, carrierShipmentId });
      }
      return { reference, trackingNumber, serviceCode, cancelled };
    },
    /**
     * The carrier's record of the purchase: of the label we stored, when one is, else by our
     * reference (a lost buy answer). `request` (the purchase's own, from its first attempt) lets a
     * carrier with idempotency keys settle by sending it again; `stray` marks the looks for a label
     * a failed purchase may have left (a carrier with a small quota need not spend it on each).
     */
    async findPurchase(t: CarrierTarget & { reference: string; request?: PurchaseRequest; stray?: { final: boolean } }): Promise<Purchase | null> {
      const stored = await storedPurchase(t.reference);
      const lookup = { stored, ...(t.request ? { request: t.request } : {}), ...(t.stray ? { stray: t.stray } : {}) };
      const found = await call(t, 'lookup', (a) => a.findPurchase(t.reference, lookup));
      await keepSettled(t, found);
      return found && { reference: found.reference, trackingNumber: found.trackingNumber, serviceCode: found.serviceCode, cancelled: found.cancelled };
    },
    /**
     * Cancels the label: `cancelled` outright, or `refund_requested` where the carrier's cancellation
     * is a refund request (USPS once manifested). Either way the label is void and the charge is
     * reversed; a refusal is thrown (below). The workflow reads a result without a kind (void) as
     * a cancellation, as recorded histories may hold such results.
     */
    async cancelLabel(
      t: CarrierTarget & { reference: string; purchase?: { trackingNumber: string; carrierShipmentId: string | null } },
    ): Promise<{ kind: 'cancelled' | 'refund_requested' } | void> {
      return call(t, 'cancel', async (a) => {
        // The purchase as stored when it was bought; only a purchase whose answer was lost (none
        // stored) is settled by the carrier's lookup first.
        const purchase = (await storedPurchase(t.reference, t.purchase)) ?? (await settledPurchase(a, t.reference));
        const outcome = await a.cancel(purchase);
        // The void workflow reads a refusal as a definitive failure with its reason (409 to the customer).
        if (outcome.kind === 'refused') {
          throw new CarrierError('definitive', outcome.message, {
            carrierCode: t.carrier,
            ...(outcome.carrierErrorCode ? { carrierErrorCode: outcome.carrierErrorCode } : {}),
            ...(outcome.reason === 'already_scanned' ? { reason: CARRIER_REASON.alreadyScanned } : {}),
          });
        }
        return { kind: outcome.kind };
      });
    },
    async fetchScans(t: CarrierTarget & { trackingNumber: string }): Promise<Scan[]> {
      return call(t, 'track', (a) => tracking.scans(t, a, t.trackingNumber));
    },
    /**
     * The tracking loop's poll, run by the workflow's own worker as a local activity: no task of its
     * own on the server, and the workflow goes on in the same workflow task. Each call to the carrier
     * (one for the numbers polled together) first takes its place in the carrier's tracking rate,
     * fleet-wide (`admitTracking`), as the carrier's tracking queue's limit does for `fetchScans`.
     */
    async pollTracking(t: CarrierTarget & { trackingNumber: string }): Promise<Scan[]> {
      return call(t, 'track', (a) => admittedTracking.scans(t, a, t.trackingNumber));
    },
    /** Subscribes packages to the scans their carrier pushes (`capabilities.trackingSubscription`). */
    async subscribeTracking(t: CarrierTarget & { trackingNumbers: string[] }): Promise<{ subscribed: string[]; refused: string[] }> {
      return call(t, 'subscribe', (a) => tracking.subscribe(t, a, t.trackingNumbers));
    },
  };
}
export type CarrierActivities = ReturnType<typeof createCarrierActivities>;

/** A purchase nothing of ours recorded (its answer was lost), found by the carrier under our reference. */
async function settledPurchase(adapter: CarrierAdapter, reference: string): Promise<StoredPurchase> {
  const found = await adapter.findPurchase(reference);
  if (!found) throw new CarrierError('definitive', `carrier ${adapter.definition.code} has no purchase with reference ${reference}`, { carrierCode: adapter.definition.code, reason: CARRIER_REASON.notFound });
  return { reference, trackingNumber: found.trackingNumber, carrierShipmentId: found.carrierShipmentId ?? null };
}
