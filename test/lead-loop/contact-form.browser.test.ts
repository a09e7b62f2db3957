/**
 * The store finder's "Contact this store" form in a real browser (headless Chromium): a brand's page on
 * its own origin embeds the widget with its site key; the visitor opens the form under a store, fills it,
 * and the proof-of-work is solved in the page by the bundled `altcha` web component (no third party); the
 * form says it was sent, and the lead is in the database, owned by the brand, assigned to that store,
 * with the consent the visitor saw.
 */
import type { Browser } from 'puppeteer-core';
import { createTestApp, gql, type TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { inFinder, openBrandPage } from '../support/contact-widget';
import { finderWorld, hostPage, listen, startTileServer } from '../support/finder-world';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';

// Runs in the page (puppeteer evaluates these functions there); the tests' TypeScript has no DOM library.
declare const document: any;
declare const window: any;

let t: TestApp;
let world: Awaited<ReturnType<typeof finderWorld>>;
let tiles: Awaited<ReturnType<typeof startTileServer>>;
let service: Awaited<ReturnType<typeof listen>>;
let host: Awaited<ReturnType<typeof listen>>;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: Browser;
let siteKey = '';

beforeAll(async () => {
  tiles = await startTileServer();
  t = await createTestApp({ LOCATOR_TILE_URL: tiles.template, LOCATOR_TILE_ATTRIBUTION: 'Test tiles', GEOCODER: 'none' });
  world = await finderWorld(t.em());
  service = await listen(t.app);
  host = await listen((_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(hostPage(service.url, `data-company="${world.company.id}" data-site-key="${siteKey}"`));
  });
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, world.company);
  const created = await gql(t, admin.key, 'mutation($input: CreateSiteKeyInput!) { createSiteKey(input: $input) { key } }', {
    input: { name: 'Brand site', allowedOrigins: [new URL(host.url).origin] },
  });
  expect(created.body.errors).toBeUndefined();
  siteKey = created.body.data.createSiteKey.key;
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
  await host?.close();
  await service?.close();
  await tiles?.close();
  await t?.close();
});

test('a visitor asks a store from the widget: the proof-of-work is solved in the page and the lead is stored', async () => {
  const { page, outside } = await openBrandPage(browser, host.url, [service.url, host.url, tiles.url]);
  // No form code ran yet: the page has no `altcha-widget` until a form is opened.
  expect(await page.evaluate(() => [!!window.customElements.get('altcha-widget'), '$altcha' in window])).toEqual([false, false]);
  const store = world.stores.downtown;
  const button = await page.waitForSelector(`[data-leadnet-locator] >>> li[data-store-id="${store.id}"] .ln-contact-open`);
  expect(await button!.evaluate((b: any) => [b.textContent, b.getAttribute('aria-expanded')])).toEqual(['Contact this store', 'false']);
  await button!.click();
  const form = `li[data-store-id="${store.id}"] .ln-contact-form`;
  await page.waitForSelector(`[data-leadnet-locator] >>> ${form} input[name=name]`);
  // Labelled fields; the honeypot out of sight and out of the tab order.
  const labels = await inFinder<string[]>(page, `return [...root.querySelectorAll('${form} label')].map((l) => l.textContent.trim()).filter(Boolean);`);
  expect(labels).toEqual(expect.arrayContaining(['Name', 'E-mail', 'Phone', 'Message', 'Ridgeline 29 Trail Bike']));
  expect(await inFinder<string>(page, `return root.querySelector('${form} input[name=website]').getAttribute('tabindex');`)).toBe('-1');
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} input[name=name]`))!.type('Wendy Widget');
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} input[name=email]`))!.type('wendy@example.com');
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} textarea[name=message]`))!.type('Is the trail bike in stock in size L?');
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} input[value="${world.products.bike.id}"]`))!.click();
  // Sent without consent: said, nothing posted.
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} button[type=submit]`))!.click();
  expect(await inFinder<string>(page, `return root.querySelector('${form} .ln-contact-status').textContent;`)).toMatch(/Tick the box/);
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} input[name=consent]`))!.click();
  await (await page.waitForSelector(`[data-leadnet-locator] >>> ${form} button[type=submit]`))!.click();
  await page.waitForFunction(
    (id: string) => /Thank you: your request was sent/.test(document.querySelector('[data-leadnet-locator]').shadowRoot.querySelector(`li[data-store-id="${id}"] .ln-contact-done`)?.textContent ?? ''),
    { timeout: 60_000 },
    store.id,
  );
  const [lead] = await t.em().getConnection().execute(
    `select l.id, l.owner_company_id, l.assignee_id, l.source_type from leads l join emails e on e.lead_id = l.id where e.email = 'wendy@example.com'`,
  );
  expect(lead).toMatchObject({ owner_company_id: world.company.id, assignee_id: store.id, source_type: 'StoreLocatorForm' });
  const [consent] = await t.em().getConnection().execute(`select text, version, source from lead_consents where lead_id = ?`, [lead.id]);
  expect(consent).toEqual({ text: expect.stringMatching(/^I agree that this store/), version: 'widget-2026-12', source: 'form' });
  const [quote] = await t.em().getConnection().execute(`select data from lead_activities where lead_id = ? and type = 'LeadActivity::QuoteRequest'`, [lead.id]);
  expect(quote.data.products).toEqual([{ id: world.products.bike.id, name: 'Ridgeline 29 Trail Bike' }]);
  expect(outside).toEqual([]);
  await page.close();
});
