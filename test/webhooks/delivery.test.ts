// Webhooks end to end on the real stack (API, Temporal dev server, PostgreSQL, workers, carrier
// simulator), delivered over HTTP to receivers on loopback that check every signature with an
// implementation written from the spec alone.
import type { ServerResponse } from 'node:http';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookFanout } from '../../activities/webhook-fanout.js';
import { EVENT_TYPES, parseAmount, type EventType } from '../../domain/index.js';
import { shipmentWorkflowId, webhookWorkflowId } from '../../contract/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { signatureTime, specVerify, startReceiver, type Answer, type Received, type Receiver } from './receiver.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
const receivers: Receiver[] = [];
beforeAll(async () => {
  // Loopback receivers need WEBHOOK_ALLOW_PRIVATE; quick polls bring carrier scans in seconds.
  stack = await startTestStack({ webhookAllowPrivate: true, trackingPollMinMs: 300, trackingPollMaxMs: 1000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
});

async function receiver(answer?: (r: Received, n: number) => Answer | Promise<Answer>) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function endpoint(key: string, url: string, events?: EventType[]): Promise<{ id: string; secret: string }> {
  const res = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key, body: { url, ...(events ? { events } : {}) } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function buy(key: string, reference = 'order-1') {
  const res = await call(stack, 'POST', '/api/v1/shipments', {
    key,
    body: { service: 'acme_ground', from: address(), to: address({ city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel(), reference },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; tracking: { number: string }; price: { gross: string } };
}

const purchasedOf = (r: Receiver, shipmentId: string) =>
  eventually(async () => r.received.find((x) => x.body?.type === 'shipment.purchased' && x.body.data.object.id === shipmentId), 30_000, `shipment.purchased of ${shipmentId}`);

const sig = (r: Received) => r.headers['x-svc-signature'] as string;
const verified = (r: Received, secret: string) => specVerify(r.raw, sig(r), secret, r.at / 1000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the shipment's workflow has announced its purchase's events (announceEvents, after
 * the answer): from then on every delivery the purchase will ever start has been started.
 */
const announced = (shipmentId: string) =>
  eventually(async () => {
    const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(shipmentId));
    const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    return currentDetails?.startsWith('purchased; next carrier poll') ? true : undefined;
  }, 30_000, `the events of ${shipmentId} announced`);

async function workflowExists(eventId: string, endpointId: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(webhookWorkflowId(eventId, endpointId)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

describe('webhook deliveries on the real stack', () => {
  it('delivers a signed event that an independent check accepts, to subscribed endpoints of the same account and mode only', async () => {
    const rx = await receiver();
    const acct = await createAccount(stack);
    const other = await createAccount(stack);
    const all = await endpoint(acct.testKey, rx.url);
    const voidedOnly = await endpoint(acct.testKey, `${rx.url}?only=voided`, ['shipment.voided']); // the same URL twice is refused
    const live = await endpoint(acct.liveKey, rx.url);
    const othersEndpoint = await endpoint(other.testKey, rx.url);

    const shipment = await buy(acct.testKey);
    const got = await purchasedOf(rx, shipment.id);
    const eventId: string = got.body.id;

    expect(verified(got, all.secret)).toBe(true);
    expect(Math.abs(got.at / 1000 - signatureTime(sig(got)))).toBeLessThan(5);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-svc-event-id']).toBe(eventId);
    expect(got.headers['x-svc-delivery-attempt']).toBe('1');
    expect(eventId).toMatch(/^evt_/);
    // The body is the event as GET /events/{id} shows it, the shipment as its object.
    const event = await call(stack, 'GET', `/api/v1/events/${eventId}`, { key: acct.testKey });
    expect(got.body).toEqual(event.body);
    expect(got.body).toMatchObject({ type: 'shipment.purchased', livemode: false, data: { object: { id: shipment.id, status: 'purchased' } } });

    // One workflow for the subscribed pair; none for another type, mode or account.
    expect(await workflowExists(eventId, all.id)).toBe(true);
    expect(await workflowExists(eventId, voidedOnly.id)).toBe(false);
    expect(await workflowExists(eventId, live.id)).toBe(false);
    expect(await workflowExists(eventId, othersEndpoint.id)).toBe(false);
    await stack.temporal.workflow.getHandle(webhookWorkflowId(eventId, all.id)).result();

    // A retried fan-out (the activity ran again) starts nothing new and sends nothing more.
    const before = await stack.temporal.workflow.getHandle(webhookWorkflowId(eventId, all.id)).describe();
    const fanOut = createWebhookFanout({ db: stack.database.db, temporal: stack.temporal, queuePrefix: stack.config.taskQueuePrefix });
    await fanOut({ id: eventId, type: 'shipment.purchased', accountId: acct.id, livemode: false });
    const after = await stack.temporal.workflow.getHandle(webhookWorkflowId(eventId, all.id)).describe();
    expect(after.runId).toBe(before.runId);
    await pause(1000);
    expect(rx.of(eventId)).toHaveLength(1);

    const log = await call(stack, 'GET', `/api/v1/webhook_endpoints/${all.id}/deliveries`, { key: acct.testKey });
    expect(log.body.data).toEqual([
      {
        id: expect.stringMatching(/^whd_/),
        object: 'webhook_delivery',
        event_id: eventId,
        attempt: 1,
        outcome: 'succeeded',
        status_code: 200,
        latency_ms: expect.any(Number),
        error: null,
        attempted_at: expect.stringMatching(/Z$/),
        livemode: false,
      },
    ]);
  });

  it('retries a failed delivery 10 s later with the same id and bytes, signed afresh; the log shows both attempts', async () => {
    const rx = await receiver((_r, n) => (n === 1 ? 500 : 200));
    const acct = await createAccount(stack);
    const ep = await endpoint(acct.testKey, rx.url, ['shipment.purchased']);
    const shipment = await buy(acct.testKey);
    const first = await purchasedOf(rx, shipment.id);
    const eventId: string = first.body.id;
    const attempts = await eventually(async () => (rx.of(eventId).length >= 2 ? rx.of(eventId) : undefined), 30_000, 'the retry');

    const [a, b] = attempts;
    expect(a.headers['x-svc-delivery-attempt']).toBe('1');
    expect(b.headers['x-svc-delivery-attempt']).toBe('2');
    expect(b.headers['x-svc-event-id']).toBe(eventId);
    expect(b.raw.equals(a.raw)).toBe(true);
    expect(verified(a, ep.secret)).toBe(true);
    expect(verified(b, ep.secret)).toBe(true);
    expect(b.at - a.at).toBeGreaterThanOrEqual(10_000);
    expect(b.at - a.at).toBeLessThan(15_000);
    expect(signatureTime(sig(b)) - signatureTime(sig(a))).toBeGreaterThanOrEqual(9);

    const result = await stack.temporal.workflow.getHandle(webhookWorkflowId(eventId, ep.id)).result();
    expect(result).toEqual({ outcome: 'delivered', attempts: 2 });
    await pause(500);
    expect(rx.of(eventId)).toHaveLength(2);

    // Newest first, one page at a time.
    const page1 = await call(stack, 'GET', `/api/v1/webhook_endpoints/${ep.id}/deliveries?limit=1`, { key: acct.testKey });
    expect(page1.body.data.map((d: any) => [d.attempt, d.outcome, d.status_code, d.error])).toEqual([[2, 'succeeded', 200, null]]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await call(stack, 'GET', `/api/v1/webhook_endpoints/${ep.id}/deliveries?limit=1&cursor=${page1.body.next_cursor}`, {
      key: acct.testKey,
    });
    expect(page2.body.data.map((d: any) => [d.attempt, d.outcome, d.status_code, d.error])).toEqual([[1, 'failed', 500, 'HTTP 500']]);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(Date.parse(page1.body.data[0].attempted_at) - Date.parse(page2.body.data[0].attempted_at)).toBeGreaterThanOrEqual(10_000);
  });

  it('loses nothing when the worker stops during a delivery: at most a duplicate with the same id', async () => {
    let held: ServerResponse | undefined;
    let arrived: () => void = () => undefined;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    const rx = await receiver((_r, n) => {
      if (n > 1) return 200;
      // Keep the first delivery open, as a slow receiver would, while the worker goes away.
      return { hold: (res) => ((held = res), arrived()) };
    });
    const acct = await createAccount(stack);
    const ep = await endpoint(acct.testKey, rx.url, ['shipment.purchased']);
    await buy(acct.testKey);
    await firstArrived;
    const eventId = rx.received[0].body.id as string;

    await stack.stopWorkers();
    held?.destroy();
    await pause(1000);
    await stack.startWorkers();

    const result = await stack.temporal.workflow.getHandle(webhookWorkflowId(eventId, ep.id)).result();
    expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
    const got = rx.of(eventId);
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(got.length).toBeLessThanOrEqual(2);
    for (const r of got) {
      expect(r.headers['x-svc-event-id']).toBe(eventId);
      expect(r.raw.equals(got[0].raw)).toBe(true);
      expect(verified(r, ep.secret)).toBe(true);
    }
    const log = await call(stack, 'GET', `/api/v1/webhook_endpoints/${ep.id}/deliveries`, { key: acct.testKey });
    expect(log.body.data.map((d: any) => [d.attempt, d.outcome])).toEqual([[1, 'succeeded']]);
  });

  it('sends wallet.low_balance once per crossing of the threshold, not on every purchase below it', async () => {
    const rx = await receiver();
    const acct: TestAccount = await createAccount(stack);
    await stack.admin.setAccount(acct.id, { lowBalanceThreshold: '20.00' });
    const ep = await endpoint(acct.liveKey, rx.url, ['wallet.low_balance']);
    const quote = await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from: address(), to: address({ city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel() } });
    const gross = parseAmount(quote.body.data.find((q: any) => q.service.code === 'acme_ground').price.gross)!;
    const money = (minor: number) => (minor / 100).toFixed(2);
    // 20.00 + 1.5 labels: the first purchase stays above, the second crosses, the third stays below.
    await stack.admin.topUp(acct.id, money(2000 + Math.round(1.5 * gross)));
    const bought = [await buy(acct.liveKey, 'above'), await buy(acct.liveKey, 'crosses'), await buy(acct.liveKey, 'below')];
    // Back above the threshold, and down across it again: a second crossing.
    await stack.admin.topUp(acct.id, money(2 * gross));
    bought.push(await buy(acct.liveKey, 'crosses-again'));

    const events = await eventually(async () => {
      const res = await call(stack, 'GET', '/api/v1/events?type=wallet.low_balance', { key: acct.liveKey });
      return res.body.data.length >= 2 ? res.body.data : undefined;
    }, 30_000, 'two low-balance events');
    // Every delivery the four purchases start has started, and the two of the events have ended.
    for (const s of bought) await announced(s.id);
    for (const e of events) {
      expect(await stack.temporal.workflow.getHandle(webhookWorkflowId(e.id, ep.id)).result()).toEqual({ outcome: 'delivered', attempts: 1 });
    }
    const again = await call(stack, 'GET', '/api/v1/events?type=wallet.low_balance', { key: acct.liveKey });
    expect(again.body.data).toHaveLength(2);
    expect(rx.received).toHaveLength(2);
    expect(new Set(rx.received.map((r) => r.body.id))).toEqual(new Set(events.map((e: any) => e.id)));
    for (const r of rx.received) {
      expect(verified(r, ep.secret)).toBe(true);
      expect(r.body).toMatchObject({ type: 'wallet.low_balance', livemode: true, data: { object: { object: 'balance', low_balance_threshold: '20.00' } } });
      expect(parseAmount(r.body.data.object.available)!).toBeLessThan(2000);
    }
  });

  it('delivers every event type of the spec from the event log', async () => {
    const rx = await receiver();
    const acct = await createAccount(stack, { topUp: '100.00' });
    await stack.admin.setAccount(acct.id, { lowBalanceThreshold: '90.00' });
    const ep = await endpoint(acct.liveKey, rx.url);
    const travels = await buy(acct.liveKey, 'travels'); // crosses 90.00: wallet.low_balance
    const voided = await buy(acct.liveKey, 'voided');
    const v = await call(stack, 'POST', `/api/v1/shipments/${voided.id}/void`, { key: acct.liveKey });
    expect(v.status, v.text).toBe(200);
    // A batch of one: batch.completed.
    const batch = await call(stack, 'POST', '/api/v1/batches', {
      key: acct.liveKey,
      body: { shipments: [{ service: 'acme_ground', from: address(), to: address({ city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel(), reference: 'batched' }] },
    });
    expect(batch.status, batch.text).toBe(202);
    for (const status of ['in_transit', 'exception', 'delivered']) {
      await sim.scan(travels.tracking.number, status, `scan ${status}`);
      await eventually(async () => rx.received.find((r) => r.body?.type === 'tracking.updated' && r.body.data.object.status === status), 30_000, status);
    }
    const types = await eventually(async () => {
      const seen = new Set(rx.received.map((r) => r.body?.type));
      return EVENT_TYPES.every((t) => seen.has(t)) ? seen : undefined;
    }, 30_000, 'every event type');
    expect([...types].sort()).toEqual([...EVENT_TYPES].sort());
    for (const r of rx.received) expect(verified(r, ep.secret), r.body?.type).toBe(true);

    const scan = rx.received.find((r) => r.body.type === 'tracking.updated' && r.body.data.object.status === 'delivered')!;
    expect(scan.body.data.object).toMatchObject({
      tracking_number: travels.tracking.number,
      shipment_id: travels.id,
      status: 'delivered',
      event: { status: 'delivered', description: 'scan delivered' },
    });
    const voidedEvent = rx.received.find((r) => r.body.type === 'shipment.voided')!;
    expect(voidedEvent.body.data.object).toMatchObject({ id: voided.id, status: 'voided' });
    // Each delivered event is in the log the receiver can reconcile against, and arrived once.
    const ids = rx.received.map((r) => r.body.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sends nothing to a deleted endpoint', async () => {
    const rx = await receiver();
    const acct = await createAccount(stack);
    const ep = await endpoint(acct.testKey, rx.url);
    const del = await call(stack, 'DELETE', `/api/v1/webhook_endpoints/${ep.id}`, { key: acct.testKey });
    expect(del.status).toBe(200);
    const shipment = await buy(acct.testKey);
    const event = await eventually(async () => {
      const res = await call(stack, 'GET', `/api/v1/events?shipment=${shipment.id}`, { key: acct.testKey });
      return res.body.data[0];
    });
    await announced(shipment.id);
    expect(await workflowExists(event.id, ep.id)).toBe(false);
    expect(rx.received).toHaveLength(0);
  });
});
