import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findStuckScanForms } from '../../admin/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

// A SCAN form is recorded, holding its shipments, before the carrier is asked to make it: a void
// from that moment is refused, so the carrier never keeps a form of a label we voided. Exactly one of
// the two happens, however they interleave with the carrier's answer.
let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  stack = await startTestStack({ carrierTimeoutMs: 5_000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

async function purchased(acct: TestAccount) {
  const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: { service: 'acme_ground', from: address(), to: address({ name: `sf-${randomUUID()}` }), parcel: parcel() } });
  expect(a.status, a.text).toBe(201);
  return a.body as { id: string; tracking: { number: string } };
}
const form = (acct: TestAccount, ids: string[]) => call(stack, 'POST', '/api/v1/scan_forms', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body: { shipment_ids: ids } });
const voidIt = (acct: TestAccount, id: string) => call(stack, 'POST', `/api/v1/shipments/${id}/void`, { key: acct.liveKey });

describe('a SCAN form and a void of the same shipment', () => {
  it('a void sent while the carrier is making the form is refused: the form is made, the label stays bought', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    await sim.fault({ carrier: 'acme', operation: 'manifest', mode: 'slow', delay_ms: 3_000, match: s.tracking.number, times: 1 });
    const making = form(acct, [s.id]);
    // The carrier has the request (its fault is used up) and has not answered yet.
    await eventually(async () => ((await sim.faults(s.tracking.number)).length === 0 ? true : undefined), 20_000, 'the form to reach acme');
    const voided = await voidIt(acct, s.id);
    expect(voided.status, voided.text).toBe(409);
    expect(voided.body.code).toBe('shipment_not_voidable');
    const made = await making;
    expect(made.status, made.text).toBe(201);
    const shown = await call(stack, 'GET', `/api/v1/shipments/${s.id}`, { key: acct.liveKey });
    expect(shown.body.status).toBe('purchased');
    expect((await sim.purchases(s.id))[0].cancelled).toBe(false);
  });

  it('a form the carrier refuses holds nothing: the void then goes ahead', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    await sim.fault({ carrier: 'acme', operation: 'manifest', mode: 'error', status: 400, match: s.tracking.number, times: 1 });
    const refused = await form(acct, [s.id]);
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.code).toBe('carrier_error');
    const voided = await voidIt(acct, s.id);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
  });

  it('a form whose answer was lost keeps holding its shipments (the carrier may have made it) and is named for an operator', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const s = await purchased(acct);
    // Acme makes the manifest; its answer never arrives.
    await sim.fault({ carrier: 'acme', operation: 'manifest', mode: 'lost_answer', match: s.tracking.number, times: 1 });
    const lost = await form(acct, [s.id]);
    expect(lost.status, lost.text).toBe(503);
    expect(lost.body.code).toBe('carrier_unavailable');
    const voided = await voidIt(acct, s.id);
    expect(voided.status, voided.text).toBe(409);
    expect(voided.body.code).toBe('shipment_not_voidable');
    // It is no form of the customer's (no file), and an operator is told what to ask the carrier.
    const listed = await call(stack, 'GET', '/api/v1/scan_forms', { key: acct.liveKey });
    expect(listed.body.data).toEqual([]);
    const stuck = await findStuckScanForms(stack.database.db, { olderThanMs: 0, now: new Date(Date.now() + 1_000), accountId: acct.id });
    expect(stuck).toHaveLength(1);
    expect(stuck[0]).toMatchObject({ carrier: 'acme', shipment_ids: [s.id], carrier_form_id: null });
    expect(stuck[0].what_to_do).toContain('ask ACME whether it made a form');
  });
});
