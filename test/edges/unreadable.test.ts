// Requests that cannot be read, or are read too generously (found by a black-box audit): a path that
// is not percent-encoded UTF-8 was 404 and such a query parameter taken as text, `?limit=0x10` was 16, a
// gzip body was read as JSON, two Idempotency-Key headers became one key "a, b", a webhook URL with a
// fragment passed the one-endpoint-per-URL rule, and a long tracking number was 422 instead of 404.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { conformance } from '../api/openapi-conformance.js';

let stack: TestStack;
let acct: TestAccount;
beforeAll(async () => {
  stack = await startTestStack({ webhookAllowPrivate: true }, { workers: false });
  acct = await createAccount(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const expectProblem = (a: Awaited<ReturnType<typeof call>>, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(String(a.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(a.body.code).toBe(code);
  expect(a.body.request_id).toBe(a.headers['request-id']);
};

describe('percent-encoding', () => {
  it('in a path that does not decode to UTF-8 is 400 bad_request', async () => {
    for (const path of ['/api/v1/shipments/%E0%A4%A', '/api/v1/shipments/%FF', '/api/v1/addresses/%zz']) {
      expectProblem(await call(stack, 'GET', path, { key: acct.testKey }), 400, 'bad_request');
    }
  });

  it('in a query parameter is a bad parameter value: 422 naming it, for a caller with a key (401 without)', async () => {
    for (const [query, name] of [['?reference=%FF', 'reference'], ['?status=%', 'status'], ['?cursor=%%%', 'cursor'], ['?limit=%zz', 'limit'], ['?%E0%A4%A=1', '%E0%A4%A']]) {
      const answer = await call(stack, 'GET', `/api/v1/shipments${query}`, { key: acct.testKey });
      expectProblem(answer, 422, 'validation_failed');
      expect(answer.body.errors).toContainEqual({ path: `querystring.${name}`, message: 'is not valid percent-encoded UTF-8' });
      expect(answer.headers['ratelimit-limit']).toBeDefined();
    }
    expectProblem(await call(stack, 'GET', '/api/v1/shipments?reference=%FF'), 401, 'unauthorized');
    // Valid escapes still work.
    expect((await call(stack, 'GET', '/api/v1/shipments?reference=order%20%E2%82%AC1', { key: acct.testKey })).status).toBe(200);
  });
});

describe('?limit', () => {
  it('is decimal digits on every list: hex, exponents, signs and spaces are refused', async () => {
    for (const list of ['/api/v1/shipments', '/api/v1/addresses', '/api/v1/webhook_endpoints', '/api/v1/events']) {
      for (const limit of ['0x10', '1e1', '+5', '%205', '1.0', '']) {
        const answer = await call(stack, 'GET', `${list}?limit=${limit}`, { key: acct.testKey });
        expectProblem(answer, 422, 'validation_failed');
        expect(answer.body.errors).toEqual([{ path: 'querystring.limit', message: 'must be integer' }]);
      }
      expect((await call(stack, 'GET', `${list}?limit=05`, { key: acct.testKey })).status).toBe(200);
      expect((await call(stack, 'GET', `${list}?limit=0`, { key: acct.testKey })).body.errors).toEqual([{ path: 'querystring.limit', message: 'must be >= 1' }]);
    }
  });

  // Two bad parameters, one answer listing both (errors[] lists each): a limit that is not decimal
  // digits hid every other error, and a created_after naming no instant was checked only once the
  // rest of the query was valid (both found by a black-box audit).
  it('is refused together with the query string\'s other errors', async () => {
    const ISO = 'must be an ISO 8601 date, or a date and time with its offset (Z or ±hh:mm)';
    for (const [query, errors] of [
      ['limit=abc&status=bogus', [['limit', 'must be integer'], ['status', 'is not one of the allowed values']]],
      ['limit=0&created_after=yesterday', [['limit', 'must be >= 1'], ['created_after', ISO]]],
    ] as const) {
      const answer = await call(stack, 'GET', `/api/v1/shipments?${query}`, { key: acct.testKey });
      expectProblem(answer, 422, 'validation_failed');
      expect(answer.body.errors, query).toEqual(errors.map(([name, message]) => ({ path: `querystring.${name}`, message })));
    }
  });
});

// A route that takes no query parameters answered as if a parameter sent to it were not there
// (GET /account/balance?foo=1 was 200), where the lists refuse one they do not know (found by a
// black-box audit; Stripe refuses an unknown parameter on every request).
describe('an unknown query parameter', () => {
  it('is refused on the routes that take none, as on the lists: 422 naming it', async () => {
    const id = 'shp_nope';
    for (const [method, path, body] of [
      ['GET', '/api/v1/account/balance'],
      ['GET', `/api/v1/shipments/${id}`],
      ['GET', `/api/v1/shipments/${id}/label/zpl`],
      ['GET', '/api/v1/tracking/NOPE123'],
      ['GET', '/api/v1/events/evt_nope'],
      ['POST', '/api/v1/quotes', { from: address(), to: address(), parcel: parcel() }],
      ['POST', '/api/v1/addresses', address()],
      ['POST', `/api/v1/shipments/${id}/void`],
      ['GET', '/api/v1/shipments'],
    ] as const) {
      const answer = await call(stack, method, `${path}?expand=all`, { key: acct.testKey, body });
      expectProblem(answer, 422, 'validation_failed');
      expect(answer.body.errors, `${method} ${path}`).toEqual([{ path: 'querystring.expand', message: 'is not a known field' }]);
    }
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: acct.testKey })).status).toBe(200);
    expect((await call(stack, 'GET', '/api/v1/addresses')).status).toBe(401);
  });
});

describe('a body', () => {
  it('in a content coding (gzip, br) is 415, and nothing is stored', async () => {
    for (const coding of ['gzip', 'br']) {
      const answer = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ name: `Coded ${coding}` }), headers: { 'content-encoding': coding } });
      expectProblem(answer, 415, 'unsupported_media_type');
    }
    expect((await call(stack, 'GET', '/api/v1/addresses', { key: acct.testKey })).body.data).toEqual([]);
    const identity = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ name: 'Plain' }), headers: { 'content-encoding': 'identity' } });
    expect(identity.status, identity.text).toBe(201);
  });

  // A Content-Encoding header on a request with no body to read was refused as if it had one:
  // /healthz, /readyz and every GET answered 415, which none of them describes (found by a
  // black-box audit).
  it('is what a content coding refuses: without one, the header alone is no reason for a 415', async () => {
    for (const [path, key] of [['/healthz'], ['/readyz'], ['/api/v1/account/balance', acct.testKey], ['/api/v1/shipments', acct.testKey]] as const) {
      const answer = await call(stack, 'GET', path, { key, headers: { 'content-encoding': 'gzip' } });
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    }
    const none = await call(stack, 'POST', '/api/v1/shipments/shp_nope/void', { key: acct.testKey, headers: { 'content-encoding': 'gzip' } });
    expectProblem(none, 404, 'not_found');
  });
});

