import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

// The void's wait can run out just as the void ends: its row already says `voided` while its update
// has not answered yet (its event is being recorded). Such a void is answered as ended, never as a
// 202 showing `voided` (contract: a 202 is in `voiding`).
const WAIT_MS = 1_500;
const EVENT_RECORDED_AFTER_S = 3;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ purchaseWaitMs: WAIT_MS });
});
afterAll(async () => {
  await stack?.stop();
});

describe('a void that ends as the API stops waiting for it', () => {
  it('answers 200 voided, not 202 with a voided shipment', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const bought = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    // On a busy machine the purchase may outlast the short wait of this stack: followed to its end.
    expect([201, 202], bought.text).toContain(bought.status);
    await eventually(async () => {
      const s = await call(stack, 'GET', `/api/v1/shipments/${bought.body.id}`, { key: acct.liveKey });
      return s.body.status === 'purchased' ? true : undefined;
    }, 60_000, 'the purchase');
    // The void's last step, recording its event, takes a few seconds for this account (a real
    // PostgreSQL trigger): the row reads `voided` well before the update answers, across the wait.
    const db = stack.database.db;
    const fn = `slow_event_${acct.id.toLowerCase()}`;
    await db.execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
        begin if new.account_id = '${acct.id}' then perform pg_sleep(${EVENT_RECORDED_AFTER_S}); end if; return new; end $$`),
    );
    await db.execute(sql.raw(`create trigger ${fn} before insert on events for each row execute function ${fn}()`));
    try {
      const voided = await call(stack, 'POST', `/api/v1/shipments/${bought.body.id}/void`, { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() } });
      expect(voided.body.status).toBe('voided');
      expect(voided.status, voided.text).toBe(200);
    } finally {
      await db.execute(sql.raw(`drop trigger ${fn} on events; drop function ${fn}()`));
    }
  });
});
