// The purchase saga (workflows/purchase.ts, purchaseLabel) on the
// time-skipping server with mocked activities: a purchase, and each way it can fail, with the
// compensations each failure runs and the order they run in.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { CODE, idRandomPart } from '../../domain/index.js';
import { FAILED_MEANWHILE, purchaseUpdate, SHIPMENT_WORKFLOW, shipmentWorkflowId, stateQuery, taskQueues } from '../../contract/index.js';
import {
  called,
  CARRIER,
  currentDetails,
  DAY,
  endShipment,
  hangUntilCancelled,
  HOUR,
  MINUTE,
  mockActivities,
  shipmentInput,
  startShipment,
  useShipmentEnv,
  TRACKING_NUMBER,
  withWorkers,
  type ShipmentHandle,
} from './harness.js';

const se = useShipmentEnv();

const refused = (message: string) => ApplicationFailure.create({ type: CODE.carrier_error, message, nonRetryable: true });
const ambiguous = () => ApplicationFailure.create({ type: CODE.carrier_ambiguous, message: 'connection reset after sending', nonRetryable: true });

describe('purchase saga (time-skipping, mocked activities)', () => {
  it('buys: prices and holds, buys at the carrier under the shipment id, captures, then renders and announces', async () => {
    const input = shipmentInput();
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate, { updateId: 'idem-1' })).toEqual({ ok: true });
      // The same update id again answers the one outcome and buys nothing more.
      expect(await handle.executeUpdate(purchaseUpdate, { updateId: 'idem-1' })).toEqual({ ok: true });
      await called(mocks, 'announceEvents');

      // The capture starts the label render in its worker: no render activity of its own.
      expect(mocks.names()).toEqual(['beginPurchase', 'buyLabel', 'completePurchase', 'announceEvents']);
      const [begin] = mocks.of('beginPurchase');
      expect(begin.local).toBe(true);
      expect(begin.arg).toMatchObject({ shipmentId: input.shipmentId, accountId: input.accountId, serviceCode: 'acme_ground', hold: true, vatRateBp: 2000 });
      // A live buy goes to the carrier's own (rate-limited) queue, with our id as its reference.
      const [buy] = mocks.of('buyLabel');
      expect(buy.taskQueue).toBe(taskQueues(input.queuePrefix).carrier(CARRIER));
      expect(buy.local).toBe(false);
      // `at`, the workflow's start, dates what the carrier needs dated: the same on every attempt.
      // `attempt` numbers the attempt at the buy, for the carrier's ledger of sends.
      const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(buy.arg).toEqual({ carrier: CARRIER, livemode: true, attempt: 1, request: { reference: input.shipmentId, serviceCode: 'acme_ground', from: input.from, to: input.to, parcel: input.parcel, at } });
      const [complete] = mocks.of('completePurchase');
      expect(complete.local).toBe(true);
      expect(complete.arg).toMatchObject({ shipmentId: input.shipmentId, capture: true, livemode: true, trackingNumber: TRACKING_NUMBER });
      expect(complete.arg.purchasedEventId).toMatch(/^evt_/);
      expect(complete.arg.lowBalanceEventId).toMatch(/^evt_/);
      expect(complete.arg.lowBalanceEventId).not.toBe(complete.arg.purchasedEventId);
      expect(complete.arg.renderLabels).toBe(true);
      expect(mocks.of('announceEvents')[0].arg).toEqual({
        accountId: input.accountId,
        livemode: true,
        events: [{ id: complete.arg.purchasedEventId, type: 'shipment.purchased' }],
      });
      // Nothing failed, nothing compensated, and no card in a wallet purchase.
      for (const name of ['failPurchase', 'authorizeCard', 'voidCard', 'findPurchase', 'cancelLabel'] as const) expect(mocks.of(name)).toHaveLength(0);

      // Tracking begins: a label not scanned yet is first asked about 6 h on (domain/tracking-schedule.ts).
      await expect.poll(() => currentDetails(handle)).toBe('purchased; next carrier poll in 21600 s');
      expect(await handle.query(stateQuery)).toEqual({ status: 'purchased', trackingNumber: TRACKING_NUMBER, pollMs: 6 * HOUR, scansSeen: 0 });
    });
  });

  it('a capture whose workflow task is lost with its worker after the commit: the task runs again with event ids of the same random part', async () => {
    // The capture is a local activity: it commits inside a workflow task. A worker killed before
    // completing that task leaves the commit in the database and nothing in the history; the task
    // then runs again on another worker, making the event ids again: the capture's retry must find
    // the events stored under the first ones, or their webhooks are never delivered (the chaos run on
    // 1459d2a lost one so).
    const input = shipmentInput();
    const queues = taskQueues(input.queuePrefix);
    const mocks = mockActivities(se.env, input.shipmentId);
    const connection = se.env.nativeConnection;
    const carrier = await Worker.create({ connection, taskQueue: queues.carrier(CARRIER), activities: mocks.activities });
    await carrier.runUntil(async () => {
      const lost = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./lost-worker.ts', import.meta.url)), se.env.address, queues.shipments], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise((resolve) => lost.on('exit', resolve));
      try {
        const lines: string[] = [];
        lost.stdout.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
        await expect.poll(() => lines.includes('ready'), { timeout: 60_000, interval: 100 }).toBe(true);
        // A short task timeout: the server hands the lost task to the next worker after 2 s, not 10.
        await se.env.client.workflow.start(SHIPMENT_WORKFLOW, {
          workflowId: shipmentWorkflowId(input.shipmentId),
          taskQueue: queues.shipments,
          args: [input],
          workflowTaskTimeout: '2 seconds',
        });
        const handle: ShipmentHandle = se.env.client.workflow.getHandle(shipmentWorkflowId(input.shipmentId));
        await expect.poll(() => lines.find((l) => l.startsWith('committed ')), { timeout: 20_000, interval: 50 }).toBeTruthy();
        const stored = JSON.parse(lines.find((l) => l.startsWith('committed '))!.slice('committed '.length)) as { purchasedEventId: string; lowBalanceEventId: string };
        lost.kill('SIGKILL');
        await exited;

        const next = await Worker.create({ connection, taskQueue: queues.shipments, workflowBundle: se.bundle, activities: mocks.activities });
        // Its tracking moves to the tracking queue after the first wait (workflows/tracking.ts).
        const tracking = await Worker.create({ connection, taskQueue: queues.tracking, workflowBundle: se.bundle, activities: mocks.activities });
        await tracking.runUntil(next.runUntil(async () => {
          await called(mocks, 'announceEvents');
          // The ids keep their random part; their time part is the new task's (the capture's
          // retry finds what was stored by the random part: test/edges/purchase-transactions.test.ts).
          const again = mocks.of('completePurchase')[0].arg;
          expect(idRandomPart(again.purchasedEventId)).toBe(idRandomPart(stored.purchasedEventId));
          expect(idRandomPart(again.lowBalanceEventId)).toBe(idRandomPart(stored.lowBalanceEventId));
          // What the capture answers is what is announced.
          expect(mocks.of('announceEvents')[0].arg.events).toEqual([{ id: again.purchasedEventId, type: 'shipment.purchased' }]);
          // Ended as a real shipment ends (a terminate would lock time skipping for the tests after it).
          await endShipment(handle);
        }));
      } finally {
        lost.kill('SIGKILL');
      }
    });
  });

  it('a sandbox purchase moves no money and calls the carrier beside the workflow', async () => {
    const input = shipmentInput({ livemode: false });
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ ok: true });
      expect(mocks.of('beginPurchase')[0].arg.hold).toBe(false);
      expect(mocks.of('completePurchase')[0].arg).toMatchObject({ capture: false, livemode: false });
      expect(mocks.of('buyLabel')[0].taskQueue).toBe(taskQueues(input.queuePrefix).shipments);
    });
  });

  it('card: authorizes the price, buys, captures the card, then records the purchase', async () => {
    const input = shipmentInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ ok: true });
      expect(mocks.names().slice(0, 5)).toEqual(['beginPurchase', 'authorizeCard', 'buyLabel', 'captureCard', 'completePurchase']);
      expect(mocks.of('authorizeCard')[0].arg).toEqual({ accountId: input.accountId, shipmentId: input.shipmentId, amount: 1200, currency: 'GBP' });
      expect(mocks.of('captureCard')[0].arg).toEqual({ accountId: input.accountId, shipmentId: input.shipmentId });
      expect(mocks.of('voidCard')).toHaveLength(0);
    });
  });

  it('carrier refusal: the hold is released and the shipment fails with carrier_error; no stray-label check', async () => {
    const input = shipmentInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        throw refused('postcode LS1 1AA is not served');
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const outcome = await handle.executeUpdate(purchaseUpdate);
      expect(outcome).toEqual({ ok: false, code: 'carrier_error', message: 'postcode LS1 1AA is not served' });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.names()).toEqual(['beginPurchase', 'buyLabel', 'failPurchase']);
      const [fail] = mocks.of('failPurchase');
      expect(fail.local).toBe(true);
      expect(fail.arg).toEqual({
        shipmentId: input.shipmentId,
        accountId: input.accountId,
        livemode: true,
        code: 'carrier_error',
        message: 'postcode LS1 1AA is not served',
      });
      expect(await currentDetails(handle)).toBe('failed: carrier_error: postcode LS1 1AA is not served');
      expect((await handle.query(stateQuery)).status).toBe('failed');
    });
  });

  it('card and carrier refusal: the card authorization is voided before the hold is released', async () => {
    const input = shipmentInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        throw refused('service suspended');
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.names()).toEqual(['beginPurchase', 'authorizeCard', 'buyLabel', 'voidCard', 'failPurchase']);
      expect(mocks.of('voidCard')[0].arg).toEqual({ accountId: input.accountId, shipmentId: input.shipmentId });
      expect(mocks.of('failPurchase')[0].arg.code).toBe('carrier_error');
    });
  });

  it('card and carrier refusal, the processor refusing the void too: the purchase still fails with carrier_error, the hold released', async () => {
    // A refused void was thrown out of the compensations: the run failed, the customer got 500
    // internal_error without shipment_id, and the shipment stayed pending with its hold until the sweep.
    const input = shipmentInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        throw refused('service suspended');
      },
      voidCard: async () => {
        throw ApplicationFailure.create({ type: CODE.card_processor_error, message: 'card processor refused to void: authorization expired', nonRetryable: true });
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toMatchObject({ ok: false, code: 'carrier_error' });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.names()).toEqual(['beginPurchase', 'authorizeCard', 'buyLabel', 'voidCard', 'failPurchase']);
      expect(mocks.of('failPurchase')[0].arg.code).toBe('carrier_error');
    });
  });

  it('card declined: nothing is bought, the hold is released, the shipment fails with card_declined', async () => {
    const input = shipmentInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId, {
      authorizeCard: async () => {
        throw ApplicationFailure.nonRetryable('Your card was declined.', CODE.card_declined);
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ ok: false, code: 'card_declined', message: 'Your card was declined.' });
      expect(await handle.result()).toEqual({ status: 'failed' });
      // Nothing was authorized, so there is nothing to void; nothing reached the carrier.
      expect(mocks.names()).toEqual(['beginPurchase', 'authorizeCard', 'failPurchase']);
      expect(mocks.of('failPurchase')[0].arg).toMatchObject({ code: 'card_declined', message: 'Your card was declined.' });
    });
  });

  it('insufficient funds at the hold: fails at once with insufficient_funds, nothing else happens', async () => {
    const input = shipmentInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      beginPurchase: async () => {
        throw ApplicationFailure.nonRetryable('The balance does not cover the price of this label.', CODE.insufficient_funds);
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      // No update here: it would race the workflow's first task, which ends the workflow (an update
      // arriving meanwhile makes the server refuse the completion, and the task's local activities
      // run again on the retried task, as Temporal allows; the steps are idempotent).
      await startShipment(se, input);
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.names()).toEqual(['beginPurchase', 'failPurchase']); // non-retryable: one try
      expect(mocks.of('failPurchase')[0].arg).toMatchObject({ code: 'insufficient_funds', livemode: true });
      expect(await currentDetails(handle)).toBe('failed: insufficient_funds: The balance does not cover the price of this label.');
    });
  });

  it('a card capture that fails retryably is retried until it goes through; the purchase completes once', async () => {
    const input = shipmentInput({ fundingSource: 'card' });
    let captures = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      captureCard: async () => {
        if (++captures < 3) throw ApplicationFailure.retryable('card processor answered 503', CODE.card_processor_retryable);
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const update = handle.executeUpdate(purchaseUpdate);
      expect(await update).toEqual({ ok: true });
      expect(mocks.of('captureCard')).toHaveLength(3);
      expect(mocks.of('buyLabel')).toHaveLength(1);
      expect(mocks.of('completePurchase')).toHaveLength(1);
      for (const name of ['failPurchase', 'voidCard', 'cancelLabel'] as const) expect(mocks.of(name)).toHaveLength(0);
    });
  });

  it('a card capture the processor refuses after the label was bought: the shipment fails and the bought label is cancelled', async () => {
    // Reported: today the saga clears its compensations once the label is bought, so a capture the
    // processor refuses fails the shipment (card_declined, hold released) but leaves the label bought
    // at the carrier with nothing charged for it. The customer is told nothing was bought.
    const input = shipmentInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId, {
      captureCard: async () => {
        throw ApplicationFailure.create({ type: CODE.card_processor_error, message: 'card processor refused to capture: authorization expired', nonRetryable: true });
      },
      findPurchase: async () => ({ reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: false }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toMatchObject({ ok: false, code: 'card_declined' });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.of('completePurchase')).toHaveLength(0);
      expect(mocks.of('failPurchase')[0].arg.code).toBe('card_declined');
      // The label that was bought must not stay bought without a charge.
      expect(mocks.of('cancelLabel').map((c) => c.arg)).toEqual([{ carrier: CARRIER, livemode: true, reference: input.shipmentId }]);
    });
  });

  it('a capture that finds the shipment failed meanwhile (by a taken-over workflow task) refunds the card and cancels the label, ending as the row says', async () => {
    // A worker too slow to finish its workflow task can fail the purchase in a local activity
    // (pricing timed out) after another worker has taken the task over and priced it anew: the
    // customer is told failed, so what the second execution buys and captures must be undone.
    const input = shipmentInput({ fundingSource: 'card' });
    const mocks = mockActivities(se.env, input.shipmentId, {
      completePurchase: async () => {
        throw ApplicationFailure.create({ type: CODE.carrier_unavailable, message: 'Carrier acme could not be reached in time.', nonRetryable: true, details: [FAILED_MEANWHILE] });
      },
      findPurchase: async () => ({ reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: false }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toMatchObject({ ok: false, code: 'carrier_unavailable' });
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(mocks.of('captureCard')).toHaveLength(1);
      expect(mocks.of('refundCard').map((c) => c.arg)).toEqual([{ accountId: input.accountId, shipmentId: input.shipmentId }]);
      expect(mocks.of('cancelLabel').map((c) => c.arg)).toEqual([{ carrier: CARRIER, livemode: true, reference: input.shipmentId }]);
    });
  });

  it('carrier ambiguous until the deadline: asks before each new buy, fails carrier_unavailable, releases the hold, then finds and cancels the stray label', async () => {
    const input = shipmentInput({ purchaseDeadlineMs: 2 * MINUTE, strayLabelSettleMs: 2 * MINUTE });
    let failedYet = false;
    let cancelled = false;
    let looksAfterFailure = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        throw ambiguous();
      },
      failPurchase: async () => {
        failedYet = true;
      },
      // The carrier was still committing one of the ambiguous buys: the label turns up on the third
      // look after the purchase failed.
      findPurchase: async () => {
        if (!failedYet || ++looksAfterFailure < 3) return null;
        return { reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled };
      },
      cancelLabel: async () => {
        cancelled = true;
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const start = await se.env.currentTimeMs();
      const update = handle.executeUpdate(purchaseUpdate);
      expect(await handle.result()).toEqual({ status: 'failed' });
      expect(await update).toMatchObject({ ok: false, code: 'carrier_unavailable' });
      expect((await update as { message: string }).message).toContain('connection reset after sending');

      const buys = mocks.of('buyLabel');
      expect(buys.length).toBeGreaterThan(2);
      // Never two labels: every buy after the first is preceded by a look-up of our reference, and
      // tells the carrier an earlier attempt may still be committing.
      expect(buys[0].arg.request.earlierAttempt).toBeUndefined();
      for (const b of buys.slice(1)) expect(b.arg.request.earlierAttempt).toBe(true);
      // Every attempt carries the same instant: the carrier's dates, and so its bytes, do not move.
      for (const b of buys) expect(b.arg.request.at).toBe(buys[0].arg.request.at);
      const names = mocks.names();
      const failAt = names.indexOf('failPurchase');
      expect(names.slice(0, failAt).filter((n) => n !== 'beginPurchase')).toEqual(buys.flatMap(() => ['buyLabel', 'findPurchase']));
      expect(buys.at(-1)!.at - start).toBeLessThan(input.purchaseDeadlineMs);
      expect(mocks.of('failPurchase')[0].arg).toMatchObject({ code: 'carrier_unavailable', livemode: true });
      // After the failure: looks every 10 s, cancels the label that turned up, and keeps looking
      // until the settle window ends without cancelling it twice.
      const after = names.slice(failAt + 1);
      expect(after.filter((n) => n === 'cancelLabel')).toHaveLength(1);
      expect(after.slice(0, 4)).toEqual(['findPurchase', 'findPurchase', 'findPurchase', 'cancelLabel']);
      expect(mocks.of('cancelLabel')[0].arg).toEqual({ carrier: CARRIER, livemode: true, reference: input.shipmentId });
      const looks = mocks.of('findPurchase').filter((c) => c.at >= mocks.of('failPurchase')[0].at);
      expect(looks.at(-1)!.at - looks[0].at).toBeGreaterThanOrEqual(input.strayLabelSettleMs! - 1000);
      // Each look says whether it is the window's last (a carrier with a small quota acts on that one
      // alone), and the look-ups while buying carry the request, sent again by carriers with keys.
      expect(looks.map((l) => l.arg.stray)).toEqual([...looks.slice(1).map(() => ({ final: false })), { final: true }]);
      const buyingLooks = mocks.of('findPurchase').filter((c) => c.at < mocks.of('failPurchase')[0].at);
      for (const l of buyingLooks) expect(l.arg.request).toMatchObject({ reference: input.shipmentId, serviceCode: 'acme_ground', at: buys[0].arg.request.at });
      expect(mocks.of('completePurchase')).toHaveLength(0);
      // Once it is over, the details say the failure and the label cancelled, not "look N" (operator audit).
      expect(await currentDetails(handle)).toMatch(new RegExp(`^failed: carrier_unavailable: .*; a stray label ${TRACKING_NUMBER} turned up at ${CARRIER} and was cancelled$`));
    });
  });

  it('a buy that times out is settled by the carrier record: the label it made is kept, never bought twice', async () => {
    const input = shipmentInput();
    const mocks = mockActivities(se.env, input.shipmentId, {
      // No answer: the activity misses its heartbeat time-out, as a hung carrier call does.
      buyLabel: async () => {
        await Context.current().sleep(DAY); // ends when the worker shuts down
        throw new Error('unreachable');
      },
      findPurchase: async () => ({ reference: input.shipmentId, trackingNumber: 'ACME0000000777', serviceCode: 'acme_ground', cancelled: false }),
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ ok: true });
      expect(mocks.names().slice(0, 4)).toEqual(['beginPurchase', 'buyLabel', 'findPurchase', 'completePurchase']);
      expect(mocks.of('completePurchase')[0].arg.trackingNumber).toBe('ACME0000000777');
      expect((await handle.query(stateQuery)).trackingNumber).toBe('ACME0000000777');
    });
  });

  it('a buy that waited out its time-out and whose lookup found nothing is sent again at once; one refused at once waits its backoff', async () => {
    const input = shipmentInput();
    let attempts = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      buyLabel: async () => {
        attempts++;
        if (attempts === 1) {
          // Longer than the first backoff (0.5 s at most): the attempt has waited it out already.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          throw ApplicationFailure.create({ type: CODE.carrier_ambiguous, message: 'no answer within 1500 ms; it may have been carried out', nonRetryable: true });
        }
        if (attempts === 2) throw ambiguous();
        return { reference: input.shipmentId, trackingNumber: TRACKING_NUMBER, serviceCode: 'acme_ground', cancelled: false };
      },
      findPurchase: async () => null,
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ ok: true });
      const steps: string[] = [];
      for (const e of (await handle.fetchHistory()).events ?? []) {
        const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
        if (name === 'buyLabel' || name === 'findPurchase') steps.push(name);
        if (e.timerStartedEventAttributes && steps.length > 0 && steps.length < 6) steps.push('timer');
      }
      // After the time-out: the lookup, then the next buy with no timer between; after the
      // immediate refusal: the lookup, then a wait, then the buy.
      expect(steps.slice(0, 6)).toEqual(['buyLabel', 'findPurchase', 'buyLabel', 'findPurchase', 'timer', 'buyLabel']);
      expect(mocks.of('buyLabel').map((b) => b.arg.request.earlierAttempt)).toEqual([undefined, true, true]);
      expect(mocks.of('buyLabel').map((b) => b.arg.attempt)).toEqual([1, 2, 3]);
    });
  });

  it('operator Cancel during the buy: the card authorization is voided, the hold released, the stray label looked for', async () => {
    const input = shipmentInput({ fundingSource: 'card', strayLabelSettleMs: MINUTE });
    const mocks = mockActivities(se.env, input.shipmentId, { buyLabel: hangUntilCancelled });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await called(mocks, 'buyLabel');
      await handle.cancel();
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);

      const names = mocks.names();
      expect(names.slice(0, 5)).toEqual(['beginPurchase', 'authorizeCard', 'buyLabel', 'voidCard', 'failPurchase']);
      expect(mocks.of('failPurchase')[0].arg).toMatchObject({
        code: 'internal_error',
        message: 'The purchase was cancelled by an operator; nothing was bought or charged.',
      });
      // A buy was in flight: the carrier's record is checked over the settle window.
      expect(names.slice(5).every((n) => n === 'findPurchase')).toBe(true);
      expect(names.slice(5).length).toBeGreaterThanOrEqual(2);
      expect(mocks.of('completePurchase')).toHaveLength(0);
      expect(mocks.of('cancelLabel')).toHaveLength(0); // nothing turned up
    });
  });
});
