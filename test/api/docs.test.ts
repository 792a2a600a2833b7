// The reference page at /docs: served by the API process, rendered from the served OpenAPI document,
// with every asset local (the page works on a machine without the internet). `/` links to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../support/stack.js';
import { operationsOf } from './openapi-conformance.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

describe('GET /docs', () => {
  it('serves the reference page with local assets only, and it shows every operation', async () => {
    const first = await call(stack, 'GET', '/docs');
    const page = first.status === 301 || first.status === 302 ? await call(stack, 'GET', String(first.headers.location)) : first;
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const assets = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect(asset, 'an asset from another host').not.toMatch(/^(https?:)?\/\//);

    const base = `${stack.url}/docs/`;
    for (const asset of assets) {
      const res = await call(stack, 'GET', new URL(asset, base).pathname);
      expect(res.status, asset).toBe(200);
      expect(res.headers['content-type']).toMatch(/javascript/);
    }
    // The page renders the document it names: the API's own, every operation with its summary.
    const specUrl = /"url":\s*"([^"]+)"/.exec(page.text)?.[1];
    expect(specUrl).toBeDefined();
    const shown = await call(stack, 'GET', new URL(specUrl!, base).pathname);
    const served = await call(stack, 'GET', '/api/v1/openapi.json');
    const ops = operationsOf(served.body);
    expect(ops.length).toBeGreaterThan(15);
    expect(operationsOf(shown.body)).toEqual(ops);
    for (const op of ops) {
      const [method, path] = op.split(' ');
      expect(shown.body.paths[path][method.toLowerCase()].summary, op).toEqual(expect.any(String));
    }
    expect(shown.body.paths['/api/v1/shipments'].post.summary).toBe('Buy a label');
  });

  it('is linked from /', async () => {
    const home = await call(stack, 'GET', '/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('href="/docs"');
  });
});
