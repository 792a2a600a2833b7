// The portal's shipping desk in a real browser (headless chromium), as a merchant who never writes
// code uses it: sign in, add their address, check a customer's address, get rates, buy a domestic
// label (with a double click on Buy, which buys once) and an international one with customs in the
// sandbox, download the labels and the invoice, follow a sandbox scan on the timeline, see the
// events sent with their webhook deliveries, find a shipment by its tracking number, void one
// shipment (after the other's void is refused in words) and make a return label for the other.
// Every page is photographed at 1280 and 375 px under test-results/portal/, no element may be wider
// than the viewport or run out of its box, and no page may log a console error.
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listShipments } from '../../db/index.js';
import { launchBrowser, screenshot, type TestBrowser } from '../support/browser.js';
import { eventually } from '../support/sim.js';
import { call, createAccount, startTestStack, type TestStack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

let stack: TestStack;
let browser: TestBrowser;
let receiver: Receiver;
beforeAll(async () => {
  browser = await launchBrowser();
  // The receiver is on loopback: WEBHOOK_ALLOW_PRIVATE, as in the webhook tests.
  stack = await startTestStack({ webhookAllowPrivate: true, carrierTimeoutMs: 1000 });
  receiver = await startReceiver();
}, 600_000);
afterAll(async () => {
  await receiver?.close();
  await browser?.close();
  await stack?.stop();
});

const text = (page: Page) => page.$eval('main', (m) => (m as unknown as { innerText: string }).innerText);
const go = (page: Page, path: string) => page.goto(`${stack.url}${path}`, { waitUntil: 'load' });
async function submit(page: Page, selector: string) {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}
async function fill(page: Page, values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) {
    const selector = `[name="${name}"]`;
    await page.$eval(selector, (el) => ((el as unknown as { value: string }).value = ''));
    await page.type(selector, value);
  }
}

/**
 * The elements wider than the viewport or reaching past its right edge, the boxes whose content runs
 * out of them, and the page's own width when it is wider than the viewport (run in the page).
 */
const OUT_OF_BOUNDS = `(() => {
  const width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.replace(/ /g, '.') : '');
  const wide = [...document.querySelectorAll('body *')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > 0 && (r.width > width + 1 || r.right > width + 1);
  }).map(name);
  const spilling = [...document.querySelectorAll('section, fieldset, header, main')].filter((el) => el.scrollWidth > el.clientWidth + 1).map(name);
  return { wide, spilling, page: document.documentElement.scrollWidth > width ? document.documentElement.scrollWidth : 0 };
})()`;
const outOfBounds = (page: Page) => page.evaluate(OUT_OF_BOUNDS) as Promise<{ wide: string[]; spilling: string[]; page: number }>;

/** Photographs the page at 1280 and at 375 px, and checks that nothing is wider than the viewport at either. */
async function photograph(page: Page, name: string) {
  for (const width of [1280, 375]) {
    await page.setViewport({ width, height: 900 });
    expect(await outOfBounds(page), `${name} at ${width} px`).toEqual({ wide: [], spilling: [], page: 0 });
    await screenshot(page, 'portal', `desk-${name}-${width}`);
  }
  await page.setViewport({ width: 1280, height: 900 });
}

/** The file a link points at, fetched by the page itself with its session: status, type and first bytes. */
const download = (page: Page, selector: string) =>
  page.$eval(selector, async (a) => {
    const res = await fetch((a as unknown as { href: string }).href);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type'), head: String.fromCharCode(...bytes.slice(0, 5)) };
  });

const shipmentIdOf = (page: Page) => /\/portal\/shipments\/(shp_[0-9a-z]+)/.exec(page.url())?.[1] ?? '';

