// The poll schedule (domain/tracking-schedule.ts): the pure function, then the tracking loop that
// follows it on the time-skipping server with mocked activities. Each status waits as designed, a
// parcel whose carrier pushes its scans is polled only once it has been silent too long, and a
// number the carrier does not know backs off and stops after its bound instead of spinning.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { Scan } from '../../carriers/types.js';
import { CODE, nextPollMs, TRACKING_CADENCE, TRACKING_UNKNOWN_STOP_MS, trackingPhase } from '../../domain/index.js';
import { scansSignal, type ShipmentWorkflowInput } from '../../contract/index.js';
import { CARRIER, currentDetails, DAY, HOUR, MINUTE, mockActivities, purchasedInput, scan, startShipment, TRACKING_NUMBER, useShipmentEnv, withWorkers, type Call } from './harness.js';

const BOUNDS = { minMs: 15 * MINUTE, maxMs: 12 * HOUR };
const gaps = (calls: Call[]) => calls.slice(1).map((c, i) => c.at - calls[i].at);
/** Whole hours, rounded down: a gap is late only by the instants a workflow task and an activity take. */
const hours = (ms: number[]) => ms.map((g) => Math.floor(g / HOUR));

describe('the poll schedule (pure)', () => {
  const wait = (o: Partial<Parameters<typeof nextPollMs>[0]>) =>
    nextPollMs({ phase: 'in_transit', sinceMovementMs: 0, failures: 0, pushed: false, bounds: BOUNDS, ...o });

  it('waits per phase: rare before the first scan and in transit, often out for delivery, and backs off while the parcel sits still', () => {
    expect(trackingPhase(undefined)).toBe('awaiting_first_scan');
    expect(trackingPhase('out_for_delivery')).toBe('out_for_delivery');
    expect(wait({ phase: 'awaiting_first_scan' })).toBe(6 * HOUR);
    expect(wait({ phase: 'in_transit' })).toBe(6 * HOUR);
    expect(wait({ phase: 'out_for_delivery' })).toBe(HOUR);
    expect(wait({ phase: 'exception' })).toBe(2 * HOUR);
    // Half the time since the last movement, up to the phase's ceiling.
    expect(wait({ phase: 'in_transit', sinceMovementMs: 18 * HOUR })).toBe(9 * HOUR);
    expect(wait({ phase: 'in_transit', sinceMovementMs: 5 * DAY })).toBe(12 * HOUR);
    expect(wait({ phase: 'out_for_delivery', sinceMovementMs: 3 * HOUR })).toBe(1.5 * HOUR);
    expect(wait({ phase: 'out_for_delivery', sinceMovementMs: DAY })).toBe(2 * HOUR);
  });

  it('doubles the wait for each failed poll in a row, within the deployment ceiling', () => {
    expect(wait({ failures: 1 })).toBe(12 * HOUR);
    expect(wait({ phase: 'out_for_delivery', failures: 2 })).toBe(4 * HOUR);
    expect(wait({ failures: 40 })).toBe(12 * HOUR);
  });

  it('holds the deployment bounds (a test stack polls every few hundred ms)', () => {
    expect(wait({ bounds: { minMs: 100, maxMs: 400 } })).toBe(400);
    expect(wait({ phase: 'out_for_delivery', bounds: { minMs: 2 * HOUR, maxMs: 12 * HOUR } })).toBe(2 * HOUR);
  });

  it('waits for a pushed parcel as long as its phase may be silent, then polls as any other', () => {
    for (const phase of ['awaiting_first_scan', 'in_transit', 'out_for_delivery', 'exception'] as const) {
      expect(wait({ phase, pushed: true })).toBe(TRACKING_CADENCE[phase].pushSilenceMs);
    }
    expect(wait({ pushed: true, sinceMovementMs: 30 * HOUR })).toBe(6 * HOUR);
    // Silent longer than expected: the safety-net poll, at in transit's own cadence.
    expect(wait({ pushed: true, sinceMovementMs: 40 * HOUR })).toBe(12 * HOUR);
    // A short ceiling bounds the silence too: three ceilings.
    expect(wait({ pushed: true, bounds: { minMs: 100, maxMs: 1_000 } })).toBe(3_000);
  });
});

const se = useShipmentEnv();
const notFound = () =>
  ApplicationFailure.create({ type: CODE.carrier_error, message: 'No label with tracking number.', nonRetryable: true, details: [{ carrier: CARRIER, reason: 'not_found' }] });

