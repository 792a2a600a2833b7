import { randomUUID } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findStuckShipments, formatStuck } from '../../scripts/ops/stuck.js';
import { EncryptionCodec } from '../../codec/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack({ purchaseWaitMs: 1000, carrierTimeoutMs: 1000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

describe('npm run ops -- stuck', () => {
  it('lists a purchase whose carrier stays down, with the carrier’s last error, and drops it once the carrier is back', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const marker = `stuck-${randomUUID()}`;
    await sim.fault({ carrier: 'swiftpost', operation: 'buy', mode: 'error', status: 503, times: -1, match: marker });
    const a = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'swiftpost_standard', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker },
    });
    expect(a.status, a.text).toBe(202);
    const options = { olderThanMs: 0, uiUrl: 'http://ui.example', namespace: 'default', accountId: acct.id };
    const listed = await eventually(async () => {
      const stuck = await findStuckShipments(stack.temporal, options);
      const mine = stuck.find((s) => s.shipment_id === a.body.id);
      return mine && /attempt [2-9]/.test(mine.details ?? '') ? mine : undefined;
    }, 30_000, 'the stuck purchase to be listed with its failure');
    expect(listed.status).toBe('pending');
    expect(listed.reference).toBe(marker);
    expect(listed.account_id).toBe(acct.id);
    // Its carrier is known from the start, so the UI's query by carrier finds it while it is stuck.
    expect(listed.carrier).toBe('swiftpost');
    const byCarrier: string[] = [];
    for await (const w of stack.temporal.workflow.list({ query: `Carrier = 'swiftpost' AND ShipmentStatus = 'pending' AND AccountId = '${acct.id}'` })) byCarrier.push(w.workflowId);
    expect(byCarrier).toEqual([`shipment/${a.body.id}`]);
    // The workflow says what it waits for: the carrier, the attempt and the carrier's last error.
    expect(listed.details).toMatch(/carrier swiftpost, attempt \d+, last error: .*503/);
    for (const activity of listed.pending_activities) {
      // A 503 to a purchase may come from a gateway that forwarded it: the buy and the lookup alternate.
      expect(['buyLabel', 'findPurchase']).toContain(activity.activity);
      expect(activity.task_queue).toContain('carrier-swiftpost');
    }
    expect(listed.ui_url).toBe(`http://ui.example/namespaces/default/workflows/${encodeURIComponent(`shipment/${a.body.id}`)}/${listed.ui_url.split('/').at(-2)}/history`);
    // Not old enough yet for a ten-minute threshold.
    expect((await findStuckShipments(stack.temporal, { ...options, olderThanMs: 600_000 })).map((s) => s.shipment_id)).not.toContain(a.body.id);

    await sim.clearFaults(marker);
    await eventually(async () => {
      const stuck = await findStuckShipments(stack.temporal, options);
      return stuck.some((s) => s.shipment_id === a.body.id) ? undefined : true;
    }, 60_000, 'the purchase to leave the stuck list');
    const s = await call(stack, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
    expect(s.body.status).toBe('purchased');
  });

  it('lists a void that retries an unreachable carrier, waiting since the void was accepted (it waits on timers, not activities)', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const bought = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() } });
    expect(bought.status, bought.text).toBe(201);
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 503, times: -1, match: bought.body.id });
    const voidAsked = Date.now();
    const v = await call(stack, 'POST', `/api/v1/shipments/${bought.body.id}/void`, { key: acct.liveKey });
    expect(v.status, v.text).toBe(202);
    const options = { olderThanMs: 3000, uiUrl: 'http://ui.example', namespace: 'default', accountId: acct.id };
    const listed = await eventually(async () => {
      const stuck = await findStuckShipments(stack.temporal, options);
      return stuck.find((s) => s.shipment_id === bought.body.id);
    }, 30_000, 'the stuck void to be listed');
    expect(listed.status).toBe('voiding');
    expect(Math.abs(Date.parse(listed.waiting_since) - voidAsked)).toBeLessThan(2000);
    expect(listed.details).toMatch(/void: cancelling at carrier acme, attempt \d+/);
    await sim.clearFaults(bought.body.id);
  });
});

