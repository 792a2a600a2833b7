import { randomUUID } from 'node:crypto';
import { toDate } from '../../admin/index.js';
import { SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS } from '../../contract/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, simControl } from '../support/sim.js';
import { startStackWorker, type ServiceProcess } from '../support/processes.js';
import { address, call, createAccount, expectLedgerConsistent, onPriceHold, parcel, startTestStack, type TestStack } from '../support/stack.js';

// A `shipments` worker SIGKILLed while it runs one of a purchase's steps that is an activity of its
// own queue (here the card authorization): the step heartbeats, so another worker runs it again
// after the heartbeat time-out (5 s), not after its start-to-close time-out (30 s).
let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // The shipment workflows and their activities run only in worker processes of the test's own.
  stack = await startTestStack({ purchaseWaitMs: 300 }, { groups: ['carriers', 'webhooks'] });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

describe('a shipments worker killed in the middle of a card authorization', () => {
  it('is replaced within seconds: the purchase ends about 8 s after the kill (5 s heartbeat time-out, 1 s for the workflow task stuck to the dead worker), charged once', async () => {
    // Two workers, as a fleet has: the one that runs the authorization is killed, the other takes over.
    const workers = await Promise.all([startStackWorker(stack, ['shipments']), startStackWorker(stack, ['shipments'])]);
    const acct = await createAccount(stack, { funding: 'card' });
    // The price's hold waits 2 s for this account (a real PostgreSQL trigger): time to learn the
    // shipment's id from the 202 and plant the slow authorization for it.
    const slowHold = await onPriceHold(stack, acct.id, 'slow_begin', 'pg_sleep(2)');
    try {
      const body = { service: 'acme_ground', from: address(), to: address(), parcel: parcel() };
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
      expect(a.status, a.text).toBe(202);
      const id: string = a.body.id;
      // The processor authorizes at once and answers only after our 10 s time-out: the worker is
      // mid-call when killed.
      await sim.fault({ carrier: 'cardpay', operation: 'authorize', mode: 'slow', delay_ms: 30_000, match: id, times: 1 });
      const handle = stack.temporal.workflow.getHandle(`shipment/${id}`);
      const runningOn = await eventually(async () => {
        const pending = (await handle.describe()).raw.pendingActivities?.find((p) => p.activityType?.name === 'authorizeCard' && p.lastWorkerIdentity);
        return (await sim.faults(id)).length === 0 && pending ? pending.lastWorkerIdentity! : undefined;
      }, 30_000, 'the authorization to reach the processor');
      const doomed = workers.find((w) => runningOn.startsWith(`${w.pid}@`))!;
      expect(doomed, `the authorization runs on ${runningOn}`).toBeDefined();
      const killedAt = Date.now();
      await doomed.kill();
      const done = await eventually(async () => {
        const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
        return s.body.status === 'pending' ? undefined : { status: s.body.status as string, at: Date.now() };
      }, 60_000, 'the purchase to end');
      const endedAfter = done.at - killedAt;
      process.stdout.write(`shipments worker kill: the purchase ended ${(endedAfter / 1000).toFixed(1)} s after the kill\n`);
      expect(done.status).toBe('purchased');
      // About 8 s on a quiet machine (the step's 5 s heartbeat time-out, then 1 s for the workflow
      // task that was stuck to the dead worker); 33 s without the heartbeat (its 30 s start-to-close).
      expect(endedAfter, `ended ${(endedAfter / 1000).toFixed(1)} s after the kill`).toBeLessThan(20_000);
      const charges = await sim.cardCharges(id);
      expect(charges.filter((c) => c.status === 'captured')).toHaveLength(1);
      await expectLedgerConsistent(stack, acct.id);
    } finally {
      await slowHold.drop();
      for (const w of workers) await w.kill();
    }
  }, 180_000);
});

