import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskQueues } from '../../contract/index.js';
import { admittedWithinWindow } from '../../db/index.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// Purchases never wait behind tracking polls on the same carrier's rate limit. Acme is limited to
// 2 requests a second for the whole fleet, a quarter of it (CARRIER_TRACKING_SHARE) for tracking:
// one call in any 2 s. Sixteen live shipments poll as fast as tracking lets them. Their polls are
// local activities of the shipments' own worker, which take their places in a window kept in
// PostgreSQL for the carrier's tracking share; a purchase's carrier call goes through the carrier's
// queue, under the other three quarters, which no poll touches.
const TRACKED = 16;
const PURCHASES = 5;

let stack: TestStack;
let acct: TestAccount;
beforeAll(async () => {
  stack = await startTestStack({
    carrierRateLimits: { acme: 2 },
    carrierTrackingSharePercent: 25,
    trackingPollMinMs: 50,
    trackingPollMaxMs: 100,
    purchaseWaitMs: 120_000,
  });
  acct = await createAccount(stack, { topUp: '500.00' });
});
afterAll(async () => {
  await stack?.stop();
});

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Every event of every run of a workflow. */
async function eventsOf(workflowId: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  for await (const run of stack.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    events.push(...((await stack.temporal.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? []));
  }
  return events;
}

/** The activity type a local activity's marker records (its data, the SDK's JSON), or undefined. */
function localActivityOf(e: HistoryEvent): string | undefined {
  const marker = e.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type : undefined;
}

/** The times (ms, the database's clock) of the calls the tracking window holds now: those of the last window. */
async function admittedNow(key: string): Promise<number[]> {
  return (await admittedWithinWindow(stack.database.db, key)).map((t) => t.getTime());
}

const order = () => ({ service: 'acme_ground', from: address(), to: address({ name: `split-${randomUUID()}` }), parcel: parcel() });

describe('purchases and tracking polls on one carrier’s rate limit', () => {
  it('tracking polls take the carrier’s tracking share fleet-wide and never queue on the purchases’ way', async () => {
    const tracked: string[] = [];
    while (tracked.length < TRACKED) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(4, TRACKED - tracked.length) }, async () => {
          const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order() });
          expect(a.status, a.text).toBe(201);
          return `shipment/${a.body.id}`;
        }),
      );
      tracked.push(...batch);
    }
    // The window's row, sampled more often than it forgets: every call the carrier was let through.
    const key = taskQueues(stack.config.taskQueuePrefix).carrierTracking('acme');
    const admitted = new Set<number>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const t of await admittedNow(key)) admitted.add(t);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    await eventually(async () => (admitted.size >= 2 ? true : undefined), 60_000, 'tracking polls admitted');
    const bought: string[] = [];
    for (let i = 0; i < PURCHASES; i++) {
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order() });
      expect(a.status, a.text).toBe(201);
      expect(a.body.status).toBe('purchased');
      bought.push(`shipment/${a.body.id}`);
    }
    await eventually(async () => (admitted.size >= 5 ? true : undefined), 60_000, 'more tracking polls admitted');
    sampling = false;
    await sampler;

    // One carrier call in any 2 s, across every worker: each admitted a whole window after the one before.
    const times = [...admitted].sort((a, b) => a - b);
    console.log(`[rate-split] tracking calls admitted to acme, ms apart: ${JSON.stringify(times.slice(1).map((t, i) => t - times[i]))}`);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(2_000);
    // The polls are local activities (markers), none an activity on a queue a purchase uses.
    const trackedEvents = (await Promise.all(tracked.map(eventsOf))).flat();
    expect(trackedEvents.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchScans')).toHaveLength(0);
    expect(trackedEvents.filter((e) => localActivityOf(e) === 'pollTracking').length).toBeGreaterThan(TRACKED);
    // The purchases' carrier calls: on the carrier's own queue, which the polls never entered.
    for (const id of bought) {
      const buys = (await eventsOf(id)).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'buyLabel');
      expect(buys.map((e) => e.activityTaskScheduledEventAttributes!.taskQueue!.name)).toEqual([taskQueues(stack.config.taskQueuePrefix).carrier('acme')]);
    }
  }, 240_000);
});
