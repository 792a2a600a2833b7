// A real browser for the page tests: Debian's chromium driven by puppeteer-core. Browser downloads
// are not reachable here, so the test setup installs the distribution's package when it is missing
// (CI runs on a fresh machine as root).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

let installing: Promise<void> | undefined;
/** Installs Debian's chromium with apt-get when it is not there yet (needs root, as CI runs). */
export async function ensureChromium(): Promise<string> {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing: install it with "apt-get install -y chromium" as root, or set CHROMIUM_PATH`);
  }
  installing ??= run('apt-get', ['update']).then(() => run('apt-get', ['install', '-y', 'chromium']));
  await installing;
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

export interface TestBrowser {
  browser: Browser;
  /** Every console error and uncaught page error seen on any page opened through `page()`. */
  errors: string[];
  page(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Headless chromium with a fresh profile, and with its background networking off: without those
 * flags it keeps calling Google services, which a closed network turns into a flood of failures.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const executablePath = await ensureChromium();
  const profile = await mkdtemp(path.join(tmpdir(), 'chromium-profile-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  const errors: string[] = [];
  return {
    browser,
    errors,
    async page() {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`${page.url()}: ${msg.text()}`);
      });
      page.on('pageerror', (err) => errors.push(`${page.url()}: ${String(err)}`));
      return page;
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots go under test-results/ (ignored by git), one file per page visited. */
export async function screenshot(page: Page, dir: string, name: string): Promise<void> {
  const folder = path.join('test-results', dir);
  await mkdir(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `${name}.png`) as `${string}.png`, fullPage: true });
}
