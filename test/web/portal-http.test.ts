// The portal's and the admin console's rules over plain HTTP: sign-in, cookies, CSRF, throttling,
// sign-out, who may see what, the same rules as the API (webhook URLs, key ownership), and logs
// that record every action without a secret. The browser walk is in portal-browser.test.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { LOGIN_MAX_FAILURES_PER_EMAIL } from '../../api/web/session.js';
import { findAccount, findUserByEmail, listApiKeys, openDatabase, recordWebhookAttempt } from '../../db/index.js';
import { createLogger } from '../../runtime/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { call, createAccount, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let app: FastifyInstance;
let base: string;
const lines: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
  // The production logger at debug level, into memory: the actions must be there, secrets not.
  const logger = createLogger({ ...stack.config, logLevel: 'debug' }, 'api', { write: (line: string) => void lines.push(line) });
  // Behind a trusted proxy, so each test speaks from its own client address (throttling counts per address).
  app = await createApp({ config: { ...stack.config, trustedProxies: ['127.0.0.0/8'] }, db: stack.database.db, temporal: stack.temporal, catalog: carrierRegistryFor(stack.config), logger });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await stack?.stop();
});

interface Page {
  status: number;
  location: string | undefined;
  cookies: string[];
  html: string;
  headers: Record<string, string | string[] | undefined>;
}