/**
 * Holds this account's price hold in PostgreSQL until released: a trigger on the hold takes an
 * advisory lock that the test holds from a connection of its own. `waiting()` is true once a hold
 * is blocked on it.
 */
async function heldPriceHold(acctId: string): Promise<{ waiting(): Promise<boolean>; release(): Promise<void> }> {
  const holder = await stack.database.pool.connect();
  const key = `hold/${acctId}`;
  await holder.query(`select pg_advisory_lock(hashtext($1))`, [key]);
  const { rows } = await holder.query<{ pid: number }>(`select pg_backend_pid() as pid`);
  const trigger = await onPriceHold(stack, acctId, 'held_hold', `pg_advisory_xact_lock(hashtext('${key}'))`);
  let released = false;
  return {
    waiting: async () => (await stack.database.pool.query(`select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))`, [rows[0].pid])).rows.length > 0,
    release: async () => {
      if (released) return;
      released = true;
      await holder.query(`select pg_advisory_unlock(hashtext($1))`, [key]);
      holder.release();
      await trigger.drop();
    },
  };
}

describe('a shipments worker killed while it holds a purchase\'s workflow task', () => {
  it('loses the task for SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS (5 s), not Temporal\'s 10 s: another worker then runs it and the purchase is bought once', async () => {
    // The price's hold is a local activity: it runs inside the purchase's first workflow task, so a
    // worker killed while the hold waits in PostgreSQL takes the task with it.
    const first = await startStackWorker(stack, ['shipments']);
    let second: ServiceProcess | undefined;
    const acct = await createAccount(stack, { topUp: '50.00' });
    const hold = await heldPriceHold(acct.id);
    try {
      const body = { service: 'acme_ground', from: address(), to: address(), parcel: parcel() };
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
      expect(a.status, a.text).toBe(202);
      const id: string = a.body.id;
      const handle = stack.temporal.workflow.getHandle(`shipment/${id}`);
      await eventually(async () => (await hold.waiting()) || undefined, 30_000, 'the hold to wait inside its workflow task');
      const killedAt = Date.now();
      await first.kill();
      await hold.release();
      // The fleet restarts it, as the chaos run does.
      second = await startStackWorker(stack, ['shipments']);
      const done = await eventually(async () => {
        const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
        return s.body.status === 'pending' ? undefined : { status: s.body.status as string, at: Date.now() };
      }, 60_000, 'the purchase to end');
      process.stdout.write(`workflow task lost with its worker: the purchase ended ${((done.at - killedAt) / 1000).toFixed(1)} s after the kill\n`);
      expect(done.status).toBe('purchased');

      // The history: the task the killed worker took timed out (start-to-close) 5 s after it started,
      // and the next one was run by the new worker.
      const events = (await handle.fetchHistory()).events ?? [];
      const lost = events.findIndex((e) => e.workflowTaskTimedOutEventAttributes);
      expect(lost, 'a workflow task timed out').toBeGreaterThan(0);
      const startedIdx = Number(events[lost].workflowTaskTimedOutEventAttributes!.startedEventId) - 1;
      const started = events[startedIdx];
      expect(started.workflowTaskStartedEventAttributes?.identity).toMatch(new RegExp(`^${first.pid}@`));
      const heldMs = toDate(events[lost].eventTime)!.getTime() - toDate(started.eventTime)!.getTime();
      expect(heldMs).toBeGreaterThanOrEqual(SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS - 100);
      expect(heldMs).toBeLessThan(SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS + 1_000);
      const next = events.slice(lost).find((e) => e.workflowTaskStartedEventAttributes);
      expect(next?.workflowTaskStartedEventAttributes?.identity).toMatch(new RegExp(`^${second.pid}@`));
      expect(await sim.purchases(id)).toHaveLength(1);
      await expectLedgerConsistent(stack, acct.id);
    } finally {
      await hold.release();
      await first.kill();
      await second?.kill();
    }
  }, 180_000);
});