describe('the shipping desk in a browser', () => {
  it('checks, rates, buys, follows, voids and returns labels without a line of code', async () => {
    const account = await createAccount(stack, { name: 'Desk Shop Ltd', topUp: '100.00' });
    const customer = { email: `desk-${account.id.slice(-8)}@example.com`, password: 'labels by hand, quickly' };
    await stack.admin.createUser(account.id, customer);
    const endpoint = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: account.testKey, body: { url: receiver.url } });
    expect(endpoint.status, endpoint.text).toBe(201);

    // Signed in with the keyboard, the merchant adds their own address to the address book.
    const shop = await browser.page();
    await go(shop, '/portal/login');
    await shop.type('#email', customer.email);
    await shop.type('#password', customer.password);
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.keyboard.press('Enter')]);
    await submit(shop, 'nav a[href="/portal/addresses"]');
    expect(await text(shop)).toContain('No sandbox addresses yet.');
    await fill(shop, { 'addr.name': 'Desk Shop Ltd', 'addr.line1': '1 Main Street', 'addr.city': 'London', 'addr.postcode': 'N1 9GU', 'addr.country': 'GB', 'addr.phone': '+44 20 7946 0000' });
    // Enter in a field saves it (the form's main action, not the address check before it).
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.keyboard.press('Enter')]);
    expect(await text(shop)).toContain('Address added to the address book.');
    await photograph(shop, '01-address-book');

    // New shipment: a domestic parcel. A weight in kilograms is refused beside its field.
    await submit(shop, 'nav a[href="/portal/shipments/new"]');
    await photograph(shop, '02-new-shipment');
    const book = await shop.$eval('#f-book option:nth-child(2)', (o) => (o as unknown as { value: string }).value);
    await shop.select('#f-book', book);
    await fill(shop, { 'cust.name': 'Grace Hopper', 'cust.line1': '2 Low Road', 'cust.city': 'Leeds', 'cust.postcode': 'LS1 4AP', 'cust.country': 'GB' });
    await fill(shop, { 'parcel.weight_g': '1.2kg', 'parcel.length_mm': '300', 'parcel.width_mm': '200', 'parcel.height_mm': '100', reference: 'desk-domestic' });
    await submit(shop, 'button[value="rates"]:not(.default-action)');
    expect(await shop.$eval('#f-parcel-weight_g-error', (e) => e.textContent)).toBe('must be integer');
    expect(await shop.$eval('#f-parcel-weight_g', (e) => [e.getAttribute('aria-invalid'), e.getAttribute('aria-describedby')])).toEqual(['true', 'f-parcel-weight_g-error']);
    expect(await shop.$eval('#problems a', (a) => [a.getAttribute('href'), a.textContent])).toEqual(['#f-parcel-weight_g', 'Weight (grams): must be integer']);
    await photograph(shop, '03-refused-beside-field');

    // Get rates: cheapest first, with delivery days and when the prices expire.
    // Enter in a field gets the rates; it never buys.
    await fill(shop, { 'parcel.weight_g': '1200' });
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.keyboard.press('Enter')]);
    const rates = await shop.$$eval('.rates li', (items) => items.map((li) => (li as unknown as { innerText: string }).innerText));
    expect(rates.length).toBeGreaterThan(1);
    const gross = rates.map((r) => Number(/([\d.]+) GBP/.exec(r)![1]));
    expect(gross).toEqual([...gross].sort((a, b) => a - b));
    expect(rates.find((r) => r.includes('Acme Ground'))).toMatch(/3 days · [\d.]+ GBP/);
    expect(await text(shop)).toMatch(/The prices hold until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await photograph(shop, '04-rates');

    // A double click on Buy buys once.
    await shop.click('#rate-acme_ground');
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.click('#buy', { clickCount: 2 })]);
    await shop.waitForFunction(`location.pathname.startsWith('/portal/shipments/shp_')`);
    const domestic = shipmentIdOf(shop);
    const bought = await listShipments(stack.database.db, { accountId: account.id, livemode: false, reference: 'desk-domestic', limit: 10 });
    expect(bought.rows.map((r) => r.id)).toEqual([domestic]);
    await eventually(async () => ((await text(shop)).includes('Label bought.') ? true : (await shop.reload({ waitUntil: 'load' }), undefined)), 30_000, 'the bought label');
    expect(await text(shop)).toMatch(/Status\s+purchased/);
    await photograph(shop, '05-domestic-bought');

    // The three label files download.
    expect(await download(shop, '#label-pdf_6x4')).toEqual({ status: 200, type: 'application/pdf', head: '%PDF-' });
    expect(await download(shop, '#label-pdf_a4')).toEqual({ status: 200, type: 'application/pdf', head: '%PDF-' });
    const zpl = await download(shop, '#label-zpl');
    expect(zpl).toMatchObject({ status: 200, type: 'application/zpl' });
    expect(zpl.head.startsWith('^XA')).toBe(true);
    expect(await shop.$('#document-commercial_invoice')).toBeNull();

    // International: the customer's address in the US is checked and standardised, then customs.
    await go(shop, '/portal/shipments/new');
    await shop.select('#f-book', book);
    await fill(shop, { 'cust.name': 'Ada Byron', 'cust.line1': '1600 Pennsylvania Ave NW', 'cust.city': 'Washington', 'cust.state': 'dc', 'cust.postcode': '20500', 'cust.country': 'us', 'cust.phone': '+1 202 555 0100' });
    await fill(shop, { 'parcel.weight_g': '900', 'parcel.length_mm': '250', 'parcel.width_mm': '200', 'parcel.height_mm': '80', reference: 'desk-abroad' });
    await submit(shop, 'button[value="check"]');
    expect(await shop.$eval('#check-result', (e) => (e as unknown as { innerText: string }).innerText)).toMatch(/Verified by USPS[\s\S]*1600 Pennsylvania Ave NW, Washington, DC, 20500, US/);
    await photograph(shop, '06-address-checked');
    await submit(shop, '#check-result button[value="use_checked"]');
    expect(await shop.$eval('[name="cust.state"]', (e) => (e as unknown as { value: string }).value)).toBe('DC');
    await submit(shop, 'button[value="rates"]:not(.default-action)');
    expect(await shop.$('#customs-h')).not.toBeNull();
    // Buying without the declaration filled in is refused at its fields.
    await shop.click('#rate-acme_ground');
    await submit(shop, '#buy');
    expect(await shop.$eval('#f-customs-signer-error', (e) => e.textContent)).toMatch(/not blank/);
    await fill(shop, { 'customs.signer': 'Ada Shipper', 'customs.items.0.description': 'Cotton T-shirt', 'customs.items.0.quantity': '2', 'customs.items.0.value': '30.00', 'customs.items.0.weight_g': '400', 'customs.items.0.origin_country': 'PT', 'customs.items.0.hs_tariff_number': '610910' });
    await submit(shop, 'button[value="add_line"]');
    await fill(shop, { 'customs.items.1.description': 'Wool socks', 'customs.items.1.quantity': '3', 'customs.items.1.value': '12.50', 'customs.items.1.weight_g': '300', 'customs.items.1.origin_country': 'GB' });
    await photograph(shop, '07-customs');
    // By keyboard: the rate chosen with Space, Tab to Buy, Enter.
    await shop.focus('#rate-acme_ground');
    await shop.keyboard.press('Space');
    await shop.keyboard.press('Tab');
    expect(await shop.evaluate('document.activeElement.id')).toBe('buy');
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.keyboard.press('Enter')]);
    const abroad = shipmentIdOf(shop);
    expect(abroad).toMatch(/^shp_/);
    expect(await text(shop)).toContain('Cotton T-shirt');
    expect(await download(shop, '#document-commercial_invoice')).toEqual({ status: 200, type: 'application/pdf', head: '%PDF-' });
    expect(await download(shop, '#label-pdf_6x4')).toEqual({ status: 200, type: 'application/pdf', head: '%PDF-' });
    await photograph(shop, '08-international-bought');

    // A sandbox scan on the domestic shipment shows on its timeline, found by its tracking number.
    await go(shop, '/portal/tracking');
    const tracking = bought.rows[0].trackingNumber!;
    await fill(shop, { number: tracking });
    await submit(shop, 'button[type="submit"]:not(.secondary)');
    expect(shipmentIdOf(shop)).toBe(domestic);
    await shop.select('#scan-status', 'in_transit');
    await submit(shop, 'form[action$="/scans?mode=test"] button');
    await eventually(async () => ((await shop.$('#timeline li')) ? true : (await shop.reload({ waitUntil: 'load' }), undefined)), 30_000, 'the scan on the timeline');
    expect(await shop.$eval('#timeline', (e) => (e as unknown as { innerText: string }).innerText)).toMatch(/in transit Parcel in transit\s+carrier code none/);
    // The events sent for it, each with its webhook delivery.
    await eventually(
      async () => ((await shop.$$eval('#events tr[data-event-id]', (rows) => rows.map((r) => (r as unknown as { innerText: string }).innerText))).some((r) => /tracking\.updated[\s\S]*succeeded/.test(r)) ? true : (await shop.reload({ waitUntil: 'load' }), undefined)),
      30_000,
      'the tracking.updated delivery',
    );
    expect(await text(shop)).toMatch(/shipment\.purchased[\s\S]*succeeded[\s\S]*attempt 1 of 6/);
    await photograph(shop, '09-timeline-and-events');

    // A scanned label cannot be voided: the refusal in words. Its return label can be bought.
    await submit(shop, 'form[action$="/void"] button');
    await photograph(shop, '10-void-confirm');
    await submit(shop, '#confirm');
    expect(await shop.$eval('[role="alert"]', (e) => e.textContent)).toBe('The label was not voided: The carrier has already scanned this label, so it cannot be voided.');
    await go(shop, `/portal/shipments/${domestic}?mode=test`);
    await submit(shop, 'form[action$="/return"] button');
    await submit(shop, '#confirm');
    expect(await text(shop)).toContain('Return label bought.');
    expect(await text(shop)).toMatch(new RegExp(`returns ${domestic}`));
    await photograph(shop, '11-return-bought');

    // The international label is voided.
    await go(shop, `/portal/shipments/${abroad}?mode=test`);
    await submit(shop, 'form[action$="/void"] button');
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.click('#confirm', { clickCount: 2 })]);
    await shop.waitForFunction(`!location.pathname.endsWith('/void')`);
    expect(await text(shop)).toMatch(/Status\s+void/);
    await photograph(shop, '12-voided');

    // The list, with the API's filters; the home page links to each shipment.
    await go(shop, '/portal/shipments?status=voided');
    expect(await shop.$$eval('#shipments tr[data-shipment-id]', (rows) => rows.map((r) => r.getAttribute('data-shipment-id')))).toEqual([abroad]);
    await photograph(shop, '13-shipments-filtered');
    await go(shop, '/portal');
    await submit(shop, `#recent-shipments a[href^="/portal/shipments/${domestic}"]`);
    expect(shipmentIdOf(shop)).toBe(domestic);

    // The Batches page's header line wraps inside its box; the other pages fit a phone too.
    await go(shop, '/portal/batches');
    await photograph(shop, '14-batches');
    const others: Array<[string, string]> = [
      ['15-overview', '/portal'],
      ['16-tracking', '/portal/tracking'],
      ['17-keys', '/portal/keys'],
      ['18-webhooks', '/portal/webhooks'],
      ['19-webhook-log', `/portal/webhooks/${endpoint.body.id}`],
      ['20-address-edit', `/portal/addresses/${book}`],
    ];
    for (const [name, path] of others) {
      await go(shop, path);
      await photograph(shop, name);
    }

    // The pages that refuse answer 4xx, which the browser notes; nothing else may be logged.
    expect(browser.errors.filter((e) => !/the server responded with a status of 4\d\d/.test(e))).toEqual([]);
    // A whole walk through every page at two widths, with screenshots: minutes on a busy machine.
  }, 300_000);
});
