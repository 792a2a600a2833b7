import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('smoke', () => {
  it('quotes and buys in sandbox and live', async () => {
    const acct = await createAccount(stack, { topUp: '100.00' });
    const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address(), to: address(), parcel: parcel() } });
    expect(q.status, q.text).toBe(200);
    expect(q.body.data.length).toBeGreaterThanOrEqual(3);
    const service = q.body.data[0].service.code;
    const buy = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.testKey,
      body: { service, from: address(), to: address(), parcel: parcel(), reference: 'order-1' },
    });
    expect(buy.status, buy.text).toBe(201);
    expect(buy.body.status).toBe('purchased');
    const live = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service, from: address(), to: address(), parcel: parcel(), reference: 'order-2' },
    });
    expect(live.status, live.text).toBe(201);
    expect(live.body.price.gross).toBe(q.body.data[0].price.gross);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(10000 - Math.round(Number(q.body.data[0].price.gross) * 100));
  });
});