let clientIp = '198.51.100.1';
const someAddress = () => `203.0.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
beforeEach(() => {
  clientIp = someAddress();
});

/** A browser without a browser: sends the cookie it is given, never follows redirects. */
async function web(method: 'GET' | 'POST', path: string, o: { cookie?: string; form?: Record<string, string | string[]> } = {}): Promise<Page> {
  const headers: Record<string, string> = { 'x-forwarded-for': clientIp };
  if (o.cookie) headers.cookie = o.cookie;
  let body: string | undefined;
  if (o.form) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(o.form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
    body = params.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await request(`${base}${path}`, { method, headers, body });
  const setCookie = res.headers['set-cookie'];
  return {
    status: res.statusCode,
    location: res.headers.location as string | undefined,
    cookies: setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie],
    html: await res.body.text(),
    headers: res.headers,
  };
}

const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const cookieNamed = (p: Page, name: string) => p.cookies.find((c) => c.startsWith(`${name}=`));
const pair = (setCookie: string | undefined) => setCookie?.split(';')[0] ?? '';

/** Signs in through the form; returns the session cookie and the session's CSRF token. */
async function signIn(email: string, password: string) {
  const form = await web('GET', '/portal/login');
  const loginCookie = pair(cookieNamed(form, 'svc_login_csrf'));
  const res = await web('POST', '/portal/login', { cookie: loginCookie, form: { _csrf: csrfIn(form.html), email, password } });
  const session = pair(cookieNamed(res, 'svc_session'));
  const page = session ? await web('GET', res.location ?? '/portal', { cookie: session }) : undefined;
  return { res, cookie: session, csrf: page ? csrfIn(page.html) : '' };
}

let n = 0;
async function customer(o: { enabled?: boolean; name?: string; funding?: 'card' } = {}) {
  const acct = await createAccount(stack, { ...(o.name ? { name: o.name } : {}), ...(o.funding ? { funding: o.funding } : {}) });
  if (o.enabled === false) await stack.database.db.execute(`update accounts set api_enabled = false where id = '${acct.id}'`);
  const email = `user${++n}-${acct.id.slice(-8)}@example.com`;
  const password = `long enough password ${n}`;
  await stack.admin.createUser(acct.id, { email, password });
  return { ...acct, email, password };
}

describe('admin user create', () => {
  it('creates a user from the command line as JSON, storing only an argon2id hash', async () => {
    const { id } = await stack.admin.createAccount({ name: 'Cli Ltd', funding: 'wallet' });
    const email = `cli-${id.slice(-8)}@Example.com`;
    const run = (args: string[]) =>
      promisify(execFile)('npx', ['tsx', 'admin/main.ts', ...args], { env: { ...process.env, DATABASE_URL: inject('databaseUrl') } });
    const { stdout } = await run(['user', 'create', id, '--email', email, '--password', 'a very secret password', '--admin']);
    expect(JSON.parse(stdout)).toEqual({ id: expect.stringMatching(/^usr_[0-9a-z]{26}$/), account_id: id, email: email.toLowerCase(), admin: true });
    const stored = (await findUserByEmail(stack.database.db, email))!;
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored.passwordHash).not.toContain('a very secret password');
    const again = await run(['user', 'create', id, '--email', email, '--password', 'another long password']).catch((e: { code: number; stderr: string }) => e);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('already exists') });
    await expect(stack.admin.createUser(id, { email: 'x@example.com', password: 'short' })).rejects.toThrow(/12 to 200/);
  });
});

describe('signing in and out', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie, Secure when the public origin is https', async () => {
    const c = await customer();
    const { res, cookie } = await signIn(c.email, c.password);
    expect(res.status).toBe(303);
    expect(res.location).toBe('/portal');
    const set = cookieNamed(res, 'svc_session')!;
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Lax/);
    expect(set).not.toMatch(/Secure/);
    expect((await web('GET', '/portal', { cookie })).status).toBe(200);

    const https = await createApp({
      config: { ...stack.config, publicBaseUrl: 'https://portal.example.com' },
      db: stack.database.db,
      temporal: stack.temporal,
      catalog: carrierRegistryFor(stack.config),
    });
    try {
      const form = await https.inject({ method: 'GET', url: '/portal/login' });
      const loginCookie = String(form.headers['set-cookie']);
      expect(loginCookie).toMatch(/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
      const res2 = await https.inject({
        method: 'POST',
        url: '/portal/login',
        headers: { cookie: loginCookie.split(';')[0], 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrfIn(form.body), email: c.email, password: c.password }).toString(),
      });
      expect(res2.statusCode).toBe(303);
      const sessionCookie = ([] as string[]).concat(res2.headers['set-cookie'] as string[]).find((x) => x.startsWith('svc_session='))!;
      expect(sessionCookie).toMatch(/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure$/);
    } finally {
      await https.close();
    }
  });

  it('refuses a wrong password and an unknown email with the same answer', async () => {
    const c = await customer();
    const wrong = await signIn(c.email, 'not the password at all');
    const unknown = await signIn(`nobody-${c.id}@example.com`, 'not the password at all');
    for (const r of [wrong, unknown]) {
      expect(r.res.status).toBe(401);
      expect(r.res.html).toContain('Email or password is not right.');
      expect(r.cookie).toBe('');
    }
  });

  it('throttles an email after five failures in 15 minutes, even with the right password', async () => {
    const c = await customer();
    for (let i = 0; i < 5; i++) expect((await signIn(c.email, `guess ${i} of the password`)).res.status).toBe(401);
    const blocked = await signIn(c.email, c.password);
    expect(blocked.res.status).toBe(429);
    // Retry-After as on every 429 (it was missing): the window's length is always long enough.
    expect(blocked.res.headers['retry-after']).toBe('900');
    expect(blocked.res.html).toContain('Too many failed sign-ins');
    expect(blocked.cookie).toBe('');
    // Another user from the same address is not locked out by it.
    const other = await customer();
    expect((await signIn(other.email, other.password)).res.status).toBe(303);
  });

  // A burst on one email, spread over two API instances with their own pools (as several processes
  // share one database): the limit holds as it does one attempt at a time, the right password last.
  it('holds the email limit against a burst of concurrent attempts over two instances, the right password among them', async () => {
    const second = openDatabase(inject('databaseUrl'), { max: 5 });
    const twin = await createApp({ config: { ...stack.config, trustedProxies: ['127.0.0.0/8'] }, db: second.db, temporal: stack.temporal, catalog: carrierRegistryFor(stack.config) });
    const twinBase = await twin.listen({ port: 0, host: '127.0.0.1' });
    try {
      for (const c of [await customer(), { email: `nobody-burst-${n}@example.com`, password: 'not anyone at all' }]) {
        clientIp = someAddress();
        const limit = LOGIN_MAX_FAILURES_PER_EMAIL;
        const wrong = limit + 8;
        const forms = await Promise.all(Array.from({ length: wrong + 1 }, () => web('GET', '/portal/login')));
        const post = async (i: number, password: string) => {
          const headers = { 'x-forwarded-for': clientIp, cookie: pair(cookieNamed(forms[i], 'svc_login_csrf')), 'content-type': 'application/x-www-form-urlencoded' };
          const body = new URLSearchParams({ _csrf: csrfIn(forms[i].html), email: c.email, password }).toString();
          const res = await request(`${i % 2 ? twinBase : base}/portal/login`, { method: 'POST', headers, body });
          await res.body.dump();
          return { status: res.statusCode, headers: res.headers, session: String(res.headers['set-cookie'] ?? '').includes('svc_session=') };
        };
        const answers = await Promise.all([...Array.from({ length: wrong }, (_, i) => post(i, `burst guess ${i}`)), post(wrong, c.password)]);
        const statuses = answers.map((a) => a.status);
        // Only `limit` passwords are checked at all; the rest wait for none and are refused.
        const checked = statuses.filter((s) => s === 401 || s === 303).length;
        expect(checked, c.email).toBeLessThanOrEqual(limit);
        expect(statuses.filter((s) => s !== 401 && s !== 303 && s !== 429), c.email).toEqual([]);
        for (const a of answers.filter((x) => x.status === 429)) expect(a.headers['retry-after']).toBe('900');
        const right = answers[wrong];
        // The right password signs in only when it was among the first `limit` checks, as one at a
        // time it would; otherwise it is refused with no session.
        // (An unknown email's "right" password is checked and refused, 401, when it comes early.)
        if (right.status === 303 || right.status === 401) expect(checked).toBeLessThanOrEqual(limit);
        else {
          expect(right.status, c.email).toBe(429);
          expect(right.session).toBe(false);
          // And one at a time afterwards, on either instance.
          expect((await signIn(c.email, c.password)).res.status).toBe(429);
        }
      }
    } finally {
      await twin.close();
      await second.close();
    }
  });

  it('throttles a client address after twenty failures in 15 minutes, whatever the emails', async () => {
    const c = await customer();
    for (let i = 0; i < 20; i++) expect((await signIn(`guess${i}-${c.id}@example.com`, 'a guessed password')).res.status).toBe(401);
    expect((await signIn(c.email, c.password)).res.status).toBe(429);
    clientIp = someAddress();
    expect((await signIn(c.email, c.password)).res.status).toBe(303);
  });

  it('refuses a sign-in form without its CSRF cookie', async () => {
    const c = await customer();
    const form = await web('GET', '/portal/login');
    const res = await web('POST', '/portal/login', { form: { _csrf: csrfIn(form.html), email: c.email, password: c.password } });
    expect(res.status).toBe(403);
    expect(cookieNamed(res, 'svc_session')).toBeUndefined();
  });

  it('takes the sign-in form of one tab after another tab showed the form again', async () => {
    const c = await customer();
    const first = await web('GET', '/portal/login');
    const cookie = pair(cookieNamed(first, 'svc_login_csrf'));
    // A second tab (or a bookmark opened while signed out) shows the form again with the same cookie.
    const second = await web('GET', '/portal/login', { cookie });
    const held = pair(cookieNamed(second, 'svc_login_csrf')) || cookie;
    const res = await web('POST', '/portal/login', { cookie: held, form: { _csrf: csrfIn(first.html), email: c.email, password: c.password } });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/portal');
    expect(cookieNamed(res, 'svc_session')).toBeDefined();
  });

  it('signs out: the session ends on the server, so the old cookie no longer works', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const out = await web('POST', '/portal/logout', { cookie, form: { _csrf: csrf } });
    expect(out.status).toBe(303);
    expect(cookieNamed(out, 'svc_session')).toMatch(/^svc_session=; .*Max-Age=0/);
    const after = await web('GET', '/portal', { cookie });
    expect(after.status).toBe(303);
    expect(after.location).toBe('/portal/login');
  });
});

describe('who sees what', () => {
  it('sends visitors to sign in, customers to the portal only, administrators to the admin console', async () => {
    expect((await web('GET', '/portal/keys')).location).toBe('/portal/login');
    expect((await web('GET', '/admin')).location).toBe('/portal/login');
    const c = await customer();
    const shop = await signIn(c.email, c.password);
    expect((await web('GET', '/admin', { cookie: shop.cookie })).status).toBe(403);
    expect((await web('GET', '/admin/accounts', { cookie: shop.cookie })).status).toBe(403);

    const { id } = await stack.admin.createAccount({ name: 'Ops', funding: 'wallet' });
    await stack.admin.createUser(id, { email: `ops-${id.slice(-8)}@example.com`, password: 'operator password 1', admin: true });
    const desk = await signIn(`ops-${id.slice(-8)}@example.com`, 'operator password 1');
    expect(desk.res.location).toBe('/admin');
    expect((await web('GET', '/portal', { cookie: desk.cookie })).location).toBe('/admin');
    expect((await web('GET', '/admin/accounts', { cookie: desk.cookie })).status).toBe(200);
  });

  // `/portal/` and `/admin/` answered 404 while `/portal` and `/admin` answered (found by a
  // black-box audit); `/docs/` and `/docs` both lead to the reference.
  it('takes /portal/ and /admin/ for /portal and /admin, by a redirect; the API keeps its paths', async () => {
    for (const page of ['/portal', '/admin']) {
      const slash = await web('GET', `${page}/`);
      expect(slash.status, page).toBe(301);
      expect(slash.location, page).toBe(page);
      expect((await web('GET', `${page}/?mode=live`)).location).toBe(`${page}?mode=live`);
    }
    const c = await customer();
    const { cookie } = await signIn(c.email, c.password);
    const slash = await web('GET', '/portal/', { cookie });
    expect(slash.location).toBe('/portal');
    expect((await web('GET', slash.location!, { cookie })).status).toBe(200);
    const api = await call({ url: base }, 'GET', '/api/v1/account/balance/', { key: c.testKey });
    expect(api.status).toBe(404);
    expect(api.body.code).toBe('not_found');
  });

  // A mistyped page address (/portal/logout typed in, /admin/acounts) answered the API's JSON
  // problem to a browser (found by a black-box audit): it is a page now; the API keeps its JSON.
  it('answers a page address that does not exist with a 404 page, not a JSON problem', async () => {
    const c = await customer();
    const { cookie } = await signIn(c.email, c.password);
    for (const path of ['/portal/nope', '/portal/logout', '/admin/acounts', '/portal/keys/']) {
      for (const who of [undefined, cookie]) {
        const page = await web('GET', path, { cookie: who });
        expect(page.status, path).toBe(404);
        expect(page.headers['content-type'], path).toBe('text/html; charset=utf-8');
        expect(page.headers['content-security-policy'], path).toContain("script-src 'self'");
        expect(page.html, path).toContain('There is no such page.');
      }
    }
    const api = await call({ url: base }, 'GET', '/api/v1/portal', { key: c.testKey });
    expect(api.status).toBe(404);
    expect(api.body.code).toBe('not_found');
    expect((await web('GET', '/portalx')).headers['content-type']).toContain('application/problem+json');
  });

  it('refuses every form without the session CSRF token, and changes nothing', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const before = (await listApiKeys(stack.database.db, c.id)).length;
    for (const token of [undefined, 'forged', `${csrf}x`]) {
      const res = await web('POST', '/portal/keys', { cookie, form: { ...(token ? { _csrf: token } : {}), mode: 'test', scopes: 'quotes:read' } });
      expect(res.status).toBe(403);
      expect(res.html).toContain('This form expired');
    }
    expect((await listApiKeys(stack.database.db, c.id)).length).toBe(before);
    const ok = await web('POST', '/portal/keys', { cookie, form: { _csrf: csrf, mode: 'test', scopes: 'quotes:read' } });
    expect(ok.status).toBe(200);
    expect((await listApiKeys(stack.database.db, c.id)).length).toBe(before + 1);
  });

  it("cannot revoke another account's key", async () => {
    const a = await customer();
    const b = await customer();
    const [bKey] = await listApiKeys(stack.database.db, b.id);
    const { cookie, csrf } = await signIn(a.email, a.password);
    const res = await web('POST', `/portal/keys/${bKey.id}/revoke`, { cookie, form: { _csrf: csrf } });
    expect(res.status).toBe(404);
    const keyOfB = bKey.livemode ? b.liveKey : b.testKey;
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: keyOfB })).status).toBe(200);
  });
});

describe('the same rules as the API', () => {
  it('creates keys only once API access is enabled, and with the same checks as the admin command', async () => {
    const c = await customer({ enabled: false });
    const { cookie, csrf } = await signIn(c.email, c.password);
    const refused = await web('POST', '/portal/keys', { cookie, form: { _csrf: csrf, mode: 'test', scopes: 'quotes:read' } });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('API access is not enabled yet: request it on the overview page.');
    // An operator's command is no advice to a customer.
    expect(refused.html).not.toContain('enable-api');
    await stack.admin.enableApi(c.id);
    const bad = await web('POST', '/portal/keys', { cookie, form: { _csrf: csrf, mode: 'test', scopes: 'quotes:read', allow_ip: '10.0.0.0/33' } });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('allow-ip has invalid CIDR blocks: 10.0.0.0/33');
    const made = await web('POST', '/portal/keys', {
      cookie,
      form: { _csrf: csrf, mode: 'live', scopes: ['quotes:read', 'account:read'], expires_at: '2099-01-02T03:04', rate_limit: '5/60' },
    });
    expect(made.status).toBe(200);
    const key = /id="new-key">([^<]+)</.exec(made.html)![1];
    expect(key).toMatch(/^svc_live_/);
    const [row] = await listApiKeys(stack.database.db, c.id);
    expect(row).toMatchObject({ livemode: true, scopes: ['quotes:read', 'account:read'], rateLimitCount: 5, rateLimitSeconds: 60 });
    expect(row.expiresAt?.toISOString()).toBe('2099-01-02T03:04:00.000Z');
    const used = await call(stack, 'GET', '/api/v1/account/balance', { key });
    expect(used.status).toBe(200);
    expect(used.headers['ratelimit-limit']).toBe('5');
    expect((await call(stack, 'GET', '/api/v1/shipments', { key })).status).toBe(403);
  });

  it('gives a refused key form back as it was sent, not reset to a sandbox key with every scope', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const sent = { mode: 'live', scopes: ['quotes:read', 'tracking:read'], expires_at: '2099-01-02T03:04', allow_ip: '10.0.0.0/33', rate_limit: '10/60' };
    const refused = await web('POST', '/portal/keys', { cookie, form: { _csrf: csrf, ...sent } });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('<option value="live" selected>');
    expect([...refused.html.matchAll(/name="scopes" value="([^"]+)" checked/g)].map((m) => m[1])).toEqual(sent.scopes);
    for (const name of ['expires_at', 'allow_ip', 'rate_limit'] as const) {
      expect(refused.html).toMatch(new RegExp(`id="${name}" name="${name}"[^>]* value="${sent[name]}"`));
    }
    // A new form still starts as a sandbox key with every scope and the default rate limit.
    const fresh = await web('GET', '/portal/keys', { cookie });
    expect(fresh.html).not.toContain(' selected>');
    expect([...fresh.html.matchAll(/name="scopes" value="[^"]+" checked/g)]).toHaveLength(11);
    expect(fresh.html).toMatch(/id="rate_limit" name="rate_limit"[^>]* value="100\/10"/);
  });

  // A request sent after access was enabled (a page left open) was recorded after the enabling, and
  // the admin console showed a review of it (found by a black-box audit): it records nothing now.
  it('records no access request for an account whose API access is already enabled', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const res = await web('POST', '/portal/access-request', { cookie, form: { _csrf: csrf } });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/portal');
    expect((await findAccount(stack.database.db, c.id))!.apiAccessRequestedAt).toBeNull();
    const waiting = await customer({ enabled: false });
    const asked = await signIn(waiting.email, waiting.password);
    expect((await web('POST', '/portal/access-request', { cookie: asked.cookie, form: { _csrf: asked.csrf } })).location).toBe('/portal?notice=access_requested');
    expect((await findAccount(stack.database.db, waiting.id))!.apiAccessRequestedAt).toBeInstanceOf(Date);
  });

  // A rate limit beyond a 32-bit integer answered 500 (the insert failed), and 2027-02-30 was read
  // as 2 March (found by a black-box audit): both are refused with a clear error instead.
  it('refuses a rate limit too large to store and an expiry on a day the calendar lacks, with a clear 422', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const before = (await listApiKeys(stack.database.db, c.id)).length;
    const create = (extra: Record<string, string>) => web('POST', '/portal/keys', { cookie, form: { _csrf: csrf, mode: 'test', scopes: 'quotes:read', ...extra } });
    for (const rate_limit of ['99999999999999999999/10', '100/2147483648']) {
      const refused = await create({ rate_limit });
      expect(refused.status).toBe(422);
      expect(refused.html).toContain('rate-limit must look like 100/10 (requests/seconds), each number from 1 to 2147483647');
    }
    const badDay = await create({ expires_at: '2099-02-30T10:00' });
    expect(badDay.status).toBe(422);
    expect(badDay.html).toContain('expires-at must be an ISO 8601 date or date-time');
    expect(await listApiKeys(stack.database.db, c.id)).toHaveLength(before);
    // A time without an offset is UTC (it was the operator's own time zone).
    expect((await stack.admin.createKey(c.id, { mode: 'test', expiresAt: '2099-01-02T03:04' })).id).toMatch(/^key_/);
    expect((await listApiKeys(stack.database.db, c.id)).some((k) => k.expiresAt?.toISOString() === '2099-01-02T03:04:00.000Z')).toBe(true);
    await expect(stack.admin.createKey(c.id, { mode: 'test', expiresAt: '2099-13-02' })).rejects.toThrow('ISO 8601 date or date-time');
    expect((await create({ rate_limit: '2147483647/2147483647', expires_at: '2099-02-28T10:00' })).status).toBe(200);
  });

  it('refuses the webhook URLs the API refuses, and registers the others for the API to list', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const post = (url: string, events?: string[]) =>
      web('POST', '/portal/webhooks?mode=test', { cookie, form: { _csrf: csrf, url, ...(events ? { events } : {}) } });
    expect((await post('http://93.184.215.14/hooks')).html).toContain('url must use https');
    const privateUrl = await post('https://10.1.2.3/hooks');
    expect(privateUrl.status).toBe(422);
    expect(privateUrl.html).toContain('url must resolve to a public address');
    expect((await post('https://93.184.215.14/hooks', ['shipment.teleported'])).html).toContain('events.0 is not one of the allowed values');
    const ok = await post('https://93.184.215.14/hooks', ['shipment.purchased', 'tracking.updated']);
    expect(ok.status).toBe(200);
    const secret = /id="new-secret">([^<]+)</.exec(ok.html)![1];
    expect(secret).toMatch(/^whsec_/);
    const listed = await call(stack, 'GET', '/api/v1/webhook_endpoints', { key: c.testKey });
    expect(listed.body.data).toEqual([expect.objectContaining({ url: 'https://93.184.215.14/hooks', events: ['shipment.purchased', 'tracking.updated'], livemode: false })]);
    expect((await call(stack, 'GET', '/api/v1/webhook_endpoints', { key: c.liveKey })).body.data).toEqual([]);
    expect(listed.text).not.toContain(secret);
  });

  it('gives a refused endpoint form back as it was sent, not reset to every event', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const events = ['shipment.delivered', 'tracking.updated'];
    const refused = await web('POST', '/portal/webhooks?mode=live', { cookie, form: { _csrf: csrf, url: 'https://10.1.2.3/hooks', events } });
    expect(refused.status).toBe(422);
    expect(refused.html).toMatch(/id="url" name="url"[^>]* value="https:\/\/10\.1\.2\.3\/hooks"/);
    expect([...refused.html.matchAll(/name="events" value="([^"]+)" checked/g)].map((m) => m[1])).toEqual(events);
    const made = await web('POST', '/portal/webhooks?mode=live', { cookie, form: { _csrf: csrf, url: 'https://93.184.215.14/hooks', events } });
    expect(made.status).toBe(200);
    expect(made.html).toMatch(/id="url" name="url"[^>]* value=""/);
    expect(made.html).not.toMatch(/name="events" value="[^"]+" checked/);
  });

  it('deletes an endpoint, and shows its delivery log with attempts, status and the next retry', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const made = await web('POST', '/portal/webhooks?mode=live', { cookie, form: { _csrf: csrf, url: 'https://93.184.215.14/log' } });
    const id = /Signing secret of (we_[0-9a-z]+)/.exec(made.html)![1];
    // Two attempts of one event as the delivery workflow records them: the second failed, retry due.
    const attemptedAt = new Date('2026-11-20T10:00:00Z');
    await recordWebhookAttempt(stack.database.db, { id: `whd_a${id.slice(3)}`, eventId: 'evt_portal_log', endpointId: id, attempt: 1, outcome: 'failed', statusCode: 500, attemptedAt: new Date(attemptedAt.getTime() - 10_000) });
    await recordWebhookAttempt(stack.database.db, { id: `whd_b${id.slice(3)}`, eventId: 'evt_portal_log', endpointId: id, attempt: 2, outcome: 'failed', statusCode: 502, attemptedAt });
    const log = await web('GET', `/portal/webhooks/${id}?mode=live`, { cookie });
    expect(log.status).toBe(200);
    const text = log.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    // Attempt 2 failed with 502; the third follows a minute later (spec §6: 10 s, 1 min, …).
    expect(text).toContain('2 of 6 failed 502 2026-11-20 10:00 UTC 2026-11-20 10:01 UTC');
    expect(text).toContain('1 of 6 failed 500 2026-11-20 09:59 UTC —');
    // The sandbox view does not show a live endpoint.
    expect((await web('GET', `/portal/webhooks/${id}?mode=test`, { cookie })).status).toBe(404);

    const deleted = await web('POST', `/portal/webhooks/${id}/delete?mode=live`, { cookie, form: { _csrf: csrf } });
    expect(deleted.location).toBe('/portal/webhooks?mode=live&notice=endpoint_deleted');
    expect((await call(stack, 'GET', '/api/v1/webhook_endpoints', { key: c.liveKey })).body.data).toEqual([]);
    expect((await web('GET', `/portal/webhooks/${id}?mode=live`, { cookie })).status).toBe(404);
  });

  it('lets an administrator set a credit line and top up a wallet, with the admin command’s checks', async () => {
    const { id } = await stack.admin.createAccount({ name: 'Ops', funding: 'wallet' });
    await stack.admin.createUser(id, { email: `ops2-${id.slice(-8)}@example.com`, password: 'operator password 2', admin: true });
    const desk = await signIn(`ops2-${id.slice(-8)}@example.com`, 'operator password 2');
    const credit = await createAccount(stack, { funding: 'credit_line', creditLimit: '100.00' });
    const wallet = await createAccount(stack);
    const setLimit = await web('POST', `/admin/accounts/${credit.id}/credit-limit`, { cookie: desk.cookie, form: { _csrf: desk.csrf, credit_limit: '750.00' } });
    expect(setLimit.location).toBe('/admin/accounts?notice=credit_limit_saved');
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: credit.testKey })).body).toMatchObject({ credit_limit: '750.00', available: '750.00' });
    const onWallet = await web('POST', `/admin/accounts/${wallet.id}/credit-limit`, { cookie: desk.cookie, form: { _csrf: desk.csrf, credit_limit: '5.00' } });
    expect(onWallet.status).toBe(422);
    expect(onWallet.html).toContain('credit-limit applies only to credit_line accounts');
    expect((await web('POST', `/admin/accounts/${credit.id}/topup`, { cookie: desk.cookie, form: { _csrf: desk.csrf, amount: '5.00' } })).html).toContain(
      'only wallet accounts can be topped up',
    );
    expect((await web('POST', `/admin/accounts/${wallet.id}/topup`, { cookie: desk.cookie, form: { _csrf: desk.csrf, amount: '-3' } })).status).toBe(422);
    expect((await web('POST', `/admin/accounts/${wallet.id}/topup`, { cookie: desk.cookie, form: { _csrf: desk.csrf, amount: '12.34' } })).status).toBe(303);
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: wallet.testKey })).body.available).toBe('12.34');
    expect((await web('GET', '/admin/stuck?older_than=soon', { cookie: desk.cookie })).status).toBe(422);
  });

  // The accounts page listed the newest 200 accounts and nothing else: an older account could not
  // be topped up from the console (found by a black-box audit). It is found by id or by name now.
  it('finds any account by id or part of its name, and keeps the search across a top-up', async () => {
    const { id } = await stack.admin.createAccount({ name: 'Ops', funding: 'wallet' });
    await stack.admin.createUser(id, { email: `ops3-${id.slice(-8)}@example.com`, password: 'operator password 3', admin: true });
    const desk = await signIn(`ops3-${id.slice(-8)}@example.com`, 'operator password 3');
    const old = await createAccount(stack, { name: `Old 100%_Customer ${id.slice(-6)}` });
    // Newer accounts (on a busy service, more than the page shows) are not in the answer.
    await stack.admin.createAccount({ name: `Newer ${id.slice(-6)}`, funding: 'wallet' });
    const row = `data-account-id="${old.id}"`;
    for (const q of [old.id, `100%_customer ${id.slice(-6)}`]) {
      const found = await web('GET', `/admin/accounts?q=${encodeURIComponent(q)}`, { cookie: desk.cookie });
      expect(found.status, q).toBe(200);
      expect(found.html, q).toContain(row);
      expect(found.html.match(/data-account-id="/g), q).toHaveLength(1);
    }
    // % and _ are the name's own characters, not wildcards.
    expect((await web('GET', '/admin/accounts?q=Old%20100x', { cookie: desk.cookie })).html).toContain('No account matches.');
    const topped = await web('POST', `/admin/accounts/${old.id}/topup`, { cookie: desk.cookie, form: { _csrf: desk.csrf, q: old.id, amount: '3.00' } });
    expect(topped.location).toBe(`/admin/accounts?q=${old.id}&notice=topped_up`);
    expect((await web('GET', topped.location!, { cookie: desk.cookie })).html).toContain(row);
  });

  it('sets the low-balance threshold the balance endpoint reports', async () => {
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    expect((await web('POST', '/portal/threshold', { cookie, form: { _csrf: csrf, threshold: 'lots' } })).status).toBe(422);
    const saved = await web('POST', '/portal/threshold', { cookie, form: { _csrf: csrf, threshold: '12.50' } });
    expect(saved.location).toBe('/portal?notice=threshold_saved');
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: c.testKey })).body.low_balance_threshold).toBe('12.50');
    // An empty field clears it: no threshold, no wallet.low_balance events.
    const cleared = await web('POST', '/portal/threshold', { cookie, form: { _csrf: csrf, threshold: ' ' } });
    expect(cleared.location).toBe('/portal?notice=threshold_saved');
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: c.testKey })).body.low_balance_threshold).toBeNull();
    expect(await stack.admin.setAccount(c.id, { lowBalanceThreshold: '5.00' })).toMatchObject({ low_balance_threshold: '5.00' });
    expect(await stack.admin.setAccount(c.id, { lowBalanceThreshold: 'none' })).toMatchObject({ low_balance_threshold: null });
  });

  it('offers no low-balance threshold to a card account, which has no balance to fall below it', async () => {
    const c = await customer({ funding: 'card' });
    const { cookie, csrf } = await signIn(c.email, c.password);
    expect((await web('GET', '/portal', { cookie })).html).not.toContain('action="/portal/threshold"');
    const refused = await web('POST', '/portal/threshold', { cookie, form: { _csrf: csrf, threshold: '20.00' } });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('applies only to wallet and credit_line accounts');
    await expect(stack.admin.setAccount(c.id, { lowBalanceThreshold: '20.00' })).rejects.toThrow('applies only to wallet and credit_line accounts');
    expect(await stack.admin.setAccount(c.id, { lowBalanceThreshold: 'none' })).toMatchObject({ low_balance_threshold: null });
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: c.testKey })).body.low_balance_threshold).toBeNull();
  });
});

describe('pages', () => {
  it('escape what they show, carry a strict CSP, stay out of the OpenAPI document, and leave the API JSON-only', async () => {
    const c = await customer({ name: '<script>alert(1)</script> Ltd' });
    const { cookie } = await signIn(c.email, c.password);
    const page = await web('GET', '/portal', { cookie });
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Ltd');
    expect(page.html).not.toContain('<script>alert(1)');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    const openapi = await call({ url: base }, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(openapi.body.paths).filter((p) => p.startsWith('/portal') || p.startsWith('/admin'))).toEqual([]);
    const form = await call({ url: base }, 'POST', '/api/v1/quotes', {
      key: c.testKey,
      rawBody: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('log every action by user and account, never a password, key, secret or session id', async () => {
    lines.length = 0;
    const c = await customer();
    const { cookie, csrf } = await signIn(c.email, c.password);
    const made = await web('POST', '/portal/keys', { cookie, form: { _csrf: csrf, mode: 'test', scopes: 'quotes:read' } });
    const key = /id="new-key">([^<]+)</.exec(made.html)![1];
    const keyId = /data-key-id="(key_[^"]+)"/.exec(made.html)![1];
    await web('POST', `/portal/keys/${keyId}/revoke`, { cookie, form: { _csrf: csrf } });
    const hook = await web('POST', '/portal/webhooks', { cookie, form: { _csrf: csrf, url: 'https://93.184.215.14/in' } });
    const secret = /id="new-secret">([^<]+)</.exec(hook.html)![1];
    await web('POST', '/portal/logout', { cookie, form: { _csrf: csrf } });
    const all = lines.join('\n');
    for (const action of ['sign_in', 'api_key_created', 'api_key_revoked', 'webhook_endpoint_created', 'sign_out']) {
      expect(lines.some((l) => l.includes(`"action":"${action}"`))).toBe(true);
    }
    for (const s of [c.password, key, secret, cookie.split('=')[1], csrf]) expect(all).not.toContain(s);
  });
});
