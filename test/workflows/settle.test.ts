// A run that settles what a stopped run left (workflows/purchase.ts and void.ts), on the
// time-skipping server with mocked activities: the steps in order, what a retried purchase request
// is answered, and the case where the stopped run's capture had committed. The sweep that starts
// such runs, against a real Terminate: test/lifecycle/terminate.test.ts.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { CODE } from '../../domain/index.js';
import { purchaseUpdate, stateQuery, type StoppedRun } from '../../contract/index.js';
import {
  CARRIER,
  currentDetails,
  MINUTE,
  mockActivities,
  purchasedInput,
  shipmentInput,
  startShipment,
  useShipmentEnv,
  TRACKING_NUMBER,
  withWorkers,
} from './harness.js';

const se = useShipmentEnv();

const stopped = (over: Partial<StoppedRun> = {}): StoppedRun => ({ runId: 'run-stopped', closedAs: 'TERMINATED', status: 'pending', carrier: CARRIER, ...over });

describe('settling a stopped run (time-skipping, mocked activities)', () => {
  it('a purchase: failed and released in one step, the card voided (refunded when captured), then a stray label looked for and cancelled', async () => {
    const input = shipmentInput({ fundingSource: 'card', strayLabelSettleMs: 2 * MINUTE, settle: stopped() });
    const mocks = mockActivities(se.env, input.shipmentId, {
      voidCard: async () => {
        throw ApplicationFailure.create({ type: CODE.card_processor_error, message: 'Cannot void an authorization that is captured.', nonRetryable: true });
      },
      findPurchase: async () => ({ reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: false }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      // A retry of the purchase request joins this run and is answered the failure.
      expect(await handle.executeUpdate(purchaseUpdate, { updateId: 'idem-1' })).toEqual({
        ok: false,
        code: 'internal_error',
        message: 'The purchase was stopped by an operator; nothing was bought or charged.',
      });
      expect(await handle.result()).toEqual({ status: 'failed' });
      const names = mocks.names();
      expect(names.slice(0, 3)).toEqual(['settleStoppedPurchase', 'voidCard', 'refundCard']);
      expect(names).not.toContain('beginPurchase');
      expect(names).not.toContain('buyLabel');
      expect(mocks.of('settleStoppedPurchase')[0].arg).toEqual({
        shipmentId: input.shipmentId,
        accountId: input.accountId,
        livemode: true,
        code: 'internal_error',
        message: 'The purchase was stopped by an operator; nothing was bought or charged.',
      });
      // The label found is cancelled, and looked for again over the settle window.
      expect(mocks.of('cancelLabel').length).toBeGreaterThan(0);
      expect(mocks.of('findPurchase').length).toBeGreaterThan(1);
      expect(await currentDetails(handle)).toContain(`a stray label ${TRACKING_NUMBER} turned up at ${CARRIER} and was cancelled`);
    });
  });

  it('a purchase the stopped run had captured stands: no failure, no event stored again, tracking goes on', async () => {
    const input = shipmentInput({ settle: stopped({ closedAs: 'FAILED' }) });
    const mocks = mockActivities(se.env, input.shipmentId, {
      settleStoppedPurchase: async () => ({ status: 'purchased', carrier: CARRIER, trackingNumber: TRACKING_NUMBER, settled: false }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate, { updateId: 'idem-1' })).toEqual({ ok: true });
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'purchased', trackingNumber: TRACKING_NUMBER });
      const names = mocks.names();
      expect(names[0]).toBe('settleStoppedPurchase');
      for (const step of ['recordEvent', 'announceEvents', 'failPurchase', 'voidCard', 'findPurchase', 'cancelLabel']) expect(names).not.toContain(step);
    });
  });

  it('a void the carrier had carried out: refunded, voided and its event stored; the run ends', async () => {
    const input = { ...purchasedInput(), settle: stopped({ status: 'voiding' }) };
    input.resume = { ...input.resume!, status: 'voiding' };
    const mocks = mockActivities(se.env, input.shipmentId, {
      findPurchase: async () => ({ reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: true }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.result()).toEqual({ status: 'voided' });
      expect(mocks.names()).toEqual(['findPurchase', 'refundFunds', 'markShipment', 'recordEvent']);
      expect(mocks.of('markShipment')[0].arg).toEqual({ shipmentId: input.shipmentId, changes: { status: 'voided', trackingStatus: 'cancelled' } });
      expect(mocks.of('recordEvent')[0].arg).toMatchObject({ type: 'shipment.voided' });
    });
  });

  it('a void the carrier never carried out: purchased again, saying why (an internal error, not an operator), and tracking goes on; the next run settles nothing again', async () => {
    const input = { ...purchasedInput({ tracking: { minPollMs: 15 * MINUTE, maxPollMs: 15 * MINUTE, continueAsNewAfterPolls: 1 } }), settle: stopped({ status: 'voiding', closedAs: 'FAILED' }) };
    input.resume = { ...input.resume!, status: 'voiding' };
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const until = Date.now() + 30_000;
      while (mocks.of('markShipment').length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(mocks.of('markShipment')[0].arg).toEqual({
        shipmentId: input.shipmentId,
        changes: { status: 'purchased', lastVoidError: 'The void was interrupted by an internal error before the carrier cancelled the label; it stays bought and charged.' },
      });
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'purchased' });
      expect(await currentDetails(handle)).toMatch(/^purchased; next carrier poll/);
      // Two polls, so a continue-as-new between them: the next run tracks, and settles nothing again.
      const first = (await handle.describe()).runId;
      await se.env.sleep(40 * MINUTE);
      expect(mocks.of('pollTracking').length).toBeGreaterThanOrEqual(2);
      expect((await handle.describe()).runId).not.toBe(first);
      expect(mocks.of('findPurchase')).toHaveLength(1);
      expect(mocks.of('markShipment')).toHaveLength(1);
    });
  });
});
