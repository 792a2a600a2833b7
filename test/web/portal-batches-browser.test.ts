// The portal's batches in a real browser (headless chromium), as a merchant uses them: a file with a
// bad line is refused with that line named, the corrected file of ten acme and swiftpost orders is
// uploaded, the page follows the batch to its end on its own, the failed order shows its reason,
// the merged labels download as a PDF, and a SCAN form of the acme shipments is made and downloads.
// Every page is photographed under test-results/portal/, and no page may log a console error but
// the browser's note of the refused file's 422.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../api/web/batch-csv.js';
import { launchBrowser, screenshot, type TestBrowser } from '../support/browser.js';
import { call, createAccount, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: TestBrowser;
let folder: string;
beforeAll(async () => {
  browser = await launchBrowser();
  stack = await startTestStack({ carrierTimeoutMs: 1000 });
  folder = await mkdtemp(path.join(tmpdir(), 'portal-orders-'));
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => screenshot(page, 'portal', `batches-${name}`);
const text = (page: Page) => page.$eval('main', (m) => (m as unknown as { innerText: string }).innerText);
async function submit(page: Page, selector: string) {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}

/** The file a link points at, fetched by the page itself with its session: status, type and first bytes. */
const download = (page: Page, selector: string) =>
  page.$eval(selector, async (a) => {
    const res = await fetch((a as unknown as { href: string }).href);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), head: String.fromCharCode(...bytes.slice(0, 5)) };
  });

async function upload(page: Page, name: string, lines: string[]) {
  const file = path.join(folder, name);
  await writeFile(file, `${lines.join('\r\n')}\r\n`);
  const input = await page.waitForSelector('input#csv[type="file"]');
  await input!.uploadFile(file);
}

const order = (i: number, service: string, weight = '1200') =>
  [`web-${i}`, service, 'Ada Lovelace', '1 Main Street', '', 'London', 'N1 9GU', 'GB', `"Customer ${i}, Esq."`, `${i} High Street`, '', 'Leeds', 'LS1 4AP', 'GB', weight, '300', '200', '100'].join(',');

describe('the portal batches in a browser', () => {
  it('uploads an order file, follows the batch, downloads its labels and its SCAN form', async () => {
    const account = await createAccount(stack, { name: 'Batch Shop Ltd', topUp: '200.00' });
    const customer = { email: `batches-${account.id.slice(-8)}@example.com`, password: 'batches are ten orders' };
    await stack.admin.createUser(account.id, customer);

    const shop = await browser.page();
    await shop.goto(`${stack.url}/portal/login`, { waitUntil: 'load' });
    await shop.type('#email', customer.email);
    await shop.type('#password', customer.password);
    await Promise.all([shop.waitForNavigation({ waitUntil: 'load' }), shop.keyboard.press('Enter')]);
    await submit(shop, 'nav a[href="/portal/batches"]');
    expect(await shop.$eval('nav a[aria-current="page"]', (a) => a.textContent)).toBe('Batches');
    expect(await text(shop)).toContain('No sandbox batches yet.');
    await shot(shop, '01-empty');

    // Nine orders bought through acme and swiftpost, and one for a service that does not exist.
    const orders = Array.from({ length: 9 }, (_, i) => order(i + 1, i % 3 === 2 ? 'swiftpost_standard' : 'acme_ground'));
    orders.push(order(10, 'acme_teleport'));

    // A line with a weight in kilograms is refused, naming its line and column; nothing is bought.
    const bad = [...orders];
    bad[3] = order(4, 'acme_ground', '1.2kg');
    await upload(shop, 'orders-bad.csv', [CSV_COLUMNS.join(','), ...bad]);
    await submit(shop, 'form[enctype="multipart/form-data"] button[type="submit"]');
    expect(await shop.$eval('[role="alert"]', (e) => e.textContent)).toContain('orders-bad.csv was not accepted');
    expect(await shop.$eval('#csv-problems', (e) => e.textContent)).toBe('Line 5, weight_g: must be integer');
    expect(await text(shop)).toContain('No sandbox batches yet.');
    await shot(shop, '02-bad-line');

    // The corrected file starts the batch; its page follows it without a reload until it completes.
    await upload(shop, 'orders.csv', [CSV_COLUMNS.join(','), ...orders]);
    await shop.select('#label_format', 'pdf_a4');
    await submit(shop, 'form[enctype="multipart/form-data"] button[type="submit"]');
    expect(new URL(shop.url()).pathname).toMatch(/^\/portal\/batches\/bat_[0-9a-z]{26}$/);
    const batchId = new URL(shop.url()).pathname.split('/').pop()!;
    expect(await text(shop)).toContain('Every line of the file was accepted');
    expect(await shop.$eval('[data-count="total"]', (e) => e.textContent)).toBe('10');
    await shot(shop, '03-running');
    const firstUrl = shop.url();
    await shop.waitForFunction(`!document.querySelector('[data-refresh-ms]')`, { timeout: 120_000, polling: 250 });
    // The same page, brought up to date by the script, not a navigation.
    expect(shop.url()).toBe(firstUrl);
    const counts = await shop.$$eval('[data-count]', (cells) => Object.fromEntries(cells.map((c) => [c.getAttribute('data-count'), c.textContent])));
    expect(counts).toEqual({ total: '10', pending: '0', purchased: '9', failed: '1' });
    const failed = await shop.$eval('#failed-items', (t) => (t as unknown as { innerText: string }).innerText);
    expect(failed).toMatch(/10\s+web-10\s+acme_teleport\s+service_not_available/);
    await shot(shop, '04-completed');

    // The API agrees.
    const api = await call(stack, 'GET', `/api/v1/batches/${batchId}`, { key: account.testKey });
    expect(api.body).toMatchObject({ status: 'completed', label_format: 'pdf_a4', counts: { total: 10, purchased: 9, failed: 1, pending: 0 } });

    // The merged labels download as a PDF.
    expect(await download(shop, '#merged-labels')).toEqual({
      status: 200,
      type: 'application/pdf',
      disposition: `attachment; filename="${batchId}-pdf_a4.pdf"`,
      head: '%PDF-',
    });

    // Acme makes SCAN forms (swiftpost does not): one button, for the six acme shipments.
    const buttons = await shop.$$eval('form[action*="/scan-forms"] button', (bs) => bs.map((b) => b.textContent));
    expect(buttons).toEqual(['Create a SCAN form for 6 Acme Express shipments']);
    await submit(shop, 'form[action*="/scan-forms"] button');
    expect(await text(shop)).toContain('SCAN form created.');
    expect(await shop.$('form[action*="/scan-forms"]')).toBeNull();
    const form = await download(shop, 'a[href^="/portal/scan-forms/sf_"]');
    expect(form).toMatchObject({ status: 200, type: 'application/pdf', head: '%PDF-' });
    await shot(shop, '05-scan-form');
    const formId = /sf_[0-9a-z]{26}/.exec(form.disposition ?? '')![0];
    const apiForm = await call(stack, 'GET', `/api/v1/scan_forms/${formId}`, { key: account.testKey });
    expect(apiForm.body).toMatchObject({ carrier: 'acme', livemode: false });
    expect(apiForm.body.shipment_ids).toHaveLength(6);

    // The list shows the batch, completed.
    await submit(shop, 'a[href="/portal/batches?mode=test"]');
    const row = await shop.$eval(`tr[data-batch-id="${batchId}"]`, (r) => (r as unknown as { innerText: string }).innerText);
    expect(row).toMatch(/completed\s+10\s+9\s+1\s+0/);
    await shot(shop, '06-list');

    // The one error is the browser's note of the refused file's 422, which the page answered on purpose.
    expect(browser.errors).toEqual([expect.stringMatching(/\/portal\/batches\?mode=test: Failed to load resource: the server responded with a status of 422/)]);
  });

  // Without a session the upload is refused before its body is read, while the browser may still be
  // sending it: the browser must show the sign-in page, not a connection error (api/web/guard.ts).
  it('shows the sign-in page when the session ended before a large file was uploaded', async () => {
    const account = await createAccount(stack, { name: 'Late Shop Ltd', topUp: '10.00' });
    const customer = { email: `late-${account.id.slice(-8)}@example.com`, password: 'the session runs out' };
    await stack.admin.createUser(account.id, customer);
    // Just under the upload's 2 MiB, as a browser sends it.
    const line = order(1, 'acme_ground');
    const lines = [CSV_COLUMNS.join(','), ...Array.from({ length: 15_000 }, () => line)];
    const page = await browser.page();
    for (let round = 0; round < 2; round++) {
      await page.goto(`${stack.url}/portal/login`, { waitUntil: 'load' });
      await page.type('#email', customer.email);
      await page.type('#password', customer.password);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
      await page.goto(`${stack.url}/portal/batches`, { waitUntil: 'load' });
      await upload(page, 'large.csv', lines);
      // The session ends while the page is open (as when it expires).
      await stack.database.db.execute(`delete from web_sessions where user_id in (select id from users where account_id = '${account.id}')`);
      await submit(page, 'form[enctype="multipart/form-data"] button[type="submit"]');
      expect(new URL(page.url()).pathname, `round ${round}`).toBe('/portal/login');
      expect(await page.$('input#password')).not.toBeNull();
    }
  });
});
