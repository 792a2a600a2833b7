import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../api/idempotency.js';
import { addressFingerprint, claimIdempotencyKey, releaseIdempotencyKey, saveIdempotentResponse } from '../../db/index.js';
import { address, call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

/** The address book (spec §4, contract: Resources → Addresses). */

let stack: TestStack;
let acct: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
  [acct, other] = await Promise.all([createAccount(stack), createAccount(stack)]);
});
afterAll(async () => {
  await stack?.stop();
});

const unique = (tag: string) => `${tag} ${Math.random().toString(36).slice(2, 10)}`;
const save = (key: string, body: unknown, headers?: Record<string, string>) => call(stack, 'POST', '/api/v1/addresses', { key, body, headers });

function expectProblem(a: { status: number; headers: Record<string, unknown>; body: any }, status: number, code: string) {
  expect(a.status).toBe(status);
  expect(a.headers['content-type']).toContain('application/problem+json');
  expect(a.body.code).toBe(code);
  expect(a.body.request_id).toMatch(/^req_/);
}

describe('creating', () => {
  it('saves an address: 201 with the record', async () => {
    const a = await save(acct.testKey, address({ name: unique('Grace'), line2: 'Flat 2' }));
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ object: 'address', line1: '1 Main Street', line2: 'Flat 2', city: 'London', postcode: 'N1 9GU', country: 'GB', livemode: false });
    expect(a.body.id).toMatch(/^adr_[0-9a-z]{26}$/);
    expect(a.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(a.body.updated_at).toBe(a.body.created_at);
    const read = await call(stack, 'GET', `/api/v1/addresses/${a.body.id}`, { key: acct.testKey });
    expect(read.body).toEqual(a.body);
  });

  it('answers the same address again, after trimming and case-folding the country, with 200 and the first record', async () => {
    const name = unique('Ada');
    const first = await save(acct.testKey, address({ name }));
    expect(first.status).toBe(201);
    const again = await save(acct.testKey, { name: `  ${name} `, line1: ' 1 Main Street', city: 'London  ', postcode: 'N1 9GU', country: ' gb ', line2: '  ' });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    // Anything else that differs is another address (only the country is case-folded).
    const different = await save(acct.testKey, address({ name: name.toUpperCase() }));
    expect(different.status).toBe(201);
    expect(different.body.id).not.toBe(first.body.id);
  });

  it('creates one record when the same address is saved many times at once', async () => {
    const body = address({ name: unique('Race') });
    const answers = await Promise.all(Array.from({ length: 12 }, () => save(acct.testKey, body)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
  });

  it('counts a field’s length after trimming: 200 characters with spaces around them are taken, 201 are not', async () => {
    const long = unique('L').replace(/\s/g, '-').padEnd(200, 'x');
    const padded = await save(acct.testKey, address({ name: `  ${long}  `, city: ' Leeds ' }));
    expect(padded.status, padded.text).toBe(201);
    expect(padded.body.name).toBe(long);
    expect(padded.body.city).toBe('Leeds');
    const over = await save(acct.testKey, address({ name: `${long}y` }));
    expectProblem(over, 422, 'validation_failed');
    // A control character is refused, not trimmed away.
    expectProblem(await save(acct.testKey, address({ name: `${unique('N')}\n` })), 422, 'validation_failed');
  });

  it('honours Idempotency-Key: replay, reuse with another body, and a released key after a failure', async () => {
    const key = `adr-${unique('k').replace(' ', '-')}`;
    const body = address({ name: unique('Idem') });
    const first = await save(acct.testKey, body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    const replay = await save(acct.testKey, body, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expectProblem(await save(acct.testKey, address({ name: unique('Else') }), { 'idempotency-key': key }), 422, 'idempotency_key_reused');
    // A refused first attempt leaves the key free for the corrected request.
    const key2 = `${key}-2`;
    expectProblem(await save(acct.testKey, { ...body, country: 'XX' }, { 'idempotency-key': key2 }), 422, 'validation_failed');
    expect((await save(acct.testKey, body, { 'idempotency-key': key2 })).status).toBe(200);
    const long = await save(acct.testKey, body, { 'idempotency-key': 'x'.repeat(256) });
    expectProblem(long, 422, 'validation_failed');
    expect(long.body.errors).toEqual([{ path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }]);
  });

  // The fingerprint is over the body as parsed (contract: Idempotency): a body that differs only in
  // spaces around a string was replayed (found by a black-box audit), though it is another request.
  it('refuses a key reused with a body that differs only in spaces: 422 idempotency_key_reused', async () => {
    const key = `adr-${unique('pad').replace(' ', '-')}`;
    const name = unique('Pad');
    const padded = address({ name: ` ${name} ` });
    const first = await save(acct.testKey, padded, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    expect(first.body.name).toBe(name);
    expectProblem(await save(acct.testKey, address({ name }), { 'idempotency-key': key }), 422, 'idempotency_key_reused');
    const replay = await save(acct.testKey, padded, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  describe('a key whose first request is still being processed (contract: Idempotency, rule 3)', () => {
    /** Claims the key as a first request would, still running: no answer stored yet. */
    async function firstStillRunning(body: unknown) {
      const scope = { accountId: acct.id, livemode: false, key: `adr-${unique('inflight').replace(' ', '-')}` };
      const fingerprint = fingerprintOf({ method: 'POST', url: '/api/v1/addresses', body } as FastifyRequest);
      await claimIdempotencyKey(stack.database.db, { ...scope, fingerprint, now: new Date() });
      return { scope, fingerprint };
    }
    // The first request's own duration: the second arrives while it is still running.
    const firstRequestRuns = () => new Promise((resolve) => setTimeout(resolve, 500));

    it('waits for the first answer and replays it, like a purchase or a void joins the first', async () => {
      const body = address({ name: unique('Waiting') });
      const { scope } = await firstStillRunning(body);
      const second = save(acct.testKey, body, { 'idempotency-key': scope.key });
      await firstRequestRuns();
      const firstAnswer = { id: 'adr_first', name: body.name };
      await saveIdempotentResponse(stack.database.db, scope, 201, JSON.stringify(firstAnswer));
      const answer = await second;
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body).toEqual(firstAnswer);
      expect(answer.headers['idempotency-replayed']).toBe('true');
    });

    it('runs anew when the first failed and freed the key meanwhile', async () => {
      const body = address({ name: unique('Freed') });
      const { scope, fingerprint } = await firstStillRunning(body);
      const second = save(acct.testKey, body, { 'idempotency-key': scope.key });
      await firstRequestRuns();
      await releaseIdempotencyKey(stack.database.db, scope, fingerprint);
      const answer = await second;
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.name).toBe(body.name);
      expect(answer.headers['idempotency-replayed']).toBeUndefined();
    });
  });

  it('refuses invalid addresses with 422 naming each field', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ ...address(), colour: 'blue', extra: 1 }, ['colour', 'extra']],
      [{ name: 'A', city: 'B', postcode: 'C', country: 'GB' }, ['line1']],
      [address({ name: '   ' }), ['name']],
      [address({ city: 'Lon\u0000don' }), ['city']],
      [address({ name: 'Ann \ud800' }), ['name']],
      [address({ line2: 'a\tb' }), ['line2']],
      [address({ country: 'XX' }), ['country']],
      [address({ country: 'GBR' }), ['country']],
      [address({ postcode: 'x'.repeat(201) }), ['postcode']],
      [{ ...address(), name: 42 }, ['name']],
      [[address()], ['(body)']],
    ];
    for (const [body, paths] of cases) {
      const a = await save(acct.testKey, body);
      expectProblem(a, 422, 'validation_failed');
      const named = a.body.errors.map((e: { path: string }) => e.path);
      for (const p of paths) expect(named, JSON.stringify(body)).toContain(p);
    }
    expectProblem(await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
    expectProblem(await call(stack, 'POST', '/api/v1/addresses', { key: acct.testKey, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  });
});

describe('the state (contract: Resources → Address)', () => {
  // An account of its own: these requests would otherwise use up the shared account's rate limit.
  let mine: TestAccount;
  beforeAll(async () => {
    mine = await createAccount(stack);
  });
  const us = (over: Record<string, string> = {}) =>
    address({ name: unique('Liberty'), line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US', ...over });

  it('stores and returns the state, trimmed and upper-cased; null where the address has none', async () => {
    const a = await save(mine.testKey, us({ state: '  ny ' }));
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ state: 'NY', country: 'US' });
    expect((await call(stack, 'GET', `/api/v1/addresses/${a.body.id}`, { key: mine.testKey })).body).toEqual(a.body);
    const again = await save(mine.testKey, { ...us(), name: a.body.name, state: 'Ny', country: 'us' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.id).toBe(a.body.id);

    const gb = await save(mine.testKey, address({ name: unique('NoState') }));
    expect(gb.status, gb.text).toBe(201);
    expect(gb.body.state).toBeNull();
    const blank = await save(mine.testKey, address({ name: gb.body.name, state: '  ' }));
    expect(blank.status, blank.text).toBe(200);
    expect(blank.body.id).toBe(gb.body.id);
    const withState = await save(mine.testKey, address({ name: gb.body.name, state: 'lnd' }));
    expect(withState.status, withState.text).toBe(201);
    expect(withState.body.state).toBe('LND');
  });

  it('keeps the same address with another state as a second record', async () => {
    const name = unique('Twin');
    const ny = await save(mine.testKey, us({ name, city: 'Springfield', state: 'IL' }));
    const ma = await save(mine.testKey, us({ name, city: 'Springfield', state: 'MA' }));
    expect([ny.status, ma.status]).toEqual([201, 201]);
    expect(ma.body.id).not.toBe(ny.body.id);
  });

  it('leaves the fingerprint of an address without a state as it was before the field', () => {
    const a = { name: 'Ada', line1: '1 Main Street', city: 'London', postcode: 'N1 9GU', country: 'GB' };
    const sixFields = createHash('sha256').update(JSON.stringify(['Ada', '1 Main Street', '', 'London', 'N1 9GU', 'GB'])).digest('hex');
    expect(addressFingerprint(a)).toBe(sixFields);
    expect(addressFingerprint({ ...a, state: 'LND' })).not.toBe(sixFields);
  });

  it('refuses a US or CA address without a state, or with one not of that country, naming state', async () => {
    const cases: Array<[unknown, string]> = [
      [us({ state: '' }), 'is required for US and CA addresses'],
      [{ ...us(), state: undefined }, 'is required for US and CA addresses'],
      [us({ state: 'ON' }), 'must be a subdivision code of US'],
      [us({ state: 'XX' }), 'must be a subdivision code of US'],
      [us({ country: 'CA', state: 'NY', postcode: 'H3B 1A7' }), 'must be a subdivision code of CA'],
      [us({ country: 'CA', state: ' ', postcode: 'H3B 1A7' }), 'is required for US and CA addresses'],
      [address({ state: 'ABCD' }), ''],
      [address({ state: 'A-1' }), ''],
      [address({ state: 'N\u0000' }), ''],
    ];
    for (const [body, message] of cases) {
      const a = await save(mine.testKey, body);
      expectProblem(a, 422, 'validation_failed');
      const error = a.body.errors.find((e: { path: string }) => e.path === 'state');
      expect(error, JSON.stringify(body)).toBeDefined();
      expect(error.message).toContain(message);
    }
    for (const ok of [us({ state: 'dc' }), us({ state: 'PR' }), us({ state: 'AE' }), us({ country: 'CA', state: 'yt', postcode: 'Y1A 1A1' })]) {
      const a = await save(mine.testKey, ok);
      expect(a.status, a.text).toBe(201);
    }
  });

  it('sets, changes and clears the state with PATCH under the same rules', async () => {
    const gb = (await save(mine.testKey, address({ name: unique('Patch') }))).body;
    const set = await call(stack, 'PATCH', `/api/v1/addresses/${gb.id}`, { key: mine.testKey, body: { state: ' eng ' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.state).toBe('ENG');
    const cleared = await call(stack, 'PATCH', `/api/v1/addresses/${gb.id}`, { key: mine.testKey, body: { state: null } });
    expect(cleared.body.state).toBeNull();

    const toUs = await call(stack, 'PATCH', `/api/v1/addresses/${gb.id}`, { key: mine.testKey, body: { country: 'US', postcode: '10118' } });
    expectProblem(toUs, 422, 'validation_failed');
    expect(toUs.body.errors.map((e: { path: string }) => e.path)).toEqual(['state']);
    const moved = await call(stack, 'PATCH', `/api/v1/addresses/${gb.id}`, { key: mine.testKey, body: { country: 'US', postcode: '10118', state: 'ny' } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ country: 'US', state: 'NY' });
    for (const state of [null, '', 'QC']) {
      const a = await call(stack, 'PATCH', `/api/v1/addresses/${gb.id}`, { key: mine.testKey, body: { state } });
      expectProblem(a, 422, 'validation_failed');
      expect(a.body.errors.map((e: { path: string }) => e.path)).toEqual(['state']);
    }
    expect((await call(stack, 'GET', `/api/v1/addresses/${gb.id}`, { key: mine.testKey })).body).toEqual(moved.body);
  });
});

describe('reading', () => {
  it('lists the account’s addresses newest first, page by page', async () => {
    const fresh = await createAccount(stack);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await save(fresh.testKey, address({ name: `Person ${i}` }))).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await call(stack, 'GET', `/api/v1/addresses?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: fresh.testKey });
      expect(page.status).toBe(200);
      expect(page.body.object).toBe('list');
      seen.push(...page.body.data.map((d: { id: string }) => d.id));
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    const all = await call(stack, 'GET', '/api/v1/addresses', { key: fresh.testKey });
    expect(all.body.data).toHaveLength(5);
    expect(all.body.has_more).toBe(false);
  });

  it('refuses bad list parameters with 422', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=ten', 'cursor=bogus', 'colour=red', 'cursor=c2hwXzAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAw']) {
      expectProblem(await call(stack, 'GET', `/api/v1/addresses?${q}`, { key: acct.testKey }), 422, 'validation_failed');
    }
  });

  it('answers 404 for an address that does not exist', async () => {
    for (const id of ['adr_00000000000000000000000000', 'nope', 'adr_%00', 'x'.repeat(100)]) {
      expectProblem(await call(stack, 'GET', `/api/v1/addresses/${id}`, { key: acct.testKey }), 404, 'not_found');
    }
  });
});

describe('editing and deleting', () => {
  it('edits any subset of fields, validated like a new address', async () => {
    const created = (await save(acct.testKey, address({ name: unique('Edit'), line2: 'Unit 4' }))).body;
    const edited = await call(stack, 'PATCH', `/api/v1/addresses/${created.id}`, { key: acct.testKey, body: { city: '  Leeds ', country: 'gb' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ ...created, city: 'Leeds', country: 'GB', updated_at: expect.any(String) });
    expect(Date.parse(edited.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    const cleared = await call(stack, 'PATCH', `/api/v1/addresses/${created.id}`, { key: acct.testKey, body: { line2: null } });
    expect(cleared.body.line2).toBeNull();
    const unchanged = await call(stack, 'PATCH', `/api/v1/addresses/${created.id}`, { key: acct.testKey, body: {} });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.city).toBe('Leeds');

    for (const [body, path] of [
      [{ colour: 'red' }, 'colour'],
      [{ city: '' }, 'city'],
      [{ country: 'ZZ' }, 'country'],
      [{ name: 'a\u0007b' }, 'name'],
      [{ name: null }, 'name'],
    ] as const) {
      const a = await call(stack, 'PATCH', `/api/v1/addresses/${created.id}`, { key: acct.testKey, body });
      expectProblem(a, 422, 'validation_failed');
      expect(a.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const after = await call(stack, 'GET', `/api/v1/addresses/${created.id}`, { key: acct.testKey });
    expect(after.body).toEqual(unchanged.body);
  });

  it('refuses an edit that would duplicate another saved address with 409, changing nothing', async () => {
    const one = (await save(acct.testKey, address({ name: unique('One') }))).body;
    const two = (await save(acct.testKey, address({ name: unique('Two') }))).body;
    const a = await call(stack, 'PATCH', `/api/v1/addresses/${two.id}`, { key: acct.testKey, body: { name: ` ${one.name} ` } });
    expectProblem(a, 409, 'address_already_exists');
    expect(a.body.existing_id).toBe(one.id);
    expect((await call(stack, 'GET', `/api/v1/addresses/${two.id}`, { key: acct.testKey })).body).toEqual(two);
  });

  it('deletes: 200 with deleted: true, then gone from every read; the same address may be saved anew', async () => {
    const body = address({ name: unique('Gone') });
    const created = (await save(acct.testKey, body)).body;
    const del = await call(stack, 'DELETE', `/api/v1/addresses/${created.id}`, { key: acct.testKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: created.id, object: 'address', livemode: false, deleted: true });
    expectProblem(await call(stack, 'GET', `/api/v1/addresses/${created.id}`, { key: acct.testKey }), 404, 'not_found');
    expectProblem(await call(stack, 'DELETE', `/api/v1/addresses/${created.id}`, { key: acct.testKey }), 404, 'not_found');
    expectProblem(await call(stack, 'PATCH', `/api/v1/addresses/${created.id}`, { key: acct.testKey, body: { city: 'X' } }), 404, 'not_found');
    const list = await call(stack, 'GET', '/api/v1/addresses?limit=100', { key: acct.testKey });
    expect(list.body.data.map((d: { id: string }) => d.id)).not.toContain(created.id);
    const again = await save(acct.testKey, body);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(created.id);
  });
});

describe('only the caller’s own account and mode', () => {
  it('answers 404 to every attempt from another account or mode, and changes nothing', async () => {
    const mine = (await save(acct.testKey, address({ name: unique('Mine') }))).body;
    const path = `/api/v1/addresses/${mine.id}`;
    for (const key of [other.testKey, other.liveKey, acct.liveKey]) {
      expectProblem(await call(stack, 'GET', path, { key }), 404, 'not_found');
      expectProblem(await call(stack, 'PATCH', path, { key, body: { city: 'Elsewhere' } }), 404, 'not_found');
      expectProblem(await call(stack, 'DELETE', path, { key }), 404, 'not_found');
      const list = await call(stack, 'GET', '/api/v1/addresses?limit=100', { key });
      expect(list.body.data.map((d: { id: string }) => d.id)).not.toContain(mine.id);
      // The same address saved by them is their own record, not ours.
      const theirs = await save(key, address({ name: mine.name }));
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.id);
      expect(theirs.body.livemode).toBe(key.startsWith('svc_live_'));
    }
    expect((await call(stack, 'GET', path, { key: acct.testKey })).body).toEqual(mine);
  });

  it('keeps Idempotency-Keys apart between accounts and modes', async () => {
    const key = `shared-${unique('k').replace(' ', '-')}`;
    const a = await save(acct.testKey, address({ name: unique('A') }), { 'idempotency-key': key });
    const b = await save(other.testKey, address({ name: unique('B') }), { 'idempotency-key': key });
    const c = await save(acct.liveKey, address({ name: unique('C') }), { 'idempotency-key': key });
    for (const x of [a, b, c]) {
      expect(x.status).toBe(201);
      expect(x.headers['idempotency-replayed']).toBeUndefined();
    }
  });
});

describe('scopes', () => {
  it('needs addresses:read to read and addresses:write to create, edit and delete', async () => {
    const created = (await save(acct.testKey, address({ name: unique('Scoped') }))).body;
    const reader = (await stack.admin.createKey(acct.id, { mode: 'test', scopes: 'addresses:read' })).key;
    const writer = (await stack.admin.createKey(acct.id, { mode: 'test', scopes: 'addresses:write' })).key;
    const path = `/api/v1/addresses/${created.id}`;
    expect((await call(stack, 'GET', path, { key: reader })).status).toBe(200);
    expect((await call(stack, 'GET', '/api/v1/addresses', { key: reader })).status).toBe(200);
    for (const a of [
      await save(reader, address({ name: unique('No') })),
      await call(stack, 'PATCH', path, { key: reader, body: { city: 'X' } }),
      await call(stack, 'DELETE', path, { key: reader }),
    ]) {
      expectProblem(a, 403, 'insufficient_scope');
      expect(a.body.detail).toContain('addresses:write');
    }
    for (const a of [await call(stack, 'GET', path, { key: writer }), await call(stack, 'GET', '/api/v1/addresses', { key: writer })]) {
      expectProblem(a, 403, 'insufficient_scope');
      expect(a.body.detail).toContain('addresses:read');
    }
    expect((await call(stack, 'GET', path, { key: acct.testKey })).body).toEqual(created);
    expect((await call(stack, 'PATCH', path, { key: writer, body: { city: 'Bath' } })).status).toBe(200);
    expect((await call(stack, 'DELETE', path, { key: writer })).status).toBe(200);
  });
});
