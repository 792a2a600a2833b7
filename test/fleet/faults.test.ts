import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // SwiftPost settles a possibly committed booking (a time-out, a 5xx from its gateway) before it books
  // again; the simulator commits at once, so a short window keeps these tests quick.
  stack = await startTestStack({ carrierTimeoutMs: 1500, purchaseWaitMs: 20_000, carrierSettleMs: 2000 });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const SERVICES = { acme: 'acme_ground', swiftpost: 'swiftpost_standard' } as const;

/** Buys with a fault on the carrier's buy; returns the answer after checking the invariants. */
async function buyWith(carrier: keyof typeof SERVICES, faults: Array<Record<string, unknown>>) {
  const acct = await createAccount(stack, { topUp: '40.00' });
  const marker = `fault-${randomUUID()}`;
  for (const f of faults) await sim.fault({ carrier, match: marker, ...f } as never);
  const a = await call(stack, 'POST', '/api/v1/shipments', {
    key: acct.liveKey,
    body: { service: SERVICES[carrier], from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker },
  });
  await sim.clearFaults(marker);
  return { acct, a, marker };
}

/** Exactly one live label and one charge for a purchased shipment; nothing held. */
async function expectOneLabelOneCharge(stack: TestStack, acctId: string, s: any) {
  const labels = await sim.purchases(s.id);
  expect(labels.filter((l) => !l.cancelled)).toHaveLength(1);
  expect(labels).toHaveLength(1);
  expect(labels[0].tracking_number).toBe(s.tracking.number);
  const account = await expectLedgerConsistent(stack, acctId);
  expect(account.pending).toBe(0);
  expect(account.balance).toBe(4000 - Math.round(Number(s.price.gross) * 100));
}

describe('faults on the purchase path (issue: carrier fleet)', () => {
  for (const carrier of ['acme', 'swiftpost'] as const) {
    it(`${carrier}: 5xx twice, then success`, async () => {
      const { acct, a } = await buyWith(carrier, [{ operation: 'buy', mode: 'error', status: 503, times: 2 }]);
      expect(a.status, a.text).toBe(201);
      await expectOneLabelOneCharge(stack, acct.id, a.body);
    });

    it(`${carrier}: a definitive 4xx fails the purchase with nothing bought or held`, async () => {
      const { acct, a } = await buyWith(carrier, [{ operation: 'buy', mode: 'error', status: 400 }]);
      expect(a.status, a.text).toBe(502);
      expect(a.body.code).toBe('carrier_error');
      expect(await sim.purchases(a.body.shipment_id)).toEqual([]);
      const account = await expectLedgerConsistent(stack, acct.id);
      expect([account.balance, account.pending]).toEqual([4000, 0]);
    });

    it(`${carrier}: a time-out is settled by asking the carrier, one label`, async () => {
      const { acct, a } = await buyWith(carrier, [{ operation: 'buy', mode: 'timeout' }]);
      expect(a.status, a.text).toBe(201);
      await expectOneLabelOneCharge(stack, acct.id, a.body);
    });

    it(`${carrier}: a lost answer (bought, answer dropped) finds the label instead of buying twice`, async () => {
      const { acct, a } = await buyWith(carrier, [{ operation: 'buy', mode: 'lost_answer' }]);
      expect(a.status, a.text).toBe(201);
      await expectOneLabelOneCharge(stack, acct.id, a.body);
    });

    it(`${carrier}: 429 with Retry-After is honoured, then success`, async () => {
      const { acct, a } = await buyWith(carrier, [{ operation: 'buy', mode: 'rate_limit', retry_after: 1, times: 2 }]);
      expect(a.status, a.text).toBe(201);
      await expectOneLabelOneCharge(stack, acct.id, a.body);
    });

    it(`${carrier}: a garbage answer is settled by asking the carrier, one label`, async () => {
      const { acct, a } = await buyWith(carrier, [{ operation: 'buy', mode: 'garbage' }]);
      expect(a.status, a.text).toBe(201);
      await expectOneLabelOneCharge(stack, acct.id, a.body);
    });
  }
});

describe('a carrier that is down', () => {
  it('answers 202 while the carrier is down, and finishes once it is back', async () => {
    const short = await startTestStack({ carrierTimeoutMs: 1000, purchaseWaitMs: 2000 });
    try {
      const acct = await createAccount(short, { topUp: '40.00' });
      const marker = `down-${randomUUID()}`;
      await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 503, times: -1, match: marker });
      const a = await call(short, 'POST', '/api/v1/shipments', {
        key: acct.liveKey,
        body: { service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel() },
      });
      expect(a.status, a.text).toBe(202);
      expect(a.body.status).toBe('pending');
      expect((await expectLedgerConsistent(short, acct.id)).pending).toBeGreaterThan(0);
      await sim.clearFaults(marker);
      const done = await eventually(async () => {
        const s = await call(short, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
        return s.body.status === 'purchased' ? s.body : undefined;
      }, 60_000, 'the purchase to finish');
      await expectOneLabelOneCharge(short, acct.id, done);
    } finally {
      await short.stop();
    }
  });

  it('fails cleanly past the deadline: funds released, and a label the carrier did make is cancelled', async () => {
    const short = await startTestStack({ carrierTimeoutMs: 1000, purchaseWaitMs: 1000, purchaseDeadlineMs: 6000 });
    try {
      const acct = await createAccount(short, { topUp: '40.00' });
      const marker = `lost-${randomUUID()}`;
      // The carrier makes the label but the answer is lost; then it stops answering altogether.
      await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'lost_answer', match: marker });
      await sim.fault({ carrier: 'acme', operation: 'lookup', mode: 'error', status: 503, times: -1, match: 'reference=shp_' });
      const a = await call(short, 'POST', '/api/v1/shipments', {
        key: acct.liveKey,
        body: { service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel() },
      });
      expect(a.status, a.text).toBe(202);
      const failed = await eventually(async () => {
        const s = await call(short, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
        return s.body.status === 'failed' ? s.body : undefined;
      }, 60_000, 'the purchase to fail');
      expect(failed.failure.code).toBe('carrier_unavailable');
      const account = await expectLedgerConsistent(short, acct.id);
      expect([account.balance, account.pending]).toEqual([4000, 0]);
      await sim.clearFaults('reference=shp_');
      const labels = await eventually(async () => {
        const l = await sim.purchases(a.body.id);
        return l.length === 1 && l[0].cancelled ? l : undefined;
      }, 60_000, 'the stray label to be cancelled');
      expect(labels[0].cancelled).toBe(true);
    } finally {
      await sim.clearFaults('reference=shp_');
      await short.stop();
    }
  });
});