describe('search attributes for operators', () => {
  it('finds a shipment in Temporal by reference, tracking number, account, carrier and status', async () => {
    const acct = await createAccount(stack, { topUp: '40.00' });
    const reference = `find-me-${randomUUID()}`;
    const a = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference },
    });
    expect(a.status, a.text).toBe(201);
    const queries = [
      `Reference = '${reference}'`,
      `TrackingNumber = '${a.body.tracking.number}'`,
      `AccountId = '${acct.id}' AND Livemode = true`,
      `AccountId = '${acct.id}' AND Carrier = 'acme' AND ShipmentStatus = 'purchased'`,
    ];
    for (const query of queries) {
      const ids = await eventually(async () => {
        const found: string[] = [];
        for await (const w of stack.temporal.workflow.list({ query })) found.push(w.workflowId);
        return found.length ? found : undefined;
      }, 20_000, query);
      expect(ids, query).toEqual([`shipment/${a.body.id}`]);
    }
    const handle = stack.temporal.workflow.getHandle(`shipment/${a.body.id}`);
    expect(await (await handle.describe()).staticSummary()).toContain(reference);
    // Every activity and the tracking loop's timer carry a summary an operator can read.
    const history = await eventually(async () => {
      const h = await handle.fetchHistory();
      return h.events?.some((e) => e.timerStartedEventAttributes) ? h : undefined;
    }, 20_000, 'the tracking timer');
    // Summaries are payloads like any other: encrypted on the server, decoded with the codec.
    const codec = new EncryptionCodec(stack.config.payloadEncryptionKey, stack.config.payloadDecryptionKeys);
    const decoded = new Map<unknown, string | null>();
    for (const e of history.events!) {
      const payload = e.userMetadata?.summary;
      if (!payload?.data) continue;
      const [plain] = await codec.decode([payload as Payload]);
      decoded.set(e, JSON.parse(Buffer.from(plain.data!).toString()));
    }
    const summaryOf = (e: unknown) => decoded.get(e) ?? null;
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    const names = scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    // The label render runs in the capture's worker: the carrier's buy is the one activity.
    expect(names).toEqual(['buyLabel']);
    // No webhook endpoint takes this account's events: no announcement is scheduled at all.
    expect(names).not.toContain('announceEvents');
    for (const e of scheduled) expect(summaryOf(e), e.activityTaskScheduledEventAttributes?.activityType?.name ?? '').toBeTruthy();
    // The purchase's own transactions run as local activities: markers named by their activity type
    // (the server keeps no summary for them; the current details say what runs).
    const local = history.events!.filter((e) => e.markerRecordedEventAttributes);
    expect(local.length).toBeGreaterThanOrEqual(2);
    const timer = history.events!.find((e) => e.timerStartedEventAttributes)!;
    expect(summaryOf(timer)).toMatch(/next poll of carrier acme/);
  });
});

describe("ops stuck's text", () => {
  it('says how long each has waited, its reference, what it does now, and its pending step with that step’s own attempt', () => {
    const text = formatStuck(
      [
        {
          shipment_id: 'shp_1',
          status: 'pending',
          account_id: 'acc_1',
          carrier: 'swiftpost',
          reference: 'order-7',
          livemode: true,
          waiting_since: '2026-11-24T10:00:00.000Z',
          details: 'buying the label from carrier swiftpost, attempt 2, last error: 503',
          pending_activities: [{ activity: 'buyLabel', task_queue: 'carrier-swiftpost', attempt: 1, last_failure: null, next_attempt_at: null }],
          ui_url: 'http://ui/x',
        },
        { shipment_id: 'shp_2', status: 'voiding', account_id: null, carrier: 'acme', reference: null, livemode: true, waiting_since: '2026-11-24T10:11:30.000Z', details: null, pending_activities: [], ui_url: 'http://ui/y' },
      ],
      new Date('2026-11-24T10:12:05.000Z'),
    );
    expect(text.split('\n')).toEqual([
      'shp_1  pending for 12m5s (since 2026-11-24T10:00:00.000Z)  carrier swiftpost  account acc_1  reference order-7',
      '  now: buying the label from carrier swiftpost, attempt 2, last error: 503',
      '  pending step: buyLabel on carrier-swiftpost, its attempt 1, last error: none',
      '  http://ui/x',
      'shp_2  voiding for 35s (since 2026-11-24T10:11:30.000Z)  carrier acme  account -',
      '  now: (no worker answered in time: see the pending steps below, and the workers)',
      '  http://ui/y',
      '',
    ]);
  });
});
