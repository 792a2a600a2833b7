import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntriesOf } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// A buy whose answer never came is settled by asking the carrier for our reference. However oddly the
// carrier answers that question (a 404 on its own lookup), the workflow ends as a business process
// does: the shipment `failed` with its reason, the hold released, and the workflow Completed, never
// Failed in Temporal (two chaos runs found `Activity task failed <- Simulated 404 failure of lookup`).
const CARRIER_TIMEOUT_MS = 1_000;
const STRAY_LABEL_SETTLE_MS = 4_000;

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack({
    // Answered 202 at once: the shipment id is known before the carrier's lookup is asked.
    purchaseWaitMs: 200,
    purchaseDeadlineMs: 6_000,
    carrierTimeoutMs: CARRIER_TIMEOUT_MS,
    strayLabelSettleMs: STRAY_LABEL_SETTLE_MS,
  });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

/**
 * A purchase whose buy answer does not come in time (Acme holds it and never answers, or commits it
 * `commitAfterMs` later) and whose lookups answer 404 `lookupFaults` times. Returns how its workflow closed.
 */
async function purchaseWithOddLookups(acct: TestAccount, o: { lookupFaults: number; commitAfterMs?: number }) {
  const marker = `odd-lookup-${randomUUID()}`;
  const held = o.commitAfterMs === undefined ? { mode: 'timeout' } : { mode: 'late_commit', delay_ms: o.commitAfterMs };
  await sim.fault({ carrier: 'acme', operation: 'buy', ...held, match: marker, times: 1 });
  const body = { service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker };
  const answer = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
  expect(answer.status, answer.text).toBe(202);
  const id: string = answer.body.id;
  // Armed before the buy's answer is given up on (after CARRIER_TIMEOUT_MS): every lookup of it meets it.
  await sim.fault({ carrier: 'acme', operation: 'lookup', mode: 'error', status: 404, match: id, times: o.lookupFaults });
  const handle = stack.temporal.workflow.getHandle(`shipment/${id}`);
  // The workflow ends (the stray-label check included) instead of failing.
  const result = await handle.result().catch((err: Error) => ({ threw: `${err.message} <- ${(err.cause as Error | undefined)?.message}` }));
  const described = await handle.describe();
  return { id, marker, result, closedAs: described.status.name };
}

describe('odd carrier answers while a lost buy answer is settled', () => {
  it('a 404 on every lookup: the workflow completes, the shipment is failed with its reason and nothing is charged', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    // The carrier never commits: the lookups' 404s are all it ever says.
    const { id, marker, result, closedAs } = await purchaseWithOddLookups(acct, { lookupFaults: -1 });
    expect(result).toEqual({ status: 'failed' });
    expect(closedAs).toBe('COMPLETED');
    const shown = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    expect(shown.body.status).toBe('failed');
    expect(shown.body.failure.code).toBe('carrier_unavailable');
    // What an operator reads: the label could not be checked, and where to check it.
    const { currentDetails } = await stack.temporal.workflow.getHandle(`shipment/${id}`).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toMatch(/could not be checked at acme/);
    await sim.clearFaults(id);
    await sim.clearFaults(marker);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    expect(account.pending).toBe(0);
    expect((await ledgerEntriesOf(stack.database.db, acct.id)).map((e) => e.kind)).not.toContain('capture');
  }, 120_000);

  it('404s, then the label the carrier committed late: the stray-label check still finds it and cancels it', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const { id, result, closedAs } = await purchaseWithOddLookups(acct, { lookupFaults: 3, commitAfterMs: 2_500 });
    expect(result).toEqual({ status: 'failed' });
    expect(closedAs).toBe('COMPLETED');
    const labels = await sim.purchases(id);
    expect(labels).toHaveLength(1);
    expect(labels[0].cancelled).toBe(true);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.balance).toBe(5000);
    expect(account.pending).toBe(0);
  }, 120_000);
});
