// The portal's batch pages over plain HTTP: who may see and buy, CSRF on the upload and the form
// button, the upload's limits, a bad order line named with its line and column (and nothing
// bought), a file with quoted values over several lines read with every line numbered, and a good
// file becoming a batch the API sees, in the mode the page shows. The browser walk, with workers
// buying the labels, is in portal-batches-browser.test.ts.
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../api/web/batch-csv.js';
import { listBatches, listBatchItems } from '../../db/index.js';
import { portalHttp } from '../support/portal-http.js';
import { call, createAccount, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  // No workers: an uploaded batch stays processing, which is what these pages are checked against.
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

const { web, signIn } = portalHttp(() => stack.url);

let n = 0;
async function merchant(o: { enabled?: boolean; admin?: boolean } = {}) {
  const acct = await createAccount(stack, { topUp: '100.00' });
  if (o.enabled === false) await stack.database.db.execute(`update accounts set api_enabled = false where id = '${acct.id}'`);
  const email = `batches${++n}-${acct.id.slice(-8)}@example.com`;
  const password = `batch page password ${n}`;
  await stack.admin.createUser(acct.id, { email, password, ...(o.admin ? { admin: true } : {}) });
  return { ...acct, ...(await signIn(email, password)) };
}

const header = CSV_COLUMNS.join(',');
const order = (ref: string, o: { weight?: string; service?: string } = {}) =>
  `${ref},${o.service ?? 'acme_ground'},Ada Lovelace,1 Main Street,,London,N1 9GU,GB,"Babbage, Charles",2 Side Road,"Flat ""B""",Leeds,LS1 4AP,GB,${o.weight ?? '1200'},300,200,100`;
const batchesOf = async (accountId: string, livemode = false) => (await listBatches(stack.database.db, { accountId, livemode, limit: 10 })).rows;

describe('the portal batch pages', () => {
  it('send a visitor without a session to sign in, and an administrator to the admin console', async () => {
    for (const [method, path] of [
      ['GET', '/portal/batches'],
      ['POST', '/portal/batches'],
      ['GET', '/portal/batches/bat_00000000000000000000000000'],
      ['GET', '/portal/scan-forms/sf_00000000000000000000000000/file'],
    ] as const) {
      const res = await web(method, path, method === 'POST' ? { form: { _csrf: 'x' } } : {});
      expect(res.status, path).toBe(303);
      expect(res.location).toBe('/portal/login');
    }
    const admin = await merchant({ admin: true });
    const res = await web('GET', '/portal/batches', { cookie: admin.cookie });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/admin');
  });

  it('offer no upload before API access is enabled, and refuse one posted anyway', async () => {
    const m = await merchant({ enabled: false });
    const page = await web('GET', '/portal/batches', { cookie: m.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Batches can be bought once an administrator has enabled API access');
    expect(page.html).not.toContain('enctype="multipart/form-data"');
    const res = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf }, file: { name: 'orders.csv', text: `${header}\n${order('x-1')}\n` } });
    expect(res.status).toBe(403);
    expect(await batchesOf(m.id)).toEqual([]);
  });

  it('refuse an upload without the session CSRF token, buying nothing', async () => {
    const m = await merchant();
    const file = { name: 'orders.csv', text: `${header}\n${order('csrf-1')}\n` };
    for (const form of [{}, { _csrf: 'not-the-token' }] as Array<Record<string, string>>) {
      const res = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form, file });
      expect(res.status).toBe(403);
      expect(res.html).toContain('This form expired');
    }
    expect(await batchesOf(m.id)).toEqual([]);
  });

  it('refuse an upload over 2 MiB, or without its length, before reading it, with a page saying so', async () => {
    const m = await merchant();
    const boundary = 'limitBoundary';
    const form = (fileBytes: number) =>
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${m.csrf}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="csv"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n${`${header}\r\n`.padEnd(fileBytes, ' ')}\r\n--${boundary}--\r\n`,
      );
    const headers = { cookie: m.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` };
    const over = await request(`${stack.url}/portal/batches?mode=test`, { method: 'POST', headers, body: form(2 * 1024 * 1024) });
    expect(over.statusCode).toBe(413);
    expect(over.headers.connection).toBe('close');
    expect(await over.body.text()).toContain('The form is over 2 MiB.');
    // Sent in chunks, with no Content-Length: its length is unknown until it is read, so it is refused.
    const chunked = await request(`${stack.url}/portal/batches?mode=test`, { method: 'POST', headers, body: Readable.from([form(1000)]) });
    expect(chunked.statusCode).toBe(411);
    expect(await chunked.body.text()).toContain('without its length');
    // A text field is a token or a code: one past 1 KiB is refused, as is a second file.
    const long = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf, label_format: 'x'.repeat(2000) }, file: { name: 'a.csv', text: header } });
    expect(long.status).toBe(413);
    expect(long.html).toContain('A field of the form is too long.');
    // Its text is checked as every form's is: no control characters.
    const control = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf, label_format: 'zpl\u0000' }, file: { name: 'a.csv', text: header } });
    expect(control.status).toBe(422);
    expect(await batchesOf(m.id)).toEqual([]);
  });

  it('name the line and column of a bad order, and start nothing', async () => {
    const m = await merchant();
    const text = [header, order('ok-1'), order('bad-2', { weight: 'heavy' }), order('ok-3'), order('bad-4', { service: '' })].join('\r\n');
    const res = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf, label_format: 'pdf_a4' }, file: { name: 'may.csv', text } });
    expect(res.status).toBe(422);
    expect(res.html).toContain('may.csv was not accepted: 2 problems need correcting. Nothing was bought.');
    expect(res.html).toContain('<li>Line 3, weight_g: must be integer</li>');
    expect(res.html).toContain('<li>Line 5, service: is required</li>');
    // The refused form keeps the chosen label format.
    expect(res.html).toContain('<option value="pdf_a4" selected>');
    expect(await batchesOf(m.id)).toEqual([]);

    const noHeader = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf }, file: { name: 'x.csv', text: order('x') } });
    expect(noHeader.status).toBe(422);
    expect(noHeader.html).toContain(`Line 1: the first line must be the header line ${header}`);
    const empty = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf }, file: { name: 'x.csv', text: '' } });
    expect(empty.status).toBe(422);
    expect(empty.html).toContain('Choose a CSV file of orders to upload.');
    expect(await batchesOf(m.id)).toEqual([]);
  });

  it('take a file with repeated lines, quoted fields and quoted values over several lines, and name later lines right', async () => {
    const m = await merchant();
    // A cell ending in a line break (as a spreadsheet writes a cell whose text ends with one) spans
    // lines of the file and is trimmed like every cell; the lines after it keep their numbers.
    const overLines = (ref: string, toLine2: string) =>
      `${ref},acme_ground,"Ada Lovelace\r\n",1 Main Street,,London,N1 9GU,GB,"Babbage, Charles",2 Side Road,${toLine2},Leeds,LS1 4AP,GB,1200,300,200,100`;
    const repeated = Array.from({ length: 40 }, () => order('same-order'));
    const text = [header, ...repeated, overLines('multi-1', '"Flat ""B""\n"'), order('last')].join('\r\n');
    const res = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf, label_format: 'pdf_6x4' }, file: { name: 'orders.csv', text } });
    expect(res.status, res.html).toBe(303);
    const [batch] = await batchesOf(m.id);
    expect(batch.counts.total).toBe(42);
    const stored = (await listBatchItems(stack.database.db, { batchId: batch.id, limit: 100 })).rows;
    expect(stored.map((s) => s.reference)).toEqual([...repeated.map(() => 'same-order'), 'multi-1', 'last']);
    expect(stored[40].fromAddress).toMatchObject({ name: 'Ada Lovelace' });
    expect(stored[40].toAddress).toMatchObject({ name: 'Babbage, Charles', line2: 'Flat "B"' });

    // A line break inside a value is refused by the API's rules, named by the line its order starts
    // on; a bad order after it is named by its own line, counted past the three lines of that one.
    const refused = [header, order('ok-1'), overLines('multi-2', '"Flat\nB"'), order('bad-6', { weight: 'heavy' })].join('\n');
    const page = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf }, file: { name: 'refused.csv', text: refused } });
    expect(page.status).toBe(422);
    expect(page.html).toMatch(/<li>Line 3, to_line2: [^<]+<\/li>/);
    expect(page.html).toContain('<li>Line 6, weight_g: must be integer</li>');
    expect((await batchesOf(m.id)).length).toBe(1);
  });

  it('turn a good file into a batch of the page mode, seen by the API, shown to its own account only', async () => {
    const m = await merchant();
    const text = `${header}\r\n${order('good-1')}\r\n${order('good-2', { service: 'swiftpost_standard' })}\r\n`;
    const res = await web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf, label_format: 'zpl' }, file: { name: 'good.csv', text } });
    expect(res.status, res.html).toBe(303);
    const id = /^\/portal\/batches\/(bat_[0-9a-z]{26})\?mode=test&notice=batch_started$/.exec(res.location ?? '')?.[1];
    expect(id, res.location).toBeDefined();

    // The API sees the same batch, bought with the sandbox, its items in the file's order.
    const api = await call(stack, 'GET', `/api/v1/batches/${id}`, { key: m.testKey });
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ id, livemode: false, label_format: 'zpl', counts: { total: 2 } });
    const items = await call(stack, 'GET', `/api/v1/batches/${id}/shipments`, { key: m.testKey });
    expect(items.body.data.map((s: { reference: string }) => s.reference)).toEqual(['good-1', 'good-2']);
    const stored = (await listBatchItems(stack.database.db, { batchId: id!, limit: 10 })).rows;
    expect(stored[0].toAddress).toMatchObject({ name: 'Babbage, Charles', line2: 'Flat "B"' });
    expect(await batchesOf(m.id, true)).toEqual([]);

    const page = await web('GET', res.location!, { cookie: m.cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Every line of the file was accepted');
    expect(page.html).toMatch(/data-refresh-ms="\d+"/);
    expect(page.html).toContain('<td data-count="total">2</td>');
    const list = await web('GET', '/portal/batches?mode=test', { cookie: m.cookie });
    expect(list.html).toContain(`href="/portal/batches/${id}?mode=test"`);

    // Nothing to download or put on a form while it runs.
    const label = await web('GET', `/portal/batches/${id}/label?mode=test`, { cookie: m.cookie });
    expect(label.status).toBe(409);
    expect(label.html).toContain('The batch is still running');
    const form = await web('POST', `/portal/batches/${id}/scan-forms?mode=test`, { cookie: m.cookie, form: { _csrf: m.csrf, carrier: 'acme' } });
    expect(form.status).toBe(422);
    expect(form.html).toContain('No purchased acme shipments of this batch are left');
    const noToken = await web('POST', `/portal/batches/${id}/scan-forms?mode=test`, { cookie: m.cookie, form: { carrier: 'acme' } });
    expect(noToken.status).toBe(403);

    // The live pages and another merchant do not know it.
    expect((await web('GET', `/portal/batches/${id}?mode=live`, { cookie: m.cookie })).status).toBe(404);
    const other = await merchant();
    expect((await web('GET', `/portal/batches/${id}?mode=test`, { cookie: other.cookie })).status).toBe(404);
    expect((await web('GET', `/portal/batches/${id}/label?mode=test`, { cookie: other.cookie })).status).toBe(404);
    expect((await web('POST', `/portal/batches/${id}/scan-forms?mode=test`, { cookie: other.cookie, form: { _csrf: other.csrf, carrier: 'acme' } })).status).toBe(404);
    expect((await web('GET', '/portal/batches?mode=test', { cookie: other.cookie })).html).not.toContain(id!);
  });
});
