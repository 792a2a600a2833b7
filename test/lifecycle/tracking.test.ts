import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devCarrierWebhookSecret } from '../../config/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // The loop's intervals scaled down: a few hundred milliseconds stand for hours, and
  // continue-as-new is forced every two polls.
  stack = await startTestStack({ trackingPollMinMs: 200, trackingPollMaxMs: 800, trackingContinueAsNewAfterPolls: 2 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

describe('the tracking loop', () => {
  it('follows a parcel to delivered: every scan once and in order, history bounded by continue-as-new, no poll after', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const buy = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'weeks' },
    });
    expect(buy.status, buy.text).toBe(201);
    const { id, tracking } = buy.body;
    const journey = ['in_transit', 'in_transit', 'exception', 'in_transit', 'out_for_delivery', 'delivered'];
    const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(id));
    const scansRecorded = async () =>
      (await call(stack, 'GET', `/api/v1/tracking/${tracking.number}`, { key: acct.liveKey })).body.events.length as number;
    for (const [i, status] of journey.entries()) {
      await sim.scan(tracking.number, status, `scan ${i + 1}`);
      if (i === journey.length - 1) break;
      // Between scans, as days pass between real ones: the scan is polled and recorded, then the
      // loop polls on and continues as new before the next scan comes.
      await eventually(async () => ((await scansRecorded()) === i + 1 ? true : undefined), 30_000, `scan ${i + 1} recorded`);
      const recordedBy = (await handle.describe()).runId;
      await eventually(async () => ((await handle.describe()).runId !== recordedBy ? true : undefined), 30_000, `a continue-as-new after scan ${i + 1}`);
    }
    const result = await eventually(async () => {
      const d = await handle.describe();
      return d.status.name === 'COMPLETED' ? d : undefined;
    }, 30_000, 'the workflow to end at delivered');
    expect(result.status.name).toBe('COMPLETED');

    const t = await call(stack, 'GET', `/api/v1/tracking/${tracking.number}`, { key: acct.liveKey });
    expect(t.body.status).toBe('delivered');
    expect(t.body.events.map((e: any) => e.description)).toEqual(journey.map((_, i) => `scan ${i + 1}`));
    expect(t.body.events.map((e: any) => e.status)).toEqual(journey);
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    expect(s.body.status).toBe('delivered');

    const events = await call(stack, 'GET', `/api/v1/events?shipment=${id}&limit=100`, { key: acct.liveKey });
    const types = events.body.data.map((e: any) => e.type).reverse();
    expect(types.filter((x: string) => x === 'tracking.updated')).toHaveLength(journey.length);
    expect(types.filter((x: string) => x.startsWith('shipment.'))).toEqual([
      'shipment.purchased',
      'shipment.in_transit',
      'shipment.exception',
      'shipment.in_transit',
      'shipment.delivered',
    ]);

    // Several runs, each with a small history.
    const runs: string[] = [];
    for await (const w of stack.temporal.workflow.list({ query: `WorkflowId = '${shipmentWorkflowId(id)}'` })) runs.push(`${w.status.name}:${w.historyLength}`);
    expect(runs.filter((r) => r.startsWith('CONTINUED_AS_NEW')).length, JSON.stringify(runs)).toBeGreaterThanOrEqual(2);
    const history = await handle.fetchHistory();
    expect(history.events?.length ?? 0).toBeLessThan(200);

    // Delivered is terminal: a later scan changes nothing and nothing polls any more.
    await sim.scan(tracking.number, 'exception', 'too late');
    await new Promise((r) => setTimeout(r, 1500));
    const after = await call(stack, 'GET', `/api/v1/tracking/${tracking.number}`, { key: acct.liveKey });
    expect(after.body.events).toHaveLength(journey.length);
  });

  it('keeps a delivered shipment delivered when a later scan comes with its delivery: the scan is set aside, no event', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const buy = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    expect(buy.status, buy.text).toBe(201);
    const { id, tracking } = buy.body;
    // One carrier push (as one poll's answer could) with the delivery and a scan after it.
    const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
    const pushed = await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
      headers: { authorization: `Bearer ${devCarrierWebhookSecret('acme')}` },
      body: {
        tracking_number: tracking.number,
        scans: [
          { id: `${id}-d`, occurred_at: at(1), status: 'delivered', description: 'Delivered' },
          { id: `${id}-x`, occurred_at: at(2), status: 'exception', description: 'Returned to depot' },
        ],
      },
    });
    expect(pushed.status, pushed.text).toBe(202);
    const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(id));
    await eventually(async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined), 30_000, 'the workflow to end at delivered');
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    expect(s.body.status).toBe('delivered');
    expect(s.body.tracking.status).toBe('delivered');
    const t = await call(stack, 'GET', `/api/v1/tracking/${tracking.number}`, { key: acct.liveKey });
    expect(t.body.status).toBe('delivered');
    expect(t.body.events.map((e: any) => e.status)).toEqual(['delivered']);
    const events = await call(stack, 'GET', `/api/v1/events?shipment=${id}&limit=100`, { key: acct.liveKey });
    const updates = events.body.data.filter((e: any) => e.type === 'tracking.updated').map((e: any) => e.data.object.status);
    expect(updates).toEqual(['delivered']);
  });
});
