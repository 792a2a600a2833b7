import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntriesOf } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // Polls far apart, so a scan the carrier has made is not yet seen by any poll.
  stack = await startTestStack({ trackingPollMinMs: 3_600_000, trackingPollMaxMs: 3_600_000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

async function purchased(acct: TestAccount, o: { live?: boolean; marker?: string; service?: string } = {}) {
  const marker = o.marker ?? `void-${randomUUID()}`;
  const a = await call(stack, 'POST', '/api/v1/shipments', {
    key: o.live === false ? acct.testKey : acct.liveKey,
    body: { service: o.service ?? 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker },
  });
  expect(a.status, a.text).toBe(201);
  return a.body;
}
const voidIt = (acct: TestAccount, id: string, key?: string, live = true) =>
  call(stack, 'POST', `/api/v1/shipments/${id}/void`, {
    key: live ? acct.liveKey : acct.testKey,
    headers: key ? { 'idempotency-key': key } : {},
  });

describe('void (spec §3 rules 2 and 3)', () => {
  for (const service of ['acme_ground', 'swiftpost_standard']) {
    it(`returns the balance exactly and cancels the label at the carrier (${service})`, async () => {
      const acct = await createAccount(stack, { topUp: '40.00' });
      const before = await expectLedgerConsistent(stack, acct.id);
      const s = await purchased(acct, { service });
      const key = randomUUID();
      const v = await voidIt(acct, s.id, key);
      expect(v.status, v.text).toBe(200);
      expect(v.body.status).toBe('voided');
      expect(v.body.tracking.status).toBe('cancelled');
      const after = await expectLedgerConsistent(stack, acct.id);
      expect(after.balance).toBe(before.balance);
      expect(after.pending).toBe(0);
      expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).toEqual(['topup', 'hold', 'capture', 'refund']);
      const labels = await sim.purchases(s.id);
      expect(labels).toHaveLength(1);
      expect(labels[0].cancelled).toBe(true);

      const replay = await voidIt(acct, s.id, key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotency-replayed']).toBe('true');
      expect(replay.body).toEqual(v.body);

      const second = await voidIt(acct, s.id, randomUUID());
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('shipment_not_voidable');

      const label = await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/zpl`, { key: acct.liveKey });
      expect(label.status).toBe(409);
      expect(label.body.code).toBe('label_not_available');
      const events = await call(stack, 'GET', `/api/v1/events?shipment=${s.id}`, { key: acct.liveKey });
      expect(events.body.data.map((e: any) => e.type)).toEqual(['shipment.voided', 'shipment.purchased']);
    });
  }

  it('refuses a void after a carrier scan that no poll has seen yet', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const s = await purchased(acct);
    await sim.scan(s.tracking.number, 'in_transit', 'Collected');
    const v = await voidIt(acct, s.id, randomUUID());
    expect(v.status, v.text).toBe(409);
    expect(v.body.code).toBe('label_already_scanned');
    expect(v.body.shipment_id).toBe(s.id);
    const read = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
    expect(read.body.status).toBe('in_transit');
    expect((await sim.purchases(s.id))[0].cancelled).toBe(false);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(4000 - Math.round(Number(s.price.gross) * 100));
    const again = await voidIt(acct, s.id);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('label_already_scanned');
  });

  it('leaves money and status unchanged when the carrier refuses the cancellation', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const marker = `refuse-cancel-${randomUUID()}`;
    const s = await purchased(acct, { marker });
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 422, match: s.id });
    const before = await expectLedgerConsistent(stack, acct.id);
    const v = await voidIt(acct, s.id, randomUUID());
    expect(v.status, v.text).toBe(502);
    expect(v.body.code).toBe('carrier_error');
    const read = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
    expect(read.body.status).toBe('purchased');
    const after = await expectLedgerConsistent(stack, acct.id);
    expect(after.balance).toBe(before.balance);
    expect((await sim.purchases(s.id))[0].cancelled).toBe(false);
    // Once the carrier accepts, the same shipment voids.
    const retry = await voidIt(acct, s.id, randomUUID());
    expect(retry.status, retry.text).toBe(200);
  });

  it('runs a void anew under the same Idempotency-Key once a failure has freed it (contract rule 4)', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const s = await purchased(acct);
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 422, match: s.id, times: 1 });
    const key = randomUUID();
    const refused = await voidIt(acct, s.id, key);
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.code).toBe('carrier_error');
    expect(refused.body.shipment_id).toBe(s.id);
    // The same key again: a new attempt, not the first answer replayed (the void's update id was the
    // key, and Temporal answered the repeated id with the stored refusal, forever).
    const again = await voidIt(acct, s.id, key);
    expect(again.status, again.text).toBe(200);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
    expect(again.body.status).toBe('voided');
    expect((await sim.purchases(s.id))[0].cancelled).toBe(true);
    // And from now on that key replays the void that succeeded.
    const replay = await voidIt(acct, s.id, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body).toEqual(again.body);
  });

  it('takes no parameters: a field is refused with 422 and nothing is voided; {} is the same request as no body', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const s = await purchased(acct);
    for (const body of [{ reason: 'x', amount: -5 }, [], 'void']) {
      const refused = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey, body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.code).toBe('validation_failed');
    }
    const fields = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey, body: { reason: 'x' } });
    expect(fields.body.errors).toEqual([{ path: 'reason', message: 'is not a known field' }]);
    expect((await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey })).body.status).toBe('purchased');
    const key = randomUUID();
    const voided = await voidIt(acct, s.id, key);
    expect(voided.status, voided.text).toBe(200);
    const withEmpty = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey, body: {}, headers: { 'idempotency-key': key } });
    expect(withEmpty.status, withEmpty.text).toBe(200);
    expect(withEmpty.headers['idempotency-replayed']).toBe('true');
  });

  it('takes an empty body labelled as JSON as no body (many clients label every POST so)', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const s = await purchased(acct);
    const voided = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey, rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
  });

  it('voids a card purchase by refunding the card, and a sandbox one without moving money', async () => {
    const card = await createAccount(stack, { funding: 'card' });
    const s = await purchased(card);
    expect((await voidIt(card, s.id)).status).toBe(200);
    expect((await sim.cardCharges(s.id)).map((c) => c.status)).toEqual(['refunded']);
    await expectLedgerConsistent(stack, card.id);

    const acct = await createAccount(stack, { topUp: '5.00' });
    const sandbox = await purchased(acct, { live: false });
    const v = await voidIt(acct, sandbox.id, undefined, false);
    expect(v.status, v.text).toBe(200);
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: acct.testKey })).body.available).toBe('5.00');
  });

  it('keeps asking for a card refund the processor refused, and answers the void as voided, not 409', async () => {
    // The carrier has cancelled the label by then: the refund is owed (spec §3 rule 3). A refusal
    // treated as final failed the void's update, so the first void answered 409 "already being
    // voided" and the shipment stayed voiding, the card still charged, with nothing more tried.
    const card = await createAccount(stack, { funding: 'card' });
    const s = await purchased(card);
    const [charge] = await sim.cardCharges(s.id);
    await sim.fault({ carrier: 'cardpay', operation: 'refund', mode: 'error', status: 422, code: 'refund_refused', match: charge.id, times: 1 });
    const v = await voidIt(card, s.id, randomUUID());
    expect(v.status, v.text).toBe(200);
    expect(v.body.status).toBe('voided');
    expect((await sim.cardCharges(s.id)).map((c) => c.status)).toEqual(['refunded']);
    expect(await sim.faults(charge.id)).toEqual([]);
    await expectLedgerConsistent(stack, card.id);
  });

  it('answers 404 for another account’s shipment and 409 for a failed one', async () => {
    const owner = await createAccount(stack, { topUp: '40.00' });
    const s = await purchased(owner);
    const stranger = await createAccount(stack);
    expect((await voidIt(stranger, s.id)).status).toBe(404);
    const poor = await createAccount(stack, { topUp: '0.10' });
    const failed = await call(stack, 'POST', '/api/v1/shipments', {
      key: poor.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    const v = await voidIt(poor, failed.body.shipment_id);
    expect(v.status).toBe(409);
    expect(v.body.code).toBe('shipment_not_voidable');
  });
});

describe('pushed scans', () => {
  it('shows a carrier-pushed scan in tracking and as an event without waiting for the next poll', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const s = await purchased(acct);
    const push = await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
      headers: { authorization: 'Bearer dev-carrier-acme-secret' },
      body: {
        tracking_number: s.tracking.number,
        scans: [{ id: 'scan-1', occurred_at: new Date().toISOString(), status: 'in_transit', description: 'Collected', location: { city: 'Leeds', postcode: 'LS1', country: 'GB' } }],
      },
    });
    expect(push.status, push.text).toBe(202);
    const tracking = await eventually(async () => {
      const t = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.liveKey });
      return t.body.events?.length && t.body.status === 'in_transit' ? t.body : undefined;
    }, 20_000, 'the pushed scan');
    expect(tracking).toMatchObject({ tracking_number: s.tracking.number, carrier: 'acme', shipment_id: s.id, status: 'in_transit', livemode: true });
    expect(tracking.events[0]).toMatchObject({ status: 'in_transit', description: 'Collected', location: { city: 'Leeds' } });
    const events = await eventually(async () => {
      const e = await call(stack, 'GET', `/api/v1/events?shipment=${s.id}`, { key: acct.liveKey });
      return e.body.data.length >= 3 ? e.body.data : undefined;
    }, 20_000, 'events');
    expect(events.map((e: any) => e.type).sort()).toEqual(['shipment.in_transit', 'shipment.purchased', 'tracking.updated']);
    const event = await call(stack, 'GET', `/api/v1/events/${events[0].id}`, { key: acct.liveKey });
    expect(event.body.id).toBe(events[0].id);
    // The same scan pushed again is recorded once. A new scan pushed after it is the fence: pushes
    // reach the workflow in order, so once it is recorded the repeated one has been handled too.
    const again = await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
      headers: { authorization: 'Bearer dev-carrier-acme-secret' },
      body: { tracking_number: s.tracking.number, scans: [{ id: 'scan-1', occurred_at: new Date().toISOString(), status: 'in_transit' }] },
    });
    expect(again.status, again.text).toBe(202);
    const fence = await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
      headers: { authorization: 'Bearer dev-carrier-acme-secret' },
      body: { tracking_number: s.tracking.number, scans: [{ id: 'scan-2', occurred_at: new Date().toISOString(), status: 'in_transit', description: 'Sorted' }] },
    });
    expect(fence.status, fence.text).toBe(202);
    const after = await eventually(async () => {
      const t = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.liveKey });
      return t.body.events.some((e: any) => e.description === 'Sorted') ? t.body.events : undefined;
    }, 20_000, 'the scan pushed after the repeated one');
    expect(after.map((e: any) => e.description)).toEqual(['Collected', 'Sorted']);
  });

  it('refuses a carrier push without the carrier’s secret', async () => {
    const a = await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
      headers: { authorization: 'Bearer wrong' },
      body: { tracking_number: 'ACM1', scans: [{ id: 'x', occurred_at: new Date().toISOString(), status: 'delivered' }] },
    });
    expect(a.status).toBe(401);
  });

  it('refuses a sandbox scan that reaches a shipment whose void finished after it was read, instead of accepting and dropping it', async () => {
    const acct = await createAccount(stack);
    const s = await purchased(acct, { live: false });
    const v = await voidIt(acct, s.id, undefined, false);
    expect(v.status, v.text).toBe(200);
    // The scan route read the row before the void finished (a few milliseconds' race): replayed
    // here by putting the row back as it was read, while the shipment's workflow has ended for good.
    await stack.database.db.execute(sql`update shipments set status = 'purchased' where id = ${s.id}`);
    const scan = await call(stack, 'POST', `/api/v1/sandbox/shipments/${s.id}/scans`, { key: acct.testKey, body: { status: 'in_transit' } });
    expect(scan.status, scan.text).toBe(409);
    expect(scan.body.code).toBe('label_not_available');
    const t = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.testKey });
    expect(t.body.events).toEqual([]);
  });

  it('records sandbox scans through the same path, and hides the endpoint from live keys', async () => {
    const acct = await createAccount(stack);
    const s = await purchased(acct, { live: false });
    const scan = await call(stack, 'POST', `/api/v1/sandbox/shipments/${s.id}/scans`, { key: acct.testKey, body: { status: 'out_for_delivery' } });
    expect(scan.status, scan.text).toBe(202);
    const t = await eventually(async () => {
      const r = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.testKey });
      return r.body.events?.length && r.body.status === 'out_for_delivery' ? r.body : undefined;
    }, 20_000, 'the sandbox scan');
    expect(t.status).toBe('out_for_delivery');
    await eventually(async () => {
      const r = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.testKey });
      return r.body.status === 'in_transit' ? true : undefined;
    }, 20_000, 'the shipment to be in transit');
    const live = await purchased(await createAccount(stack, { topUp: '20.00' }));
    const refused = await call(stack, 'POST', `/api/v1/sandbox/shipments/${live.id}/scans`, { key: acct.liveKey, body: { status: 'delivered' } });
    expect(refused.status).toBe(404);
    const other = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.liveKey });
    expect(other.status).toBe(404);
  });
});
