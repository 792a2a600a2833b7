// Item 6 of issue 13: traffic without a valid key is limited per client address, across API
// instances; an ip_not_allowed refusal spends the key's own allowance; a key in the query string is
// refused however the parameter is written. Each test uses its own client addresses (X-Forwarded-For
// from a trusted proxy), so no other test's traffic from 127.0.0.1 counts.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { call, createAccount, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let second: FastifyInstance;
let secondUrl: string;
/** A long window: no request's worth of allowance comes back while a test runs. */
const POLICY = { count: 5, seconds: 600 };

beforeAll(async () => {
  stack = await startTestStack({ addressRateLimit: POLICY, trustedProxies: ['127.0.0.1/32'] }, { workers: false });
  // A second API instance on the same database: the allowance is the fleet's, not an instance's.
  second = await createApp({ config: stack.config, db: stack.database.db, temporal: stack.temporal, catalog: carrierRegistryFor(stack.config) });
  await second.listen({ port: 0, host: '127.0.0.1' });
  secondUrl = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await second?.close();
  await stack?.stop();
});

/** A fresh documentation address (RFC 5737), unique to the calling test. */
const newAddress = () => `198.51.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 254)}`;
const from = (ip: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...headers });
const badKey = `svc_test_${'x'.repeat(32)}`;