describe('the tracking loop on its schedule (time-skipping, mocked activities)', () => {
  it('each status waits as designed: 6 h before the first scan and in transit, 1 h out for delivery, 2 h after an exception', async () => {
    const input = purchasedInput();
    const t0 = Date.parse('2026-03-01T00:00:00Z');
    // What the carrier shows at each poll: nothing twice, then a pickup, then out for delivery, an
    // exception, out for delivery again and delivered.
    const walk: Scan[][] = [[], [], [scan('p', 'in_transit', t0)]];
    walk.push(walk[2], [...walk[2], scan('o', 'out_for_delivery', t0 + HOUR)]);
    walk.push(walk[4], [...walk[4], scan('x', 'exception', t0 + 2 * HOUR)]);
    walk.push(walk[6], [...walk[6], scan('o2', 'out_for_delivery', t0 + 3 * HOUR)], [...walk[6], scan('o2', 'out_for_delivery', t0 + 3 * HOUR), scan('d', 'delivered', t0 + 4 * HOUR)]);
    let poll = 0;
    const mocks = mockActivities(se.env, input.shipmentId, { fetchScans: async () => walk[Math.min(poll++, walk.length - 1)] });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.result()).toEqual({ status: 'delivered' });
      // Before the first scan: 6, 6; in transit: 6, 6; out for delivery: 1, 1; exception: 2, 2; out for delivery: 1.
      expect(hours(gaps(mocks.of('pollTracking')))).toEqual([6, 6, 6, 6, 1, 1, 2, 2, 1]);
    });
  });

  it('a subscribed parcel: subscribed once, never polled while scans are pushed, polled once silent longer than its phase expects', async () => {
    const base = purchasedInput();
    const input: ShipmentWorkflowInput = { ...base, tracking: { ...base.tracking, push: { [CARRIER]: { lifetimeMs: 14 * DAY } } } };
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await se.env.sleep('1 hour');
      const [subscribed] = mocks.of('subscribeTracking');
      expect(subscribed.arg).toEqual({ carrier: CARRIER, livemode: true, trackingNumbers: [TRACKING_NUMBER] });
      // On the carrier's tracking queue: its share of the carrier's rate.
      expect(subscribed.taskQueue).toBe(`${input.queuePrefix}carrier-${CARRIER}-tracking`);
      // Scans pushed a day apart for three days: no poll at all.
      for (let day = 1; day <= 3; day++) {
        await se.env.sleep('1 day');
        await handle.signal(scansSignal, [scan(`s${day}`, 'in_transit', Date.parse('2026-03-01T00:00:00Z') + day * DAY)]);
      }
      await se.env.sleep('1 hour');
      expect(mocks.of('pollTracking')).toHaveLength(0);
      expect(mocks.of('recordScans')).toHaveLength(3);
      const lastPush = mocks.of('recordScans')[2].at;
      // Then silence: the safety-net poll comes 36 h after the last scan, then the in-transit cadence.
      await se.env.sleep('3 days');
      const polls = mocks.of('pollTracking');
      expect(polls.length).toBeGreaterThanOrEqual(2);
      expect(polls[0].at - lastPush).toBeGreaterThanOrEqual(36 * HOUR);
      expect(polls[0].at - lastPush).toBeLessThan(36 * HOUR + MINUTE);
      expect(hours(gaps(polls)).slice(0, 2)).toEqual([12, 12]);
      expect(mocks.of('subscribeTracking')).toHaveLength(1);
    });
  }, 120_000);

  it('renews a subscription a day before it lapses', async () => {
    const base = purchasedInput({}, []);
    const input: ShipmentWorkflowInput = { ...base, tracking: { ...base.tracking, push: { [CARRIER]: { lifetimeMs: 3 * DAY } } } };
    const mocks = mockActivities(se.env, input.shipmentId, { fetchScans: async () => [scan('s', 'in_transit', Date.parse('2026-03-01T00:00:00Z'))] });
    await withWorkers(se, input, mocks, async () => {
      await startShipment(se, input);
      await se.env.sleep('5 days');
      const subscriptions = mocks.of('subscribeTracking');
      expect(subscriptions.length).toBeGreaterThanOrEqual(2);
      const first = subscriptions[0].at;
      expect(subscriptions[1].at - first).toBeGreaterThan(2 * DAY - MINUTE);
      expect(subscriptions[1].at - first).toBeLessThan(2 * DAY + MINUTE);
    });
  }, 120_000);

  it('a number the carrier does not know: each "not found" doubles the wait, and tracking stops after 10 days, resumable', async () => {
    const base = purchasedInput();
    const input: ShipmentWorkflowInput = { ...base, resume: { ...base.resume!, known: false } };
    const mocks = mockActivities(se.env, input.shipmentId, {
      fetchScans: async () => {
        throw notFound();
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await se.env.sleep('2 days');
      expect(await currentDetails(handle)).toMatch(/^purchased; next carrier poll in 43200 s; last problem: carrier acme does not know ACME0000000001 \(\d+ polls in a row\)$/);
      const result = await handle.result();
      const { startTime, closeTime } = await handle.describe();
      expect(result.status).toBe('purchased');
      expect(result.trackingStopped!.quietForMs).toBeGreaterThanOrEqual(TRACKING_UNKNOWN_STOP_MS);
      expect(closeTime!.getTime() - startTime.getTime()).toBeLessThan(TRACKING_UNKNOWN_STOP_MS + 12 * HOUR + HOUR);
      // 6 h, then 12 h apart: some twenty polls in ten days, never a spin.
      const polls = mocks.of('pollTracking');
      expect(hours(gaps(polls)).every((h) => h === 12)).toBe(true);
      expect(polls.length).toBeLessThanOrEqual(21);
      expect(result.trackingStopped!.resumeWith.resume).toMatchObject({ status: 'purchased', known: false });
      expect(await currentDetails(handle)).toMatch(/tracking stopped: carrier acme has not reported it in 10(\.\d)? d/);
    });
  }, 120_000);
});
