// UPS Track Alert end to end: a live UPS label is subscribed as its tracking starts, the UPS
// simulator pushes each event as the document describes (a bearer token from our token endpoint,
// then the TrackingEvent), and the event reaches the shipment's workflow as a signal, with no poll.
// A forged push reaches nothing; a repeated one changes nothing.
import { randomBytes } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devCarrierWebhookSecret } from '../../config/index.js';
import { SIMULATOR_CREDENTIALS } from '../../tools/carrier-sim/index.js';
import { startUpsSimulator } from '../../tools/carrier-sim/ups/index.js';
import type { SimExtraScan } from '../../tools/carrier-sim/ups/state.js';
import { call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { eventually } from '../support/sim.js';

const upsScans = new Map<string, SimExtraScan[]>();
let ups: Awaited<ReturnType<typeof startUpsSimulator>>;
let stack: TestStack;
let acct: TestAccount;

const PUSH = '/api/v1/carrier-webhooks/ups/track-alert';
const TOKEN = '/api/v1/carrier-webhooks/ups/oauth/token';
const SECRET = devCarrierWebhookSecret('ups');

beforeAll(async () => {
  ups = await startUpsSimulator({ ...SIMULATOR_CREDENTIALS.ups, extraScans: (n) => upsScans.get(n) ?? [] });
  // The deployment's own poll bounds: within the test, only a push can move a parcel.
  stack = await startTestStack({ carrierUrls: { ups: ups.url } });
  // "Manage Webhook Credentials": the account's webhook and the credentials UPS takes its token with.
  ups.sim.trackAlert.setWebhook({ url: `${stack.url}${PUSH}`, tokenUrl: `${stack.url}${TOKEN}`, clientId: 'ups', clientSecret: SECRET });
  acct = await createAccount(stack, { currency: 'USD', topUp: '500.00' });
});
afterAll(async () => {
  await stack?.stop();
  await ups?.close();
});

const FROM = { name: 'Shipper', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
const TO = { name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
const PARCEL = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };

/** A live UPS Ground label, once UPS has it subscribed. */
async function subscribedLabel(): Promise<{ id: string; trackingNumber: string }> {
  const bought = await call(stack, 'POST', '/api/v1/shipments', {
    key: acct.liveKey,
    headers: { 'idempotency-key': randomBytes(8).toString('hex') },
    body: { service: 'ups_ground', from: FROM, to: TO, parcel: PARCEL },
  });
  expect(bought.status, bought.text).toBe(201);
  const trackingNumber = bought.body.tracking.number as string;
  await eventually(async () => ups.sim.trackAlert.isSubscribed(trackingNumber) || undefined, 30_000, `${trackingNumber} subscribed`);
  return { id: bought.body.id, trackingNumber };
}

/** UPS scans the package now: Track Alert pushes the event. */
function upsScan(trackingNumber: string, type: string, code: string, description: string): void {
  upsScans.set(trackingNumber, [...(upsScans.get(trackingNumber) ?? []), { at: Date.now(), type, code, description, city: 'Atlanta', postalCode: '30336' }]);
  ups.sim.trackAlert.notify(trackingNumber);
}

const trackingOf = async (n: string) => (await call(stack, 'GET', `/api/v1/tracking/${n}`, { key: acct.liveKey })).body;
const trackingEvents = async (id: string) =>
  (await call(stack, 'GET', '/api/v1/events?type=tracking.updated&limit=100', { key: acct.liveKey })).body.data.filter((e: any) => e.data.object.shipment_id === id);
const polls = () => ups.sim.log.filter((l) => l.operation === 'track').length;

async function token(credentials = `ups:${SECRET}`): Promise<{ status: number; body: any }> {
  return call(stack, 'POST', TOKEN, {
    headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: 'grant_type=client_credentials',
  });
}

/** The events of every run of a workflow, oldest run first (each run names the one it continued). */
async function historyOfEveryRun(workflowId: string) {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let runId: string | undefined = (await stack.temporal.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history: temporal.api.history.v1.IHistoryEvent[] = (await stack.temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    events.unshift(...history);
    runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return events;
}

describe('UPS Track Alert', () => {
  it('an event UPS pushes reaches its shipment\'s workflow: recorded, the status moved, announced; no poll', async () => {
    const pollsBefore = polls();
    const { id, trackingNumber } = await subscribedLabel();
    upsScan(trackingNumber, 'I', 'DP', 'Departed from Facility');
    const tracking = await eventually(async () => {
      const t = await trackingOf(trackingNumber);
      return t.status === 'in_transit' ? t : undefined;
    }, 60_000, 'the pushed event recorded');
    expect(tracking).toMatchObject({ shipment_id: id, status: 'in_transit', events: [{ status: 'in_transit', description: 'Departed from Facility', carrier_code: 'I' }] });
    expect((await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey })).body.status).toBe('in_transit');
    // Delivered by push too: the workflow ends with the parcel delivered.
    upsScan(trackingNumber, 'O', 'OT', 'Out For Delivery Today');
    upsScan(trackingNumber, 'D', 'FS', 'DELIVERED');
    await eventually(async () => ((await trackingOf(trackingNumber)).status === 'delivered' ? true : undefined), 60_000, 'delivered');
    const handle = stack.temporal.workflow.getHandle(`shipment/${id}`);
    expect(await handle.result()).toMatchObject({ status: 'delivered' });
    // Signals carried every event; the carrier was never polled for this parcel. Its runs' histories
    // together: the first run goes on as new on the tracking queue after its first wait.
    const history = await historyOfEveryRun(handle.workflowId);
    expect(history.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'scans').length).toBeGreaterThanOrEqual(3);
    expect(history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchScans')).toHaveLength(0);
    expect(history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'subscribeTracking')).toHaveLength(1);
    expect(polls()).toBe(pollsBefore);
    expect(ups.sim.trackAlert.stats()).toMatchObject({ failed: 0, dropped: 0 });
  }, 150_000);

  it('a forged push reaches nothing: a wrong secret gets no token, a token not ours or expired is refused before the body is read', async () => {
    const { id, trackingNumber } = await subscribedLabel();
    expect((await token(`ups:${'x'.repeat(40)}`)).status).toBe(401);
    expect((await token(`fedex:${SECRET}`)).status).toBe(401);
    const event = {
      trackingNumber,
      gmtActivityDate: '20261129',
      gmtActivityTime: '101500',
      activityStatus: { type: 'D', code: 'FS', description: 'DELIVERED' },
    };
    const forged = [
      'Bearer 9999999999.' + 'ab'.repeat(32),
      `Bearer ${SECRET}`,
      // Well formed and signed with the right secret, but expired.
      `Bearer 1000.${(await import('node:crypto')).createHmac('sha256', SECRET).update('carrier-push:ups:1000').digest('hex')}`,
      undefined,
    ];
    for (const authorization of forged) {
      const a = await call(stack, 'POST', PUSH, { headers: authorization ? { authorization } : {}, body: event });
      expect(a.status, String(authorization)).toBe(401);
      expect(a.body.code).toBe('unauthorized');
    }
    // A valid token with another client's id as x-api-key is refused too.
    const t = (await token()).body.access_token as string;
    const other = await call(stack, 'POST', PUSH, { headers: { authorization: `Bearer ${t}`, 'x-api-key': 'someone-else' }, body: event });
    expect(other.status).toBe(401);
    expect((await trackingOf(trackingNumber)).events).toEqual([]);
    expect((await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey })).body.status).toBe('purchased');
  }, 150_000);

  it('a repeated event changes nothing: recorded once, announced once, the status as it was', async () => {
    const { id, trackingNumber } = await subscribedLabel();
    upsScan(trackingNumber, 'X', 'RS', 'The receiver was not available for delivery.');
    await eventually(async () => ((await trackingOf(trackingNumber)).events.length === 1 ? true : undefined), 60_000, 'the exception recorded');
    // Its tracking.updated is stored just after the scan (workflows/tracking.ts: applyScans).
    const once = await eventually(async () => {
      const events = await trackingEvents(id);
      return events.length ? events : undefined;
    }, 30_000, 'the exception announced');
    expect(once).toHaveLength(1);
    // UPS sends the same event again (a retry after a lost answer), exactly as before.
    const t = (await token()).body.access_token as string;
    const at = new Date(upsScans.get(trackingNumber)![0].at).toISOString();
    const again = {
      trackingNumber,
      gmtActivityDate: at.slice(0, 10).replace(/-/g, ''),
      gmtActivityTime: at.slice(11, 19).replace(/:/g, ''),
      activityLocation: { city: 'Atlanta', postalCode: '30336', country: 'US' },
      activityStatus: { type: 'X', code: 'RS', description: 'The receiver was not available for delivery.' },
    };
    for (let i = 0; i < 2; i++) {
      const a = await call(stack, 'POST', PUSH, { headers: { authorization: `Bearer ${t}`, 'x-api-key': 'ups', 'user-agent': 'UPSPubSubTrackingService' }, body: again });
      expect(a.status, a.text).toBe(200);
    }
    // Handled (the workflow's signals), and nothing new.
    const handle = stack.temporal.workflow.getHandle(`shipment/${id}`);
    await eventually(async () => {
      const history = await historyOfEveryRun(handle.workflowId);
      return history.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'scans').length >= 3 ? true : undefined;
    }, 30_000, 'the repeats signalled');
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await trackingOf(trackingNumber)).events).toHaveLength(1);
    expect(await trackingEvents(id)).toHaveLength(1);
    expect((await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey })).body.status).toBe('exception');
  }, 150_000);
});
