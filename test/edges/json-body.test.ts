// The bytes of a JSON body (contract: Conventions and Errors). Invalid UTF-8 was decoded with
// replacement characters and an address saved as "Bad��Name" with a 201; a charset other than UTF-8
// was read as UTF-8 anyway; a `__proto__` member was answered 400 "not valid JSON" though it is
// valid JSON (found by a black-box audit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let acct: TestAccount;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
  acct = await createAccount(stack);
});
afterAll(async () => {
  await stack?.stop();
});

async function post(path: string, body: Buffer | string, contentType = 'application/json') {
  const res = await fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${acct.testKey}`, 'content-type': contentType },
    body,
  });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
}

const addressJson = (name: string) => JSON.stringify(address({ name }));

describe('a JSON body', () => {
  it('with bytes that are not UTF-8 is 400 bad_request, and nothing is stored', async () => {
    const [before, after] = addressJson('Bad__Name').split('__');
    for (const bad of [Buffer.from([0xff, 0xfe]), Buffer.from([0xc3, 0x28])]) {
      const answer = await post('/api/v1/addresses', Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]));
      expect(answer.status).toBe(400);
      expect(answer.type).toMatch(/^application\/problem\+json/);
      expect(answer.body.code).toBe('bad_request');
    }
    const listed = await call(stack, 'GET', '/api/v1/addresses', { key: acct.testKey });
    expect(listed.body.data).toEqual([]);
  });

  it('in UTF-8 is taken, with or without the charset, and with a byte order mark', async () => {
    expect((await post('/api/v1/addresses', addressJson('Zoë Ünal'), 'application/json; charset=utf-8')).status).toBe(201);
    expect((await post('/api/v1/addresses', addressJson('Zoë Ünal 2'), 'application/json; charset="UTF-8"')).status).toBe(201);
    expect((await post('/api/v1/addresses', addressJson('Plain ASCII'), 'application/json;charset=us-ascii')).status).toBe(201);
    const bom = await post('/api/v1/addresses', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(addressJson('Zoë Ünal 3'))]));
    expect(bom.status).toBe(201);
    expect(bom.body.name).toBe('Zoë Ünal 3');
  });

  it('declared in another charset is 415 unsupported_media_type', async () => {
    const answer = await post('/api/v1/addresses', addressJson('Latin'), 'application/json; charset=latin1');
    expect(answer.status).toBe(415);
    expect(answer.body.code).toBe('unsupported_media_type');
  });

  it('with a __proto__ or constructor.prototype member is 422 validation_failed naming it, as any unknown field', async () => {
    const top = await post('/api/v1/addresses', `{"name":"P","line1":"9","city":"X","postcode":"A","country":"GB","__proto__":{"x":1}}`);
    expect(top.status).toBe(422);
    expect(top.body.code).toBe('validation_failed');
    expect(top.body.errors).toEqual([{ path: '__proto__', message: 'is not a known field' }]);
    const nested = await post('/api/v1/quotes', `{"from":{"__proto__":{"admin":true}},"to":{},"parcel":{}}`);
    expect(nested.status).toBe(422);
    expect(nested.body.errors).toContainEqual({ path: 'from.__proto__', message: 'is not a known field' });
    const ctor = await post('/api/v1/addresses', `{"name":"P","line1":"9","city":"X","postcode":"A","country":"GB","constructor":{"prototype":{"x":1}}}`);
    expect(ctor.status).toBe(422);
    expect(ctor.body.errors).toEqual([{ path: 'constructor.prototype', message: 'is not a known field' }]);
  });

  it('that is empty or not JSON is still 400 invalid_json', async () => {
    for (const text of ['', '{"name":', 'nul']) {
      const answer = await post('/api/v1/addresses', text);
      expect(answer.status, text).toBe(400);
      expect(answer.body.code, text).toBe('invalid_json');
    }
  });
});

// A DELETE answered 400 invalid_json "The body is empty" to an empty body labelled as JSON (Node's
// fetch with default JSON headers sends one), yet took `{"x":1}` silently (found by a black-box
// audit). A route that takes no body treats both as a void does.
describe('on a route that takes no body', () => {
  const send = (method: string, path: string, body?: string, contentType = 'application/json') =>
    call(stack, method, path, { key: acct.testKey, rawBody: body, headers: { 'content-type': contentType } });
  const newAddress = async () => (await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, body: address({ name: `Del ${Math.random()}` }) })).body.id as string;
  const newEndpoint = async () =>
    (await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.testKey, body: { url: `https://93.184.215.14/hooks/${Math.random()}` } })).body.id as string;

  it.each([
    ['DELETE /addresses/{id}', newAddress, (id: string) => `/api/v1/addresses/${id}`],
    ['DELETE /webhook_endpoints/{id}', newEndpoint, (id: string) => `/api/v1/webhook_endpoints/${id}`],
  ])('%s: an empty body labelled JSON and {} are no body; a field is 422 and deletes nothing', async (_name, create, path) => {
    for (const body of ['{"x":1}', '[]', '"x"']) {
      const id = await create();
      const refused = await send('DELETE', path(id), body);
      expect(refused.status, body).toBe(422);
      expect(refused.body.code, body).toBe('validation_failed');
      if (body === '{"x":1}') expect(refused.body.errors).toEqual([{ path: 'x', message: 'is not a known field' }]);
      expect((await send('DELETE', path(id), '')).status, `${body} deleted nothing`).toBe(200);
    }
    for (const body of ['', '{}']) {
      const deleted = await send('DELETE', path(await create()), body);
      expect(deleted.status, `${body}: ${deleted.text}`).toBe(200);
      expect(deleted.body.deleted).toBe(true);
    }
  });

  it('a GET with an empty body labelled JSON is answered as without it', async () => {
    const id = await newAddress();
    for (const p of [`/api/v1/addresses/${id}`, '/api/v1/addresses', '/api/v1/webhook_endpoints']) {
      expect((await send('GET', p, '')).status, p).toBe(200);
    }
  });
});
