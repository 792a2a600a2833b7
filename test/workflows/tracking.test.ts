// The tracking loop (workflows/tracking.ts) on the time-skipping server
// with mocked activities: weeks of polling in seconds. The poll cadence, a scan resetting it, delivery
// ending the workflow, the quiet stop, and continue-as-new carrying pushed scans to the next run.
// Each phase's own waits, pushes and failures: poll-schedule.test.ts.
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import type { Scan } from '../../carriers/types.js';
import { scansSignal, SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS, stateQuery, taskQueues, voidUpdate, type ShipmentWorkflowInput } from '../../contract/index.js';
import { CODE, firstIdAt } from '../../domain/index.js';
import { TRACKING_SHORT_HISTORY_EVENTS } from '../../workflows/tracking.js';
import {
  called,
  CARRIER,
  currentDetails,
  DAY,
  HOUR,
  MINUTE,
  mockActivities,
  purchasedInput,
  scan,
  shipmentInput,
  startShipment,
  useShipmentEnv,
  TRACKING_NUMBER,
  withWorkers,
  type Call,
} from './harness.js';

const se = useShipmentEnv();

/** Gaps between consecutive calls, on the workflow's (skipped) clock. */
const gaps = (calls: Call[]) => calls.slice(1).map((c, i) => c.at - calls[i].at);

/** Each gap is the expected one, late only by the instants a workflow task and an activity take. */
function expectGaps(calls: Call[], expected: number[]) {
  const got = gaps(calls);
  expect(got.length, `gaps ${got.map((g) => g / MINUTE)} min`).toBe(expected.length);
  got.forEach((g, i) => {
    expect(g, `gap ${i + 1}`).toBeGreaterThanOrEqual(expected[i]);
    expect(g, `gap ${i + 1}`).toBeLessThan(expected[i] + 5_000);
  });
}

/**
 * The cadence of a label not scanned yet (domain/tracking-schedule.ts): 6 h, then half the time since
 * the purchase, up to every 12 h: polls at 6, 12, 18 and 27 h, then every 12 h.
 */
const BEFORE_FIRST_SCAN = [6 * HOUR, 6 * HOUR, 9 * HOUR];
const at = (iso: string) => Date.parse(iso);

/** The ids of the patch markers a run recorded, in order. */
function patchMarkers(events: temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map((e) => defaultPayloadConverter.fromPayload<{ id: string }>(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]).id);
}

