import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginPurchase, checkLedger, completePurchase, InsufficientFundsError } from '../../db/index.js';
import { accounts, events, shipments } from '../../db/schema.js';
import { balanceToJson, makeId, shipmentToJson } from '../../domain/index.js';
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
});
