// The portal and the admin console in a real browser (headless chromium), the way a merchant and
// a support person use them: the customer asks for API access, an administrator enables it, the
// customer creates a key and uses it against the API, registers a webhook endpoint and sees a
// delivery in its log, revokes the key, and the very next API call is refused. Every page is
// photographed under test-results/portal/, and no page may log a console error.
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, type TestBrowser } from '../support/browser.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';
import { specVerify, startReceiver, type Receiver } from '../webhooks/receiver.js';

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

const shot = (page: Page, name: string) => screenshot(page, 'portal', name);
const text = (page: Page) => page.$eval('main', (m) => (m as unknown as { innerText: string }).innerText);
async function go(page: Page, path: string) {
  const res = await page.goto(`${stack.url}${path}`, { waitUntil: 'load' });
  return res!;
}
/** Clicks and waits for the page the click leads to. */
async function submit(page: Page, selector: string) {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}

/** Signs in with the keyboard only: the email field has focus, Tab to the password, Enter. */
async function signIn(page: Page, email: string, password: string) {
  await go(page, '/portal');
  expect(new URL(page.url()).pathname).toBe('/portal/login');
  // Typed into the fields by name: under load the autofocus may not have landed yet when typing starts.
  await page.type('#email', email);
  await page.type('#password', password);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.keyboard.press('Enter')]);
}

