import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { toDate } from '../../admin/index.js';
import { ledgerEntriesOf, schema } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { startFreezableProxy, startStackApi, startStackWorker } from '../support/processes.js';
import { address, call, createAccount, expectLedgerConsistent, onPriceHold, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// Faults cost seconds: each recovery path of a purchase, measured from the fault (or from the
// recovery) to the answer the customer reads, against its bound. The bounds hold on a quiet 2-core
// machine with room to spare; each assertion allows for a busy one and still shows the bound.

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // The carrier queues are served by worker processes of the test's own (killed below); the
  // shipment workflows by the stack's workers.
  stack = await startTestStack({ carrierTimeoutMs: 5_000, purchaseWaitMs: 20_000 }, { groups: ['shipments', 'webhooks'] });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const order = (marker: string) => ({ service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker });
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The shipment's status once it is no longer pending, and when that was first seen. */
async function settled(acct: TestAccount, id: string, ms = 60_000): Promise<{ status: string; at: number }> {
  return await eventually(async () => {
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    return s.body.status === 'pending' ? undefined : { status: s.body.status as string, at: Date.now() };
  }, ms, `shipment ${id} to settle`);
}

describe('a carrier worker killed in the middle of a buy', () => {
  it('is replaced by another within seconds: the purchase ends within 10 s of the kill, bought once', async () => {
    // Two carrier workers, as a fleet has: the one running the buy is killed, the other takes over.
    const workers = await Promise.all([startStackWorker(stack, ['carriers']), startStackWorker(stack, ['carriers'])]);
    try {
      const acct = await createAccount(stack, { topUp: '50.00' });
      const marker = `kill-${randomUUID()}`;
      // Acme carries the buy out at once and answers after 20 s: the worker is mid-call when killed
      // (within our 5 s time-out of the call).
      await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 20_000, match: marker, times: 1 });
      const answer = call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body: order(marker) });
      const runningOn = await eventually(async () => {
        if ((await sim.faults(marker)).length) return undefined;
        const [row] = await stack.database.db.select({ id: schema.shipments.id }).from(schema.shipments).where(eq(schema.shipments.reference, marker));
        const pending = row && (await stack.temporal.workflow.getHandle(`shipment/${row.id}`).describe()).raw.pendingActivities?.find((p) => p.activityType?.name === 'buyLabel');
        return pending?.lastWorkerIdentity || undefined;
      }, 30_000, 'the buy to reach acme');
      const doomed = workers.find((w) => runningOn.startsWith(`${w.pid}@`))!;
      expect(doomed, `the buy runs on ${runningOn}`).toBeDefined();
      const killedAt = Date.now();
      await doomed.kill();
      const a = await answer;
      const endedAfter = Date.now() - killedAt;
      process.stdout.write(`carrier worker kill: the purchase ended ${seconds(endedAfter)} after the kill\n`);
      expect(a.status, a.text).toBe(201);
      // The buy's heartbeat time-out (5 s) finds the lost worker; the lookup then finds the label.
      expect(endedAfter, `ended ${seconds(endedAfter)} after the kill`).toBeLessThan(15_000);
      expect(await sim.purchases(a.body.id)).toHaveLength(1);
      await expectLedgerConsistent(stack, acct.id);
    } finally {
      for (const w of workers) await w.kill();
    }
  }, 180_000);
});

describe('a carrier worker killed in a SwiftPost buy before it booked', () => {
  it('books again as soon as the loss is noticed: the ledger of sends shows nothing was sent, so no settle window is waited', async () => {
    // SwiftPost takes no idempotency key, so after an attempt whose worker was lost it waits out a
    // booking that may still commit (10 s) unless the attempt is known not to have sent one.
    const workers = await Promise.all([startStackWorker(stack, ['carriers']), startStackWorker(stack, ['carriers'])]);
    const acct = await createAccount(stack, { topUp: '50.00' });
    // The price's hold waits 2 s for this account: time to learn the shipment's id from its row and
    // plant the slow lookup that starts the buy for it (SwiftPost's lookup is by our reference, the id).
    const slowHold = await onPriceHold(stack, acct.id, 'slow_swiftpost_hold', 'pg_sleep(2)');
    try {
      const marker = `kill-before-send-${randomUUID()}`;
      const body = { ...order(marker), service: 'swiftpost_standard' };
      const answer = call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
      const id = await eventually(async () => {
        const [row] = await stack.database.db.select({ id: schema.shipments.id }).from(schema.shipments).where(eq(schema.shipments.reference, marker));
        return row?.id;
      }, 30_000, 'the purchase to be recorded');
      await sim.fault({ carrier: 'swiftpost', operation: 'lookup', mode: 'slow', delay_ms: 20_000, match: id, times: 1 });
      const handle = stack.temporal.workflow.getHandle(`shipment/${id}`);
      const runningOn = await eventually(async () => {
        if ((await sim.faults(id)).length) return undefined;
        const pending = (await handle.describe()).raw.pendingActivities?.find((p) => p.activityType?.name === 'buyLabel');
        return pending?.lastWorkerIdentity || undefined;
      }, 30_000, 'the buy to start looking our reference up');
      const doomed = workers.find((w) => runningOn.startsWith(`${w.pid}@`))!;
      expect(doomed, `the buy runs on ${runningOn}`).toBeDefined();
      const killedAt = Date.now();
      await doomed.kill();
      const a = await answer;
      const endedAfter = Date.now() - killedAt;
      process.stdout.write(`carrier worker kill before a SwiftPost booking: the purchase ended ${seconds(endedAfter)} after the kill\n`);
      expect(a.status, a.text).toBe(201);
      // The second buy booked at once: without the ledger it waited out the 10 s settle window.
      const { events } = await handle.fetchHistory();
      const buys = (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'buyLabel').map((e) => Number(e.eventId));
      expect(buys).toHaveLength(2);
      const second = (events ?? []).find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? 0) === buys[1]);
      const scheduled = (events ?? []).find((e) => Number(e.eventId) === buys[1]);
      const secondTook = Number(toDate(second?.eventTime)) - Number(toDate(scheduled?.eventTime));
      expect(secondTook, `the second buy took ${seconds(secondTook)}`).toBeLessThan(5_000);
      // The 5 s heartbeat time-out, the lookup and the booking: about 6 s on a quiet machine, 15 s without the ledger.
      expect(endedAfter, `ended ${seconds(endedAfter)} after the kill`).toBeLessThan(13_000);
      expect((await sim.purchases(id)).filter((p) => !p.cancelled)).toHaveLength(1);
      await expectLedgerConsistent(stack, acct.id);
    } finally {
      await slowHold.drop();
      for (const w of workers) await w.kill();
    }
  }, 180_000);
});

