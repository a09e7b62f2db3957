/**
 * The store finder's abuse cases (docs/store-finder.md), each in a real browser (Debian's Chromium): the
 * page `/locator/{company_id}` and brands' pages on another origin embedding `widget.js`, against the
 * service on a fixed clock, with map tiles from a local stub.
 */
import http from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { createTestApp, type TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import * as lf from '../support/locator-factories';
import { EVENING, finderService, finderWorld, listen, startTileServer } from '../support/finder-world';

declare const document: any;
declare const window: any;

let t: TestApp;
let world: Awaited<ReturnType<typeof finderWorld>>;
let rival: { companyId: string; storeName: string; productName: string };
let tiles: Awaited<ReturnType<typeof startTileServer>>;
let service: Awaited<ReturnType<typeof listen>>;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: Browser;
/** Pages of "other sites", by path: `{ headers, body }`. */
const sites = new Map<string, { headers?: Record<string, string>; body: string }>();
let site: Awaited<ReturnType<typeof listen>>;

const HOSTILE = '<img src=x onerror="window.__xss=1">';

beforeAll(async () => {
  tiles = await startTileServer();
  t = await createTestApp({ LOCATOR_TILE_URL: tiles.template, LOCATOR_TILE_ATTRIBUTION: 'Test tiles' });
  const em = t.em();
  world = await finderWorld(em);
  // Stored data written by hostile hands: a store's name and street, a store type, a product.
  const downtown = world.stores.downtown;
  const cr = downtown.companyRetailer;
  const tier = await lf.storeType(em, world.company, `${HOSTILE}Outlet`, 0);
  const product = await lf.catalogProduct(em, world.company, { sku: 'CC-EVIL', name: `${HOSTILE}Evil Bike` });
  // Two stores at one address (one mall): the deepest zoom cannot split them.
  const at = { latitude: 45.5231, longitude: -122.6765 };
  for (const name of [`${HOSTILE}Mall Store A`, 'Mall Store B']) {
    await lf.store(em, cr, {
      country: 'US', province: 'OR', city: 'Portland', locationName: name, streetLineOne: `${HOSTILE}1 Mall Way`, postalCode: '97204', ...at,
      storeType: tier, stock: [{ product }],
    });
  }
  // Another tenant with a store in the same city.
  const other = await lf.locatorNetwork(em, 'Rival Bikes');
  const secret = await lf.catalogProduct(em, other.company, { sku: 'RB-SECRET', name: 'Rival Secret Bike' });
  await lf.store(em, other.companyRetailer, {
    country: 'US', province: 'OR', city: 'Portland', locationName: 'Rival Portland', postalCode: '97205', latitude: 45.52, longitude: -122.68, stock: [{ product: secret }],
  });
  rival = { companyId: other.company.id, storeName: 'Rival Portland', productName: 'Rival Secret Bike' };

  service = await listen(finderService({ orm: t.orm, config: t.config }, () => EVENING));
  site = await listen((req: http.IncomingMessage, res: http.ServerResponse) => {
    const page = sites.get(req.url ?? '');
    if (!page) res.writeHead(404).end();
    else res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...page.headers }).end(page.body);
  });
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
  await site?.close();
  await service?.close();
  await tiles?.close();
  await t?.close();
});

interface Opened {
  page: Page;
  errors: string[];
  outside: string[];
  apiCalls: string[];
}

/** Opens `url`, recording console errors, API calls, and requests beyond the service, the site and the tiles (refused). */
async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<Opened> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const o: Opened = { page, errors: [], outside: [], apiCalls: [] };
  await page.setRequestInterception(true);
  const allowed = new Set([new URL(service.url).origin, new URL(site.url).origin, new URL(tiles.url).origin]);
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.includes('/store_locator')) o.apiCalls.push(r.url());
    if (u.protocol === 'data:' || allowed.has(u.origin)) void r.continue();
    else {
      o.outside.push(r.url());
      void r.abort();
    }
  });
  page.on('console', (m) => {
    if (m.type() === 'error') o.errors.push(m.text());
  });
  page.on('pageerror', (e) => o.errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load' });
  return o;
}