describe('per-address limit on unauthenticated and refused requests', () => {
  it('answers 429 with Retry-After once an address has spent its allowance of refused requests, on every instance', async () => {
    const ip = newAddress();
    for (let i = 0; i < POLICY.count; i++) {
      const a = await call(stack, 'GET', '/api/v1/shipments', { key: badKey, headers: from(ip) });
      expect(a.status, `refused request ${i + 1}`).toBe(401);
    }
    const over = await call(stack, 'GET', '/api/v1/shipments', { key: badKey, headers: from(ip) });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The other instance holds the same allowance, and routes without a key count too.
    const elsewhere = await call({ url: secondUrl }, 'GET', '/readyz', { headers: from(ip) });
    expect(elsewhere.status).toBe(429);
    expect(elsewhere.body.code).toBe('rate_limited');
    expect(Number(elsewhere.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    expect((await call(stack, 'GET', '/api/v1/shipments', { key: badKey, headers: from(newAddress()) })).status).toBe(401);
  });

  it('counts /readyz, /label-files and /carrier-webhooks, which need no key', async () => {
    const ip = newAddress();
    const statuses: number[] = [];
    statuses.push((await call(stack, 'GET', '/readyz', { headers: from(ip) })).status);
    statuses.push((await call(stack, 'GET', '/readyz', { headers: from(ip) })).status);
    statuses.push((await call(stack, 'GET', '/api/v1/label-files/shp_nothing/pdf_6x4?expires=1&signature=x', { headers: from(ip) })).status);
    const push = { tracking_number: 'ACM000', scans: [{ id: 's', occurred_at: new Date().toISOString(), status: 'in_transit' }] };
    statuses.push((await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', { body: push, headers: from(ip, { authorization: 'Bearer wrong' }) })).status);
    statuses.push((await call(stack, 'GET', '/api/v1/openapi.json', { headers: from(ip) })).status);
    expect(statuses).not.toContain(429);
    const over = await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', { body: push, headers: from(ip, { authorization: 'Bearer wrong' }) });
    expect(over.status).toBe(429);
    expect((await call(stack, 'GET', '/api/v1/label-files/shp_nothing/pdf_6x4?expires=1&signature=x', { headers: from(ip) })).status).toBe(429);
    // The liveness probe touches nothing and stays open to the orchestrator.
    expect((await call(stack, 'GET', '/healthz', { headers: from(ip) })).status).toBe(200);
  });

  it('does not count authenticated requests against the address', async () => {
    const acct = await createAccount(stack);
    const ip = newAddress();
    for (let i = 0; i < POLICY.count * 2; i++) {
      expect((await call(stack, 'GET', '/api/v1/shipments', { key: acct.testKey, headers: from(ip) })).status).toBe(200);
    }
  });

  it('never refuses a valid key because its address has spent the allowance of requests without one', async () => {
    const acct = await createAccount(stack);
    const ip = newAddress();
    for (let i = 0; i < POLICY.count; i++) await call(stack, 'GET', '/readyz', { headers: from(ip) });
    expect((await call(stack, 'GET', '/readyz', { headers: from(ip) })).status).toBe(429);
    // Behind the same address (a NAT), a keyed client has its key's allowance, on either instance.
    for (const url of [stack.url, secondUrl]) {
      const keyed = await call({ url }, 'GET', '/api/v1/account/balance', { key: acct.testKey, headers: from(ip) });
      expect(keyed.status, keyed.text).toBe(200);
      expect(keyed.headers['ratelimit-limit']).toBeDefined();
    }
    // A refused key from it is still a refusal the address pays for: 429.
    expect((await call(stack, 'GET', '/api/v1/shipments', { key: badKey, headers: from(ip) })).status).toBe(429);
  });

  it('does not limit a carrier push with its carrier’s secret by the address; a refused push counts', async () => {
    const ip = newAddress();
    const push = (n: number, secret: string) =>
      call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
        body: { tracking_number: `ACM${n}`, scans: [{ id: `s${n}`, occurred_at: new Date().toISOString(), status: 'in_transit' }] },
        headers: from(ip, { authorization: `Bearer ${secret}` }),
      });
    // A carrier sends its scans from one address, many a second: authenticated, not counted.
    for (let i = 0; i < POLICY.count * 2; i++) {
      const a = await push(i, 'dev-carrier-acme-secret');
      expect(a.status, `push ${i + 1}: ${a.text}`).toBe(202);
    }
    for (let i = 0; i < POLICY.count; i++) expect((await push(i, 'wrong')).status).toBe(401);
    expect((await push(0, 'wrong')).status).toBe(429);
    // Spent by refusals, the address still takes its carrier's authenticated pushes, as a valid key's requests.
    expect((await push(0, 'dev-carrier-acme-secret')).status).toBe(202);
  });
});

/** Signs a new portal user of a new account in through the form, from `ip`; returns the session cookie. */
async function portalSession(ip: string): Promise<string> {
  const acct = await createAccount(stack);
  const email = `limit-${acct.id.slice(-8)}@example.com`;
  await stack.admin.createUser(acct.id, { email, password: 'a long enough password' });
  const form = await request(`${stack.url}/portal/login`, { headers: from(ip) });
  const html = await form.body.text();
  const loginCookie = String(form.headers['set-cookie']).split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const signedIn = await request(`${stack.url}/portal/login`, {
    method: 'POST',
    headers: from(ip, { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' }),
    body: new URLSearchParams({ _csrf: csrf, email, password: 'a long enough password' }).toString(),
  });
  await signedIn.body.dump();
  const cookies = [signedIn.headers['set-cookie']].flat().map(String);
  const session = cookies.find((c) => c.startsWith('svc_session='));
  expect(session, `sign-in answered ${signedIn.statusCode}`).toBeDefined();
  return session!.split(';')[0];
}

describe('signed-in portal users', () => {
  it('spend their own allowance, not the address they share: a noisy neighbour does not lock them out', async () => {
    const cookie = await portalSession(newAddress());
    const ip = newAddress();
    for (let i = 0; i < POLICY.count; i++) await call(stack, 'GET', '/readyz', { headers: from(ip) });
    expect((await call(stack, 'GET', '/portal/login', { headers: from(ip) })).status).toBe(429);
    // Behind that address, the signed-in user's pages and assets still load, on either instance.
    for (const [url, path] of [[stack.url, '/portal'], [secondUrl, '/portal'], [stack.url, '/portal/assets/app.css']]) {
      const page = await request(`${url}${path}`, { headers: from(ip, { cookie }) });
      await page.body.dump();
      expect(page.statusCode, `${url}${path}`).toBe(200);
    }
  });

  it('are limited by their own allowance: then a page that says to wait, with Retry-After', async () => {
    const cookie = await portalSession(newAddress());
    const ip = newAddress();
    const statuses: number[] = [];
    for (let i = 0; i <= POLICY.count; i++) {
      const page = await request(`${stack.url}/portal`, { headers: from(ip, { cookie }) });
      statuses.push(page.statusCode);
      if (page.statusCode !== 429) {
        await page.body.dump();
        continue;
      }
      expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(page.headers['content-type']).toContain('text/html');
      expect(await page.body.text()).toMatch(/Too many requests\. Wait \d+ seconds and try again\./);
    }
    expect(statuses).toEqual([...Array(POLICY.count).fill(200), 429]);
    // The address itself has spent nothing.
    expect((await call(stack, 'GET', '/readyz', { headers: from(ip) })).status).toBe(200);
  });
});

describe('the client address behind a trusted proxy', () => {
  it('is the last X-Forwarded-For hop the trusted proxy added, not one the client wrote before it', async () => {
    const acct = await createAccount(stack);
    const { key } = await stack.admin.createKey(acct.id, { mode: 'test', allowIp: '203.0.113.0/24' });
    expect((await call(stack, 'GET', '/api/v1/shipments', { key, headers: from('203.0.113.7') })).status).toBe(200);
    // The client forged an allowed address; the proxy appended the one it saw, which is outside.
    const forged = await call(stack, 'GET', '/api/v1/shipments', { key, headers: from(`203.0.113.7, ${newAddress()}`) });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('ip_not_allowed');
    // Through two trusted hops the client is still the first untrusted one from the right.
    expect((await call(stack, 'GET', '/api/v1/shipments', { key, headers: from('198.51.100.1, 203.0.113.8, 127.0.0.1') })).status).toBe(200);
  });
});

describe('refusals that spend the key', () => {
  it('counts an ip_not_allowed refusal against the key’s own allowance', async () => {
    const acct = await createAccount(stack);
    const { key } = await stack.admin.createKey(acct.id, { mode: 'test', allowIp: '10.0.0.0/8', rateLimit: '3/600' });
    for (let i = 0; i < 3; i++) {
      const refused = await call(stack, 'GET', '/api/v1/shipments', { key, headers: from(newAddress()) });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ip_not_allowed');
    }
    const fromInside = await call(stack, 'GET', '/api/v1/shipments', { key, headers: from('10.1.2.3') });
    expect(fromInside.status).toBe(429);
    expect(fromInside.body.code).toBe('rate_limited');
  });

  it('refuses a key in the query string however the parameter is repeated or written', async () => {
    const acct = await createAccount(stack);
    const ip = newAddress();
    const k = encodeURIComponent(acct.testKey);
    for (const query of [`?key=${k}&key=${k}`, `?limit=5&limit=${k}`, `?api_key[]=${k}`, `?API-KEY=x`, `?reference=a&reference=${k}`, `?access_token[0]=${k}`]) {
      const a = await call(stack, 'GET', `/api/v1/shipments${query}`, { key: acct.testKey, headers: from(newAddress()) });
      expect(a.status, query).toBe(401);
      expect(a.body.code).toBe('unauthorized');
    }
  });
});
