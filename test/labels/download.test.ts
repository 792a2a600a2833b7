import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { renderCount } from '../../labels/render/index.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { inspectPdf } from './pdf-inspect.js';

let stack: TestStack;
let acct: TestAccount;
let clock = Date.now();
beforeAll(async () => {
  stack = await startTestStack({ labelUrlTtlSeconds: 300 }, { now: () => new Date(clock) });
  acct = await createAccount(stack, { topUp: '50.00' });
});
afterAll(async () => {
  await stack?.stop();
});

const buy = async (key: string, reference = 'label-test') => {
  const a = await call(stack, 'POST', '/api/v1/shipments', {
    key,
    body: { service: 'acme_ground', from: address(), to: address({ city: 'Leeds' }), parcel: parcel(), reference },
  });
  expect(a.status, a.text).toBe(201);
  return a.body;
};
const fetchRaw = async (url: string, headers: Record<string, string> = {}) => {
  const res = await request(url, { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  const bytes = new Uint8Array(body);
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body, bytes, json: () => JSON.parse(body.toString()) };
};

describe('label downloads (contract: Labels)', () => {
  it('serves each format to the bearer, pdf_6x4 by default, with the right content type', async () => {
    const s = await buy(acct.liveKey);
    const auth = { authorization: `Bearer ${acct.liveKey}` };
    const def = await fetchRaw(`${stack.url}${s.label.url}`, auth);
    expect(def.status).toBe(200);
    expect(def.type).toContain('application/pdf');
    const pdf = await inspectPdf(def.bytes);
    expect(pdf.pageCount).toBe(1);
    expect(pdf.width).toBeCloseTo(288, 1);
    expect(pdf.height).toBeCloseTo(432, 1);
    expect(pdf.text).toContain(s.tracking.number);
    const a4 = await fetchRaw(`${stack.url}${s.label.url}?format=pdf_a4`, auth);
    expect((await inspectPdf(a4.bytes)).width).toBeCloseTo(595.28, 1);
    const zpl = await fetchRaw(`${stack.url}${s.label.url}?format=zpl`, auth);
    expect(zpl.type).toContain('application/zpl');
    expect(zpl.body.toString()).toMatch(/^\^XA[\s\S]*\^XZ\s*$/);
    expect(zpl.body.toString()).toContain(`^FD${s.tracking.number}^FS`);
    const bad = await call(stack, 'GET', `${s.label.url}?format=png`, { key: acct.liveKey });
    expect(bad.status).toBe(422);
  });

  it('hands out a signed URL that works without the key until it expires', async () => {
    const s = await buy(acct.liveKey);
    const link = await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/zpl`, { key: acct.liveKey });
    expect(link.status).toBe(200);
    expect(link.body.format).toBe('zpl');
    expect(link.body.livemode).toBe(true);
    expect(link.body.url.startsWith(stack.config.publicBaseUrl)).toBe(true);
    expect(link.body.url).not.toContain(acct.liveKey);
    expect(new Date(link.body.expires_at).getTime()).toBe(Math.floor(clock / 1000) * 1000 + 300_000);
    const ok = await fetchRaw(link.body.url);
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toContain(s.tracking.number);

    clock += 299_000;
    expect((await fetchRaw(link.body.url)).status).toBe(200);
    clock += 2_000;
    const expired = await fetchRaw(link.body.url);
    expect(expired.status).toBe(403);
    expect(expired.type).toContain('application/problem+json');
    expect(expired.json().code).toBe('link_expired');
  });

  it('refuses a link with any character changed, or another shipment’s signature', async () => {
    const s = await buy(acct.liveKey);
    const other = await buy(acct.liveKey, 'other');
    const { url } = (await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/pdf_6x4`, { key: acct.liveKey })).body;
    const path = url.slice(stack.config.publicBaseUrl.length);
    const start = path.indexOf('/label-files/') + '/label-files/'.length;
    for (let i = start; i < path.length; i++) {
      const ch = path[i];
      if ('/?&='.includes(ch)) continue;
      const changed = path.slice(0, i) + (ch === 'a' ? 'b' : ch === '1' ? '2' : 'a') + path.slice(i + 1);
      const res = await fetchRaw(`${stack.url}${changed}`);
      expect(res.status, changed).toBe(403);
      expect(res.json().code, changed).toBe('invalid_signature');
    }
    const stolen = url.replace(s.id, other.id);
    const res = await fetchRaw(stolen);
    expect(res.status).toBe(403);
    expect(res.json().code).toBe('invalid_signature');
  });

  // A link written differently with the same values still worked (found by a black-box audit): the
  // signature is over the numbers and the decoded path, so a leading zero in `expires` or a
  // percent-encoded path character changed the link but not what was checked.
  it('refuses a link written another way with the same values: a leading zero, a percent-encoded path character', async () => {
    const s = await buy(acct.liveKey);
    const { url } = (await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/zpl`, { key: acct.liveKey })).body;
    expect((await fetchRaw(url)).status).toBe(200);
    const hex = (ch: string) => `%${ch.charCodeAt(0).toString(16)}`;
    const edits = [
      url.replace('expires=', 'expires=0'),
      url.replace('/zpl?', `/${hex('z')}pl?`),
      url.replace('/zpl?', `/${hex('z').toUpperCase()}pl?`),
      url.replace(`/${s.id}/`, `/${hex('s')}${s.id.slice(1)}/`),
      url.replace('/label-files/', `/label-file${hex('s')}/`),
    ];
    for (const edited of edits) {
      expect(edited).not.toBe(url);
      const res = await fetchRaw(edited);
      expect(res.status, edited).toBe(403);
      expect(res.json().code, edited).toBe('invalid_signature');
    }
  });

  // A link edited past the query's schema was answered 422 validation_failed, not as tampered with
  // (found by a black-box audit): a second `expires` to stretch it, characters added to `sig`.
  it('refuses a link with a parameter repeated or lengthened as tampered with, not as a validation failure', async () => {
    const s = await buy(acct.liveKey);
    const { url } = (await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/zpl`, { key: acct.liveKey })).body;
    expect((await fetchRaw(url)).status).toBe(200);
    const edits = [
      `${url}&expires=9999999999`,
      url.replace('expires=', 'expires=9999999999&expires='),
      `${url}&sig=${'0'.repeat(64)}`,
      `${url}${'0'.repeat(200)}`,
      url.replace('expires=', `expires=${'0'.repeat(30)}`),
      `${url}%zz`,
    ];
    for (const edited of edits) {
      const res = await fetchRaw(edited);
      expect(res.status, edited).toBe(403);
      expect(res.json().code, edited).toBe('invalid_signature');
    }
  });

  it('needs labels:read, hides other accounts’ labels, and refuses labels of failed shipments', async () => {
    const s = await buy(acct.liveKey);
    const noScope = await stack.admin.createKey(acct.id, { mode: 'live', scopes: 'shipments:read' });
    const refused = await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/zpl`, { key: noScope.key });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    const stranger = await createAccount(stack);
    expect((await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/zpl`, { key: stranger.liveKey })).status).toBe(404);
    expect((await call(stack, 'GET', `/api/v1/shipments/${s.id}/label`, { key: stranger.liveKey })).status).toBe(404);

    const poor = await createAccount(stack, { topUp: '0.50' });
    const failed = await call(stack, 'POST', '/api/v1/shipments', {
      key: poor.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    expect(failed.status).toBe(402);
    const na = await call(stack, 'GET', `/api/v1/shipments/${failed.body.shipment_id}/label/zpl`, { key: poor.liveKey });
    expect(na.status).toBe(409);
    expect(na.body.code).toBe('label_not_available');
  });

  it('renders each file at most once, ever: downloads racing the render after the answer, then a thousand more', async () => {
    const before = renderCount();
    const s = await buy(acct.testKey);
    // The answer came before the render (it runs after the purchase): download every format at once,
    // several times over, racing the workflow's own render.
    const auth = { authorization: `Bearer ${acct.testKey}` };
    const early = await Promise.all(
      ['pdf_6x4', 'pdf_a4', 'zpl', 'pdf_6x4', 'pdf_a4', 'zpl'].map((f) => fetchRaw(`${stack.url}${s.label.url}?format=${f}`, auth)),
    );
    for (const res of early) expect(res.status).toBe(200);
    expect(early[0].body.equals(early[3].body), 'the same bytes to every caller').toBe(true);
    // The render the capture started finishes (or finds the files there) before the loop starts.
    await waitFor(async () => stack.workerRenders.size === 0);
    const { url } = (await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/pdf_6x4`, { key: acct.testKey })).body;
    // 500 bearer downloads: a key whose allowance holds them (the default is 100 per 10 s).
    const { key } = await stack.admin.createKey(acct.id, { mode: 'test', rateLimit: '1000/10' });
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, j) => {
          const res = (i + j) % 2 ? await fetchRaw(url) : await fetchRaw(`${stack.url}${s.label.url}`, { authorization: `Bearer ${key}` });
          expect(res.status).toBe(200);
        }),
      );
    }
    expect(renderCount() - before, 'three formats, one render each').toBe(3);
  });
});

async function waitFor(check: () => Promise<boolean | undefined>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
