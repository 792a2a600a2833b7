import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimIdempotencyKey } from '../../db/index.js';
import { reconcileOrphans } from '../../admin/reconcile.js';
import { address, call, createAccount, insertPendingShipment, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ purchaseWaitMs: 1000 }, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

describe('npm run ops -- reconcile', () => {
  it('fails a pending shipment whose purchase was never started, frees its key, and leaves running ones alone', async () => {
    const acct = await createAccount(stack, { topUp: '20.00' });
    // What an API that stopped between recording the shipment and starting its workflow leaves. It
    // is dated ahead of the clock and the command is run as of two hours on: other test files share
    // this database, and their Schedules sweep every second any such row a few seconds old, so a row
    // dated in the past could be failed by them first (the command then finds nothing to do).
    const later = Date.now() + 2 * 3_600_000;
    const orphan = await insertPendingShipment(stack, acct.id, new Date(later - 3_600_000));
    const key = randomUUID();
    await claimIdempotencyKey(stack.database.db, {
      accountId: acct.id,
      livemode: true,
      key,
      fingerprint: 'x',
      shipmentId: orphan,
      now: new Date(),
    });
    // A purchase under way (no worker runs here, so it stays pending, with its workflow).
    const running = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    expect(running.status).toBe(202);

    const failed = await reconcileOrphans(stack.database.db, stack.temporal, {
      olderThanMs: 30 * 60_000,
      now: new Date(later),
      accountId: acct.id,
    });
    expect(failed.map((f) => f.shipment_id)).toEqual([orphan]);
    const all = await reconcileOrphans(stack.database.db, stack.temporal, {
      olderThanMs: 0,
      now: new Date(later + 1000),
      accountId: acct.id,
    });
    expect(all.map((f) => f.shipment_id)).not.toContain(running.body.id);

    const s = await call(stack, 'GET', `/api/v1/shipments/${orphan}`, { key: acct.liveKey });
    expect(s.body.status).toBe('failed');
    expect(s.body.failure.code).toBe('internal_error');
    const still = await call(stack, 'GET', `/api/v1/shipments/${running.body.id}`, { key: acct.liveKey });
    expect(still.body.status).toBe('pending');
    // The key is free again: the same request runs anew.
    const again = await claimIdempotencyKey(stack.database.db, {
      accountId: acct.id,
      livemode: true,
      key,
      fingerprint: 'y',
      now: new Date(),
    });
    expect(again.claimed).toBe(true);
  });
});
