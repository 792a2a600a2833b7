import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimIdempotencyKey, ledgerEntriesOf } from '../../db/index.js';
import { orphanSweepScheduleId } from '../../contract/index.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, insertPendingShipment, parcel, startTestStack, type TestStack } from '../support/stack.js';

// Issue 11: no crash window between claiming an Idempotency-Key and recording the shipment, and an
// orphaned pending row (the API died before starting its workflow) failed automatically.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ orphanSweep: { intervalMs: 1000, olderThanMs: 5000 } });
});
afterAll(async () => {
  await stack?.stop();
});

const order = () => ({ service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'crash-window' });

describe('the purchase route has no crash window', () => {
  it('a request whose shipment insert fails leaves its key free: the same request again buys once, charges once, and GET shows it', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const db = stack.database.db;
    // The insert of this account's shipment fails once, as if the process had died right after
    // claiming the key (a real PostgreSQL trigger, dropped before the retry).
    const fn = `fail_insert_${acct.id.toLowerCase()}`;
    await db.execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
        begin if new.account_id = '${acct.id}' then raise exception 'injected: the process died here'; end if; return new; end $$`),
    );
    await db.execute(sql.raw(`create trigger ${fn} before insert on shipments for each row execute function ${fn}()`));
    const key = randomUUID();
    const body = order();
    let first;
    try {
      first = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body });
    } finally {
      await db.execute(sql.raw(`drop trigger ${fn} on shipments; drop function ${fn}()`));
    }
    expect(first.status).toBe(500);

    const again = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body });
    expect(again.status, again.text).toBe(201);
    expect(again.body.status).toBe('purchased');
    const got = await call(stack, 'GET', `/api/v1/shipments/${again.body.id}`, { key: acct.liveKey });
    expect(got.status).toBe(200);
    expect(got.body.status).toBe('purchased');
    const replay = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(again.body.id);
    const kinds = (await ledgerEntriesOf(db, acct.id)).map((e) => e.kind);
    expect(kinds).toEqual(['topup', 'hold', 'capture']);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('after a failed purchase, two concurrent retries with the same key buy once and charge once', async () => {
    // The failed purchase freed its key in the transaction that failed it; the two retries race for it.
    const poor = await createAccount(stack, { topUp: '0.01' });
    const key = randomUUID();
    const body = order();
    const failed = await call(stack, 'POST', '/api/v1/shipments', { key: poor.liveKey, headers: { 'idempotency-key': key }, body });
    expect(failed.status).toBe(402);
    await stack.admin.topUp(poor.id, '50.00');
    const [a, b] = await Promise.all([
      call(stack, 'POST', '/api/v1/shipments', { key: poor.liveKey, headers: { 'idempotency-key': key }, body }),
      call(stack, 'POST', '/api/v1/shipments', { key: poor.liveKey, headers: { 'idempotency-key': key }, body }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 201]);
    expect(a.body.id).toBe(b.body.id);
    const captures = (await ledgerEntriesOf(stack.database.db, poor.id)).filter((e) => e.kind === 'capture');
    expect(captures).toHaveLength(1);
    await expectLedgerConsistent(stack, poor.id);
  });
});

describe('orphaned pending shipments', () => {
  it('are failed and their keys freed by the fleet’s Schedule, with no command run by hand', async () => {
    const acct = await createAccount(stack, { topUp: '20.00' });
    const db = stack.database.db;
    const created = new Date(Date.now() - 60_000);
    // What an API that stopped between recording the purchase and starting its workflow leaves.
    const orphan = await insertPendingShipment(stack, acct.id, created);
    const key = randomUUID();
    await claimIdempotencyKey(db, { accountId: acct.id, livemode: true, key, fingerprint: 'x', shipmentId: orphan, now: created });

    const schedule = await stack.temporal.schedule.getHandle(orphanSweepScheduleId(stack.config.taskQueuePrefix)).describe();
    expect(schedule.action.type).toBe('startWorkflow');
    const failed = await eventually(async () => {
      const s = await call(stack, 'GET', `/api/v1/shipments/${orphan}`, { key: acct.liveKey });
      return s.body.status === 'failed' ? s.body : undefined;
    }, 60_000);
    expect(failed.failure.code).toBe('internal_error');
    // The key is free again: the same request runs anew and buys.
    const again = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': key }, body: order() });
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).not.toBe(orphan);
    await expectLedgerConsistent(stack, acct.id);
  });
});
