import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's `chromium` package (`apt-get install chromium`); `.ci/run` installs it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium with a throw-away profile and no background traffic (the machine may have no
 * internet). A missing browser fails loudly: page tests are never silently skipped.
 */
export async function launchBrowser(): Promise<Browser & { profileDir: string }> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profileDir,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return Object.assign(browser, { profileDir });
}

export async function closeBrowser(browser: (Browser & { profileDir: string }) | undefined): Promise<void> {
  if (!browser) return;
  await browser.close();
  fs.rmSync(browser.profileDir, { recursive: true, force: true });
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
