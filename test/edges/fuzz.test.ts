import { connect, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { ERRORS } from '../../domain/index.js';
import { carrierRegistryFor } from '../../workers/activities.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';
import { routesOf, type RouteInfo } from './routes.js';

/**
 * Input no one can break: thousands of generated requests (bodies, headers, path and query
 * parameters) against every route the app serves. Never a 5xx; every error is problem+json with
 * its code, status and request id, and never a stack trace or SQL text.
 */

let stack: TestStack;
let app: FastifyInstance;
let pool: Pool;
let routes: RouteInfo[];
const keys: Record<string, string> = {};
const ids: Record<string, string[]> = {};
let templates: Record<string, unknown> = {};

beforeAll(async () => {
  stack = await startTestStack({ webhookAllowPrivate: true, purchaseWaitMs: 5000 });
  app = await createApp({ config: stack.config, db: stack.database.db, temporal: stack.temporal, catalog: carrierRegistryFor(stack.config) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  pool = new Pool(url, { connections: 8 });
  routes = routesOf(app);

  // No money: a live purchase is refused with 402 before any carrier is asked.
  const mine = await createAccount(stack);
  const theirs = await createAccount(stack);
  const unlimited = '1000000/1';
  keys.mine = (await stack.admin.createKey(mine.id, { mode: 'test', rateLimit: unlimited })).key;
  keys.mineLive = (await stack.admin.createKey(mine.id, { mode: 'live', rateLimit: unlimited })).key;
  keys.theirs = (await stack.admin.createKey(theirs.id, { mode: 'test', rateLimit: unlimited })).key;
  keys.narrow = (await stack.admin.createKey(mine.id, { mode: 'test', scopes: 'quotes:read', rateLimit: unlimited })).key;

  // Real objects, so generated paths also hit existing resources (own and another account's).
  const quote = await call(stack, 'POST', '/api/v1/quotes', { key: keys.mine, body: { from: address(), to: address(), parcel: parcel() } });
  const service = quote.body.data[0].service.code;
  const buy = { service, from: address(), to: address({ country: 'gb' }), parcel: parcel(), reference: 'fuzz' };
  const shipments = await Promise.all(
    [keys.mine, keys.mine, keys.theirs].map((key) => call(stack, 'POST', '/api/v1/shipments', { key, body: buy })),
  );
  const adr = await call(stack, 'POST', '/api/v1/addresses', { key: keys.mine, body: address() });
  const theirAdr = await call(stack, 'POST', '/api/v1/addresses', { key: keys.theirs, body: address() });
  const hook = { url: 'http://127.0.0.1:9/hook', events: ['shipment.purchased'] };
  const endpoint = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: keys.mine, body: hook });
  const events = await call(stack, 'GET', '/api/v1/events', { key: keys.mine });
  ids.id = [
    ...shipments.map((s) => s.body?.id),
    ...shipments.map((s) => s.body?.tracking?.number),
    adr.body?.id,
    theirAdr.body?.id,
    endpoint.body?.id,
    events.body?.data?.[0]?.id,
    'pdf_6x4',
    'zpl',
    'simpost',
  ].filter((x): x is string => typeof x === 'string');
  templates = {
    '/api/v1/quotes': { from: address(), to: address(), parcel: parcel() },
    '/api/v1/shipments': buy,
    '/api/v1/addresses': address({ line2: 'Flat 1' }),
    '/api/v1/addresses/:address': { city: 'Leeds' },
    '/api/v1/webhook_endpoints': hook,
    '/api/v1/sandbox/shipments/:shipment/scans': { status: 'in_transit', description: 'Collected' },
    '/api/v1/carrier-webhooks/:carrier': {
      tracking_number: shipments[0].body?.tracking?.number ?? 'X',
      scans: [{ id: 'scan-1', occurred_at: new Date().toISOString(), status: 'in_transit' }],
    },
  };
}, 180_000);

afterAll(async () => {
  await pool?.close();
  await app?.close();
  await stack?.stop();
});

// ---- generators -------------------------------------------------------------------------------

/** Percent-encodes the UTF-8 bytes (lone surrogates included, which encodeURIComponent refuses). */
const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('');

const weirdText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\t', '\r\n', '\ud800', '\u202e', '🙂', 'null', '0', '-1', 'x'.repeat(201), "'; drop table shipments; --", '%', '\\', '"'),
);

