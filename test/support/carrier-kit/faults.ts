import { expect, it } from 'vitest';
import { CarrierError, type CarrierAdapter, type Purchase, type PurchaseRequest, type StoredPurchase } from '../../../carriers/index.js';

/**
 * A way the carrier's next answer can fail: an HTTP error status; a 429 with `Retry-After` (seconds);
 * no answer before the adapter's deadline (`timeout`: the request is held, and not carried out); the
 * request carried out and the connection then dropped (`lost_answer`); a 2xx body that cannot be read
 * (`garbage`: not carried out).
 */
export type CarrierFault =
  | { mode: 'error'; status: number }
  | { mode: 'rate_limit'; retryAfterS: number }
  | { mode: 'timeout' }
  | { mode: 'lost_answer' }
  | { mode: 'garbage' };

/** The carrier's operations, as the HTTP client names them. */
export type CarrierOperation = 'buy' | 'lookup' | 'cancel' | 'track';

/**
 * The contract kit's checks of how an adapter classifies failures ("Errors" in carriers/README.md),
 * registered by describeCarrierAdapterContract when its setup can inject faults.
 */
export function describeFaultChecks(kit: {
  adapter: CarrierAdapter;
  failNext: (operation: CarrierOperation, match: string, fault: CarrierFault) => Promise<void>;
  newRequest: () => PurchaseRequest;
  buyOne: () => Promise<{ request: PurchaseRequest; purchase: Purchase; stored: StoredPurchase }>;
}): void {
  const { failNext, newRequest, buyOne } = kit;
  const ctx = { adapter: kit.adapter };
  const definition = kit.adapter.definition;
  /** The purchase part of a buy's answer: what findPurchase reports later. */
  const purchaseOf = ({ reference, trackingNumber, serviceCode, cancelled }: Purchase): Purchase => ({ reference, trackingNumber, serviceCode, cancelled });

    /** The CarrierError `call` throws, with the carrier code every error must carry. */
    async function failure(call: Promise<unknown>): Promise<CarrierError> {
      const error = await call.then(
        () => new Error('expected a CarrierError, got an answer'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CarrierError);
      expect((error as CarrierError).details.carrierCode).toBe(definition.code);
      return error as CarrierError;
    }

    it('classifies a 5xx as retryable, with the status, for reads and a 500 to a buy', async () => {
      const { purchase } = await buyOne();
      await failNext('lookup', purchase.reference, { mode: 'error', status: 500 });
      expect(await failure(ctx.adapter.findPurchase(purchase.reference))).toMatchObject({ kind: 'retryable', details: { status: 500 } });
      await failNext('track', purchase.trackingNumber, { mode: 'error', status: 503 });
      expect(await failure(ctx.adapter.scans(purchase.trackingNumber))).toMatchObject({ kind: 'retryable', details: { status: 503 } });
      const request = newRequest();
      await failNext('buy', request.reference, { mode: 'error', status: 500 });
      expect(await failure(ctx.adapter.buy(request))).toMatchObject({ kind: 'retryable', details: { status: 500 } });
      expect(await ctx.adapter.findPurchase(request.reference)).toBeNull();
    });

    it('classifies a 429 as retryable and carries Retry-After in milliseconds', async () => {
      const { purchase } = await buyOne();
      await failNext('track', purchase.trackingNumber, { mode: 'rate_limit', retryAfterS: 3 });
      expect(await failure(ctx.adapter.scans(purchase.trackingNumber))).toMatchObject({ kind: 'retryable', details: { status: 429, retryAfterMs: 3000 } });
    });

    /**
     * A buy the carrier did not carry out, whose answer looked ambiguous: `ambiguous` (the
     * workflow settles it), or `retryable` from an adapter that settled it itself (it looked the
     * reference up until the booking could no longer commit, and found nothing). Never
     * `definitive`, never a label.
     */
    const ambiguousBuyNotMade = async (fault: CarrierFault) => {
      const request = newRequest();
      await failNext('buy', request.reference, fault);
      const error = await failure(ctx.adapter.buy(request));
      expect(['ambiguous', 'retryable'], `${fault.mode}: ${error.kind}: ${error.message}`).toContain(error.kind);
      expect(await ctx.adapter.findPurchase(request.reference)).toBeNull();
      return error;
    };

    it('takes a 502, 503 or 504 to a buy as ambiguous (a gateway may have forwarded it), and to a cancel', async () => {
      for (const status of [502, 503, 504]) {
        const error = await ambiguousBuyNotMade({ mode: 'error', status });
        if (error.kind === 'ambiguous') expect(error.details.status).toBe(status);
      }
      // A carrier without a cancellation (DHL Express) sends none: there is no cancel to fail.
      if (definition.capabilities.void === 'none') return;
      // A carrier's cancel names the label by our reference (Acme) or by its own number (SwiftPost):
      // the fault is set for both, and the one the cancel does not mention is never used.
      const { purchase, stored } = await buyOne();
      await failNext('cancel', purchase.reference, { mode: 'error', status: 503 });
      await failNext('cancel', purchase.trackingNumber, { mode: 'error', status: 503 });
      expect(await failure(ctx.adapter.cancel(stored))).toMatchObject({ kind: 'ambiguous', details: { status: 503 } });
    });

    it("classifies another 4xx to a buy as definitive, with the carrier's message and error code", async () => {
      const request = newRequest();
      await failNext('buy', request.reference, { mode: 'error', status: 422 });
      const error = await failure(ctx.adapter.buy(request));
      expect(error).toMatchObject({ kind: 'definitive', details: { status: 422 } });
      expect(error.message.trim()).not.toBe('');
      expect(String(error.details.carrierErrorCode ?? '').trim()).not.toBe('');
    });

    it('never loses a label whose answer was lost: the buy answers it, or is ambiguous and findPurchase finds it', async () => {
      const request = newRequest();
      await failNext('buy', request.reference, { mode: 'lost_answer' });
      const outcome = await ctx.adapter.buy(request).catch((e: unknown) => e);
      if (outcome instanceof CarrierError) expect(outcome.kind, outcome.message).toBe('ambiguous');
      else expect(outcome).toMatchObject({ reference: request.reference, serviceCode: request.serviceCode, cancelled: false });
      const found = await ctx.adapter.findPurchase(request.reference);
      expect(found).toMatchObject({ reference: request.reference, serviceCode: request.serviceCode, cancelled: false });
      if (!(outcome instanceof CarrierError)) expect(found).toEqual(purchaseOf(outcome as Purchase));
      // The same fault on a read: nothing is at stake, so it is simply retryable.
      await failNext('lookup', request.reference, { mode: 'lost_answer' });
      expect(await failure(ctx.adapter.findPurchase(request.reference))).toMatchObject({ kind: 'retryable' });
    });

    it('takes no answer within the deadline as ambiguous for a buy, retryable for a read', async () => {
      await ambiguousBuyNotMade({ mode: 'timeout' });
      const { purchase } = await buyOne();
      await failNext('track', purchase.trackingNumber, { mode: 'timeout' });
      expect(await failure(ctx.adapter.scans(purchase.trackingNumber))).toMatchObject({ kind: 'retryable' });
    });

    it('takes an unreadable 2xx body as ambiguous for a buy, retryable for a read', async () => {
      await ambiguousBuyNotMade({ mode: 'garbage' });
      const { purchase } = await buyOne();
      await failNext('lookup', purchase.reference, { mode: 'garbage' });
      expect(await failure(ctx.adapter.findPurchase(purchase.reference))).toMatchObject({ kind: 'retryable' });
    });
}
