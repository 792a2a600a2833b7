import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginPurchase, checkLedger, completePurchase, InsufficientFundsError } from '../../db/index.js';
import { accounts, events, shipments } from '../../db/schema.js';
import { balanceToJson, makeId, shipmentToJson } from '../../domain/index.js';
import { eventually } from '../support/sim.js';
import { createAccount, insertPendingShipment, startTestStack, type TestStack } from '../support/stack.js';

// The purchase's two transactions write what their locked rows say the writes leave (the shipment
// purchased, the account after the capture) without reading them again: what they store must be
// what a read after the commit gives.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

const price = (gross: number) => ({ carrier: 'acme', serviceName: 'Ground', net: gross - 100, vat: 100, gross });

describe('the purchase transactions', () => {
  it('store the purchased shipment and the balance after the capture exactly as they read after the commit', async () => {
    const acct = await createAccount(stack, { topUp: '30.00' });
    await stack.admin.setAccount(acct.id, { lowBalanceThreshold: '25.00' });
    const db = stack.database.db;
    const shipmentId = await insertPendingShipment(stack, acct.id);
    const ids = { purchasedEventId: makeId('evt', Date.now(), randomBytes(16)), lowBalanceEventId: makeId('evt', Date.now(), randomBytes(16)) };

    expect(await beginPurchase(db, { shipmentId, accountId: acct.id, price: price(1000), hold: true, now: new Date() })).toEqual({ ok: true });
    const done = await completePurchase(db, {
      shipmentId,
      accountId: acct.id,
      capture: true,
      trackingNumber: 'TRK-TX-1',
      ...ids,
      now: new Date(),
    });
    expect(done.firstTime).toBe(true);

    const [row] = await db.select().from(shipments).where(eq(shipments.id, shipmentId));
    const [account] = await db.select().from(accounts).where(eq(accounts.id, acct.id));
    expect(done.shipment).toEqual(row);
    expect(row).toMatchObject({ status: 'purchased', trackingNumber: 'TRK-TX-1', priceGross: 1000 });
    expect(account).toMatchObject({ balance: 2000, pending: 0 });

    const [purchased] = await db.select().from(events).where(eq(events.id, ids.purchasedEventId));
    expect(purchased.data).toEqual(JSON.parse(JSON.stringify({ object: shipmentToJson(row) })));
    // 30.00 − 10.00 crosses 25.00: the event carries the balance as it stands after the capture.
    const [low] = await db.select().from(events).where(and(eq(events.id, ids.lowBalanceEventId), eq(events.type, 'wallet.low_balance')));
    expect(low.data).toEqual(JSON.parse(JSON.stringify({ object: balanceToJson(account, true) })));

    // A retry after the commit moves no money and still reports both events.
    const again = await completePurchase(db, { shipmentId, accountId: acct.id, capture: true, trackingNumber: 'TRK-TX-1', ...ids, now: new Date() });
    expect(again.firstTime).toBe(false);
    expect(again.shipment).toEqual(row);
    const ledger = await checkLedger(db, acct.id);
    expect([ledger.account.balance, ledger.account.pending]).toEqual([ledger.entriesBalance, ledger.entriesPending]);
    expect(ledger.account.balance).toBe(2000);
  });

  it('refuse a price the wallet cannot cover and leave the shipment unpriced, with nothing held', async () => {
    const acct = await createAccount(stack, { topUp: '5.00' });
    const db = stack.database.db;
    const shipmentId = await insertPendingShipment(stack, acct.id);
    await expect(beginPurchase(db, { shipmentId, accountId: acct.id, price: price(1000), hold: true, now: new Date() })).rejects.toBeInstanceOf(
      InsufficientFundsError,
    );
    const [row] = await db.select().from(shipments).where(eq(shipments.id, shipmentId));
    expect(row.priceGross).toBeNull();
    const ledger = await checkLedger(db, acct.id);
    expect([ledger.account.balance, ledger.account.pending]).toEqual([500, 0]);
  });

  it('hold concurrent purchases of one account one after the other, never past what it has', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const db = stack.database.db;
    const ids = await Promise.all(Array.from({ length: 8 }, () => insertPendingShipment(stack, acct.id)));
    const outcomes = await Promise.allSettled(
      ids.map((shipmentId) => beginPurchase(db, { shipmentId, accountId: acct.id, price: price(1000), hold: true, now: new Date() })),
    );
    // 50.00 covers five holds of 10.00; the other three are refused.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof InsufficientFundsError)).toHaveLength(3);
    const ledger = await checkLedger(db, acct.id);
    expect([ledger.account.balance, ledger.account.pending]).toEqual([5000, 5000]);
    expect(ledger.entriesPending).toBe(5000);
  });
  it('never hold twice when a retry waited on the lock of an attempt that held and committed meanwhile', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const db = stack.database.db;
    const shipmentId = await insertPendingShipment(stack, acct.id);
    // The first attempt, by hand: it holds the shipment's lock while it prices and holds.
    const first = await stack.database.pool.connect();
    try {
      await first.query('begin');
      await first.query('select id from shipments where id = $1 for update', [shipmentId]);
      const { rows } = await first.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
      const retry = beginPurchase(db, { shipmentId, accountId: acct.id, price: price(1000), hold: true, now: new Date() });
      const settled = retry.then(
        () => 'held',
        (err: unknown) => err,
      );
      // Until the retry's statement waits on the lock the first attempt holds.
      await eventually(async () => {
        const waiting = await first.query("select 1 from pg_locks where locktype = 'transactionid' and not granted and transactionid::text = $1", [
          rows[0].xid,
        ]);
        return waiting.rowCount ? true : undefined;
      }, 10_000, 'the retry waiting on the shipment lock');
      await first.query("insert into ledger_entries (account_id, shipment_id, kind, amount) values ($1, $2, 'hold', 1000)", [acct.id, shipmentId]);
      await first.query('update accounts set pending = pending + 1000 where id = $1', [acct.id]);
      await first.query('commit');
      // It read the entries before the first attempt's commit: its own hold fails on the unique index.
      expect(await settled).toMatchObject({ cause: { code: '23505' } });
    } finally {
      first.release();
    }
    // The step's next retry finds the hold and moves nothing.
    expect(await beginPurchase(db, { shipmentId, accountId: acct.id, price: price(1000), hold: true, now: new Date() })).toEqual({ ok: true });
    const ledger = await checkLedger(db, acct.id);
    expect([ledger.account.balance, ledger.account.pending]).toEqual([5000, 1000]);
    expect(ledger.entriesPending).toBe(1000);
  });
});