const pathValue = fc.oneof(
  // Real ids (read when generated, after beforeAll made them), own and another account's.
  { weight: 3, arbitrary: fc.nat().map((i) => (ids.id.length ? pct(ids.id[i % ids.id.length]) : 'x')) },
  { weight: 2, arbitrary: weirdText.map(pct) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '%ff', '%c0%ae', '..', '%2e%2e', 'a%2Fb', '%2F', '~', '%F0%9F%92%A9', '%ED%A0%80', 'shp_', 'adr_00000000000000000000000000', ';x', "'") },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 400 }).map((n) => 'a'.repeat(n)) },
);

const queryName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('limit', 'cursor', 'status', 'reference', 'created_after', 'type', 'shipment', 'format', 'expires', 'sig') },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 10 }).map(pct) },
  { weight: 1, arbitrary: fc.constantFrom('key', 'api_key', 'token') },
);
const queryValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('1', '0', '100', '101', '-1', '1.5', 'abc', 'purchased', 'pdf_6x4', '2024-01-01T00:00:00Z', 'not-a-date', '', '%', '%zz', '%00') },
  { weight: 4, arbitrary: weirdText.map(pct) },
  { weight: 1, arbitrary: fc.constant('svc_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') },
);
const query = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.array(fc.tuple(queryName, queryValue), { minLength: 1, maxLength: 3 }).map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`) },
);

/** Header values undici can send: printable ASCII, tabs, and Latin-1. */
const headerText = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'abcXYZ019 \t!"#%&\'()*+,-./:;<=>?@[\\]^_`{|}~é\u00ff'.split('')), maxLength });

const auth = fc.oneof(
  { weight: 6, arbitrary: fc.constant('mine') },
  { weight: 1, arbitrary: fc.constantFrom('mineLive', 'theirs', 'narrow', 'none', 'garbage', 'lower', 'padded', 'basic', 'inQuery') },
);
const authHeader = (kind: string): string | undefined => {
  switch (kind) {
    case 'none':
    case 'inQuery':
      return undefined;
    case 'garbage':
      return 'Bearer svc_test_' + 'Z'.repeat(32);
    case 'lower':
      return `bearer ${keys.mine}`;
    case 'padded':
      return `Bearer  ${keys.mine} `;
    case 'basic':
      return `Basic ${Buffer.from(`${keys.mine}:`).toString('base64')}`;
    default:
      return `Bearer ${keys[kind]}`;
  }
};

const contentType = fc.oneof(
  { weight: 5, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/json;',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/problem+json',
      'application/json-patch+json',
      'application/octet-stream',
      '',
      ';;;',
      '*/*',
    ),
  },
  { weight: 1, arbitrary: headerText(60) },
);

const idempotencyKey = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'k', 'a'.repeat(255), 'a'.repeat(256), 'é', 'key with spaces', 'x'.repeat(8000)) },
  { weight: 1, arbitrary: headerText(300) },
);

/** A mutation of a valid body: a field removed, replaced by any JSON value, or an unknown one added. */
function mutate(template: unknown, pick: number, op: string, value: unknown): unknown {
  const body = structuredClone(template) as Record<string, unknown>;
  const paths: Array<[Record<string, unknown>, string]> = [];
  const walk = (o: unknown) => {
    if (o && typeof o === 'object') for (const k of Object.keys(o)) { paths.push([o as Record<string, unknown>, k]); walk((o as Record<string, unknown>)[k]); }
  };
  walk(body);
  if (op === 'keep' || !paths.length) return body;
  const [parent, k] = paths[pick % paths.length];
  if (op === 'delete') delete parent[k];
  else if (op === 'replace') parent[k] = value;
  else if (op === 'add') parent[`x_${k}`] = value;
  else if (op === 'wrap') parent[k] = [parent[k]];
  return body;
}

type Body = { kind: 'none' } | { kind: 'raw'; text: string } | { kind: 'mutant'; pick: number; op: string; value: unknown };
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mutant' as const), pick: fc.nat(), op: fc.constantFrom('keep', 'keep', 'delete', 'replace', 'replace', 'add', 'wrap'), value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), weirdText) }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ kind: 'raw' as const, text: JSON.stringify(v) })) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 100 }),
      fc.constantFrom(
        '{',
        '}',
        'null',
        '""',
        '[]',
        '\ufeff{}',
        '{"__proto__": {"polluted": 1}}',
        '{"constructor": {"prototype": {"polluted": 1}}}',
        '{"name": "a", "name": "b"}',
        '{"weight_g": 1e400}',
        '123456789012345678901234567890',
        '{"a": "\\u0000"}',
        '{"a": "\\ud800"}',
      ),
      fc.integer({ min: 1000, max: 20000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
      fc.integer({ min: 60, max: 80 }).map((kib) => JSON.stringify({ name: 'x'.repeat(kib * 1024) })),
    ).map((text) => ({ kind: 'raw' as const, text })),
  },
);

