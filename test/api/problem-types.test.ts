// Problem `type` URIs resolve (RFC 9457: dereferenced, a type documents the problem for people):
// /api/v1/problems/<code> is a page for each code the API answers with, and /api/v1/problems lists them.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE, ERROR_TABLE, ERRORS } from '../../domain/index.js';
import { call, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

describe('problem types', () => {
  it('the type of an error answer resolves, without a key, to a page about its code', async () => {
    const refused = await call(stack, 'GET', '/api/v1/shipments');
    expect(refused.status).toBe(401);
    expect(refused.body.type).toBe('/api/v1/problems/unauthorized');
    const page = await call(stack, 'GET', refused.body.type);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<h1>Unauthorized</h1>');
    expect(page.text).toContain('HTTP 401');
    expect(page.text).toContain('Authorization: Bearer');

    const json = await call(stack, 'GET', '/api/v1/problems/insufficient_funds', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ type: '/api/v1/problems/insufficient_funds', status: 402, code: 'insufficient_funds', title: 'Insufficient funds' });
    expect(json.body.when).toMatch(/balance/);
  });

  it('every code has its page, listed on /api/v1/problems, and the API guide documents each with the same status', async () => {
    const list = await call(stack, 'GET', '/api/v1/problems');
    expect(list.status).toBe(200);
    const guide = await readFile(new URL('../../docs/api-guide.md', import.meta.url), 'utf8');
    for (const [code, { status, title }] of Object.entries(ERRORS)) {
      expect(list.text).toContain(`href="/api/v1/problems/${code}"`);
      const page = await call(stack, 'GET', `/api/v1/problems/${code}`);
      expect(page.status, code).toBe(200);
      expect(page.text).toContain(`<h1>${title}</h1>`);
      expect(guide, `docs/api-guide.md's table of errors lacks ${code}`).toMatch(new RegExp(`^\\| ${status} \\| [^|]*\`${code}\``, 'm'));
    }
  });

  it('an unknown code is a 404 problem, and markup in the path is not echoed as markup', async () => {
    const missing = await call(stack, 'GET', '/api/v1/problems/%3Cscript%3E');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  it('an internal failure type has no page and is not listed: a customer never meets it', async () => {
    const list = await call(stack, 'GET', '/api/v1/problems');
    const internal = Object.entries(ERROR_TABLE).filter(([, e]) => e.internal).map(([code]) => code);
    expect(internal).toContain(CODE.carrier_ambiguous);
    for (const code of internal) {
      expect(list.text).not.toContain(`/api/v1/problems/${code}"`);
      const page = await call(stack, 'GET', `/api/v1/problems/${code}`);
      expect(page.status, code).toBe(404);
    }
  });
});
