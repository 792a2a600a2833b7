// The served OpenAPI document says what validation enforces, so a request valid by the document is
// not refused for its shape (a country `AA`, a cursor of 200 zeros or a webhook url `0` must be
// invalid by the document too), and a method a path does not have is 405 with `Allow` (TRACE and
// QUERY included). The patterns are checked against the code that decides, on many generated values.
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimBodyText } from '../../api/hardening.js';
import { fingerprintOf } from '../../api/idempotency.js';
import { cursorId, encodeCursor } from '../../api/pagination.js';
import { AddressSchema, CURSOR_PATTERNS, CURSOR_PREFIXES, INSTANT_PATTERN, WEBHOOK_URL_PATTERNS, cursorLength } from '../../api/schemas.js';
import { QuoteRequestSchema } from '../../api/schemas-shipment.js';
import { checkWebhookUrl, COUNTRY_CODES, makeId, parseIsoInstant } from '../../domain/index.js';
import { address, call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let acct: TestAccount;
let doc: any;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
  acct = await createAccount(stack);
  const served = await call(stack, 'GET', '/api/v1/openapi.json');
  expect(served.status).toBe(200);
  doc = served.body;
});
afterAll(async () => {
  await stack?.stop();
});

const expectProblem = (a: Awaited<ReturnType<typeof call>>, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(a.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(a.body).toMatchObject({ type: `/api/v1/problems/${code}`, status, code, request_id: a.headers['request-id'] });
};

/** A query parameter's schema in the served document. */
const queryParameter = (path: string, name: string) => doc.paths[path].get.parameters.find((p: any) => p.in === 'query' && p.name === name).schema;
const bodySchema = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;

/** Random text over `alphabet`, of a random length up to `max`. */
const randomText = (alphabet: string, max: number) => {
  const bytes = randomBytes(max + 1);
  return Array.from(bytes.subarray(1, 1 + (bytes[0] % (max + 1))), (b) => alphabet[b % alphabet.length]).join('');
};
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('the document states the rules validation applies', () => {
  it('a country is one of the assigned codes, wherever an address is taken', () => {
    for (const schema of [
      bodySchema('/api/v1/addresses', 'post').properties.country,
      bodySchema('/api/v1/addresses/{address}', 'patch').properties.country,
      bodySchema('/api/v1/quotes', 'post').properties.from.properties.country,
      bodySchema('/api/v1/shipments', 'post').properties.to.properties.country,
    ]) {
      expect(schema.enum).toEqual([...COUNTRY_CODES]);
      expect(schema.pattern).toBe('^[A-Z]{2}$');
    }
    expect(COUNTRY_CODES).toContain('GB');
    expect(COUNTRY_CODES).not.toContain('AA');
  });

  it("each list's cursor has the pattern and length of its own ids' encoding", () => {
    const lists: Array<[string, (typeof CURSOR_PREFIXES)[number]]> = [
      ['/api/v1/shipments', 'shp'],
      ['/api/v1/events', 'evt'],
      ['/api/v1/addresses', 'adr'],
      ['/api/v1/webhook_endpoints', 'we'],
      ['/api/v1/webhook_endpoints/{id}/deliveries', 'whd'],
      ['/api/v1/batches', 'bat'],
      ['/api/v1/batches/{batch}/shipments', 'shp'],
    ];
    for (const [path, prefix] of lists) {
      const schema = queryParameter(path, 'cursor');
      expect(schema.pattern, path).toBe(CURSOR_PATTERNS[prefix]);
      expect(schema.maxLength, path).toBe(cursorLength(prefix));
      expect(encodeCursor(makeId(prefix, Date.now(), randomBytes(16))).length).toBe(cursorLength(prefix));
    }
    expect(queryParameter('/api/v1/shipments', 'created_after').pattern).toBe(INSTANT_PATTERN);
  });

  it('a webhook url is an https URI, with no credentials or fragment', () => {
    const url = bodySchema('/api/v1/webhook_endpoints', 'post').properties.url;
    expect(url).toMatchObject({ format: 'uri', pattern: WEBHOOK_URL_PATTERNS.public, maxLength: 2048 });
    expect(url.pattern.startsWith('^[Hh][Tt][Tt][Pp][Ss]://')).toBe(true);
    const re = new RegExp(url.pattern);
    for (const ok of ['https://hooks.example.com/in?x=1', 'HTTPS://93.184.215.14:443/hooks', 'https://93.184.215.14:8443/hooks', 'https://[2001:db8::1]/h']) expect(re.test(ok), ok).toBe(true);
    for (const bad of ['0', 'http://hooks.example.com/', 'https://user:pw@example.com/', 'https://example.com/#x', 'https://a.09/', 'https://a.com:65536/']) {
      expect(re.test(bad), bad).toBe(false);
    }
  });

  it('a cursor matches its pattern exactly when the route decodes it', () => {
    for (const prefix of CURSOR_PREFIXES) {
      const re = new RegExp(CURSOR_PATTERNS[prefix]);
      expect(re.test('')).toBe(true);
      expect(re.test('0'.repeat(200))).toBe(false);
      for (let i = 0; i < 300; i++) {
        const cursor = encodeCursor(makeId(prefix, Date.now() - i * 7_919_000, randomBytes(16)));
        expect(re.test(cursor), cursor).toBe(true);
        expect(cursorId(cursor, prefix)).toBeDefined();
        // One character changed, padding added, or the other alphabet's characters: the same answer from both.
        const at = i % cursor.length;
        const variants = [
          cursor.slice(0, at) + BASE64URL[randomBytes(1)[0] % 64] + cursor.slice(at + 1),
          `${cursor}=`,
          cursor.replace(/-/g, '+').replace(/_/g, '/'),
          randomText(BASE64URL, cursor.length + 2),
          encodeCursor(makeId(prefix === 'shp' ? 'evt' : 'shp', Date.now(), randomBytes(16))),
        ];
        // An empty cursor is no cursor: the first page.
        for (const v of variants) expect(re.test(v), v).toBe(v === '' || cursorId(v, prefix) !== undefined);
      }
    }
  });

  it('?created_after= matches its pattern exactly when the parser reads it (but the days at either end of the range, which an offset moves across it)', () => {
    const digits = (n: number, max: number) => String(Math.floor(Math.random() * (max + 1))).padStart(n, '0');
    for (let i = 0; i < 5000; i++) {
      const year = digits(4, i % 10 === 0 ? 30 : 9999);
      const month = digits(2, 13);
      const day = digits(2, 32);
      const time = [`T${digits(2, 24)}:${digits(2, 60)}`, `T${digits(2, 24)}${digits(2, 60)}${digits(2, 60)}.${digits(3, 999)}`, ''][i % 3];
      const offset = ['Z', `+${digits(2, 24)}:${digits(2, 60)}`, `-${digits(2, 24)}`, ''][i % 4];
      const text = i % 2 ? `${year}-${month}-${day}${time.replace(/(\d{2})(\d{2})(\d{2})/, '$1:$2:$3')}${time ? offset : ''}` : `${year}${month}${day}${time.replace(':', '')}${time ? offset.replace(':', '') : ''}`;
      // The pattern reads the date as written; the parser, the instant it names. An offset moves the
      // first and last days out of the range, and the day before it (in year 0) into it.
      if (/^0001-?01-?01|^9999-?12-?31|^0000-?12-?31/.test(text)) continue;
      expect(new RegExp(INSTANT_PATTERN).test(text), text).toBe(parseIsoInstant(text) !== undefined);
    }
    // The day before the range, behind UTC: an instant of year 1 that the pattern, stricter, refuses.
    expect(parseIsoInstant('00001231T191950.859-07')).toBeDefined();
    expect(new RegExp(INSTANT_PATTERN).test('00001231T191950.859-07')).toBe(false);
    for (const leap of ['2024-02-29', '2000-02-29', '0004-02-29']) expect(new RegExp(INSTANT_PATTERN).test(leap), leap).toBe(true);
    for (const common of ['2023-02-29', '1900-02-29', '0000-01-01', '2024-04-31']) expect(new RegExp(INSTANT_PATTERN).test(common), common).toBe(false);
  });

  it("a webhook url the pattern takes passes the registration's check of its text, but for a private address", () => {
    const re = new RegExp(WEBHOOK_URL_PATTERNS.public);
    const hosts = ['hooks.example.com', 'a', 'x-1.y.example', '93.184.215.14', '10.0.0.1', '[2001:db8::1]', '[::1]', 'localhost', 'a.b.c.d.e.'];
    const rest = ['', '/', '/in', '/a/b?x=1&y=%20z', "/!$&'()*+,;=:@~", '?', '/%7e/'];
    for (const host of hosts) {
      for (const port of ['', ':443', ':65535', ':0']) {
        for (const r of rest) {
          const url = `https://${host}${port}${r}`;
          expect(re.test(url), url).toBe(true);
          const check = checkWebhookUrl(url, { allowPrivate: true });
          expect(check.ok, url).toBe(true);
          const strict = checkWebhookUrl(url, { allowPrivate: false });
          if (!strict.ok) expect(strict.message, url).toBe('must resolve to a public address');
        }
      }
    }
    expect(new RegExp(WEBHOOK_URL_PATTERNS.private).test('http://127.0.0.1:8080/hooks')).toBe(true);
  });
});

describe('requests valid by the document are accepted', () => {
  it('an assigned country in any case is taken and folded; an unassigned one is refused as such', async () => {
    const lower = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ country: 'ad' }) });
    expect(lower.status, lower.text).toBe(201);
    expect(lower.body.country).toBe('AD');
    const unassigned = await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ country: 'AA' }) });
    expectProblem(unassigned, 422, 'validation_failed');
    expect(unassigned.body.errors).toEqual([{ path: 'country', message: 'must be an ISO 3166-1 alpha-2 country code' }]);
  });

  it('a cursor that is not an encoding of an id of the list, padded or of the other alphabet included, is refused', async () => {
    for (let i = 0; i < 3; i++) await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ line1: `${i} Strict Road` }) });
    const first = await call(stack, 'GET', '/api/v1/addresses?limit=1', { key: acct.testKey });
    expect(first.status).toBe(200);
    const cursor = first.body.next_cursor as string;
    expect(new RegExp(CURSOR_PATTERNS.adr).test(cursor)).toBe(true);
    expect((await call(stack, 'GET', `/api/v1/addresses?limit=1&cursor=${cursor}`, { key: acct.testKey })).status).toBe(200);
    for (const bad of ['0'.repeat(200), `${cursor}%3D`, encodeCursor(makeId('shp', Date.now(), randomBytes(16)))]) {
      const refused = await call(stack, 'GET', `/api/v1/addresses?cursor=${bad}`, { key: acct.testKey });
      expectProblem(refused, 422, 'validation_failed');
      expect(refused.body.errors).toEqual([{ path: 'querystring.cursor', message: 'is not a valid cursor' }]);
    }
  });

  it("a webhook url outside the pattern is refused with the registration check's own words", async () => {
    for (const [url, message] of [
      ['0', 'must be an absolute URL'],
      ['http://93.184.215.14/hooks', 'must use https'],
      ['https://user:pw@93.184.215.14/hooks', 'must not contain credentials'],
      ['https://93.184.215.14/hooks#a', 'must not have a fragment (#…): it is never sent to the receiver'],
    ]) {
      const res = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url } });
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors, url).toEqual([{ path: 'url', message }]);
    }
  });
});

