import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, takeRateLimitToken } from '../../db/index.js';
import { call, createAccount, startTestStack, type Answer, type TestStack } from '../support/stack.js';
import { startApiProcess, type ApiProcess } from './api-process.js';

/** Rate limits per key, across API instances (spec §5.8, §8; contract: Authentication, scopes, limits). */

let stack: TestStack;
let second: ApiProcess;
beforeAll(async () => {
  [stack, second] = await Promise.all([startTestStack({}, { workers: false }), startApiProcess()]);
});
afterAll(async () => {
  await second?.stop();
  await stack?.stop();
});

const BALANCE = '/api/v1/account/balance';

async function newKey(accountId: string, rateLimit: string) {
  return (await stack.admin.createKey(accountId, { mode: 'test', rateLimit })).key;
}

function expectLimitHeaders(a: Answer, limit: number, window: number) {
  const remaining = Number(a.headers['ratelimit-remaining']);
  const reset = Number(a.headers['ratelimit-reset']);
  expect(a.headers['ratelimit-limit']).toBe(String(limit));
  expect(Number.isInteger(remaining) && remaining >= 0 && remaining <= limit).toBe(true);
  expect(Number.isInteger(reset) && reset >= 0 && reset <= window).toBe(true);
  expect(a.headers['ratelimit-policy']).toBe(`"default";q=${limit};w=${window}`);
  expect(a.headers['ratelimit']).toBe(`"default";r=${remaining};t=${reset}`);
}

