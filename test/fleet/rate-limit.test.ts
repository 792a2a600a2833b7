import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

const RATE = 2;
let first: TestStack;
let second: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  // Two worker fleets polling the same carrier queues, as two machines would.
  first = await startTestStack({ carrierRateLimits: { acme: RATE }, purchaseWaitMs: 30_000 });
  second = await startTestStack({ carrierRateLimits: { acme: RATE }, purchaseWaitMs: 30_000, taskQueuePrefix: first.config.taskQueuePrefix });
  sim = simControl(first.simUrl);
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

describe('the fleet-wide carrier rate limit', () => {
  it(`never lets the carrier see more than ${RATE} purchases in any second, whichever worker runs them`, async () => {
    const acct = await createAccount(first, { topUp: '200.00' });
    const n = 12;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call(i % 2 ? second : first, 'POST', '/api/v1/shipments', {
          key: acct.liveKey,
          body: { service: 'acme_ground', from: address(), to: address({ name: `rl-${randomUUID()}` }), parcel: parcel() },
        }),
      ),
    );
    for (const a of answers) expect(a.status, a.text).toBe(201);
    const times: number[] = [];
    for (const a of answers) {
      const [label] = (await sim.purchases(a.body.id)) as Array<{ created_at?: string }>;
      times.push(new Date(label.created_at!).getTime());
    }
    times.sort((a, b) => a - b);
    let busiest = 0;
    for (const [i, t] of times.entries()) busiest = Math.max(busiest, times.filter((u, j) => j >= i && u < t + 1000).length);
    // Temporal's limiter is a token bucket: one short burst (its capacity) is allowed, then the
    // rate holds. A fleet without the limit buys all twelve within the same second.
    expect(busiest).toBeLessThanOrEqual(2 * RATE);
    expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(((n - 2 * RATE) / RATE) * 1000 - 500);
    await expectLedgerConsistent(first, acct.id);
  });
});
