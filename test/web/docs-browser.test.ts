// The reference page at /docs in a real browser: it renders the API's operations, and nothing it
// does leaves the API's origin. Scalar turns its AI agent on for localhost, and the agent fetched a
// registry from proxy.scalar.com as the page loaded (two console errors on a closed network).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let browser: TestBrowser;
beforeAll(async () => {
  [stack, browser] = await Promise.all([startTestStack({}, { workers: false }), launchBrowser()]);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('/docs in a browser', () => {
  it('renders the operations from local assets and asks no other host for anything', async () => {
    const page = await browser.page();
    // localhost, as an integrator opens it (Scalar decides on its agent by the page's host).
    const origin = new URL(stack.url.replace('127.0.0.1', 'localhost')).origin;
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) elsewhere.push(url);
    });
    await page.goto(`${origin}/docs/`, { waitUntil: 'networkidle0', timeout: 60_000 });
    await page.waitForFunction('document.body.innerText.includes("Buy a label")', { timeout: 30_000 });
    // Give late fetches (the agent's registry was one) their chance.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(elsewhere).toEqual([]);
    expect(await page.title()).toBe('Parcel Shipping API reference');
    expect(browser.errors).toEqual([]);
  }, 120_000);
});