describe('a carrier answering 429 with Retry-After: 2', () => {
  it('is asked again after about 2 s, not sooner: the purchase ends about 2 s after the 429', async () => {
    const worker = await startStackWorker(stack, ['carriers']);
    try {
      const acct = await createAccount(stack, { topUp: '50.00' });
      const marker = `rl-${randomUUID()}`;
      await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'rate_limit', retry_after: 2, match: marker, times: 1 });
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body: order(marker) });
      expect(a.status, a.text).toBe(201);
      // The workflow's history: when the 429 came back, and when the buy was asked again.
      const history = await stack.temporal.workflow.getHandle(`shipment/${a.body.id}`).fetchHistory();
      const at = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
      const failed = history.events!.find((e) => e.activityTaskFailedEventAttributes)!;
      const again = history.events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'buyLabel')[1];
      const completed = history.events!.find((e) => e.activityTaskCompletedEventAttributes)!;
      const waited = at(again) - at(failed);
      const ended = at(completed) - at(failed);
      process.stdout.write(`429: asked again ${seconds(waited)} after it, bought ${seconds(ended)} after it\n`);
      expect(waited, `asked again ${seconds(waited)} after the 429`).toBeGreaterThanOrEqual(2_000);
      expect(ended, `bought ${seconds(ended)} after the 429`).toBeLessThan(5_000);
      expect(await sim.purchases(a.body.id)).toHaveLength(1);
    } finally {
      await worker.kill();
    }
  }, 120_000);
});

describe('an API process killed after claiming a purchase’s Idempotency-Key', () => {
  it('leaves nothing to wait for: the retry with the same key ends within 10 s of the API being back, bought once', async () => {
    const worker = await startStackWorker(stack, ['carriers']);
    // This API reaches Temporal through a proxy that stops carrying bytes: it claims the key and
    // records the purchase, then hangs starting the workflow, and is killed there.
    const proxy = await startFreezableProxy(inject('temporalAddress'));
    const doomed = await startStackApi(stack, { TEMPORAL_ADDRESS: proxy.address });
    try {
      const acct = await createAccount(stack, { topUp: '50.00' });
      const key = randomUUID();
      const body = order(`api-kill-${randomUUID()}`);
      proxy.freeze();
      const lost = call({ url: doomed.url }, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body }).catch((err: Error) => err);
      const claimed = await eventually(async () => {
        const [row] = await stack.database.db.select().from(schema.idempotencyKeys).where(and(eq(schema.idempotencyKeys.accountId, acct.id), eq(schema.idempotencyKeys.key, key)));
        return row;
      }, 30_000, 'the key to be claimed');
      await doomed.kill();
      expect(await lost).toBeInstanceOf(Error);
      // The API is back (a new process), and the client retries with the same key.
      const back = await startStackApi(stack);
      const backAt = Date.now();
      try {
        const retried = await call({ url: back.url }, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body });
        const endedAfter = Date.now() - backAt;
        process.stdout.write(`API kill: the retry ended ${seconds(endedAfter)} after the API was back\n`);
        expect(retried.status, retried.text).toBe(201);
        expect(retried.body.id).toBe(claimed.shipmentId);
        expect(endedAfter, `ended ${seconds(endedAfter)} after the API was back`).toBeLessThan(10_000);
        expect(await sim.purchases(retried.body.id)).toHaveLength(1);
        const kinds = (await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind);
        expect(kinds.filter((k) => k === 'capture')).toHaveLength(1);
      } finally {
        await back.kill();
      }
    } finally {
      await doomed.kill();
      await proxy.close();
      await worker.kill();
    }
  }, 180_000);
});