/** A brand's page on the other origin: `body` inside, served with `headers`. */
function sitePage(path: string, body: string, headers: Record<string, string> = {}): string {
  sites.set(path, { headers, body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Brand</title><link rel="icon" href="data:,"></head><body>${body}</body></html>` });
  return `${site.url}${path}`;
}

const snippet = (company: string, extra = '') =>
  `<div data-leadnet-locator data-company="${company}"${extra}></div><script src="${service.url}/locator/widget.js" async></script>`;

/** Runs `body` with `root`, the shadow root of the `index`-th finder of the page. */
const inFinder = <T>(page: Page, body: string, index = 0): Promise<T> =>
  page.evaluate((b: string, i: number) => new Function('root', b)(document.querySelectorAll('[data-leadnet-locator]')[i]?.shadowRoot), body, index) as Promise<T>;

async function waitForStores(page: Page, index = 0, count?: number) {
  await page.waitForFunction(
    (i: number, n: number | null) => {
      const found = document.querySelectorAll('[data-leadnet-locator]')[i]?.shadowRoot?.querySelectorAll('.ln-store').length ?? 0;
      return n === null ? found > 0 : found === n;
    },
    { timeout: 20_000 },
    index,
    count ?? null,
  );
}

const names = (page: Page, index = 0) => inFinder<string[]>(page, `return [...root.querySelectorAll('.ln-name')].map((n) => n.textContent);`, index);

describe('stored data written to attack the shopper (XSS through store names, addresses, store types, products)', () => {
  test('is shown as text: no element, no script, no handler runs, on the page and embedded', async () => {
    for (const url of [`${service.url}/locator/${world.company.id}`, sitePage('/xss', snippet(world.company.id))]) {
      const o = await open(url);
      await waitForStores(o.page, 0, 8);
      expect(await names(o.page)).toContain(`Summit Sports - ${HOSTILE}Mall Store A`);
      const found = await inFinder<Record<string, unknown>>(
        o.page,
        `return {
           imgs: root.querySelectorAll('.ln-results img, .ln-search img, option img').length,
           address: [...root.querySelectorAll('.ln-address')].some((a) => a.textContent.includes('onerror')),
           tiers: [...root.querySelectorAll('select[name=store_type] option')].map((x) => x.textContent),
           products: [...root.querySelectorAll('select[name=product] option')].map((x) => x.textContent),
         };`,
      );
      expect(found).toMatchObject({ imgs: 0, address: true });
      expect(found.tiers).toContain(`${HOSTILE}Outlet`);
      expect(found.products).toContain(`${HOSTILE}Evil Bike`);
      await new Promise((r) => setTimeout(r, 300));
      expect(await o.page.evaluate(() => window.__xss)).toBeUndefined();
      expect(o.errors).toEqual([]);
      expect(o.outside).toEqual([]);
      await o.page.close();
    }
  });
});

describe('a company id of another tenant, or a malformed one', () => {
  test('a brand\'s finder shows only its own stores and products, never another tenant\'s in the same city', async () => {
    const o = await open(`${service.url}/locator/${world.company.id}`);
    await waitForStores(o.page, 0, 8);
    expect((await names(o.page)).filter((n) => n.includes(rival.storeName))).toEqual([]);
    const products = await inFinder<string[]>(o.page, `return [...root.querySelectorAll('select[name=product] option')].map((x) => x.textContent);`);
    expect(products).not.toContain(rival.productName);
    // Every API call names this company and no other.
    expect(o.apiCalls.length).toBeGreaterThan(0);
    for (const call of o.apiCalls) expect(new URL(call).searchParams.getAll('cc_id')).toEqual([world.company.id]);
    await o.page.close();
  });

  test('the other tenant\'s own finder shows its store only (the locator is public: any site may show any brand\'s stores)', async () => {
    const o = await open(sitePage('/rival', snippet(rival.companyId)));
    await waitForStores(o.page, 0, 1);
    expect(await names(o.page)).toEqual([expect.stringMatching(new RegExp(`${rival.storeName}$`))]);
    await o.page.close();
  });

  test.each([
    ['malformed', 'acme"><script>window.__xss=1</script>', false],
    ['unknown', '00000000-0000-4000-8000-000000000000', true],
  ])('a %s data-company: the finder says it is not available, tells the developer in the console, runs nothing', async (_label, company, asksApi) => {
    const escaped = company.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const o = await open(sitePage(`/company-${_label}`, snippet(escaped)));
    await o.page.waitForFunction(
      () => /not available/.test(document.querySelector('[data-leadnet-locator]')?.shadowRoot?.querySelector('.ln-status')?.textContent ?? ''),
      { timeout: 20_000 },
    );
    expect(o.errors.some((e) => e.includes('leadnet locator: no store finder for data-company'))).toBe(true);
    expect(o.apiCalls.length > 0).toBe(asksApi);
    expect(await o.page.evaluate(() => window.__xss)).toBeUndefined();
    expect(await inFinder<boolean>(o.page, `return root.querySelector('input[type=search]').disabled;`)).toBe(true);
    await o.page.close();
  });
});

describe('a hostile or careless host page', () => {
  test('the widget leaves no global and no property on window or document, even after the map is dragged; the page\'s own L is kept', async () => {
    const url = sitePage(
      '/globals',
      `<script>window.L = { mine: true }; window.__before = Object.getOwnPropertyNames(window); window.__docBefore = Object.getOwnPropertyNames(document);</script>` +
        snippet(world.company.id),
    );
    const o = await open(url);
    await waitForStores(o.page);
    const map = await inFinder<number[]>(o.page, `const r = root.querySelector('.ln-map').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];`);
    await o.page.mouse.move(map[0], map[1]);
    await o.page.mouse.down();
    await o.page.mouse.move(map[0] + 60, map[1] + 40, { steps: 5 });
    await o.page.mouse.up();
    const left = await o.page.evaluate(() => ({
      // (puppeteer's own query helpers aside)
      window: Object.getOwnPropertyNames(window).filter((n: string) => !window.__before.includes(n) && !['__before', '__docBefore'].includes(n) && !/ariaQuerySelector/.test(n)),
      document: Object.getOwnPropertyNames(document).filter((n: string) => !window.__docBefore.includes(n)),
      L: window.L,
    }));
    expect(left).toEqual({ window: [], document: [], L: { mine: true } });
    expect(o.errors).toEqual([]);
    await o.page.close();
  });

  test('loaded twice, with two finders of two brands: each mounted once, by one copy, both working', async () => {
    const o = await open(sitePage('/twice', snippet(world.company.id) + snippet(rival.companyId)));
    await waitForStores(o.page, 0, 8);
    await waitForStores(o.page, 1, 1);
    const counts = await o.page.evaluate(() =>
      [...document.querySelectorAll('[data-leadnet-locator]')].map((h: any) => [h.dataset.leadnetMounted, h.shadowRoot.querySelectorAll('.ln-finder').length]),
    );
    expect(counts).toEqual([['true', 1], ['true', 1]]);
    expect(await names(o.page, 1)).toEqual([expect.stringMatching(new RegExp(`${rival.storeName}$`))]);
    // One copy searches: the finder's list is fetched once per finder, not once per copy of the script.
    expect(o.apiCalls.filter((c) => c.includes(rival.companyId))).toHaveLength(1);
    expect(o.errors).toEqual([]);
    await o.page.close();
  });

  test('a finder added later (a single-page app\'s next view) is mounted without any API object', async () => {
    const o = await open(sitePage('/spa', `<script src="${service.url}/locator/widget.js"></script><main id="view"></main>`));
    await o.page.evaluate((id: string) => {
      document.getElementById('view').innerHTML = `<section><div data-leadnet-locator data-company="${id}"></div></section>`;
    }, world.company.id);
    await waitForStores(o.page, 0, 8);
    await o.page.close();
  });

  test('a page with a strict Content Security Policy (no inline style) and Cross-Origin-Embedder-Policy still shows a styled finder', async () => {
    const csp = `default-src 'none'; script-src ${service.url}; connect-src ${service.url}; img-src ${tiles.url} data:; style-src 'self'`;
    const o = await open(sitePage('/strict', snippet(world.company.id), { 'Content-Security-Policy': csp, 'Cross-Origin-Embedder-Policy': 'credentialless' }));
    await waitForStores(o.page, 0, 8);
    const display = await inFinder<string>(o.page, `return getComputedStyle(root.querySelector('.ln-store')).display;`);
    expect(display).toBe('grid');
    expect(o.errors.filter((e) => /Content Security Policy/.test(e))).toEqual([]);
    await o.page.close();
  });

  test('a data-api that is not a web address is refused (the service\'s own API is used)', async () => {
    const o = await open(sitePage('/api', snippet(world.company.id, ' data-api="javascript:alert(1)//"')));
    await waitForStores(o.page, 0, 8);
    expect(o.apiCalls.every((c) => c.startsWith(`${service.url}/v1/store_locator`))).toBe(true);
    expect(o.errors.some((e) => e.includes('is not a web address'))).toBe(true);
    await o.page.close();
  });

  test('links from an API answer are only web and tel links (a javascript: directions link is dropped)', async () => {
    // A host may point data-api at its own proxy; what that answers must not run in the page.
    const evil = {
      results: [{
        id: 's1', name: 'Proxy store', full_name: null, store_type: null,
        address: { string: '1 Main St', latitude: 45.5, longitude: -122.6 },
        phone_number: { phone_number: '+1503"><img src=x onerror=window.__xss=1>', formatted: '503 555 0100' },
        retailer_location_hours: [], retailer_location_products: [], open_now: false, local_weekday: 'monday',
        directions_url: 'javascript:window.__xss=1',
      }],
      meta: { total: 1, distance_unit: 'mi', origin: { latitude: 45.5, longitude: -122.6 }, aggs: { store_type: { buckets: [] } } },
    };
    const proxy = await listen((_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' }).end(JSON.stringify(evil));
    });
    try {
      const page = await browser.newPage();
      await page.goto(sitePage('/proxy', snippet(world.company.id, ` data-api="${proxy.url}/v1"`)));
      await waitForStores(page, 0, 1);
      const links = await inFinder<string[]>(page, `return [...root.querySelectorAll('.ln-links a')].map((a) => a.getAttribute('href'));`);
      expect(links).toEqual(['tel:+15031']); // the digits of the value only
      expect(await page.evaluate(() => window.__xss)).toBeUndefined();
      await page.close();
    } finally {
      await proxy.close();
    }
  });
});

describe('embedding by iframe', () => {
  test('any site may frame the finder page, and it works there', async () => {
    const o = await open(sitePage('/frame', `<iframe src="${service.url}/locator/${world.company.id}" width="1000" height="800" allow="geolocation"></iframe>`));
    const frame = await (await o.page.waitForSelector('iframe'))!.contentFrame();
    await frame!.waitForFunction(() => (document.querySelector('[data-leadnet-locator]')?.shadowRoot?.querySelectorAll('.ln-store').length ?? 0) === 8, { timeout: 20_000 });
    expect(o.errors).toEqual([]);
    await o.page.close();
  });
});

describe('overlapping markers', () => {
  test('a cluster zooms in until it splits; stores at one address are fanned out; a store picked in the list is revealed', async () => {
    const o = await open(`${service.url}/locator/${world.company.id}`);
    await waitForStores(o.page, 0, 8);
    const state = () =>
      inFinder<{ markers: string[]; clusters: string[][]; legs: number }>(
        o.page,
        `return {
           markers: [...root.querySelectorAll('.ln-marker')].map((m) => m.dataset.storeId),
           clusters: [...root.querySelectorAll('.ln-cluster')].map((c) => c.dataset.storeIds.split(' ')),
           legs: root.querySelectorAll('.ln-leg').length,
         };`,
      );
    const byName = await inFinder<Record<string, string>>(o.page, `return Object.fromEntries([...root.querySelectorAll('.ln-store')].map((s) => [s.querySelector('.ln-name').textContent, s.dataset.storeId]));`);
    const mallIds = [byName[`Summit Sports - ${HOSTILE}Mall Store A`], byName['Summit Sports - Mall Store B']];
    // Zoomed out over the network: the Portland stores are one cluster.
    let s = await state();
    const portland = s.clusters.find((c) => c.includes(mallIds[0]))!;
    expect(portland.length).toBeGreaterThanOrEqual(6);
    // Clicking clusters until none holds the mall stores: they end fanned out, each with its line.
    for (let i = 0; i < 20 && (s = await state()).clusters.some((c) => c.includes(mallIds[0])); i++) {
      const cluster = s.clusters.find((c) => c.includes(mallIds[0]))!;
      await (await o.page.waitForSelector(`[data-leadnet-locator] >>> .ln-cluster[data-store-ids="${cluster.join(' ')}"]`))!.click();
    }
    expect(s.markers).toEqual(expect.arrayContaining(mallIds));
    expect(s.legs).toBeGreaterThanOrEqual(2);
    const boxes = await inFinder<Array<{ x: number; y: number }>>(
      o.page,
      `return ${JSON.stringify(mallIds)}.map((id) => { const r = root.querySelector('.ln-marker[data-store-id="' + id + '"]').getBoundingClientRect(); return { x: r.x, y: r.y }; });`,
    );
    expect(Math.hypot(boxes[0].x - boxes[1].x, boxes[0].y - boxes[1].y)).toBeGreaterThanOrEqual(28); // no longer overlapping

    // On a fresh page, a store picked in the list while in a cluster: the map zooms in to show it alone, selected.
    const p2 = await open(`${service.url}/locator/${world.company.id}`);
    await waitForStores(p2.page, 0, 8);
    const downtown = world.stores.downtown.id;
    await (await p2.page.waitForSelector(`[data-leadnet-locator] >>> .ln-store[data-store-id="${downtown}"] .ln-name`))!.click();
    await p2.page.waitForFunction(
      (id: string) => document.querySelector('[data-leadnet-locator]').shadowRoot.querySelector(`.ln-marker[data-store-id="${id}"]`)?.classList.contains('ln-marker--selected'),
      { timeout: 10_000 },
      downtown,
    );
    await p2.page.close();
    expect(o.errors).toEqual([]);
    await o.page.close();
  });
});