const request = fc.record({
  route: fc.nat(),
  method: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') }),
  params: fc.array(pathValue, { minLength: 3, maxLength: 3 }),
  query,
  auth,
  contentType,
  idempotencyKey,
  accept: fc.option(headerText(40), { nil: undefined }),
  forwardedFor: fc.option(headerText(40), { nil: undefined }),
  body,
});
type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

// ---- sending and judging ----------------------------------------------------------------------

const LEAKS = /\bat .+:\d+:\d+|node_modules|\.ts:\d+|\bselect .+ from\b|\binsert into\b|\bupdate .+ set\b|violates|syntax error|\brelation "|drizzle|postgres|FST_ERR/i;
const CODES = new Set(Object.keys(ERRORS));
let sent = 0;

async function send(g: Generated) {
  const route = routes[g.route % routes.length];
  const method = g.method ?? route.method;
  let n = 0;
  const path = route.path.replace(/:[A-Za-z]+/g, () => g.params[n++ % g.params.length]);
  const q = g.auth === 'inQuery' ? `${g.query ? `${g.query}&` : '?'}api_key=${keys.mine}` : g.query;
  const headers: Record<string, string> = {};
  const authorization = authHeader(g.auth);
  if (authorization) headers.authorization = authorization;
  if (g.idempotencyKey !== undefined) headers['idempotency-key'] = g.idempotencyKey;
  if (g.accept !== undefined) headers.accept = g.accept;
  if (g.forwardedFor !== undefined) headers['x-forwarded-for'] = g.forwardedFor;
  let payload: string | undefined;
  if (method !== 'GET' && method !== 'HEAD' && g.body.kind !== 'none') {
    payload = g.body.kind === 'raw' ? g.body.text : JSON.stringify(mutate(templates[route.path] ?? {}, g.body.pick, g.body.op, g.body.value));
    if (g.contentType !== undefined) headers['content-type'] = g.contentType;
  }
  sent++;
  const res = await pool.request({ path: `${path}${q}`, method: method as 'GET', headers, body: payload });
  const text = await res.body.text();
  return { method, path: `${path}${q}`, status: res.statusCode, headers: res.headers, text };
}

