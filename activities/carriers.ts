import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CarrierError, type CarrierAdapter, type CarrierMoney, type LabelDocument, type Purchase, type PurchaseRequest, type Scan } from '../carriers/index.js';
import { CARRIER_REASON, CODE } from '../domain/index.js';
import type { WorkerMetrics } from './metrics.js';

export interface CarrierTarget {
  carrier: string;
  livemode: boolean;
}

/** Turns a carrier failure into what Temporal should do with it (docs/architecture.md#errors). */
function classify(err: unknown, carrier: string): unknown {
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
      return ApplicationFailure.create({ type: CODE.carrier_error, message: err.message, nonRetryable: true, details });
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
  if (!ctx) return work();
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
  /** Stores the bought document and billed amount under the shipment id; harmless to repeat. */
  store(p: { shipmentId: string; carrier: string; label: LabelDocument; billed: CarrierMoney | null }): Promise<void>;
  /** Whether the carrier's ZPL of the shipment's label is stored already. */
  hasZpl(shipmentId: string): Promise<boolean>;
  storeZpl(shipmentId: string, zpl: LabelDocument): Promise<void>;
}

/** Carrier calls; they run on the `carrier-<code>` queue, whose rate limit holds fleet-wide. */
export function createCarrierActivities(deps: {
  adapter(carrier: string, livemode: boolean): CarrierAdapter;
  metrics?: WorkerMetrics;
  /** Keeps the label documents real carriers make; without it they are dropped (our renderer draws). */
  labels?: CarrierLabelSink;
}) {
  async function call<T>(t: CarrierTarget, operation: string, fn: (a: CarrierAdapter) => Promise<T>): Promise<T> {
    const started = performance.now();
    let result = 'ok';
    try {
      return await heartbeating(() => fn(deps.adapter(t.carrier, t.livemode)));
    } catch (err) {
      result = err instanceof CarrierError ? err.kind : 'error';
      throw classify(err, t.carrier);
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
  async function recoverZpl(t: CarrierTarget, purchase: { reference: string; trackingNumber: string }): Promise<void> {
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

  return {
    async buyLabel(t: CarrierTarget & { request: PurchaseRequest }): Promise<Purchase> {
      // A retried attempt may follow one whose request reached the carrier and is still committing.
      const earlierAttempt = t.request.earlierAttempt || (activityContext()?.info.attempt ?? 1) > 1;
      const bought = await call(t, 'buy', (a) => a.buy({ ...t.request, earlierAttempt }));
      const { reference, trackingNumber, serviceCode, cancelled, label, billed } = bought;
      // The label document and the bill go to the database here, keyed by our reference: the
      // workflow keeps the purchase only, as a carrier's label would weigh on its history.
      if (label && deps.labels) {
        await deps.labels.store({ shipmentId: reference, carrier: t.carrier, label, billed });
        if (label.format !== 'zpl') await recoverZpl(t, { reference, trackingNumber });
      }
      return { reference, trackingNumber, serviceCode, cancelled };
    },
    async findPurchase(t: CarrierTarget & { reference: string }): Promise<Purchase | null> {
      return call(t, 'lookup', (a) => a.findPurchase(t.reference));
    },
    /**
     * Cancels the label: `cancelled` outright, or `refund_requested` where the carrier's cancellation
     * is a refund request (USPS once manifested). Either way the label is void and the charge is
     * reversed; a refusal is thrown (below). The workflow reads a result without a kind (void) as
     * a cancellation, as recorded histories may hold such results.
     */
    async cancelLabel(t: CarrierTarget & { reference: string }): Promise<{ kind: 'cancelled' | 'refund_requested' } | void> {
      return call(t, 'cancel', async (a) => {
        const outcome = await a.cancel(t.reference);
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
      return call(t, 'track', (a) => a.scans(t.trackingNumber));
    },
  };
}
export type CarrierActivities = ReturnType<typeof createCarrierActivities>;
