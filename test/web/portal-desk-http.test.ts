// The portal's shipping desk over plain HTTP, as a browser posts its forms: a double submit of Buy
// (and a reload that posts it again) makes one purchase; every refusal is shown beside the field
// that caused it; the shipments list pages and filters as the API does; the address book keeps the
// API's rules; and no new page shows anything of another account's, or of the other mode. The
// browser walk is in portal-desk-browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOwnAddress, findOwnShipment, listAddresses, listShipments } from '../../db/index.js';
import { eventually } from '../support/sim.js';
import { portalHttp, type Page } from '../support/portal-http.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 600_000);
afterAll(async () => {
  await stack?.stop();
});

const { web, signIn } = portalHttp(() => stack.url);
const keyIn = (html: string) => /name="form_key" value="([^"]+)"/.exec(html)?.[1] ?? '';
/** The text of the element with this id (tags removed), as the page says it. */
const textOf = (html: string, id: string) => new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html)?.[1] ?? '';

/** A merchant with API access, signed in to the portal, with their own address in the sandbox address book. */
async function merchant(name = 'Desk Ltd') {
  const account = await createAccount(stack, { name, topUp: '200.00' });
  const user = { email: `desk-${account.id.slice(-10)}@example.com`, password: 'a desk of one' };
  await stack.admin.createUser(account.id, user);
  const { cookie, csrf } = await signIn(user.email, user.password, '/portal/addresses');
  const saved = await web('POST', '/portal/addresses?mode=test', { cookie, form: { _csrf: csrf, action: 'save', ...prefixed('addr', address({ name: `${name} dispatch` })) } });
  expect(saved.status, saved.html).toBe(303);
  const { rows } = await listAddresses(stack.database.db, { accountId: account.id, livemode: false, limit: 10 });
  return { ...account, cookie, csrf, book: rows[0].id };
}
type Merchant = Awaited<ReturnType<typeof merchant>>;

const prefixed = (prefix: string, a: Record<string, string>) => Object.fromEntries(Object.entries(a).map(([k, v]) => [`${prefix}.${k}`, v]));