function judge(r: Awaited<ReturnType<typeof send>>) {
  const where = `${r.method} ${r.path.slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeLessThan(500);
  expect(r.headers['request-id'], where).toMatch(/^req_/);
  if (r.status < 400 || r.method === 'HEAD') return;
  // The portal's and admin console's pages answer people: their errors are HTML pages.
  if (/^\/(portal|admin)(\/|\?|$)/.test(r.path) && String(r.headers['content-type']).startsWith('text/html')) {
    expect(LEAKS.test(r.text), where).toBe(false);
    return;
  }
  expect(String(r.headers['content-type']), where).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(r.text);
  expect(problem.status, where).toBe(r.status);
  expect(CODES.has(problem.code), where).toBe(true);
  expect(problem.request_id, where).toBe(r.headers['request-id']);
  expect(typeof problem.title === 'string' && typeof problem.detail === 'string' && typeof problem.type === 'string', where).toBe(true);
  expect(LEAKS.test(r.text), where).toBe(false);
  if (r.status === 429) expect(r.headers['retry-after'], where).toMatch(/^[1-9]\d*$/);
}

describe('generated requests against every route', () => {
  it('covers every route the app serves', () => {
    const served = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const r of ['POST /api/v1/addresses', 'PATCH /api/v1/addresses/:address', 'POST /api/v1/shipments', 'GET /healthz', 'GET /api/v1/openapi.json']) {
      expect(served).toContain(r);
    }
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it('never answers 5xx, and every error is problem+json with code, status and request id', async () => {
    sent = 0;
    await fc.assert(
      fc.asyncProperty(request, async (g) => judge(await send(g))),
      { numRuns: 3000, interruptAfterTimeLimit: 150_000, markInterruptAsFailure: false },
    );
    expect(sent).toBeGreaterThanOrEqual(1000);
  }, 200_000);

  it('refuses an unknown field in any body, at any depth, with 422 naming it', async () => {
    const customerBodies = routes.filter((r) => ['POST', 'PATCH'].includes(r.method) && r.path in templates && !r.path.includes('carrier-webhooks'));
    expect(customerBodies.length).toBeGreaterThanOrEqual(6);
    for (const route of customerBodies) {
      const template = templates[route.path] as Record<string, unknown>;
      const nested = Object.keys(template).find((k) => template[k] && typeof template[k] === 'object' && !Array.isArray(template[k]));
      const variants: Array<[unknown, string]> = [[{ ...template, colour: 'red' }, 'colour']];
      if (nested) variants.push([{ ...template, [nested]: { ...(template[nested] as object), shade: 1 } }, `${nested}.shade`]);
      for (const [body, path] of variants) {
        const id = route.path.includes(':address') ? ids.id.find((x) => x.startsWith('adr_')) : ids.id[0];
        const url = route.path.replace(/:[A-Za-z]+/g, id!);
        const a = await call({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }, route.method, url, { key: keys.mine, body });
        expect(a.status, `${route.method} ${route.path}: ${a.text}`).toBe(422);
        expect(a.body.code).toBe('validation_failed');
        expect(a.body.errors.map((e: { path: string }) => e.path), route.path).toContain(path);
      }
    }
  });

  it('answers any path and method, served or not, with problem+json errors', async () => {
    const unknownPath = fc.array(fc.oneof(pathValue, fc.constantFrom('api', 'v1', 'v2', 'shipments', 'addresses', '')), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(unknownPath, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'), query, async (segments, method, q) => {
        const path = `/${segments.join('/')}${q}`;
        const res = await pool.request({ path, method: method as 'GET', headers: { authorization: `Bearer ${keys.mine}` } });
        const text = await res.body.text();
        judge({ method, path, status: res.statusCode, headers: res.headers, text });
      }),
      { numRuns: 500, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: false },
    );
  }, 60_000);
});

/** Sends bytes as they are (no client library tidies them) and reads the answer until the server closes. */
function raw(bytes: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer in time')), 10_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      // The server may reset after answering (it destroys the socket of an unreadable request).
      if (!chunks.length) reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n') || 'null') });
    });
    socket.write(bytes);
  });
}

describe('requests the HTTP parser or the router refuse', () => {
  const close = 'Host: localhost\r\nConnection: close\r\n';
  const cases: Array<[string, () => string, number, string]> = [
    ['an unknown method', () => `BREW /api/v1/addresses HTTP/1.1\r\n${close}\r\n`, 400, 'bad_request'],
    ['a request line that is not HTTP', () => 'HELLO\r\n\r\n', 400, 'bad_request'],
    ['a control character in a header', () => `GET /healthz HTTP/1.1\r\n${close}X-Odd: a\u0001b\r\n\r\n`, 400, 'bad_request'],
    ['headers over the size limit', () => `GET /healthz HTTP/1.1\r\n${close}X-Big: ${'a'.repeat(40_000)}\r\n\r\n`, 431, 'header_fields_too_large'],
    ['a path that is not valid percent-encoding', () => `GET /api/v1/shipments/%zz HTTP/1.1\r\n${close}\r\n`, 400, 'bad_request'],
    ['a path whose percent-encoding is not UTF-8', () => `GET /api/v1/shipments/%E0%A4%A HTTP/1.1\r\n${close}\r\n`, 400, 'bad_request'],
    ['a path segment too long to be an id', () => `GET /api/v1/shipments/${'a'.repeat(500)} HTTP/1.1\r\n${close}Authorization: Bearer ${keys.mine}\r\n\r\n`, 404, 'not_found'],
    [
      'a declared body over 64 KiB',
      () => `POST /api/v1/addresses HTTP/1.1\r\n${close}Authorization: Bearer ${keys.mine}\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n{}`,
      413,
      'payload_too_large',
    ],
    [
      'a chunked body over 64 KiB',
      () => {
        const chunk = `{"name":"${'x'.repeat(70_000)}"}`;
        return `POST /api/v1/addresses HTTP/1.1\r\n${close}Authorization: Bearer ${keys.mine}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
      },
      413,
      'payload_too_large',
    ],
  ];
  for (const [name, bytes, status, code] of cases) {
    it(`answers ${name} with ${status} ${code} as problem+json`, async () => {
      const a = await raw(bytes());
      expect(a.status).toBe(status);
      expect(a.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(a.body).toMatchObject({ status, code, request_id: expect.stringMatching(/^req_/) });
      expect(a.headers['request-id']).toBe(a.body.request_id);
    });
  }
});