function expectRefused(a: Answer) {
  expect(a.status).toBe(429);
  expect(a.headers['content-type']).toContain('application/problem+json');
  expect(a.body.code).toBe('rate_limited');
  expect(a.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  expect(a.headers['ratelimit-remaining']).toBe('0');
}

describe('rate limits shared by two API processes on one database', () => {
  it('admits exactly the allowance of a burst sent concurrently to both, never more', async () => {
    const acct = await createAccount(stack);
    // 20 per 10 minutes: one request regenerates every 30 s, far longer than the burst takes.
    const key = await newKey(acct.id, '20/600');
    const apis = [stack, second];
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => call(apis[i % 2], 'GET', BALANCE, { key })));
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(admitted).toHaveLength(20);
    for (const a of refused) expectRefused(a);
    for (const a of answers) expectLimitHeaders(a, 20, 600);
    // One atomic decision per request: the admitted answers count down 19 … 0, each number once.
    const remaining = admitted.map((a) => Number(a.headers['ratelimit-remaining'])).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('counts requests to either process against the one allowance, in the order they come', async () => {
    const acct = await createAccount(stack);
    const key = await newKey(acct.id, '10/600');
    const statuses: number[][] = [[], []];
    for (let i = 0; i < 20; i++) statuses[i % 2].push((await call([stack, second][i % 2], 'GET', BALANCE, { key })).status);
    // Five each, then both refuse: neither process has an allowance of its own.
    for (const s of statuses) expect(s).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
  });

  it('under sustained load from both, never admits more than the allowance in any window', async () => {
    const acct = await createAccount(stack);
    const [count, seconds] = [5, 2];
    const key = await newKey(acct.id, `${count}/${seconds}`);
    const apis = [stack, second];
    const started = Date.now();
    const admittedAt: number[] = [];
    const worker = async (i: number) => {
      while (Date.now() - started < 3000) {
        const sent = Date.now();
        const a = await call(apis[i % 2], 'GET', BALANCE, { key });
        if (a.status === 200) admittedAt.push(sent);
        else expectRefused(a);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));
    admittedAt.sort((x, y) => x - y);
    // The (count+1)th admission after any one comes a whole window later (sent times: a request is
    // decided after it is sent, so the gap between decisions is at least this one less a little).
    for (let i = 0; i + count < admittedAt.length; i++) {
      expect(admittedAt[i + count] - admittedAt[i], `admissions ${i} and ${i + count}`).toBeGreaterThanOrEqual(seconds * 1000 - 150);
    }
    // A window's allowance at once, then more once the first have left the window.
    expect(admittedAt.length).toBeGreaterThan(count);
  });

  it('refuses the request after the allowance however slowly it is spent within the window (a bucket refilled meanwhile)', async () => {
    const acct = await createAccount(stack);
    const key = await newKey(acct.id, '5/10');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await call([stack, second][i % 2], 'GET', BALANCE, { key })).status);
      await sleep(700); // 8 requests over about 5.6 s, all within one window of 10 s
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it('gives a Retry-After that is never 0, always enough, and not more than needed', async () => {
    const acct = await createAccount(stack);
    // One request per 2 s: after one, the next is due in just under 2 s.
    const key = await newKey(acct.id, '1/2');
    const first = await call(stack, 'GET', BALANCE, { key });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('0');
    expect(first.headers['ratelimit-reset']).toBe('2');
    const refused = await call(second, 'GET', BALANCE, { key });
    expectRefused(refused);
    expect(refused.headers['retry-after']).toBe('2');
    // Half the wait is not enough; the whole wait is.
    await sleep(1000);
    expectRefused(await call(stack, 'GET', BALANCE, { key }));
    await sleep(1000);
    expect((await call(second, 'GET', BALANCE, { key })).status).toBe(200);
  });

  it('admits the next request after waiting each Retry-After, whichever process answered', async () => {
    const acct = await createAccount(stack);
    const key = await newKey(acct.id, '3/4');
    const apis = [stack, second];
    let waits = 0;
    for (let round = 0; waits < 3; round++) {
      const a = await call(apis[round % 2], 'GET', BALANCE, { key });
      if (a.status === 200) continue;
      expectRefused(a);
      waits++;
      await sleep(Number(a.headers['retry-after']) * 1000);
      const next = await call(apis[(round + 1) % 2], 'GET', BALANCE, { key });
      expect(next.status, 'the request after waiting Retry-After').toBe(200);
    }
  });

  it('keeps a separate allowance for another key of the same account', async () => {
    const acct = await createAccount(stack);
    const spent = await newKey(acct.id, '2/600');
    const other = await newKey(acct.id, '2/600');
    await call(stack, 'GET', BALANCE, { key: spent });
    await call(second, 'GET', BALANCE, { key: spent });
    expectRefused(await call(stack, 'GET', BALANCE, { key: spent }));
    const a = await call(second, 'GET', BALANCE, { key: other });
    expect(a.status).toBe(200);
    expect(a.headers['ratelimit-remaining']).toBe('1');
    expectRefused(await call(second, 'GET', BALANCE, { key: spent }));
  });

  it('puts the headers on every authenticated answer, errors included, and on no other', async () => {
    const acct = await createAccount(stack);
    const key = await newKey(acct.id, '100/10');
    const narrow = (await stack.admin.createKey(acct.id, { mode: 'test', scopes: 'quotes:read' })).key;
    const cases: Array<[string, Answer]> = [
      ['200', await call(stack, 'GET', BALANCE, { key })],
      ['404', await call(stack, 'GET', '/api/v1/shipments/shp_00000000000000000000000000', { key })],
      ['422', await call(stack, 'POST', '/api/v1/quotes', { key, body: { nope: 1 } })],
      ['400', await call(stack, 'POST', '/api/v1/quotes', { key, rawBody: '{', headers: { 'content-type': 'application/json' } })],
      ['403', await call(stack, 'GET', BALANCE, { key: narrow })],
    ];
    for (const [name, a] of cases) {
      expect(a.status, name).toBe(Number(name));
      expectLimitHeaders(a, 100, 10);
    }
    const unauthenticated = [
      await call(stack, 'GET', BALANCE),
      await call(stack, 'GET', BALANCE, { key: 'svc_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      await call(stack, 'GET', '/healthz'),
      await call(stack, 'GET', '/api/v1/openapi.json'),
    ];
    for (const a of unauthenticated) expect(a.headers['ratelimit-limit']).toBeUndefined();
  });

  it('uses the default of 100 requests per 10 s', async () => {
    const acct = await createAccount(stack);
    const a = await call(second, 'GET', BALANCE, { key: acct.testKey });
    expect(a.status).toBe(200);
    expectLimitHeaders(a, 100, 10);
    expect(a.headers['ratelimit-remaining']).toBe('99');
    // Whole again when the one request admitted leaves the window.
    expect(a.headers['ratelimit-reset']).toBe('10');
  });
});

describe('the one-statement sliding-window decision', () => {
  it('admits exactly the allowance when the first-ever requests of a key race from two pools', async () => {
    const pools = [openDatabase(inject('databaseUrl'), { max: 10 }), openDatabase(inject('databaseUrl'), { max: 10 })];
    try {
      for (const count of [1, 3, 7]) {
        const keyId = `key_race${randomBytes(8).toString('hex')}`;
        const decisions = await Promise.all(
          Array.from({ length: 60 }, (_, i) => takeRateLimitToken(pools[i % 2].db, keyId, { count, seconds: 600 })),
        );
        expect(decisions.filter((d) => d.allowed)).toHaveLength(count);
        // Every refusal knows when a place frees up: a whole window after the first admission, give or take the race.
        for (const d of decisions.filter((x) => !x.allowed)) {
          expect(d.used).toBe(count);
          expect(d.untilSlotUs).toBeGreaterThan(590_000_000);
          expect(d.untilSlotUs).toBeLessThanOrEqual(600_000_000);
        }
      }
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
