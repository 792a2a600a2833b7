// Issue 13, items 1, 2 and 9, on the real API, Temporal and PostgreSQL with the simulated carriers:
// carrier pushes in production (no default secret, that carrier's live shipments only, no oracle),
// a push or signal no store can accept never wedges a shipment nor blocks its void, and a carrier's
// own text never reaches a customer while operators still read it in the workflow.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { defaultCarrierBaseUrls } from '../../carriers/index.js';
import { scansSignal, shipmentWorkflowId } from '../../contract/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

const ACME_SECRET = `acme-${randomUUID()}-${randomUUID()}`;
let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // Production's rules: carriers at their configured URLs (the simulator's, here), only acme has a
  // push secret, and no development default is accepted.
  stack = await startTestStack({
    production: true,
    carrierUrls: defaultCarrierBaseUrls(inject('carrierSimUrl')),
    carrierWebhookSecrets: { acme: ACME_SECRET },
  });
  sim = simControl(stack.simUrl);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

async function buy(acct: TestAccount, o: { live?: boolean; service?: string; marker?: string } = {}) {
  const marker = o.marker ?? `sec-${randomUUID()}`;
  const a = await call(stack, 'POST', '/api/v1/shipments', {
    key: o.live === false ? acct.testKey : acct.liveKey,
    body: { service: o.service ?? 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker },
  });
  return a;
}

const scan = (id: string, status = 'in_transit', extra: Record<string, unknown> = {}) => ({
  id,
  occurred_at: new Date().toISOString(),
  status,
  ...extra,
});
const push = (carrier: string, secret: string, body: unknown) =>
  call(stack, 'POST', `/api/v1/carrier-webhooks/${carrier}`, { headers: { authorization: `Bearer ${secret}` }, body });
const shipment = async (acct: TestAccount, id: string, live = true) =>
  (await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: live ? acct.liveKey : acct.testKey })).body;