/** The new-shipment form of a domestic parcel, as the browser posts it with this form key. */
function buyForm(m: Merchant, key: string, over: Record<string, string> = {}): Record<string, string> {
  return {
    _csrf: m.csrf,
    form_key: key,
    book: m.book,
    ...prefixed('cust', address({ name: 'Grace Hopper', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 4AP' })),
    ...Object.fromEntries(Object.entries(parcel()).map(([k, v]) => [`parcel.${k}`, String(v)])),
    reference: 'http-desk',
    service: 'acme_ground',
    action: 'buy',
    ...over,
  };
}

const post = (m: Merchant, path: string, form: Record<string, string>) => web('POST', path, { cookie: m.cookie, form: { _csrf: m.csrf, ...form } });
const get = (m: Merchant, path: string) => web('GET', path, { cookie: m.cookie });
const shipmentsOf = async (accountId: string) => (await listShipments(stack.database.db, { accountId, livemode: false, limit: 100 })).rows;

/** The field's error message, and whether the input names it and says it is invalid. */
function fieldError(page: Page, id: string) {
  const input = new RegExp(`<(?:input|select)[^>]*id="${id}"[^>]*>`).exec(page.html)?.[0] ?? '';
  return { message: textOf(page.html, `${id}-error`), describedBy: /aria-describedby="([^"]*)"/.exec(input)?.[1]?.split(' ').includes(`${id}-error`) ?? false, invalid: input.includes('aria-invalid="true"') };
}

describe('the shipping desk over HTTP', () => {
  it('buys once for a double submit of Buy, and once for a reload that posts the form again', async () => {
    const m = await merchant();
    const key = keyIn((await get(m, '/portal/shipments/new?mode=test')).html);
    expect(key).toMatch(/^portal_/);
    const form = buyForm(m, key);
    const [first, second] = await Promise.all([post(m, '/portal/shipments/new?mode=test', form), post(m, '/portal/shipments/new?mode=test', form)]);
    expect([first.status, second.status], first.html + second.html).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    const [bought] = await shipmentsOf(m.id);
    expect(first.location).toBe(`/portal/shipments/${bought.id}?mode=test&notice=purchased`);
    // A reload of the answer posts the same form again: the same shipment, nothing more bought.
    const again = await post(m, '/portal/shipments/new?mode=test', form);
    expect(again.location).toBe(first.location);
    expect((await shipmentsOf(m.id)).map((s) => s.id)).toEqual([bought.id]);
    expect(bought.status).toBe('purchased');
    // The same form changed and posted with its old key is refused; a new form buys again.
    const changed = await post(m, '/portal/shipments/new?mode=test', { ...form, reference: 'another-order' });
    expect(changed.status).toBe(422);
    expect(changed.html).toContain('This form has already bought a label with other details');
    const fresh = keyIn(changed.html);
    expect(fresh).toBe(key);
    const next = await post(m, '/portal/shipments/new?mode=test', buyForm(m, keyIn((await get(m, '/portal/shipments/new?mode=test')).html), { reference: 'another-order' }));
    expect(next.status).toBe(303);
    expect(await shipmentsOf(m.id)).toHaveLength(2);
  });

  it('shows each refusal beside the field that caused it', async () => {
    const m = await merchant();
    const key = keyIn((await get(m, '/portal/shipments/new?mode=test')).html);
    // The API's schema: a weight that is not a whole number, a town left empty.
    const rates = await post(m, '/portal/shipments/new?mode=test', buyForm(m, key, { action: 'rates', 'parcel.weight_g': '1.2kg', 'cust.city': '' }));
    expect(rates.status).toBe(422);
    expect(fieldError(rates, 'f-parcel-weight_g')).toEqual({ message: 'must be integer', describedBy: true, invalid: true });
    expect(fieldError(rates, 'f-cust-city')).toMatchObject({ describedBy: true, invalid: true });
    expect(fieldError(rates, 'f-cust-city').message).toMatch(/not blank/);
    expect(rates.html).toContain('<a href="#f-parcel-weight_g">Weight (grams): must be integer</a>');
    // The form comes back as it was sent.
    expect(rates.html).toContain('value="1.2kg"');

    // Abroad, a purchase needs the declaration: its fields say what is missing; nothing is bought.
    const abroad = { ...prefixed('cust', address({ name: 'Ada Byron', line1: '1600 Pennsylvania Ave NW', city: 'Washington', state: 'DC', postcode: '20500', country: 'US' })) };
    const noCustoms = await post(m, '/portal/shipments/new?mode=test', buyForm(m, key, abroad));
    expect(noCustoms.status).toBe(422);
    expect(fieldError(noCustoms, 'f-customs-signer').message).toMatch(/not blank/);
    expect(textOf(noCustoms.html, 'f-customs-items-error')).toMatch(/must NOT have fewer than 1 items/);
    // A line heavier than the parcel: the declaration's own rule, at the lines.
    const heavy = await post(m, '/portal/shipments/new?mode=test', {
      ...buyForm(m, key, abroad),
      'customs.signer': 'Ada Shipper',
      ...Object.fromEntries(Object.entries({ description: 'Anvil', quantity: '1', value: '10.00', weight_g: '5000', origin_country: 'GB' }).map(([k, v]) => [`customs.items.0.${k}`, v])),
    });
    expect(heavy.status).toBe(422);
    expect(textOf(heavy.html, 'f-customs-items-error')).toContain('more than the parcel&#39;s weight_g of 1200');
    // An option the service cannot honour, at the option.
    const saturday = await post(m, '/portal/shipments/new?mode=test', buyForm(m, key, { 'options.saturday_delivery': '1' }));
    expect(saturday.status).toBe(422);
    expect(textOf(saturday.html, 'f-options-saturday_delivery-error')).toBe('is not offered by acme_ground');
    // No rate chosen: at the rates.
    const none = await post(m, '/portal/shipments/new?mode=test', buyForm(m, key, { service: '' }));
    expect(textOf(none.html, 'f-service-error')).toBe('choose one of the rates');
    expect(await shipmentsOf(m.id)).toEqual([]);

    // The address check: a GB address cannot be checked (beside the button); a sandbox UNDELIVERABLE address is not verified.
    const gb = await post(m, '/portal/shipments/new?mode=test', buyForm(m, key, { action: 'check' }));
    expect(textOf(gb.html, 'f-cust-check-error')).toContain('No enabled carrier checks addresses in GB');
    const undeliverable = await post(m, '/portal/shipments/new?mode=test', buyForm(m, key, { ...abroad, 'cust.line1': '1 UNDELIVERABLE Road', action: 'check' }));
    expect(undeliverable.status).toBe(200);
    expect(undeliverable.html).toContain('Not verified');
    expect(undeliverable.html).not.toContain('value="use_checked"');
  });

  it("says what a carrier could not rate, and a carrier's limit beside the field it concerns (live)", async () => {
    const m = await merchant('Live Desk Ltd');
    const saved = await post(m, '/portal/addresses?mode=live', { action: 'save', ...prefixed('addr', address({ name: 'Live Desk dispatch' })) });
    expect(saved.status, saved.html).toBe(303);
    const { rows } = await listAddresses(stack.database.db, { accountId: m.id, livemode: true, limit: 10 });
    const live = { ...m, book: rows[0].id };
    const key = keyIn((await get(m, '/portal/shipments/new?mode=live')).html);
    // 36 characters: over UPS's 35 for a name.
    const name = 'Happy Dog Pet Supply And Grooming Co';
    const rated = await post(live, '/portal/shipments/new?mode=live', buyForm(live, key, { action: 'rates', 'cust.name': name }));
    expect(rated.status, rated.html).toBe(200);
    const unrated = /<ul id="unrated">([\s\S]*?)<\/ul>/.exec(rated.html)?.[1] ?? '';
    expect(unrated).toContain('<strong>ups</strong>');
    expect(unrated).toContain('to.name');
    expect(unrated).toContain('(validation_failed)');
    expect(rated.html).toContain('id="rate-acme_ground"');
    expect(rated.html).not.toContain('id="rate-ups_standard"');
    // Bought anyway, UPS's limit is said at the customer's name; nothing is bought or charged.
    const refused = await post(live, '/portal/shipments/new?mode=live', buyForm(live, key, { 'cust.name': name, service: 'ups_standard' }));
    expect(refused.status).toBe(422);
    expect(fieldError(refused, 'f-cust-name')).toMatchObject({ describedBy: true, invalid: true });
    expect(fieldError(refused, 'f-cust-name').message).toContain('35');
    expect((await listShipments(stack.database.db, { accountId: m.id, livemode: true, limit: 10 })).rows).toEqual([]);
    expect((await call(stack, 'GET', '/api/v1/account/balance', { key: m.liveKey })).body.available).toBe('200.00');
  });

  it('lists shipments with the API filters and pages them', async () => {
    const m = await merchant();
    const items = Array.from({ length: 21 }, (_, i) => ({ service: 'acme_ground', from: address(), to: address({ city: 'Leeds' }), parcel: parcel(), reference: `paged-${i}` }));
    const batch = await call(stack, 'POST', '/api/v1/batches', { key: m.testKey, body: { shipments: items } });
    expect(batch.status, batch.text).toBe(202);
    await eventually(async () => ((await call(stack, 'GET', `/api/v1/batches/${batch.body.id}`, { key: m.testKey })).body.status === 'completed' ? true : undefined), 60_000, 'the batch');
    const ids = (page: Page) => [...page.html.matchAll(/<tr data-shipment-id="([^"]+)"/g)].map((x) => x[1]);
    const first = await get(m, `/portal/shipments?mode=test&batch_id=${batch.body.id}`);
    expect(ids(first)).toHaveLength(20);
    const next = /id="next-page" href="([^"]+)"/.exec(first.html)![1].replace(/&amp;/g, '&');
    const second = await get(m, next);
    expect(ids(second)).toHaveLength(1);
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(21);
    expect(second.html).not.toContain('id="next-page"');
    // Exact reference and status; a bad filter is said beside its field, as the API's 422.
    expect(ids(await get(m, '/portal/shipments?mode=test&reference=paged-3&status=purchased'))).toHaveLength(1);
    expect(ids(await get(m, '/portal/shipments?mode=test&status=voided'))).toEqual([]);
    const bad = await get(m, '/portal/shipments?mode=test&created_after=yesterday');
    expect(bad.status).toBe(422);
    expect(fieldError(bad, 'f-created_after').invalid).toBe(true);
    expect(ids(await get(m, `/portal/shipments?mode=test&created_after=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`))).toEqual([]);
    // The live list has none of them.
    expect(ids(await get(m, '/portal/shipments?mode=live'))).toEqual([]);
  });

  it('keeps the address book by the API rules: a duplicate add finds the first, an edit may not make one', async () => {
    const m = await merchant();
    const again = await post(m, '/portal/addresses?mode=test', { action: 'save', ...prefixed('addr', address({ name: 'Desk Ltd dispatch' })) });
    expect(again.location).toBe('/portal/addresses?mode=test&notice=address_exists');
    const other = await post(m, '/portal/addresses?mode=test', { action: 'save', ...prefixed('addr', address({ name: 'Returns desk', state: '' })) });
    expect(other.location).toBe('/portal/addresses?mode=test&notice=address_saved');
    const { rows } = await listAddresses(stack.database.db, { accountId: m.id, livemode: false, limit: 10 });
    const returns = rows.find((r) => r.name === 'Returns desk')!;
    const clash = await post(m, `/portal/addresses/${returns.id}?mode=test`, { action: 'save', ...prefixed('addr', address({ name: 'Desk Ltd dispatch' })) });
    expect(clash.status).toBe(409);
    expect(clash.html).toContain('would make this address the same as another saved one');
    const us = await post(m, `/portal/addresses/${returns.id}?mode=test`, { action: 'save', ...prefixed('addr', address({ name: 'Returns desk', country: 'US', postcode: '20500' })) });
    expect(us.status).toBe(422);
    expect(fieldError(us, 'f-addr-state').message).toContain('required');
    const edited = await post(m, `/portal/addresses/${returns.id}?mode=test`, { action: 'save', ...prefixed('addr', address({ name: 'Returns desk', line2: 'Unit 4' })) });
    expect(edited.location).toBe('/portal/addresses?mode=test&notice=address_updated');
    expect((await findOwnAddress(stack.database.db, { accountId: m.id, livemode: false }, returns.id))?.line2).toBe('Unit 4');
    const deleted = await post(m, `/portal/addresses/${returns.id}/delete?mode=test`, {});
    expect(deleted.location).toBe('/portal/addresses?mode=test&notice=address_deleted');
    expect(await findOwnAddress(stack.database.db, { accountId: m.id, livemode: false }, returns.id)).toBeUndefined();
  });

  it("shows nothing of another account's, or of the other mode, on any of its pages", async () => {
    const owner = await merchant('Owner Ltd');
    const stranger = await merchant('Stranger Ltd');
    const customs = { contents_type: 'merchandise', signer: 'Ann Shipper', items: [{ description: 'Cotton T-shirt', quantity: 2, value: '30.00', weight_g: 400, origin_country: 'PT' }] };
    const to = address({ name: 'Ada Byron', line1: '1600 Pennsylvania Ave NW', city: 'Washington', state: 'DC', postcode: '20500', country: 'US' });
    const bought = await call(stack, 'POST', '/api/v1/shipments', { key: owner.testKey, body: { service: 'acme_ground', from: address(), to, parcel: parcel(), customs, reference: 'owners-order' } });
    expect(bought.status, bought.text).toBe(201);
    const id: string = bought.body.id;
    const tracking: string = bought.body.tracking.number;
    const batch = await call(stack, 'POST', '/api/v1/batches', { key: owner.testKey, body: { shipments: [{ service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'owners-batch' }] } });
    expect(batch.status, batch.text).toBe(202);
    // The owner sees it all.
    expect((await get(owner, `/portal/shipments/${id}?mode=test`)).status).toBe(200);
    expect((await get(owner, `/portal/shipments/${id}/documents/commercial_invoice?mode=test`)).status).toBe(303);
    expect((await get(owner, `/portal/tracking?mode=test&number=${tracking}`)).location).toBe(`/portal/shipments/${id}?mode=test`);

    for (const [who, mode] of [[stranger, 'test'], [stranger, 'live'], [owner, 'live']] as const) {
      const label = `${who === owner ? 'the owner' : 'a stranger'} in ${mode}`;
      for (const path of [`/portal/shipments/${id}`, `/portal/shipments/${id}/documents/commercial_invoice`, `/portal/shipments/${id}/label/pdf_6x4`, `/portal/shipments/${id}/void`, `/portal/shipments/${id}/return`, `/portal/addresses/${owner.book}`]) {
        const page = await get(who, `${path}?mode=${mode}`);
        expect(page.status, `GET ${path} by ${label}`).toBe(404);
        expect(page.html).not.toContain('owners-order');
      }
      for (const path of [`/portal/shipments/${id}/void`, `/portal/shipments/${id}/return`, `/portal/shipments/${id}/scans`, `/portal/addresses/${owner.book}`, `/portal/addresses/${owner.book}/delete`]) {
        const page = await post(who, `${path}?mode=${mode}`, { form_key: 'portal_AAAAAAAAAAAAAAAAAAAAAAAA', status: 'delivered', action: 'save', ...prefixed('addr', address({ name: 'Taken over' })) });
        expect(page.status, `POST ${path} by ${label}`).toBe(404);
      }
      const track = await get(who, `/portal/tracking?mode=${mode}&number=${tracking}`);
      expect(track.status, label).toBe(404);
      expect(track.location).toBeUndefined();
      for (const list of [`/portal/shipments?mode=${mode}`, `/portal/shipments?mode=${mode}&batch_id=${batch.body.id}`, `/portal/shipments?mode=${mode}&reference=owners-order`, `/portal/addresses?mode=${mode}`, `/portal?mode=${mode}`]) {
        const page = await get(who, list);
        // What the filter itself asked for is in its box; nothing else of the owner's is anywhere.
        const secrets = [id, owner.book, 'owners-order', 'owners-batch', 'Owner Ltd dispatch'].filter((x) => !list.includes(x));
        for (const secret of secrets) expect(page.html, `${list} by ${label}`).not.toContain(secret);
        expect(page.html).not.toContain('data-shipment-id');
      }
      // The owner's saved address cannot be the sender of a stranger's purchase or quote.
      const form = await get(who, `/portal/shipments/new?mode=${mode}`);
      expect(form.html).not.toContain(owner.book);
      for (const action of ['rates', 'buy']) {
        const refused = await post(who, `/portal/shipments/new?mode=${mode}`, { ...buyForm(who, keyIn(form.html), { book: owner.book, action }), _csrf: who.csrf });
        expect(refused.status, `${action} by ${label}`).toBe(422);
        expect(textOf(refused.html, 'f-book-error')).toBe('There is no such address in your address book.');
        expect(refused.html).not.toContain('Owner Ltd dispatch');
      }
    }
    // Nothing of the owner's was changed.
    expect((await findOwnShipment(stack.database.db, { accountId: owner.id, livemode: false }, id))?.status).toBe('purchased');
    expect(await findOwnAddress(stack.database.db, { accountId: owner.id, livemode: false }, owner.book)).toMatchObject({ name: 'Owner Ltd dispatch' });
    expect(await shipmentsOf(stranger.id)).toEqual([]);
  });
});
