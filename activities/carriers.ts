import { ApplicationFailure } from '@temporalio/common';
import { CarrierError, type CarrierAdapter, type Purchase, type PurchaseRequest, type Scan } from '../carriers/types.js';
import { FAILURE } from '../domain/index.js';

export interface CarrierTarget {
  carrier: string;
  livemode: boolean;
}

/** Turns a carrier failure into what Temporal should do with it (style.md: Errors). */
function classify(err: unknown, carrier: string): unknown {
  if (!(err instanceof CarrierError)) return err;
  const details = [{ carrier, status: err.details.status ?? null }];
  switch (err.kind) {
    case 'definitive':
      return ApplicationFailure.create({ type: FAILURE.carrierRefused, message: err.message, nonRetryable: true, details });
    case 'ambiguous':
      return ApplicationFailure.create({ type: FAILURE.carrierAmbiguous, message: err.message, nonRetryable: true, details });
    case 'retryable':
      return ApplicationFailure.create({
        type: FAILURE.carrierRetryable,
        message: err.message,
        nonRetryable: false,
        details,
        // Honour the carrier's Retry-After rather than our own backoff.
        nextRetryDelay: err.details.retryAfterMs,
      });
  }
}

/** Carrier calls; they run on the `carrier-<code>` queue, whose rate limit holds fleet-wide. */
export function createCarrierActivities(deps: { adapter(carrier: string, livemode: boolean): CarrierAdapter }) {
  async function call<T>(t: CarrierTarget, fn: (a: CarrierAdapter) => Promise<T>): Promise<T> {
    try {
      return await fn(deps.adapter(t.carrier, t.livemode));
    } catch (err) {
      throw classify(err, t.carrier);
    }
  }
  return {
    async buyLabel(t: CarrierTarget & { request: PurchaseRequest }): Promise<Purchase> {
      return call(t, (a) => a.buy(t.request));
    },
    async findPurchase(t: CarrierTarget & { reference: string }): Promise<Purchase | null> {
      return call(t, (a) => a.findPurchase(t.reference));
    },
    async cancelLabel(t: CarrierTarget & { reference: string }): Promise<void> {
      return call(t, (a) => a.cancel(t.reference));
    },
    async fetchScans(t: CarrierTarget & { trackingNumber: string }): Promise<Scan[]> {
      return call(t, (a) => a.scans(t.trackingNumber));
    },
  };
}
export type CarrierActivities = ReturnType<typeof createCarrierActivities>;