describe('carrier pushes in production (item 1)', () => {
  it('accepts no development secret: a carrier without a configured secret cannot push at all', async () => {
    const acct = await createAccount(stack, { topUp: '60.00' });
    const s = (await buy(acct, { service: 'swiftpost_standard' })).body;
    expect(s.status, JSON.stringify(s)).toBe('purchased');
    const forged = await push('swiftpost', 'dev-carrier-swiftpost-secret', { tracking_number: s.tracking.number, scans: [scan('forged', 'delivered')] });
    expect(forged.status).toBe(401);
    const wrongAcme = await push('acme', 'dev-carrier-acme-secret', { tracking_number: 'ACM1', scans: [scan('x')] });
    expect(wrongAcme.status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect((await shipment(acct, s.id)).status).toBe('purchased');
  });

  it('checks the secret before the body: without it, a malformed push is 401 like any other and says nothing of the body', async () => {
    for (const body of [{}, { tracking_number: 7, scans: 'x' }, { tracking_number: 'ACM1', scans: [scan('a\u0000b')] }]) {
      const refused = await push('acme', 'wrong', body);
      expect(refused.status, JSON.stringify(body)).toBe(401);
      expect(refused.body.code).toBe('unauthorized');
      expect(refused.body.errors).toBeUndefined();
      expect(refused.headers['www-authenticate']).toBe('Bearer');
    }
    // With the secret, the same malformed body is the 422 that names its fields.
    const invalid = await push('acme', ACME_SECRET, { tracking_number: 7, scans: 'x' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.length).toBeGreaterThan(0);
  });

  it('touches only that carrier’s live shipments, and answers an unknown tracking number as a known one', async () => {
    const acct = await createAccount(stack, { topUp: '60.00' });
    const swift = (await buy(acct, { service: 'swiftpost_standard' })).body;
    const sandbox = (await buy(acct, { live: false })).body;
    expect(sandbox.status).toBe('purchased');
    const known = (await buy(acct)).body;
    const answers = [
      await push('acme', ACME_SECRET, { tracking_number: swift.tracking.number, scans: [scan('s1', 'delivered')] }),
      await push('acme', ACME_SECRET, { tracking_number: sandbox.tracking.number, scans: [scan('s2', 'delivered')] }),
      await push('acme', ACME_SECRET, { tracking_number: `ACM${Date.now()}`, scans: [scan('s3', 'delivered')] }),
      await push('acme', ACME_SECRET, { tracking_number: known.tracking.number, scans: [scan('s4', 'in_transit')] }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(202);
      expect(a.body).toEqual({ received: 1 });
    }
    await eventually(async () => ((await shipment(acct, known.id)).status === 'in_transit' ? true : undefined), 20_000, 'the genuine push');
    expect((await shipment(acct, swift.id)).status).toBe('purchased');
    expect((await shipment(acct, sandbox.id, false)).status).toBe('purchased');
  });
});

describe('input no store can accept (item 2)', () => {
  it('refuses control characters in a carrier push with 422 validation_failed', async () => {
    const acct = await createAccount(stack, { topUp: '30.00' });
    const s = (await buy(acct)).body;
    for (const bad of [{ id: 'a\u0000b' }, { description: 'Depot\u0000' }, { location: { city: 'Leeds\u0000', postcode: 'LS1', country: 'GB' } }]) {
      const a = await push('acme', ACME_SECRET, { tracking_number: s.tracking.number, scans: [{ ...scan('ok'), ...bad }] });
      expect(a.status, JSON.stringify(bad)).toBe(422);
      expect(a.body.code).toBe('validation_failed');
    }
  });

  it('a scan PostgreSQL refuses fails once, visibly, and neither wedges tracking nor blocks the void', async () => {
    const acct = await createAccount(stack, { topUp: '30.00' });
    const s = (await buy(acct, { live: false })).body;
    expect(s.status).toBe('purchased');
    const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(s.id));
    // However it arrives (a carrier poll, a signal), a NUL in the text cannot be stored.
    await handle.signal(scansSignal, [
      { id: 'nul-scan', occurredAt: new Date().toISOString(), status: 'in_transit', description: 'Depot\u0000', location: null },
    ]);
    const failed = await eventually(async () => {
      const history = await handle.fetchHistory();
      const event = history.events?.find((e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'invalid_data');
      return event?.activityTaskFailedEventAttributes?.failure;
    }, 30_000, 'the refused scan visible in history');
    expect(failed!.applicationFailureInfo?.nonRetryable).toBe(true);
    // Operators read the database's reason; the history (in clear: a failure is outside the payload
    // codec) holds neither the statement nor the values bound to it (an event's are names and addresses).
    expect(failed!.message).toMatch(/^recordTracking: the data cannot be stored \(.*UTF8.*\)$/);
    const recorded = JSON.stringify(failed);
    for (const leak of ['Failed query', 'insert into', 'params:', 'Depot', s.id]) expect(recorded, leak).not.toContain(leak);
    const v = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.testKey });
    expect(v.status, v.text).toBe(200);
    expect(v.body.status).toBe('voided');
  });
});

describe('carrier text kept from customers (item 9)', () => {
  it('a refused purchase tells the customer nothing of the carrier’s body; operators read it in the workflow', async () => {
    const acct = await createAccount(stack, { topUp: '30.00' });
    const marker = `refuse-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 422, match: marker });
    const a = await buy(acct, { marker });
    expect(a.status, a.text).toBe(502);
    expect(a.body.code).toBe('carrier_error');
    expect(a.text).not.toMatch(/Simulated|HTTP 422/);
    const row = await shipment(acct, a.body.shipment_id);
    expect(row.status).toBe('failed');
    expect(row.failure.code).toBe('carrier_error');
    expect(row.failure.message).toMatch(/nothing was bought or charged/);
    expect(JSON.stringify(row)).not.toMatch(/Simulated|HTTP 422/);
    const history = await stack.temporal.workflow.getHandle(shipmentWorkflowId(a.body.shipment_id)).fetchHistory();
    expect(JSON.stringify(history.events)).toContain('Simulated 422 failure of buy');
  });

  it('a refused void tells the customer nothing of the carrier’s body', async () => {
    const acct = await createAccount(stack, { topUp: '30.00' });
    const marker = `cancel-${randomUUID()}`;
    const s = (await buy(acct, { marker })).body;
    expect(s.status).toBe('purchased');
    await sim.fault({ carrier: 'acme', operation: 'cancel', mode: 'error', status: 422, match: s.id });
    const v = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey });
    expect(v.status, v.text).toBe(502);
    expect(v.body.code).toBe('carrier_error');
    expect(v.text).not.toMatch(/Simulated|HTTP 422/);
  });
});