describe('a method a path does not have', () => {
  it('is 405 method_not_allowed with Allow listing the methods the path has (TRACE, QUERY, DELETE)', async () => {
    for (const [method, path, allow, key] of [
      ['TRACE', '/api/v1/account/balance', 'GET, HEAD', acct.testKey],
      ['QUERY', '/api/v1/shipments/shp_nope', 'GET, HEAD', acct.testKey],
      ['QUERY', '/api/v1/addresses/adr_nope', 'GET, HEAD, PATCH, DELETE', acct.testKey],
      ['DELETE', '/api/v1/shipments', 'GET, HEAD, POST', acct.testKey],
      ['PUT', '/api/v1/quotes', 'POST', undefined],
      ['TRACE', '/healthz', 'GET, HEAD', undefined],
      // A path of its own beside a parameter's (`/addresses/:address`) has only its own methods.
      ['OPTIONS', '/api/v1/addresses/verify', 'POST', acct.testKey],
      ['GET', '/api/v1/addresses/verify', 'POST', acct.testKey],
      ['DELETE', '/api/v1/addresses/verify', 'POST', acct.testKey],
    ] as const) {
      const res = await call(stack, method, path, { key });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow, `${method} ${path}`).toBe(allow);
      expect(res.body.title).toBe('Method not allowed');
    }
  });

  it('of a path no route has is still 404, QUERY included (it is not asked for a Content-Type)', async () => {
    for (const method of ['QUERY', 'TRACE', 'GET']) {
      expectProblem(await call(stack, method, '/api/v1/no-such-thing', { key: acct.testKey }), 404, 'not_found');
    }
  });
});
