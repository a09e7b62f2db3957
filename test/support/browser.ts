import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's `chromium` package; nothing here downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium with a fresh profile. Without the browser this throws (the browser tests fail with
 * this message rather than skip): CI installs it in `.ci/run`.
 */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is required for the browser tests but ${CHROMIUM} does not exist: install it with "apt-get install -y chromium" (or set CHROMIUM_PATH)`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Aborts and records every request of `page` that leaves `origin`, so a test can assert the page
 * needs nothing beyond the service.
 */
export async function confineTo(page: Page, origin: string): Promise<string[]> {
  const outside: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) void req.continue();
    else {
      outside.push(url);
      void req.abort();
    }
  });
  return outside;
}
