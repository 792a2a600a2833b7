// The void (workflows/void.ts) on the time-skipping server with mocked activities: each outcome, what
// the read model is told at each step, and that money moves back only after the carrier cancelled.
import { WorkflowFailedError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { Purchase } from '../../carriers/index.js';
import { CODE } from '../../domain/index.js';
import { scansSignal, stateQuery, voidUpdate } from '../../contract/index.js';
import {
  called,
  CARRIER,
  currentDetails,
  mockActivities,
  purchasedInput,
  scan,
  shipmentInput,
  startShipment,
  useShipmentEnv,
  TRACKING_NUMBER,
  withWorkers,
} from './harness.js';

const se = useShipmentEnv();

const retryable = (message: string) => ApplicationFailure.create({ type: CODE.carrier_retryable, message, nonRetryable: false });

describe('void (time-skipping, mocked activities)', () => {
  it('accepted: checks scans, cancels at the carrier, then refunds the card and the ledger, voided, event stored; the workflow ends', async () => {
    const input = purchasedInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(voidUpdate, { updateId: 'void-1' })).toEqual({ ok: true });
      expect(await handle.result()).toEqual({ status: 'voided' });

      expect(mocks.names()).toEqual(['markShipment', 'fetchScans', 'cancelLabel', 'refundCard', 'refundFunds', 'markShipment', 'recordEvent']);
      const [voiding, voided] = mocks.of('markShipment');
      expect(voiding.arg).toEqual({ shipmentId: input.shipmentId, changes: { status: 'voiding', lastVoidError: null } });
      expect(mocks.of('fetchScans')[0].arg).toEqual({ carrier: CARRIER, livemode: true, trackingNumber: TRACKING_NUMBER });
      expect(mocks.of('cancelLabel')[0].arg).toEqual({ carrier: CARRIER, livemode: true, reference: input.shipmentId });
      expect(mocks.of('refundCard')[0].arg).toEqual({ accountId: input.accountId, shipmentId: input.shipmentId });
      expect(mocks.of('refundFunds')[0].arg).toEqual({ accountId: input.accountId, shipmentId: input.shipmentId });
      expect(voided.arg).toEqual({ shipmentId: input.shipmentId, changes: { status: 'voided', trackingStatus: 'cancelled' } });
      expect(mocks.of('recordEvent')[0].arg).toMatchObject({ type: 'shipment.voided', shipmentId: input.shipmentId, accountId: input.accountId, livemode: true });
      expect(await currentDetails(handle)).toBe('voided; finished');
    });
  });

  it('a void that arrives while the purchase is still running waits for it, then is carried out (issue 12, fault 11)', async () => {
    // The database can say purchased (the capture committed) while the workflow still runs the
    // purchase: its task was lost with a worker and runs again. The customer may void at once.
    const input = shipmentInput();
    let release!: () => void;
    const bought = new Promise<void>((resolve) => (release = resolve));
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        await bought;
        return { reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: false };
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await called(mocks, 'buyLabel');
      expect((await handle.query(stateQuery)).status).toBe('pending');
      const voiding = await handle.startUpdate(voidUpdate, { updateId: 'void-early', waitForStage: WorkflowUpdateStage.ACCEPTED });
      release();
      expect(await voiding.result()).toEqual({ ok: true });
      expect(await handle.result()).toEqual({ status: 'voided' });
      const names = mocks.names();
      expect(names.indexOf('cancelLabel'), 'cancelled only after the purchase completed').toBeGreaterThan(names.indexOf('completePurchase'));
    });
  });

  it('a void that arrives while the purchase is running, which then fails: refused as not voidable', async () => {
    const input = shipmentInput();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        await answered;
        throw ApplicationFailure.create({ type: CODE.carrier_error, message: 'no such service today', nonRetryable: true });
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await called(mocks, 'buyLabel');
      const voiding = await handle.startUpdate(voidUpdate, { updateId: 'void-early', waitForStage: WorkflowUpdateStage.ACCEPTED });
      release();
      expect(await voiding.result()).toMatchObject({ ok: false, code: CODE.shipment_not_voidable });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.of('cancelLabel')).toHaveLength(0);
    });
  });

  it('a sandbox void moves no money', async () => {
    const input = purchasedInput({ livemode: false });
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(voidUpdate)).toEqual({ ok: true });
      expect(await handle.result()).toEqual({ status: 'voided' });
      expect(mocks.names()).toEqual(['markShipment', 'fetchScans', 'cancelLabel', 'markShipment', 'recordEvent']);
    });
  });

  it('a sandbox scan pushed while the cancellation runs: recorded, and the void refused as scanned (not voided with the scan dropped)', async () => {
    // The sandbox's carrier is the platform itself, so a scan it accepted (202) while the cancel was
    // under way must win, as a real carrier's refusal (already_scanned) would.
    const input = purchasedInput({ livemode: false });
    let release!: () => void;
    const cancelling = new Promise<void>((resolve) => (release = resolve));
    const mocks = mockActivities(se.env, input.shipmentId, { cancelLabel: () => cancelling });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const voiding = await handle.startUpdate(voidUpdate, { updateId: 'void-vs-scan', waitForStage: WorkflowUpdateStage.ACCEPTED });
      await called(mocks, 'cancelLabel');
      await handle.signal(scansSignal, [scan('sbx-pickup', 'in_transit', Date.parse('2026-01-02T10:00:00Z'))]);
      // The signal is in history before the cancellation answers.
      await expect.poll(async () => (await handle.fetchHistory()).events?.some((e) => e.workflowExecutionSignaledEventAttributes), { timeout: 10_000 }).toBe(true);
      release();
      expect(await voiding.result()).toEqual({ ok: false, code: 'label_already_scanned', message: 'The carrier has already scanned this label.' });
      expect(mocks.of('recordScans')[0].arg.scans.map((s) => s.id)).toEqual(['sbx-pickup']);
      expect(mocks.of('markShipment').map((c) => c.arg.changes).at(-1)).toEqual({ status: 'in_transit' });
      expect(mocks.of('recordEvent').map((c) => c.arg.type)).toEqual(['tracking.updated', 'shipment.in_transit']);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 1 });
    });
  });

  it('label already scanned (the carrier reports a scan): refused with label_already_scanned, the scan recorded, nothing cancelled or refunded', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      fetchScans: async () => [scan('s-pickup', 'in_transit', Date.parse('2026-01-02T10:00:00Z'))],
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(voidUpdate)).toEqual({
        ok: false,
        code: 'label_already_scanned',
        message: 'The carrier has already scanned this label.',
      });
      expect(mocks.of('recordScans')[0].arg.scans.map((s) => s.id)).toEqual(['s-pickup']);
      // The status is what the scan made it; the label stays bought and charged.
      const marks = mocks.of('markShipment').map((c) => c.arg.changes);
      expect(marks[0]).toEqual({ status: 'voiding', lastVoidError: null });
      expect(marks.at(-1)).toEqual({ status: 'in_transit' });
      expect(mocks.of('recordEvent').map((c) => c.arg.type)).toEqual(['tracking.updated', 'shipment.in_transit']);
      for (const name of ['cancelLabel', 'refundFunds', 'refundCard'] as const) expect(mocks.of(name)).toHaveLength(0);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 1 });
      // The details say the void is over, not "void: asking the carrier for scans" until the next poll.
      expect(await currentDetails(handle)).toBe(
        'in_transit; void not carried out: label_already_scanned: The carrier has already scanned this label.; tracking goes on',
      );
    });
  });

  it('label scanned between the check and the cancel (the carrier refuses, already_scanned): back to purchased with the error', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      cancelLabel: async () => {
        throw ApplicationFailure.create({
          type: CODE.carrier_error,
          message: 'label already scanned',
          nonRetryable: true,
          details: [{ carrier: CARRIER, status: 409, retryAfterMs: null, reason: 'already_scanned' }],
        });
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const outcome = await handle.executeUpdate(voidUpdate);
      expect(outcome).toEqual({ ok: false, code: 'label_already_scanned', message: 'The carrier has already scanned this label.' });
      expect(mocks.names()).toEqual(['markShipment', 'fetchScans', 'cancelLabel', 'markShipment']);
      expect(mocks.of('markShipment')[1].arg.changes).toEqual({ status: 'purchased', lastVoidError: 'The carrier has already scanned this label.' });
      expect((await handle.query(stateQuery)).status).toBe('purchased');
    });
  });

  it('carrier refuses the cancellation for another reason: back to purchased with carrier_error', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      cancelLabel: async () => {
        throw ApplicationFailure.create({ type: CODE.carrier_error, message: 'cancellation window closed', nonRetryable: true });
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const outcome = await handle.executeUpdate(voidUpdate);
      expect(outcome).toEqual({ ok: false, code: 'carrier_error', message: 'The carrier refused the cancellation: cancellation window closed' });
      expect(mocks.of('markShipment').at(-1)!.arg.changes).toEqual({ status: 'purchased', lastVoidError: outcome.ok ? null : outcome.message });
      expect(mocks.of('refundFunds')).toHaveLength(0);
      expect(await currentDetails(handle)).toBe(
        'purchased; void not carried out: carrier_error: The carrier refused the cancellation: cancellation window closed; tracking goes on',
      );
    });
  });

  it('carrier unavailable for a while: the cancellation is retried until it goes through, then refunded and voided', async () => {
    const input = purchasedInput();
    let attempts = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      cancelLabel: async () => {
        if (++attempts <= 3) throw retryable('carrier answered 503');
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const outcome = handle.executeUpdate(voidUpdate);
      expect(await handle.result()).toEqual({ status: 'voided' });
      expect(await outcome).toEqual({ ok: true });
      expect(mocks.of('cancelLabel')).toHaveLength(4);
      // The refund comes only after the carrier's cancellation went through.
      expect(mocks.names()).toEqual(['markShipment', 'fetchScans', 'cancelLabel', 'cancelLabel', 'cancelLabel', 'cancelLabel', 'refundFunds', 'markShipment', 'recordEvent']);
    });
  });

  it('an unanswered cancellation the carrier did make: its record decides, voided', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      cancelLabel: async () => {
        throw ApplicationFailure.create({ type: CODE.carrier_ambiguous, message: 'no answer after sending', nonRetryable: true });
      },
      findPurchase: async () => ({ reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: true }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(voidUpdate)).toEqual({ ok: true });
      expect(await handle.result()).toEqual({ status: 'voided' });
      expect(mocks.names()).toEqual(['markShipment', 'fetchScans', 'cancelLabel', 'findPurchase', 'refundFunds', 'markShipment', 'recordEvent']);
    });
  });

  it('cannot finish (the carrier never answers within the void time): back to purchased with carrier_unavailable, nothing refunded', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      cancelLabel: async () => {
        throw retryable('carrier answered 503');
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const started = await se.env.currentTimeMs();
      // Accepted before the clock moves: an update that reached the server after the skip ran its
      // five minutes of retries in real time (a time-out in a loaded CI run).
      const outcome = await handle.startUpdate(voidUpdate, { waitForStage: WorkflowUpdateStage.ACCEPTED });
      // Time passes only when the test says so: the void gives up after five minutes of trying.
      let answered = false;
      const result = outcome.result().finally(() => (answered = true));
      await se.env.sleep('10 minutes');
      // Time skipping is locked again once the sleep returns: if the void's last steps lagged behind
      // the server's clock on a loaded machine (a clean-clone CI run timed out here once), a timer
      // they still wait on would run in real time. Let server time go on until the answer is in.
      for (let minutes = 0; !answered && minutes < 20; minutes++) await se.env.sleep('1 minute');
      const done = await result;
      expect(done).toMatchObject({ ok: false, code: 'carrier_unavailable' });
      expect(done.ok ? '' : done.message).toContain('carrier answered 503');
      const cancels = mocks.of('cancelLabel');
      expect(cancels.length).toBeGreaterThan(3);
      expect(cancels.at(-1)!.at - started).toBeLessThan(6 * 60_000);
      // After each cancellation that gave up, the carrier's record was asked whether it happened.
      expect(mocks.of('findPurchase').length).toBeGreaterThanOrEqual(1);
      const marks = mocks.of('markShipment').map((c) => c.arg.changes);
      expect(marks[0]).toEqual({ status: 'voiding', lastVoidError: null });
      expect(marks.at(-1)).toEqual({ status: 'purchased', lastVoidError: done.ok ? null : done.message });
      for (const name of ['refundFunds', 'refundCard', 'recordEvent'] as const) expect(mocks.of(name)).toHaveLength(0);
      expect((await handle.query(stateQuery)).status).toBe('purchased');
      // Not "void: cancelling at carrier …, attempt N" for the hours until the next tracking poll.
      expect(await currentDetails(handle)).toMatch(/^purchased; void not carried out: carrier_unavailable: .*carrier answered 503.*; tracking goes on$/);
    });
  }, 180_000);

  it('the scan check fails: back to purchased, nothing cancelled', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      fetchScans: async () => {
        throw ApplicationFailure.create({ type: CODE.carrier_error, message: 'tracking number unknown', nonRetryable: true });
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const outcome = await handle.executeUpdate(voidUpdate);
      expect(outcome).toEqual({ ok: false, code: 'carrier_error', message: 'The carrier could not confirm the label is unscanned: tracking number unknown' });
      expect(mocks.names()).toEqual(['markShipment', 'fetchScans', 'markShipment']);
      expect(mocks.of('markShipment')[1].arg.changes).toEqual({ status: 'purchased', lastVoidError: 'tracking number unknown' });
      expect(await currentDetails(handle)).toBe(
        'purchased; void not carried out: carrier_error: The carrier could not confirm the label is unscanned: tracking number unknown; tracking goes on',
      );
    });
  });

  it('a second void while one is under way is refused by the validator, and the first completes', async () => {
    const input = purchasedInput();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const mocks = mockActivities(se.env, input.shipmentId, { cancelLabel: () => released });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const first = handle.executeUpdate(voidUpdate, { updateId: 'void-a' });
      await called(mocks, 'cancelLabel');
      expect((await handle.query(stateQuery)).status).toBe('voiding');
      const second = await handle.executeUpdate(voidUpdate, { updateId: 'void-b' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(second).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((second as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe('shipment_not_voidable');
      release();
      expect(await first).toEqual({ ok: true });
      expect(await handle.result()).toEqual({ status: 'voided' });
      expect(mocks.of('cancelLabel')).toHaveLength(1);
      expect(mocks.of('refundFunds')).toHaveLength(1);
    });
  });

  describe('an operator Cancel while the void is under way (found by an operator audit: the shipment stayed voiding for good)', () => {
    const cancelDuringVoid = async (findPurchase: () => Promise<Purchase | null>) => {
      const input = purchasedInput({ fundingSource: 'card' });
      const mocks = mockActivities(se.env, input.shipmentId, {
        cancelLabel: async () => {
          throw retryable('carrier answered 503');
        },
        findPurchase,
      });
      let err: unknown;
      await withWorkers(se, input, mocks, async (handle) => {
        await startShipment(se, input);
        const voiding = await handle.startUpdate(voidUpdate, { updateId: 'void-stopped', waitForStage: WorkflowUpdateStage.ACCEPTED });
        await called(mocks, 'cancelLabel');
        await handle.cancel();
        err = await handle.result().then(
          () => undefined,
          (e: unknown) => e,
        );
        // The void's own answer is not what these tests look at; it has ended either way.
        await voiding.result().catch(() => undefined);
      });
      return { mocks, err };
    };

    it('the carrier has not cancelled the label: back to purchased, saying why, nothing refunded; the workflow ends cancelled', async () => {
      const { mocks, err } = await cancelDuringVoid(async () => null);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      const marks = mocks.of('markShipment').map((c) => c.arg.changes);
      expect(marks[0]).toEqual({ status: 'voiding', lastVoidError: null });
      expect(marks.at(-1)).toEqual({ status: 'purchased', lastVoidError: expect.stringContaining('stopped by an operator') });
      for (const name of ['refundFunds', 'refundCard', 'recordEvent'] as const) expect(mocks.of(name)).toHaveLength(0);
    });

    it('the carrier did cancel it (an unanswered cancellation it carried out): the void finishes, refunded and voided', async () => {
      const { mocks, err } = await cancelDuringVoid(async () => ({ reference: 'x', trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: true }));
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(mocks.of('refundCard')).toHaveLength(1);
      expect(mocks.of('refundFunds')).toHaveLength(1);
      expect(mocks.of('markShipment').at(-1)!.arg.changes).toEqual({ status: 'voided', trackingStatus: 'cancelled' });
      expect(mocks.of('recordEvent').at(-1)!.arg).toMatchObject({ type: 'shipment.voided' });
    });
  });
});
