// The portal's order file with the optional from_state,to_state columns, on the real stack with
// workers: a US→US order bought in the sandbox, a file of the contract's 18 columns still bought as
// before, and a misnamed extra column refused with nothing bought.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../api/web/batch-csv.js';
import { findShipment, listBatches } from '../../db/index.js';
import { eventually } from '../support/sim.js';
import { portalHttp } from '../support/portal-http.js';
import { call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const { web, signIn } = portalHttp(() => stack.url);

async function merchant() {
  const acct = await createAccount(stack, { topUp: '100.00' });
  const email = `states-${acct.id.slice(-8)}@example.com`;
  const password = 'state columns password';
  await stack.admin.createUser(acct.id, { email, password });
  const { cookie, csrf, page } = await signIn(email, password, '/portal/batches?mode=test');
  return { ...acct, cookie, csrf, page };
}

const upload = (m: Awaited<ReturnType<typeof merchant>>, file: string) => web('POST', '/portal/batches?mode=test', { cookie: m.cookie, form: { _csrf: m.csrf, label_format: 'pdf_6x4' }, file: { name: 'orders.csv', text: file } });

/** The batch the upload redirected to, once completed, with its items. */
async function boughtBatch(m: Awaited<ReturnType<typeof merchant>>, location: string | undefined) {
  const id = /\/portal\/batches\/(bat_[0-9a-z]+)\?/.exec(location ?? '')?.[1];
  expect(id, location).toBeDefined();
  const batch = await eventually(async () => {
    const b = await call(stack, 'GET', `/api/v1/batches/${id}`, { key: m.testKey });
    return b.body.status === 'completed' ? b.body : undefined;
  }, 90_000, `batch ${id} to complete`);
  const items = (await call(stack, 'GET', `/api/v1/batches/${id}/shipments`, { key: m.testKey })).body.data;
  return { batch, items };
}

describe('the portal order file with state columns', () => {
  it('buys a US→US order with from_state,to_state; a file of the 18 contract columns still buys; a misnamed extra column is refused', async () => {
    const m = await merchant();
    expect(m.page.html).toContain('<code>from_state,to_state</code>');
    const from = { name: 'Acme Widgets', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
    const to = { name: 'Happy Dog', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
    const quote = await call(stack, 'POST', '/api/v1/quotes', { key: m.testKey, body: { from, to, parcel: parcel() } });
    expect(quote.status, quote.text).toBe(200);
    const service: string = quote.body.data[0].service.code;
    const p = parcel();
    const usLine = (ref: string, fromState: string, toState: string) =>
      `${ref},${service},${from.name},${from.line1},,${from.city},${from.postcode},US,${to.name},${to.line1},,${to.city},${to.postcode},US,${p.weight_g},${p.length_mm},${p.width_mm},${p.height_mm},${fromState},${toState}`;
    const gbLine = (ref: string) => `${ref},acme_ground,Ada Lovelace,1 Main Street,,London,N1 9GU,GB,Charles Babbage,2 Side Road,,Leeds,LS1 4AP,GB,1200,300,200,100`;

    const withStates = await upload(m, `${CSV_COLUMNS.join(',')},from_state,to_state\r\n${usLine('us-1', 'MD', 'GA')}\r\n${gbLine('gb-1')},,\r\n`);
    expect(withStates.status, withStates.html).toBe(303);
    const us = await boughtBatch(m, withStates.location);
    expect(us.batch.counts).toEqual({ total: 2, pending: 0, purchased: 2, failed: 0 });
    expect(us.items[0]).toMatchObject({ reference: 'us-1', status: 'purchased' });
    const row = await findShipment(stack.database.db, us.items[0].id);
    expect(row?.fromAddress).toMatchObject({ state: 'MD', country: 'US' });
    expect(row?.toAddress).toMatchObject({ state: 'GA', country: 'US' });

    const plain = await upload(m, `${CSV_COLUMNS.join(',')}\r\n${gbLine('gb-2')}\r\n`);
    expect(plain.status, plain.html).toBe(303);
    const gb = await boughtBatch(m, plain.location);
    expect(gb.items.map((s: { reference: string; status: string }) => [s.reference, s.status])).toEqual([['gb-2', 'purchased']]);

    const before = (await listBatches(stack.database.db, { accountId: m.id, livemode: false, limit: 10 })).rows.length;
    const misnamed = await upload(m, `${CSV_COLUMNS.join(',')},from_state,to_province\r\n${usLine('us-2', 'MD', 'GA')}\r\n`);
    expect(misnamed.status).toBe(422);
    expect(misnamed.html).toContain('the first line must be the header line');
    expect((await listBatches(stack.database.db, { accountId: m.id, livemode: false, limit: 10 })).rows.length).toBe(before);
  }, 240_000);
});
