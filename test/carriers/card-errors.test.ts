import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentActivities } from '../../activities/payments.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { CODE } from '../../domain/index.js';
import { addFault, simCall, uniqueRef } from './sim-helpers.js';

// Fault 6: the card processor's errors classified like a carrier's, and no capture ever skipped.
let sim: CarrierSimulator;
let pay: ReturnType<typeof createPaymentActivities>;
beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
  pay = createPaymentActivities({ processorUrl: `${sim.url}/cardpay/v1`, timeoutMs: 2_000 });
});
afterAll(async () => {
  await sim.close();
});

const money = (shipmentId: string) => ({ accountId: 'acc_card', shipmentId, amount: 1234, currency: 'GBP' });

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('card processor errors (fault 6)', () => {
  it('a 4xx other than a decline is final, with the processor\'s own message', async () => {
    const ref = uniqueRef('shp');
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'error', status: 400, match: ref });
    const f = await failure(pay.authorizeCard(money(ref)));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(CODE.card_processor_error);
    expect(f.message).toContain('Simulated 400 failure of authorize');
  });

  it('a reference reused for another amount is refused with the processor\'s message, not retried for ever', async () => {
    const ref = uniqueRef('shp');
    await pay.authorizeCard(money(ref));
    const f = await failure(pay.authorizeCard({ ...money(ref), amount: 999 }));
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('already used for a different authorization');
  });

  it('a decline stays a decline', async () => {
    const ref = uniqueRef('shp');
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'decline', match: ref });
    const f = await failure(pay.authorizeCard(money(ref)));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(CODE.card_declined);
  });

  it('5xx, 429 and a lost answer are retried, honouring Retry-After', async () => {
    const ref = uniqueRef('shp');
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'error', status: 503, match: ref });
    const five = await failure(pay.authorizeCard(money(ref)));
    expect(five.nonRetryable).toBe(false);
    expect(five.type).toBe(CODE.card_processor_retryable);
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'rate_limit', retry_after: 3, match: ref });
    const limited = await failure(pay.authorizeCard(money(ref)));
    expect(limited.nonRetryable).toBe(false);
    expect(limited.nextRetryDelay).toBe(3000);
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'lost_answer', match: ref });
    const lost = await failure(pay.authorizeCard(money(ref)));
    expect(lost.nonRetryable).toBe(false);
    // The retry finds the authorization the lost answer made: still one.
    await pay.authorizeCard(money(ref));
    expect((await simCall(sim.url, 'GET', `/_sim/card-charges?reference=${ref}`)).body.data).toHaveLength(1);
  });

  it('never skips a capture: a capture with no authorization under the reference fails loudly', async () => {
    const ref = uniqueRef('shp');
    const f = await failure(pay.captureCard({ shipmentId: ref }));
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain(`no card authorization for ${ref}`);
    // A void after a failed authorization has nothing to undo, and says so by succeeding.
    await expect(pay.voidCard({ shipmentId: ref })).resolves.toBeUndefined();
  });

  it('asks again for a refund the processor refuses: it is owed once the carrier has cancelled the label', async () => {
    const ref = uniqueRef('shp');
    await pay.authorizeCard(money(ref));
    await pay.captureCard({ shipmentId: ref });
    const [charge] = (await simCall(sim.url, 'GET', `/_sim/card-charges?reference=${ref}`)).body.data;
    await addFault(sim.url, { carrier: 'cardpay', operation: 'refund', mode: 'error', status: 422, match: charge.id });
    const f = await failure(pay.refundCard({ shipmentId: ref }));
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toContain('Simulated 422 failure of refund');
    await pay.refundCard({ shipmentId: ref });
    expect((await simCall(sim.url, 'GET', `/_sim/card-charges?reference=${ref}`)).body.data[0].status).toBe('refunded');
  });

  it('keeps refusing for good the refund of an authorization never captured: nothing is owed', async () => {
    const ref = uniqueRef('shp');
    await pay.authorizeCard(money(ref));
    const f = await failure(pay.refundCard({ shipmentId: ref }));
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe(CODE.card_processor_error);
  });

  it('captures, then refunds, the authorization under the reference', async () => {
    const ref = uniqueRef('shp');
    await pay.authorizeCard(money(ref));
    await pay.captureCard({ shipmentId: ref });
    await pay.captureCard({ shipmentId: ref });
    await pay.refundCard({ shipmentId: ref });
    const [charge] = (await simCall(sim.url, 'GET', `/_sim/card-charges?reference=${ref}`)).body.data;
    expect(charge.status).toBe('refunded');
  });
});
