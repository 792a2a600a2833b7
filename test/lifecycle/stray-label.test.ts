import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ledgerEntriesOf } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { strayChecksOpen } from '../../tools/chaos/latency.js';
import { US_ROUTE } from '../../tools/chaos/routes.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

// Issue 12, fault 10: a lookup that answers 404 is not final. Acme holds every booking of this
// shipment and commits it only well after the purchase has failed (and after the stray-label check's
// first look found nothing); the check keeps looking over its settle window and cancels the label.
const PURCHASE_DEADLINE_MS = 3_000;
const CARRIER_COMMITS_AFTER_MS = 12_000; // after the deadline and the first stray look, within the settle window
const STRAY_LABEL_SETTLE_MS = 40_000;

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack({
    purchaseWaitMs: 30_000, // the customer is answered the failure itself, not a 202
    purchaseDeadlineMs: PURCHASE_DEADLINE_MS,
    carrierTimeoutMs: 1_000,
    strayLabelSettleMs: STRAY_LABEL_SETTLE_MS,
  });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

describe('fault 10: a label the carrier commits after the purchase failed', () => {
  it('is found by the stray-label check within its settle window and cancelled; the customer was told it failed and nothing is charged', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `late-${randomUUID()}`;
    // Every booking of this shipment times out at our end and is carried out by Acme much later.
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'late_commit', delay_ms: CARRIER_COMMITS_AFTER_MS, match: marker, times: -1 });
    const body = { service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker };
    const answer = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });

    // The customer is answered a failure: nothing was bought or charged.
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body.code).toBe('carrier_unavailable');
    const shipmentId: string = answer.body.shipment_id;
    // At that moment the carrier has no label under our reference: every lookup so far answered 404.
    expect(await sim.purchases(shipmentId)).toEqual([]);
    const shown = await call(stack, 'GET', `/api/v1/shipments/${shipmentId}`, { key: acct.liveKey });
    expect(shown.body.status).toBe('failed');
    expect(shown.body.failure.code).toBe('carrier_unavailable');

    // Then Acme commits the booking: a live label for a shipment the customer was told was not bought…
    await eventually(async () => ((await sim.purchases(shipmentId)).length ? true : undefined), 60_000, 'the late label to be committed');
    // …which the stray-label check, still looking, cancels.
    const labels = await eventually(
      async () => {
        const found = await sim.purchases(shipmentId);
        return found.length && found.every((l) => l.cancelled) ? found : undefined;
      },
      STRAY_LABEL_SETTLE_MS + 30_000,
      'the late label to be cancelled at the carrier',
    );
    expect(labels).toHaveLength(1); // one booking, however many attempts: Acme's idempotency key
    const handle = stack.temporal.workflow.getHandle(`shipment/${shipmentId}`);
    await handle.result();

    // No charge remains, and the shipment stays failed.
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    expect(account.pending).toBe(0);
    const kinds = (await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind);
    expect(kinds).not.toContain('capture');
    const after = await call(stack, 'GET', `/api/v1/shipments/${shipmentId}`, { key: acct.liveKey });
    expect(after.body.status).toBe('failed');
    await sim.clearFaults(marker);
  }, 180_000);
});

// USPS's looks spend its small quota, so only the last look of the settle window asks, and cancels by
// the purchase's key: until then the failed purchase's label is live by design, and its workflow is
// open. The chaos run checks the carrier's labels only once no such workflow is open (strayChecksOpen).
describe('a USPS label whose answer was lost, and whose settlement timed out', () => {
  it('stays live while the failed purchase is still looking, and is cancelled by its key at the last look; nothing is charged', async () => {
    const acct = await createAccount(stack, { topUp: '50.00', currency: 'USD' });
    const marker = `lost-${randomUUID().slice(0, 13)}`;
    // The label is made and its answer lost; the same request again under the same key (USPS's
    // settlement) is never answered, so the purchase fails at its deadline with a label live.
    await sim.fault({ carrier: 'usps', operation: 'buy', mode: 'lost_answer', match: marker, times: 1 });
    await sim.fault({ carrier: 'usps', operation: 'buy', mode: 'timeout', match: marker, times: -1 });
    const body = { service: 'usps_ground_advantage', from: US_ROUTE.from, to: US_ROUTE.to(marker), parcel: parcel() };
    const answer = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
    expect(answer.status, answer.text).toBe(503);
    const shipmentId: string = answer.body.shipment_id;
    const made = await sim.purchases(shipmentId);
    expect(made).toHaveLength(1);
    expect(made[0].cancelled).toBe(false);

    // The run that failed is still looking, and counted so.
    expect(await strayChecksOpen(inject('temporalAddress'))).toBeGreaterThanOrEqual(1);
    const handle = stack.temporal.workflow.getHandle(`shipment/${shipmentId}`);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.result();
    expect(await sim.purchases(shipmentId)).toEqual([expect.objectContaining({ tracking_number: made[0].tracking_number, cancelled: true })]);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    expect(account.pending).toBe(0);
    await sim.clearFaults(marker);
  }, 180_000);
});
