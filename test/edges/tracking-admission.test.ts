import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTrackingAdmission, trackingRatePolicy } from '../../activities/index.js';
import { admittedWithinWindow, openDatabase, takeRateLimitToken } from '../../db/index.js';

/**
 * The carrier's tracking share of its rate, held fleet-wide for the polls that workflows' own workers
 * make as local activities (activities/tracking-admission.ts): two workers here, each with its own
 * pool of connections, as two processes of the fleet would be.
 */
const pools = [openDatabase(inject('databaseUrl'), { max: 4 }), openDatabase(inject('databaseUrl'), { max: 4 })];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

function worker(i: number, key: string, perSecond: number) {
  return createTrackingAdmission({
    take: (keyId, policy) => takeRateLimitToken(pools[i].db, keyId, policy),
    perSecond: () => perSecond,
    keyOf: (carrier) => `${key}:${carrier}`,
  });
}

describe('the tracking share of a carrier’s rate, across workers', () => {
  it('admits no more than the share in any window, whichever worker asks, and admits every call in the end', async () => {
    const key = `test-tracking-${randomBytes(4).toString('hex')}`;
    const workers = [worker(0, key, 4), worker(1, key, 4)];
    const admittedAt: number[] = [];
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        await workers[i % 2]({ carrier: 'acme', livemode: true });
        admittedAt.push(Date.now());
      }),
    );
    expect(admittedAt).toHaveLength(12);
    // Four a second: the first four at once, the rest as places free up, so 12 take at least two
    // windows after the first (a lower bound: the limit can hold calls back, never speed them up).
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000 - 50);
    // No window of a second holds more than four: on our clock, after the round trips, a fifth call
    // comes well apart from the fourth before it (two allowances, one a worker, would let eight through at once).
    admittedAt.sort((a, b) => a - b);
    for (let i = 4; i < admittedAt.length; i++) expect(admittedAt[i] - admittedAt[i - 4]).toBeGreaterThanOrEqual(500);
  });

  it('keeps each carrier’s allowance its own, and lets the sandbox through untouched', async () => {
    const key = `test-tracking-${randomBytes(4).toString('hex')}`;
    const asked: string[] = [];
    const admit = createTrackingAdmission({
      take: (keyId, policy) => {
        asked.push(keyId);
        return takeRateLimitToken(pools[0].db, keyId, policy);
      },
      perSecond: () => 1,
      keyOf: (carrier) => `${key}:${carrier}`,
    });
    // One a second each: acme's and fedex's first calls are both admitted at their first ask, and
    // the sandbox's calls touch no carrier and ask nothing.
    await Promise.all([admit({ carrier: 'acme', livemode: true }), admit({ carrier: 'fedex', livemode: true }), ...Array.from({ length: 5 }, () => admit({ carrier: 'acme', livemode: false }))]);
    expect(asked.sort()).toEqual([`${key}:acme`, `${key}:fedex`]);
  });

  it('refuses a poll for a carrier with no tracking share, for good: the loop polls again later', async () => {
    const admit = worker(0, 'unused', 0);
    await expect(admit({ carrier: 'acme', livemode: true })).rejects.toMatchObject({ type: 'rate_limited', nonRetryable: true });
  });

  it('gives way when its place is further off than it may wait: the poll fails for the loop to back off, and takes no place', async () => {
    const key = `test-tracking-${randomBytes(4).toString('hex')}`;
    const slept: number[] = [];
    // One call in any 10 s, and a poll that may wait 3 s: the second call's place is 10 s off.
    const admit = createTrackingAdmission({
      take: (keyId, policy) => takeRateLimitToken(pools[0].db, keyId, policy),
      perSecond: () => 0.1,
      keyOf: (carrier) => `${key}:${carrier}`,
      maxWaitMs: 3_000,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    await admit({ carrier: 'acme', livemode: true });
    await expect(admit({ carrier: 'acme', livemode: true })).rejects.toMatchObject({ type: 'rate_limited', nonRetryable: true, message: expect.stringContaining('spent') });
    expect(slept).toEqual([]);
    expect(await admittedWithinWindow(pools[0].db, `${key}:acme`)).toHaveLength(1);
  });

  it('keeps a fractional share: 2.5 a second is 2 calls in any 0.8 s, 0.5 a second 1 call in any 2 s', () => {
    expect(trackingRatePolicy(2.5)).toEqual({ count: 2, seconds: 0.8 });
    expect(trackingRatePolicy(0.5)).toEqual({ count: 1, seconds: 2 });
    expect(trackingRatePolicy(25)).toEqual({ count: 25, seconds: 1 });
  });
});