describe('the Idempotency-Key header', () => {
  it('sent twice is 400 bad_request, not one key "a, b"', async () => {
    // Two header lines (fetch would join them into one before sending).
    const body = JSON.stringify(address({ name: 'Twice keyed' }));
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(`${stack.url}/api/v1/addresses`, { method: 'POST' }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.setHeader('authorization', `Bearer ${acct.testKey}`);
      req.setHeader('content-type', 'application/json');
      req.setHeader('idempotency-key', ['first', 'second']);
      req.end(body);
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('bad_request');
    const listed = (await call(stack, 'GET', '/api/v1/addresses', { key: acct.testKey })).body.data as Array<{ name: string }>;
    expect(listed.map((a) => a.name)).not.toContain('Twice keyed');
  });
});

// An HTTP/1.1 request without a Host header was answered by Node itself: a bare 400 with no body,
// no Request-Id and no problem document (found by a black-box audit; contract: every answer carries
// Request-Id, every error is problem+json). RFC 9112 still makes it a 400, now bad_request.
describe('the Host header', () => {
  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(stack.url);
      const socket = connect(Number(port), hostname, () => socket.write(text));
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString()));
      socket.on('end', () => resolve(answer)).on('error', reject);
    });

  it('missing from an HTTP/1.1 request, or sent twice, is 400 bad_request with a request id, before the key is looked at', async () => {
    for (const auth of [`Authorization: Bearer ${acct.testKey}\r\n`, '']) {
      const answer = await raw(`GET /api/v1/account/balance HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head, answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/^content-type: application\/problem\+json/im);
      const id = /^request-id: (req_\w+)/im.exec(head)?.[1];
      expect(id).toBeDefined();
      expect(JSON.parse(body)).toMatchObject({ status: 400, code: 'bad_request', request_id: id });
    }
    // Two Host headers are a 400 too (RFC 9112 §3.2): Node kept the first.
    const twice = await raw(`GET /api/v1/account/balance HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer ${acct.testKey}\r\nConnection: close\r\n\r\n`);
    expect(twice).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(twice.split('\r\n\r\n')[1])).toMatchObject({ code: 'bad_request', detail: 'Send one Host header, not several.' });
    // HTTP/1.0 has no Host header to require; an HTTP/1.1 request with one is answered as ever.
    expect(await raw(`GET /api/v1/account/balance HTTP/1.0\r\nAuthorization: Bearer ${acct.testKey}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await raw(`GET /api/v1/account/balance HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acct.testKey}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
  });

  // /healthz and /readyz answered 400 (no Host, two Hosts) and 422 (an undecodable query parameter)
  // like every route, and /healthz 503 while shutting down, yet the OpenAPI document described only
  // 200 and 500 for /healthz and neither 400 nor 422 for /readyz (found by a black-box audit).
  it('refused on /healthz and /readyz, is an answer their OpenAPI description has', async () => {
    const doc = (await call(stack, 'GET', '/api/v1/openapi.json')).body;
    const conf = conformance(doc);
    for (const path of ['/healthz', '/readyz']) {
      const answer = await raw(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      const [head, text] = answer.split('\r\n\r\n');
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      conf.check('GET', path, { status: Number(head.split(' ')[1]), headers, body: JSON.parse(text), text });
      const query = conf.check('GET', `${path}?x=%FF`, await call(stack, 'GET', `${path}?x=%FF`));
      expect(query.status, query.text).toBe(422);
    }
    expect(Object.keys(doc.paths['/healthz'].get.responses)).toEqual(expect.arrayContaining(['400', '422', '431', '503']));
    expect(Object.keys(doc.paths['/readyz'].get.responses)).toEqual(expect.arrayContaining(['400', '422', '429', '431', '503']));
  });
});

describe('fields', () => {
  it('a country that is not two letters is named as such', async () => {
    const answer = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ country: 'GBR' }) });
    expectProblem(answer, 422, 'validation_failed');
    expect(answer.body.errors).toEqual([{ path: 'country', message: 'must be a two-letter ISO 3166-1 alpha-2 country code, such as GB' }]);
  });

  // A blank required string was listed twice under one path, "must NOT have fewer than 1 characters"
  // and "not blank" (found by a black-box audit): errors[] names each bad field once.
  it('a blank field is one error, not two', async () => {
    const answer = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ name: '', city: '   ' }) });
    expectProblem(answer, 422, 'validation_failed');
    expect(answer.body.errors).toEqual([
      { path: 'name', message: 'must be printable text without control characters, and not blank' },
      { path: 'city', message: 'must be printable text without control characters, and not blank' },
    ]);
  });

  // An unassigned country was checked only once every other field was valid, so a request with
  // two bad fields was refused for one, then for the country (found by a black-box audit).
  it('an unassigned country is listed with every other bad field, in one answer', async () => {
    const saved = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ name: '', country: 'xx' }) });
    expectProblem(saved, 422, 'validation_failed');
    expect(saved.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['name', 'country']));
    expect(saved.body.errors).toContainEqual({ path: 'country', message: 'must be an ISO 3166-1 alpha-2 country code' });
    const quoted = await call(stack, 'POST', '/api/v1/quotes', {
      key: acct.testKey,
      body: { from: address({ country: 'ZZ' }), to: address({ country: ' uk ' }), parcel: parcel({ weight_g: 0 }) },
    });
    expectProblem(quoted, 422, 'validation_failed');
    expect(quoted.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['from.country', 'parcel.weight_g', 'to.country']);
    const gb = await call(stack, 'POST', '/api/v1/quotes', { key: acct.testKey, body: { from: address({ country: ' gb ' }), to: address(), parcel: parcel() } });
    expect(gb.status, gb.text).toBe(200);
  });

  it('a webhook URL with a fragment is refused: the receiver never sees it, so it would be a second endpoint for one URL', async () => {
    const answer = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url: 'http://127.0.0.1:9/hooks#copy' } });
    expectProblem(answer, 422, 'validation_failed');
    expect(answer.body.errors[0].path).toBe('url');
    expect((await call(stack, 'GET', '/api/v1/webhook_endpoints', { key: acct.testKey })).body.data).toEqual([]);
  });

  // An id over 100 characters missed the router (Fastify's maxParamLength): the 404 came before the
  // key was looked at, so a keyed request had no RateLimit headers and spent the address's
  // allowance, and a request without a key got 404, not 401 (found by a black-box audit).
  it('an id of any length reaches its route: authenticated, rate-limited, then 404', async () => {
    const long = 'x'.repeat(101);
    for (const [method, path] of [
      ['GET', `/api/v1/shipments/shp_${long}`],
      ['POST', `/api/v1/shipments/shp_${long}/void`],
      ['GET', `/api/v1/shipments/shp_${long}/label/zpl`],
      ['GET', `/api/v1/shipments/shp_${long}/label`],
      ['GET', `/api/v1/tracking/${'A'.repeat(2000)}`],
      ['GET', `/api/v1/addresses/adr_${long}`],
      ['DELETE', `/api/v1/addresses/adr_${long}`],
      ['GET', `/api/v1/events/evt_${long}`],
      ['DELETE', `/api/v1/webhook_endpoints/we_${long}`],
      ['GET', `/api/v1/webhook_endpoints/we_${long}/deliveries`],
    ] as const) {
      const answer = await call(stack, method, path, { key: acct.testKey });
      expectProblem(answer, 404, 'not_found');
      expect(answer.headers['ratelimit-limit'], `${method} ${path.slice(0, 40)}`).toBe('100');
      expectProblem(await call(stack, method, path), 401, 'unauthorized');
    }
  });

  it('a tracking number of any length that is not ours is 404, as a shipment id is', async () => {
    for (const length of [65, 100, 101, 300]) {
      expectProblem(await call(stack, 'GET', `/api/v1/tracking/${'A'.repeat(length)}`, { key: acct.testKey }), 404, 'not_found');
    }
  });
});