describe('tracking loop (time-skipping, mocked activities)', () => {
  it('a purchase tracks on the tracking queue from its first poll on, at the times it would have polled', async () => {
    const input = shipmentInput();
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      const first = await startShipment(se, input);
      const started = await se.env.currentTimeMs();
      await called(mocks, 'completePurchase');
      await se.env.sleep(12 * HOUR + MINUTE);
      // The purchase's run waited for the first poll on `shipments`, then went on as new on
      // `tracking`, which polled at once: at 6 h and 12 h, as a label not scanned yet is polled.
      const polls = mocks.of('pollTracking');
      expect(polls.map((p) => p.runId)).toEqual([polls[0].runId, polls[0].runId]);
      expect(polls[0].runId).not.toBe(first.firstExecutionRunId);
      expect(polls[0].at - started).toBeGreaterThanOrEqual(6 * HOUR);
      expect(polls[0].at - started).toBeLessThan(6 * HOUR + 5_000);
      expectGaps(polls, [6 * HOUR]);
      const description = await handle.describe();
      expect([description.runId, description.taskQueue]).toEqual([polls[0].runId, taskQueues(input.queuePrefix).tracking]);
      // The next run has a shipment's workflow task time-out, whatever the first was started with.
      expect(Number(description.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds) * 1000).toBe(SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS);
      expect((await se.env.client.workflow.getHandle(handle.workflowId, first.firstExecutionRunId).describe()).status.name).toBe('CONTINUED_AS_NEW');
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'purchased' });
    });
  });

  it('a week without scans: polls at 6, 12, 18 and 27 h, then every 12 h, and records nothing', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const started = await se.env.currentTimeMs();
      await se.env.sleep('7 days');
      const polls = mocks.of('pollTracking');
      const twelves = Math.floor((7 * DAY - 27 * HOUR) / (12 * HOUR));
      expect(polls[0].at - started).toBeGreaterThanOrEqual(6 * HOUR);
      expect(polls[0].at - started).toBeLessThan(6 * HOUR + 5_000);
      expectGaps(polls, [...BEFORE_FIRST_SCAN, ...Array(twelves).fill(12 * HOUR)]);
      expect(polls.every((p) => JSON.stringify(p.arg) === JSON.stringify({ carrier: CARRIER, livemode: true, trackingNumber: TRACKING_NUMBER }))).toBe(true);
      // Live polls are local activities of the workflow's own worker on `tracking`: no task of their
      // own on the server (the carrier's tracking rate is held for them in PostgreSQL).
      expect(new Set(polls.map((p) => [p.taskQueue, p.local].join()))).toEqual(new Set([[taskQueues(input.queuePrefix).tracking, true].join()]));
      expect(new Set(mocks.names())).toEqual(new Set(['pollTracking']));
      expect(await handle.query(stateQuery)).toEqual({ status: 'purchased', trackingNumber: TRACKING_NUMBER, pollMs: 12 * HOUR, scansSeen: 0 });
      expect(await currentDetails(handle)).toBe('purchased; next carrier poll in 43200 s');
    });
  }, 180_000);

  it('a new scan is recorded once, moves the status with its events, and starts the cadence of its phase again', async () => {
    const input = purchasedInput();
    // With the carrier's own status code, which the webhook payload carries as it came.
    const pickup = { ...scan('s-pickup', 'in_transit', at('2026-03-01T09:00:00Z')), carrierCode: 'PU' };
    let poll = 0;
    // The carrier answers every scan it has at each poll; the fourth poll is the first to see one.
    const mocks = mockActivities(se.env, input.shipmentId, { fetchScans: async () => (++poll >= 4 ? [pickup] : []) });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await se.env.sleep('2 days');
      const polls = mocks.of('pollTracking');
      // Quiet: 6, 12, 18, 27 h; the scan at the fourth; then in transit's 6 h, backing off the same way.
      expect(gaps(polls).slice(0, 6).map((g) => Math.floor(g / HOUR))).toEqual([6, 6, 9, 6, 6, 6]);
      const recorded = mocks.of('recordScans');
      expect(recorded).toHaveLength(1);
      expect(recorded[0].arg.shipmentId).toBe(input.shipmentId);
      expect(recorded[0].arg.scans).toEqual([{ ...pickup, trackingEventId: expect.stringMatching(/^trk_/) }]);
      expect(mocks.of('markShipment').map((c) => c.arg)).toEqual([
        { shipmentId: input.shipmentId, changes: { trackingStatus: 'in_transit', status: 'in_transit' } },
      ]);
      const events = mocks.of('recordEvent').map((c) => c.arg);
      expect(events.map((e) => e.type)).toEqual(['tracking.updated', 'shipment.in_transit']);
      expect(events[0].object).toEqual({
        tracking_number: TRACKING_NUMBER,
        shipment_id: input.shipmentId,
        status: 'in_transit',
        event: {
          id: recorded[0].arg.scans[0].trackingEventId,
          occurred_at: pickup.occurredAt,
          status: 'in_transit',
          description: pickup.description,
          location: pickup.location,
          carrier_code: 'PU',
        },
      });
      expect(new Set(events.map((e) => e.id)).size).toBe(2);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 1 });
    });
  });

  it('delivered ends the workflow: no poll after it, however long we wait', async () => {
    const input = purchasedInput();
    let poll = 0;
    const scans = [scan('s1', 'in_transit', at('2026-03-01T09:00:00Z')), scan('s2', 'out_for_delivery', at('2026-03-02T07:00:00Z')), scan('s3', 'delivered', at('2026-03-02T12:00:00Z'))];
    // A parcel delivered over five polls: each poll sees the scans made so far.
    const mocks = mockActivities(se.env, input.shipmentId, { fetchScans: async () => scans.slice(0, Math.max(0, ++poll - 2)) });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.result()).toEqual({ status: 'delivered' });
      const pollsAtEnd = mocks.of('pollTracking').length;
      expect(pollsAtEnd).toBe(5);
      expect(mocks.of('recordScans').flatMap((c) => c.arg.scans.map((s) => s.id))).toEqual(['s1', 's2', 's3']);
      expect(mocks.of('recordEvent').map((c) => c.arg.type)).toEqual([
        'tracking.updated',
        'shipment.in_transit',
        'tracking.updated',
        'tracking.updated',
        'shipment.delivered',
      ]);
      expect(mocks.of('markShipment').at(-1)!.arg.changes).toEqual({ trackingStatus: 'delivered', status: 'delivered' });
      expect(await currentDetails(handle)).toBe('delivered; finished');
      await se.env.sleep('3 days');
      expect(mocks.of('pollTracking')).toHaveLength(pollsAtEnd);
    });
  });

  it('a live shipment with no scan for 30 days stops tracking, its status unchanged, and says how to resume', async () => {
    const input = purchasedInput();
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const result = await handle.result();
      // The run's own start and close times (the server's clock may skip on for other workflows).
      const { startTime, closeTime } = await handle.describe();
      expect(result.status).toBe('purchased');
      expect(result.trackingStopped!.quietForMs).toBeGreaterThanOrEqual(30 * DAY);
      // Bounded: within one (longest) poll interval of the quiet period.
      expect(closeTime!.getTime() - startTime.getTime()).toBeLessThan(30 * DAY + 12 * HOUR + HOUR);
      expect(result.trackingStopped!.resumeWith).toEqual({
        ...input,
        resume: { status: 'purchased', carrier: CARRIER, trackingNumber: TRACKING_NUMBER, seenScanIds: [], pollMs: 15 * MINUTE },
      });
      expect(mocks.of('pollTracking').length).toBeGreaterThan(50);
      expect(new Set(mocks.names())).toEqual(new Set(['pollTracking']));
      expect(await currentDetails(handle)).toMatch(/^purchased; tracking stopped: no new scan for 30(\.\d)? d\. /);
    });
  }, 180_000); // some 60 polls, each a workflow task and an activity

  it('a pushed scan is taken at once, without waiting for the poll, and starts the quiet period again', async () => {
    const input = purchasedInput({ tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR, quietStopMs: 2 * DAY } });
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await se.env.sleep('1 day');
      const pushedAt = await se.env.currentTimeMs();
      const pushed = scan('s-pushed', 'in_transit', pushedAt);
      const pollsBefore = mocks.of('pollTracking').length;
      await handle.signal(scansSignal, [pushed]);
      const result = await handle.result();
      const [recorded] = mocks.of('recordScans');
      expect(recorded.arg.scans.map((s) => s.id)).toEqual(['s-pushed']);
      // Recorded on the signal, before any further poll.
      expect(mocks.of('pollTracking').filter((c) => c.at < recorded.at)).toHaveLength(pollsBefore);
      expect(recorded.at - pushedAt).toBeLessThan(MINUTE);
      expect(result.status).toBe('in_transit');
      expect(result.trackingStopped!.quietForMs).toBeGreaterThanOrEqual(2 * DAY);
      expect(result.trackingStopped!.resumeWith.resume!.seenScanIds).toEqual(['s-pushed']);
      // The newest scan goes on with it, so a resumed run knows an older one when it comes.
      expect(result.trackingStopped!.resumeWith.resume!.latestScan).toEqual({ occurredAt: pushed.occurredAt, status: 'in_transit' });
    });
  });

  it('continue-as-new keeps history small and carries the scans pushed during the last poll to the next run', async () => {
    const input = purchasedInput({ tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR, continueAsNewAfterPolls: 2 } });
    const s1 = scan('s1', 'in_transit', at('2026-03-01T09:00:00Z'));
    const s1b = scan('s1b', 'in_transit', at('2026-03-01T21:00:00Z'));
    const s2 = scan('s2', 'out_for_delivery', at('2026-03-02T07:00:00Z'));
    let poll = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      fetchScans: async () => (++poll === 1 ? [s1] : [s1, s1b]),
      recordScans: async (p) => {
        // While the second poll's scan is written the carrier pushes s1 again and the new s2: the
        // run continues as new right after this poll, with the pushed scans not yet taken.
        if (p.scans.some((s) => s.id === 's1b')) await se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`).signal(scansSignal, [s1, s2]);
        return p.scans.map((s) => s.id);
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      const first = await startShipment(se, input);
      const firstRunId = first.firstExecutionRunId;
      // Polls at 6 h and 12 h, then the new run takes the pushed scans; its next poll is 6 h later.
      await se.env.sleep('13 hours');
      const recorded = mocks.of('recordScans');
      expect(recorded.map((c) => c.arg.scans.map((s) => s.id))).toEqual([['s1'], ['s1b'], ['s2']]);
      // s1 and s1b in the first run; s2, pushed in the first run, recorded by the second; s1 never twice.
      expect(recorded.slice(0, 2).map((c) => c.runId)).toEqual([firstRunId, firstRunId]);
      expect(recorded[2].runId).not.toBe(firstRunId);
      const description = await handle.describe();
      expect(description.runId).toBe(recorded[2].runId);
      expect(description.status.name).toBe('RUNNING');
      expect(mocks.of('pollTracking').slice(0, 2).every((c) => c.runId === firstRunId)).toBe(true);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 3 });
      // The first run ended by continuing as new, after two polls.
      const firstRun = se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`, firstRunId);
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
    });
  });

  it('a scan pushed while a poll runs is neither lost nor stored twice', async () => {
    const input = purchasedInput({ tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR, continueAsNewAfterPolls: 1 } });
    const s1 = scan('s1', 'in_transit', at('2026-03-01T09:00:00Z'));
    const s2 = scan('s2', 'out_for_delivery', at('2026-03-02T07:00:00Z'));
    let poll = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      fetchScans: async () => {
        // The poll is a local activity, inside its workflow task: a push that arrives meanwhile is
        // a new event the server holds for the task after it (or, where that task would close the
        // run, for the same task run again, its poll with it).
        if (++poll === 1) await se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`).signal(scansSignal, [s2]);
        return [s1];
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      const first = await startShipment(se, input);
      await se.env.sleep('7 hours');
      const recorded = mocks.of('recordScans');
      expect(recorded.flatMap((c) => c.arg.scans.map((s) => s.id)).sort()).toEqual(['s1', 's2']);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 2 });
      const firstRun = se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`, first.firstExecutionRunId);
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
    });
  });

  it('a run continues as new once its history reaches TRACKING_SHORT_HISTORY_EVENTS, carrying the parcel on', async () => {
    const input = purchasedInput();
    const pickup = scan('s-pickup', 'in_transit', at('2026-03-01T09:00:00Z'));
    let poll = 0;
    const mocks = mockActivities(se.env, input.shipmentId, { fetchScans: async () => (++poll >= 3 ? [pickup] : []) });
    await withWorkers(se, input, mocks, async (handle) => {
      const first = await startShipment(se, input);
      await se.env.sleep('20 days');
      const runs = [...new Set(mocks.calls.map((c) => c.runId))];
      expect(runs.length).toBeGreaterThanOrEqual(3);
      const firstRun = se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`, first.firstExecutionRunId);
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
      const events = (await firstRun.fetchHistory()).events ?? [];
      // The bound, plus the last poll's events and the continue-as-new itself.
      expect(events.length).toBeGreaterThanOrEqual(TRACKING_SHORT_HISTORY_EVENTS);
      expect(events.length).toBeLessThan(TRACKING_SHORT_HISTORY_EVENTS + 20);
      // The markers that let runs recorded before each change replay as they were: the local poll
      // (the first), the one write step (the scan of the third poll) and the short bound; the old
      // bound's patch is never asked.
      expect(patchMarkers(events)).toEqual(['tracking-local-poll', 'tracking-one-write-step', 'tracking-short-history']);
      // The next run goes on where the first stopped: the scan is not recorded again, the cadence is in transit's.
      expect(mocks.of('recordTracking')).toHaveLength(1);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 1, pollMs: 12 * HOUR });
    });
  }, 180_000);

  it('nothing is lost at the bound: the subscription, a void answered, the scans seen and one pushed during the last step go to the next run', async () => {
    const base = purchasedInput();
    const input: ShipmentWorkflowInput = { ...base, tracking: { ...base.tracking, push: { [CARRIER]: { lifetimeMs: 14 * DAY } } } };
    const t0 = at('2026-03-01T09:00:00Z');
    const pushes = Array.from({ length: 10 }, (_, i) => scan(`p${i}`, i % 2 ? 'out_for_delivery' : 'in_transit', t0 + i * HOUR));
    const refusal = { ok: false, code: 'carrier_error', message: 'The carrier refused the cancellation: cancellation window closed' };
    let steps = 0;
    const mocks = mockActivities(se.env, input.shipmentId, {
      cancelLabel: async () => {
        throw ApplicationFailure.create({ type: CODE.carrier_error, message: 'cancellation window closed', nonRetryable: true });
      },
      // The carrier pushes its next scan while each step is written: the step that reaches the bound
      // has one waiting, which the next run must take.
      recordTracking: async () => {
        const next = pushes[++steps];
        if (next) await se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`).signal(scansSignal, [next]);
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      const first = await startShipment(se, input);
      await called(mocks, 'subscribeTracking');
      expect(await handle.executeUpdate(voidUpdate, { updateId: 'void-1' })).toEqual(refusal);
      await handle.signal(scansSignal, [pushes[0]]);
      await expect.poll(() => mocks.of('recordTracking').length, { timeout: 30_000 }).toBe(pushes.length);
      const firstRun = se.env.client.workflow.getHandle(`shipment/${input.shipmentId}`, first.firstExecutionRunId);
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
      const events = (await firstRun.fetchHistory()).events ?? [];
      expect(events.length).toBeGreaterThanOrEqual(TRACKING_SHORT_HISTORY_EVENTS);
      expect(events.length).toBeLessThan(TRACKING_SHORT_HISTORY_EVENTS + 25);
      const carried = defaultPayloadConverter.fromPayload<ShipmentWorkflowInput>(events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!.input!.payloads![0]);
      const steps1 = mocks.of('recordTracking').filter((c) => c.runId === first.firstExecutionRunId);
      const seen = pushes.slice(0, steps1.length);
      expect(carried.resume).toEqual({
        status: 'in_transit',
        carrier: CARRIER,
        trackingNumber: TRACKING_NUMBER,
        seenScanIds: seen.map((s) => s.id),
        latestScan: { occurredAt: seen.at(-1)!.occurredAt, status: seen.at(-1)!.status },
        push: { until: expect.any(Number) },
        voids: { 'void-1': refusal },
        pollMs: expect.any(Number),
        pushed: [pushes[steps1.length]],
        quietSince: expect.any(Number),
      });
      const until = (carried.resume!.push as { until: number }).until;
      expect(Math.abs(until - (mocks.of('subscribeTracking')[0].at + 14 * DAY))).toBeLessThan(MINUTE);
      // Every scan stored once, in order; the one pushed during the first run's last step by the next run.
      const stored = mocks.of('recordTracking');
      expect(stored.map((c) => c.arg.scans.map((s) => s.id))).toEqual(pushes.map((s) => [s.id]));
      expect(stored[steps1.length].runId).not.toBe(first.firstExecutionRunId);
      // The next run neither subscribes again nor forgets the void it answered.
      expect(mocks.of('subscribeTracking')).toHaveLength(1);
      expect(mocks.of('cancelLabel')).toHaveLength(1);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: pushes.length });
    });
  }, 120_000);

  it('a whole journey found in one poll is one recordTracking step: its writes in order, its events listed in order', async () => {
    const input = purchasedInput();
    const t0 = at('2026-03-01T09:00:00Z');
    const journey = [
      scan('j1', 'in_transit', t0),
      scan('j2', 'exception', t0 + HOUR),
      scan('j3', 'in_transit', t0 + 2 * HOUR),
      // Two scans of the same minute: stored in the order the poll is applied.
      scan('j4', 'out_for_delivery', t0 + 3 * HOUR),
      scan('j5', 'out_for_delivery', t0 + 3 * HOUR),
      scan('j6', 'delivered', t0 + 4 * HOUR),
    ];
    const mocks = mockActivities(se.env, input.shipmentId, { fetchScans: async () => journey });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      expect(await handle.result()).toEqual({ status: 'delivered' });
      // One step: the poll, then one activity whose writes are the per-write path's, in its order.
      expect(mocks.calls.filter((c) => !c.within).map((c) => c.name)).toEqual(['pollTracking', 'recordTracking']);
      const [step] = mocks.of('recordTracking');
      expect(mocks.calls.filter((c) => c.within).every((c) => c.within === 'recordTracking' && c.runId === step.runId)).toBe(true);
      const history = (await handle.fetchHistory()).events ?? [];
      const scheduled = history.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
      // The poll is a local activity, a marker in the history; the write an activity of its own.
      expect(scheduled).toEqual(['recordTracking']);
      expect(history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
      expect(step.arg.scans.map((s) => s.id)).toEqual(journey.map((s) => s.id));
      const status = (s: string) => ({ mark: { trackingStatus: s, status: s } });
      const track = (s: string) => ({ mark: { trackingStatus: s } });
      const what = step.arg.writes.map((w) => ('mark' in w ? w : { event: w.event.type }));
      expect(what).toEqual([
        status('in_transit'),
        { event: 'tracking.updated' },
        { event: 'shipment.in_transit' },
        status('exception'),
        { event: 'tracking.updated' },
        { event: 'shipment.exception' },
        status('in_transit'),
        { event: 'tracking.updated' },
        { event: 'shipment.in_transit' },
        track('out_for_delivery'),
        { event: 'tracking.updated' },
        track('out_for_delivery'),
        { event: 'tracking.updated' },
        status('delivered'),
        { event: 'tracking.updated' },
        { event: 'shipment.delivered' },
      ]);
      // Each tracking.updated names its own scan's row.
      const events = step.arg.writes.flatMap((w) => ('event' in w ? [w.event] : []));
      const updates = events.filter((e) => e.type === 'tracking.updated').map((e) => (e.object as { event: { id: string } }).event.id);
      expect(updates).toEqual(step.arg.scans.map((s) => s.trackingEventId));
      // Ids made in one task take its time plus their place, so they sort as they were made (the API
      // lists events by id, a shipment's scans by time and then id), and createdAt is the id's time.
      const ascending = (ids: string[]) => expect([...ids].sort()).toEqual(ids);
      ascending(events.map((e) => e.id));
      ascending(step.arg.scans.map((s) => s.trackingEventId));
      const times = events.map((e) => Date.parse(e.createdAt));
      expect(times.map((t) => t - times[0])).toEqual(events.map((_, i) => i));
      for (const e of events) expect(e.id.slice(0, 14)).toBe(firstIdAt('evt', Date.parse(e.createdAt)).slice(0, 14));
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      // The same writes, as the harness makes them one by one for the assertions of the other tests.
      expect(mocks.of('markShipment').map((c) => c.arg.changes)).toEqual(what.flatMap((w) => ('mark' in w ? [w.mark] : [])));
      expect(mocks.of('recordEvent').map((c) => c.arg.id)).toEqual(events.map((e) => e.id));
    });
  });

  it('scans the store refuses as invalid data are set aside with nothing else written, and tracking goes on', async () => {
    const input = purchasedInput({ tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR, quietStopMs: 2 * DAY } });
    const mocks = mockActivities(se.env, input.shipmentId, {
      recordScans: async (p) => {
        if (p.scans.some((s) => s.id === 'bad')) throw ApplicationFailure.create({ type: CODE.invalid_data, nonRetryable: true, message: 'recordTracking: the data cannot be stored (invalid byte sequence for encoding "UTF8": 0x00)' });
        return p.scans.map((s) => s.id);
      },
    });
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      await handle.signal(scansSignal, [scan('bad', 'in_transit', at('2026-03-01T09:00:00Z'))]);
      await se.env.sleep('1 minute');
      expect(mocks.of('recordTracking')).toHaveLength(1);
      expect(mocks.of('markShipment')).toHaveLength(0);
      expect(mocks.of('recordEvent')).toHaveLength(0);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'purchased', scansSeen: 0 });
      // Pushed again, it is not tried again; a good scan goes through.
      await handle.signal(scansSignal, [scan('bad', 'in_transit', at('2026-03-01T09:00:00Z')), scan('good', 'in_transit', at('2026-03-01T10:00:00Z'))]);
      await se.env.sleep('1 minute');
      expect(mocks.of('recordTracking').map((c) => c.arg.scans.map((s) => s.id))).toEqual([['bad'], ['good']]);
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'in_transit', scansSeen: 1 });
      expect(await currentDetails(handle)).toMatch(/last problem: scans "bad" refused: recordTracking: the data cannot be stored/);
    });
  });

  // A scan arriving after a newer one moved both statuses back to it (found by a black-box audit): an
  // exception pushed at 11:00, then the carrier's 10:00 in_transit, made the shipment in_transit again
  // and sent shipment.in_transit after shipment.exception.
  it('a scan older than one already applied is recorded and announced, and moves neither status back', async () => {
    const input = purchasedInput({ tracking: { minPollMs: 15 * MINUTE, maxPollMs: 12 * HOUR, quietStopMs: 2 * DAY } });
    const mocks = mockActivities(se.env, input.shipmentId);
    await withWorkers(se, input, mocks, async (handle) => {
      await startShipment(se, input);
      const problem = scan('s-problem', 'exception', at('2026-03-01T11:00:00Z'));
      const pickup = scan('s-pickup', 'in_transit', at('2026-03-01T10:00:00Z'));
      await handle.signal(scansSignal, [problem]);
      await se.env.sleep('1 minute');
      await handle.signal(scansSignal, [pickup]);
      await se.env.sleep('1 minute');
      expect(mocks.of('recordScans').map((c) => c.arg.scans.map((s) => s.id))).toEqual([['s-problem'], ['s-pickup']]);
      expect(mocks.of('markShipment').map((c) => c.arg.changes)).toEqual([{ trackingStatus: 'exception', status: 'exception' }]);
      const events = mocks.of('recordEvent').map((c) => c.arg);
      expect(events.map((e) => e.type)).toEqual(['tracking.updated', 'shipment.exception', 'tracking.updated']);
      // The late scan's own event, under the tracking number's status now.
      expect(events[2].object).toMatchObject({ status: 'exception', event: { status: 'in_transit', occurred_at: pickup.occurredAt } });
      expect(await handle.query(stateQuery)).toMatchObject({ status: 'exception', scansSeen: 2 });
      // Delivered, however late its scan arrives, still ends the shipment (spec §3 rule 4).
      await handle.signal(scansSignal, [scan('s-done', 'delivered', at('2026-03-01T08:00:00Z'))]);
      expect(await handle.result()).toMatchObject({ status: 'delivered' });
      expect(mocks.of('markShipment').map((c) => c.arg.changes).slice(1)).toEqual([{ trackingStatus: 'delivered', status: 'delivered' }]);
    });
  });
});