describe('the portal and the admin console in a browser', () => {
  it('walks from access request to a revoked key', async () => {
    const { id: accountId } = await stack.admin.createAccount({ name: 'Walkthrough Ltd', funding: 'wallet' });
    const customer = { email: `owner-${accountId.slice(-8)}@example.com`, password: 'correct horse battery' };
    await stack.admin.createUser(accountId, customer);
    const { id: opsAccount } = await stack.admin.createAccount({ name: 'Operations', funding: 'wallet' });
    const operator = { email: `ops-${opsAccount.slice(-8)}@example.com`, password: 'staple of the support desk' };
    await stack.admin.createUser(opsAccount, { ...operator, admin: true });

    // Another merchant's live purchase hangs on a carrier that keeps answering 503: a stuck shipment.
    const sim = simControl(stack.simUrl);
    const marker = `browser-stuck-${accountId}`;
    await sim.fault({ carrier: 'swiftpost', operation: 'buy', mode: 'error', status: 503, times: -1, match: marker });
    const other = await createAccount(stack, { topUp: '40.00' });
    // Its answer (202 after the purchase wait) is awaited at the end; the walk goes on meanwhile.
    const hanging = call(stack, 'POST', '/api/v1/shipments', {
      key: other.liveKey,
      body: { service: 'swiftpost_standard', from: address(), to: address({ name: marker }), parcel: parcel(), reference: marker },
    });

    // The customer signs in (keyboard only) and sees the account without API access.
    const shop = await browser.page();
    await go(shop, '/portal');
    await shot(shop, '01-sign-in');
    await signIn(shop, customer.email, customer.password);
    expect(new URL(shop.url()).pathname).toBe('/portal');
    expect(await text(shop)).toContain('Request API access');
    await shot(shop, '02-overview-no-access');
    await go(shop, '/portal/keys');
    expect(await text(shop)).toContain('Keys can be created once an administrator has enabled API access');
    expect(await shop.$('form[action="/portal/keys"]')).toBeNull();

    // It requests access; the overview says it is under review.
    await go(shop, '/portal');
    await submit(shop, 'form[action="/portal/access-request"] button');
    expect(await text(shop)).toContain('API access requested');
    expect(await text(shop)).toContain('Under review');
    expect(await shop.$('form[action="/portal/access-request"]')).toBeNull();
    await shot(shop, '03-overview-under-review');

    // The administrator sees the request with its review time against the one-working-day aim.
    const desk = await browser.page();
    await signIn(desk, operator.email, operator.password);
    expect(new URL(desk.url()).pathname).toBe('/admin');
    const row = `tr[data-account-id="${accountId}"]`;
    const waiting = await desk.$eval(row, (r) => (r as unknown as { innerText: string }).innerText);
    expect(waiting).toContain('Walkthrough Ltd');
    expect(waiting).toMatch(/so far \(aim: 1 working day\)/);
    await shot(desk, '04-admin-access-requests');
    await submit(desk, `${row} button`);
    expect(await text(desk)).toContain('API access enabled.');
    expect(await desk.$(row)).toBeNull();
    expect(await text(desk)).toMatch(/Walkthrough Ltd[\s\S]*taken \(aim: 1 working day\)/);
    await shot(desk, '05-admin-enabled');

    // The administrator tops up the wallet on the accounts page, and looks at the stuck list.
    await go(desk, '/admin/accounts');
    await desk.type(`#topup-${accountId}`, '25.00');
    await submit(desk, `form[action="/admin/accounts/${accountId}/topup"] button`);
    expect(await text(desk)).toContain('Wallet topped up.');
    expect(await desk.$eval(`tr[data-account-id="${accountId}"]`, (r) => (r as unknown as { innerText: string }).innerText)).toContain('25.00 GBP');
    await shot(desk, '06-admin-accounts');
    const stuckRow = await eventually(async () => {
      await go(desk, '/admin/stuck?older_than=0s');
      return (await desk.$(`xpath/.//tr[td[contains(., "${marker}")]]`)) ?? undefined;
    }, 30_000, 'the stuck purchase on the admin page');
    const stuckText = await stuckRow.evaluate((r) => (r as unknown as { innerText: string }).innerText);
    expect(stuckText).toMatch(/pending[\s\S]*swiftpost/);
    const stuckId = /shp_[0-9a-z]{26}/.exec(stuckText)![0];
    const uiLink = await stuckRow.$eval('a', (a) => (a as unknown as { href: string }).href);
    expect(uiLink.startsWith(`${stack.config.temporalUiUrl}/namespaces/default/workflows/${encodeURIComponent(`shipment/${stuckId}`)}/`)).toBe(true);
    await shot(desk, '07-admin-stuck');

    // Access is enabled: the customer creates a sandbox key and sees it once, with a copy button.
    await go(shop, '/portal');
    // The first Tab reaches the skip link, which moves focus to the page's content.
    await shop.keyboard.press('Tab');
    expect(await shop.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await shop.keyboard.press('Enter');
    expect(await shop.evaluate('document.activeElement.id')).toBe('main');
    expect(await text(shop)).toContain('API access is enabled');
    expect(await text(shop)).toContain('25.00 GBP');
    await go(shop, '/portal/keys');
    await shot(shop, '08-keys-form');
    await shop.select('#mode', 'test');
    await submit(shop, 'form[action="/portal/keys"] button[type="submit"]');
    const key = await shop.$eval('#new-key', (n) => n.textContent!.trim());
    expect(key).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
    await shop.click('button[data-copy="new-key"]');
    await shop.waitForFunction(`document.querySelector('button[data-copy="new-key"]').textContent === 'Copied'`);
    await shot(shop, '09-key-created');
    await go(shop, '/portal/keys');
    expect(await text(shop)).not.toContain(key);
    expect(await text(shop)).toContain(`${key.slice(0, 13)}…`);

    // The key works against the API.
    const balance = await call(stack, 'GET', '/api/v1/account/balance', { key });
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body).toMatchObject({ funding_source: 'wallet', available: '25.00', livemode: false });

    // The customer registers a webhook endpoint; the signing secret is shown once.
    await go(shop, '/portal/webhooks');
    await shop.type('#url', receiver.url);
    await submit(shop, 'form[action^="/portal/webhooks"] button[type="submit"]');
    const secret = await shop.$eval('#new-secret', (n) => n.textContent!.trim());
    expect(secret).toMatch(/^whsec_/);
    expect(await text(shop)).toContain(receiver.url);
    await shot(shop, '10-webhook-created');

    // A sandbox purchase with the key is delivered, signed with that secret...
    const bought = await call(stack, 'POST', '/api/v1/shipments', {
      key,
      body: { service: 'acme_ground', from: address(), to: address({ city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel(), reference: 'walk-1' },
    });
    expect(bought.status, bought.text).toBe(201);
    const delivery = await eventually(
      async () => receiver.received.find((r) => r.body?.type === 'shipment.purchased' && r.body.data.object.id === bought.body.id),
      30_000,
      'the shipment.purchased delivery',
    );
    expect(specVerify(delivery.raw, delivery.headers['x-svc-signature'] as string, secret, delivery.at / 1000)).toBe(true);

    // ...and the endpoint's delivery log in the portal shows it.
    await go(shop, '/portal/webhooks');
    await submit(shop, 'td a[href^="/portal/webhooks/we_"]');
    const log = await eventually(async () => {
      await shop.reload({ waitUntil: 'load' });
      const t = await text(shop);
      return t.includes(delivery.body.id) && t.includes('succeeded') ? t : undefined;
    }, 30_000, 'the delivery in the portal log');
    expect(log).toMatch(/1 of 6\s+succeeded\s+200/);
    await shot(shop, '11-webhook-deliveries');
    // On a phone the page keeps to the screen's width: its heading is the endpoint's unbroken id.
    await shop.setViewport({ width: 375, height: 800 });
    expect(await shop.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await shot(shop, '11-webhook-deliveries-phone');
    await shop.setViewport({ width: 1280, height: 900 });

    // The overview lists the shipment with its status and a working label link.
    await go(shop, '/portal');
    const shipmentRow = await shop.$eval(`xpath/.//tr[td//code[text()="${bought.body.id}"]]`, (r) => (r as unknown as { innerText: string }).innerText);
    expect(shipmentRow).toContain('walk-1');
    expect(shipmentRow).toMatch(/purchased/);
    const label = await shop.$eval(`a[href="/portal/shipments/${bought.body.id}/label/pdf_6x4?mode=test"]`, async (a) => {
      const res = await fetch((a as unknown as { href: string }).href);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { status: res.status, type: res.headers.get('content-type'), head: String.fromCharCode(...bytes.slice(0, 5)) };
    });
    expect(label).toEqual({ status: 200, type: 'application/pdf', head: '%PDF-' });
    await shot(shop, '12-overview-shipments');

    // The key list shows when the key was last used; the customer revokes it.
    await go(shop, '/portal/keys');
    const keyRow = await shop.$eval(`xpath/.//tr[td/code[text()="${key.slice(0, 13)}…"]]`, (r) => (r as unknown as { innerText: string }).innerText);
    expect(keyRow).toMatch(/UTC/); // last used, not "—"
    expect(keyRow).toContain('active');
    await submit(shop, 'form[action$="/revoke"] button');
    expect(await text(shop)).toContain('Key revoked.');
    expect(await text(shop)).toMatch(/revoked/);
    await shot(shop, '13-key-revoked');

    // The very next API call with it is refused.
    const refused = await call(stack, 'GET', '/api/v1/account/balance', { key });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');

    // Signing out ends the session: the portal asks to sign in again.
    await submit(shop, 'form[action="/portal/logout"] button');
    expect(new URL(shop.url()).pathname).toBe('/portal/login');
    await go(shop, '/portal/keys');
    expect(new URL(shop.url()).pathname).toBe('/portal/login');
    await shot(shop, '14-signed-out');

    expect(browser.errors).toEqual([]);

    const stuck = await hanging;
    expect(stuck.status, stuck.text).toBe(202);
    expect(stuck.body.id).toBe(stuckId);
    await sim.clearFaults(marker);
  });
});
