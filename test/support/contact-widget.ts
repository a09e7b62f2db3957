import type { Browser, Page } from 'puppeteer-core';

// Runs in the page (puppeteer evaluates these functions there); the tests' TypeScript has no DOM library.
declare const document: any;

/**
 * A brand's page in a new tab, every request to an origin not in `origins` aborted and recorded in
 * `outside` (the finder needs nothing but the service, the brand's page and the tiles); resolves once the
 * finder lists its stores.
 */
export async function openBrandPage(browser: Browser, url: string, origins: string[]): Promise<{ page: Page; outside: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.setRequestInterception(true);
  const allowed = new Set(origins.map((o) => new URL(o).origin));
  const outside: string[] = [];
  page.on('request', (request) => {
    const u = new URL(request.url());
    if (u.protocol === 'data:' || u.protocol === 'blob:' || allowed.has(u.origin)) void request.continue();
    else {
      outside.push(request.url());
      void request.abort();
    }
  });
  await page.goto(url);
  await page.waitForFunction(() => (document.querySelector('[data-leadnet-locator]')?.shadowRoot?.querySelectorAll('.ln-store').length ?? 0) > 0, { timeout: 20_000 });
  return { page, outside };
}

/** Runs `body` in the page with `root` the finder's shadow root. */
export const inFinder = <T>(page: Page, body: string): Promise<T> =>
  page.evaluate((b: string) => new Function('root', b)(document.querySelector('[data-leadnet-locator]').shadowRoot), body) as Promise<T>;

/**
 * As a visitor does it: opens the store's "Contact this store" form, types the fields, ticks the products
 * and the consent, sends it, and waits (the widget solving its proof-of-work meanwhile) until the form
 * says it was sent.
 */
export async function contactStore(page: Page, storeId: string, fields: { name: string; email?: string; message?: string; productIds?: string[] }): Promise<void> {
  const form = `[data-leadnet-locator] >>> li[data-store-id="${storeId}"] .ln-contact-form`;
  await (await page.waitForSelector(`[data-leadnet-locator] >>> li[data-store-id="${storeId}"] .ln-contact-open`))!.click();
  await (await page.waitForSelector(`${form} input[name=name]`))!.type(fields.name);
  if (fields.email) await (await page.waitForSelector(`${form} input[name=email]`))!.type(fields.email);
  if (fields.message) await (await page.waitForSelector(`${form} textarea[name=message]`))!.type(fields.message);
  for (const id of fields.productIds ?? []) await (await page.waitForSelector(`${form} input[value="${id}"]`))!.click();
  await (await page.waitForSelector(`${form} input[name=consent]`))!.click();
  await (await page.waitForSelector(`${form} button[type=submit]`))!.click();
  await page.waitForFunction(
    (id: string) => /Thank you: your request was sent/.test(document.querySelector('[data-leadnet-locator]').shadowRoot.querySelector(`li[data-store-id="${id}"] .ln-contact-done`)?.textContent ?? ''),
    { timeout: 60_000 },
    storeId,
  );
}
