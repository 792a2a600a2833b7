import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CarrierError, type CarrierAdapter, type Purchase, type PurchaseRequest, type Scan } from '../carriers/index.js';
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

/** Carrier calls; they run on the `carrier-<code>` queue, whose rate limit holds fleet-wide. */
export function createCarrierActivities(deps: {
  adapter(carrier: string, livemode: boolean): CarrierAdapter;
  metrics?: WorkerMetrics;
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
  return {
    async buyLabel(t: CarrierTarget & { request: PurchaseRequest }): Promise<Purchase> {
      // A retried attempt may follow one whose request reached the carrier and is still committing.
      const earlierAttempt = t.request.earlierAttempt || (activityContext()?.info.attempt ?? 1) > 1;
      // The workflow keeps the purchase only: a carrier's label document would weigh on its history.
      const { reference, trackingNumber, serviceCode, cancelled } = await call(t, 'buy', (a) => a.buy({ ...t.request, earlierAttempt }));
      return { reference, trackingNumber, serviceCode, cancelled };
    },
    async findPurchase(t: CarrierTarget & { reference: string }): Promise<Purchase | null> {
      return call(t, 'lookup', (a) => a.findPurchase(t.reference));
    },
    async cancelLabel(t: CarrierTarget & { reference: string }): Promise<void> {
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
      });
    },
    async fetchScans(t: CarrierTarget & { trackingNumber: string }): Promise<Scan[]> {
      return call(t, 'track', (a) => a.scans(t.trackingNumber));
    },
  };
}
export type CarrierActivities = ReturnType<typeof createCarrierActivities>;
