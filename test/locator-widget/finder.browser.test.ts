/**
 * The store finder in a real browser (Debian's headless Chromium driven by puppeteer-core): the page
 * `/locator/{company_id}` and a brand's page on another origin embedding `widget.js`. The service runs on
 * a fixed clock (Saturday 20:30 in Portland); map tiles come from a local stub; every request the browser
 * makes outside the service, the brand's page and the tile stub is recorded and refused.
 */
import type { Browser, Page } from 'puppeteer-core';
import { createTestApp, type TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { EVENING, finderService, finderWorld, hostPage, listen, startTileServer } from '../support/finder-world';
import { HourException } from '../../src/modules/company-retailer-location/hour-exception.entity';

// Runs in the page (puppeteer evaluates these functions there); the tests' TypeScript has no DOM library.
declare const document: any;
declare const getComputedStyle: any;

let t: TestApp;
let world: Awaited<ReturnType<typeof finderWorld>>;
let tiles: Awaited<ReturnType<typeof startTileServer>>;
let service: Awaited<ReturnType<typeof listen>>;
let host: Awaited<ReturnType<typeof listen>>;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: Browser;
let hostAttributes = '';
const outside: string[] = [];

beforeAll(async () => {
  tiles = await startTileServer();
  t = await createTestApp({ LOCATOR_TILE_URL: tiles.template, LOCATOR_TILE_ATTRIBUTION: 'Test tiles' });
  world = await finderWorld(t.em());
  service = await listen(finderService({ orm: t.orm, config: t.config }, () => EVENING));
  host = await listen((_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(hostPage(service.url, hostAttributes));
  });
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

/** A page whose requests outside the three local servers are refused and recorded. */
async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  await page.setRequestInterception(true);
  const allowed = new Set([new URL(service.url).origin, new URL(host.url).origin, new URL(tiles.url).origin]);
  page.on('request', (request) => {
    const u = new URL(request.url());
    if (u.protocol === 'data:' || allowed.has(u.origin)) void request.continue();
    else {
      outside.push(request.url());
      void request.abort();
    }
  });
  await page.goto(url);
  return page;
}

/** Reads the finder's shadow root in the page. */
const inFinder = <T>(page: Page, fn: string, arg?: unknown): Promise<T> =>
  page.evaluate(
    (body: string, a: unknown) => new Function('root', 'arg', body)(document.querySelector('[data-leadnet-locator]').shadowRoot, a),
    fn,
    arg as any,
  ) as Promise<T>;

const listed = (page: Page) =>
  inFinder<Array<{ id: string; name: string; distance: string | null; state: string; today: string; tier: string | null; current: string }>>(
    page,
    `return [...root.querySelectorAll('.ln-store')].map((li) => ({
       id: li.dataset.storeId,
       name: li.querySelector('.ln-name').textContent,
       distance: li.querySelector('.ln-distance')?.textContent ?? null,
       state: li.querySelector('.ln-state').textContent,
       today: li.querySelector('.ln-today').textContent,
       tier: li.querySelector('.ln-tier')?.textContent ?? null,
       current: li.getAttribute('aria-current'),
     }));`,
  );

async function waitForList(page: Page, count: number) {
  await page.waitForFunction(
    (n: number) => document.querySelector('[data-leadnet-locator]')?.shadowRoot?.querySelectorAll('.ln-store').length === n,
    { timeout: 15_000 },
    count,
  );
}

async function waitForStatus(page: Page, pattern: RegExp) {
  await page.waitForFunction(
    (source: string) => new RegExp(source).test(document.querySelector('[data-leadnet-locator]')?.shadowRoot?.querySelector('.ln-status')?.textContent ?? ''),
    { timeout: 30_000 },
    pattern.source,
  );
}

async function searchFor(page: Page, text: string) {
  const input = await page.waitForSelector('[data-leadnet-locator] >>> input[type=search]');
  await input!.click({ count: 3 });
  await input!.type(text);
  await page.keyboard.press('Enter');
}

const markers = (page: Page) =>
  inFinder<Array<{ id: string; label: string; selected: boolean }>>(
    page,
    `return [...root.querySelectorAll('.ln-marker')].map((m) => ({ id: m.dataset.storeId, label: m.textContent, selected: m.classList.contains('ln-marker--selected') }));`,
  );

/** What the map draws: each store's own marker, and the clusters of overlapping ones (their stores). */
const drawn = (page: Page) =>
  inFinder<{ markers: string[]; clusters: Array<{ count: string; ids: string[]; label: string }> }>(
    page,
    `return {
       markers: [...root.querySelectorAll('.ln-marker')].map((m) => m.dataset.storeId),
       clusters: [...root.querySelectorAll('.ln-cluster')].map((c) => ({ count: c.textContent, ids: c.dataset.storeIds.split(' '), label: c.getAttribute('aria-label') })),
     };`,
  );

/** Every store once on the map: alone or inside one cluster. */
async function everyStoreOnce(page: Page, ids: string[]) {
  const map = await drawn(page);
  expect([...map.markers, ...map.clusters.flatMap((c) => c.ids)].sort()).toEqual([...ids].sort());
  for (const c of map.clusters) expect(c.count).toBe(String(c.ids.length));
  return map;
}

describe('the page /locator/{company_id}', () => {
  let page: Page;
  beforeAll(async () => {
    page = await open(`${service.url}/locator/${world.company.id}`);
    await waitForList(page, 6);
  });
  afterAll(() => page?.close());

  test('before a search: every store on the map and in the list, with today\'s hours and open state', async () => {
    expect(await page.title()).toBe('Find a Cascade Cycles store');
    const stores = await listed(page);
    expect(stores.map((s) => s.name)).toEqual([
      'Summit Sports Beaverton', 'Summit Sports Downtown', 'Summit Sports Night Owl', 'Summit Sports Pearl District', 'Summit Sports Seattle', 'Summit Sports Vancouver',
    ]);
    expect(stores.every((s) => s.distance === null)).toBe(true);
    expect(stores.find((s) => s.name.endsWith('Night Owl'))).toMatchObject({ state: 'Open now', today: 'Today: 6:00 PM – 2:00 AM', tier: 'Dealer' });
    expect(stores.find((s) => s.name.endsWith('Downtown'))).toMatchObject({ state: 'Closed', today: 'Today: 10:00 AM – 7:00 PM', tier: 'Flagship' });
    // The four Portland-area stores overlap at the first zoom: one cluster; Seattle and Vancouver alone.
    const map = await everyStoreOnce(page, stores.map((s) => s.id));
    expect(map.clusters.map((c) => [c.count, c.label])).toEqual([['4', 'Stores 1, 2, 3 and 4: zoom in']]);
    const choices = await inFinder<string[][]>(page, `return ['select[name=store_type]', 'select[name=product]'].map((s) => [...root.querySelector(s).options].map((o) => o.textContent));`);
    expect(choices).toEqual([
      ['All store types', 'Dealer', 'Flagship', 'Premier Dealer'],
      ['All products', 'Beacon 800 Headlight', 'Ridgeline 29 Trail Bike', 'Summit MIPS Helmet'],
    ]);
  });

  test('a postcode: the nearest stores, higher tiers first, with distances, announced in the live region', async () => {
    await searchFor(page, '97205');
    await waitForStatus(page, /found near 97205/);
    const stores = await listed(page);
    // 25 mi by default: Seattle and Vancouver are out of range. Flagship, premier dealer, then dealers by
    // distance; great-circle distances from ZIP 97205's centroid: 0.38, 0.49, 2.41 and 6.03 mi.
    expect(stores.map((s) => [s.name, s.distance])).toEqual([
      ['Summit Sports Downtown', '0.4 mi'],
      ['Summit Sports Pearl District', '0.5 mi'],
      ['Summit Sports Night Owl', '2.4 mi'],
      ['Summit Sports Beaverton', '6 mi'],
    ]);
    expect(await inFinder(page, `const s = root.querySelector('.ln-status'); return [s.getAttribute('role'), s.getAttribute('aria-live'), s.textContent];`)).toEqual([
      'status', 'polite', '4 stores found near 97205.',
    ]);
    await everyStoreOnce(page, stores.map((s) => s.id));
  });

  test('open now on the fixed clock, then a store type', async () => {
    await (await page.waitForSelector('[data-leadnet-locator] >>> input[name=open_now]'))!.click();
    await waitForList(page, 2);
    const open = await listed(page);
    expect(open.map((s) => [s.name, s.state])).toEqual([
      ['Summit Sports Pearl District', 'Open now'],
      ['Summit Sports Night Owl', 'Open now'],
    ]);
    await page.select('[data-leadnet-locator] >>> select[name=store_type]', 'Dealer');
    await waitForList(page, 1);
    expect((await listed(page)).map((s) => s.name)).toEqual(['Summit Sports Night Owl']);
    await page.select('[data-leadnet-locator] >>> select[name=store_type]', '');
    await waitForList(page, 2);
  });

  test('clicking a result selects its marker; clicking a marker selects and focuses its result', async () => {
    const [pearl, night] = await listed(page);
    await (await page.waitForSelector(`[data-leadnet-locator] >>> .ln-store[data-store-id="${night.id}"] .ln-name`))!.click();
    expect(await markers(page)).toEqual([
      { id: pearl.id, label: '1', selected: false },
      { id: night.id, label: '2', selected: true },
    ]);
    expect((await listed(page)).map((s) => s.current)).toEqual(['false', 'true']);
    await (await page.waitForSelector(`[data-leadnet-locator] >>> .ln-marker[data-store-id="${pearl.id}"]`))!.click();
    expect((await markers(page)).map((m) => m.selected)).toEqual([true, false]);
    expect((await listed(page)).map((s) => s.current)).toEqual(['true', 'false']);
    expect(await inFinder(page, `return root.activeElement?.closest('.ln-store')?.dataset.storeId;`)).toBe(pearl.id);
  });

  test('a place that cannot be found says so', async () => {
    await searchFor(page, 'Xyzzyville');
    await waitForStatus(page, /could not find that place/);
    expect(await listed(page)).toEqual([]);
  });

  test('keyboard: every control is labelled and reached in order with Tab', async () => {
    const unlabelled = await inFinder<string[]>(page, `return [...root.querySelectorAll('input, select')].filter((c) => !c.labels.length).map((c) => c.name);`);
    expect(unlabelled).toEqual([]);
    await (await page.waitForSelector('[data-leadnet-locator] >>> input[type=search]'))!.focus();
    const order: string[] = [];
    for (let i = 0; i < 7; i++) {
      order.push(await inFinder<string>(page, `const a = root.activeElement; return a.name || a.dataset.action || a.textContent;`));
      await page.keyboard.press('Tab');
    }
    expect(order).toEqual(['address', 'Search', 'locate', 'radius', 'store_type', 'product', 'open_now']);
  });

  test('use my location searches around the browser\'s position', async () => {
    await browser.defaultBrowserContext().overridePermissions(service.url, ['geolocation']);
    await page.setGeolocation({ latitude: 47.61, longitude: -122.34 });
    await (await page.waitForSelector('[data-leadnet-locator] >>> input[name=open_now]'))!.click(); // off again
    await (await page.waitForSelector('[data-leadnet-locator] >>> button[data-action=locate]'))!.click();
    await waitForStatus(page, /found near your location/);
    expect((await listed(page)).map((s) => [s.name, s.distance])).toEqual([['Summit Sports Seattle', '0.1 mi']]); // 0.14 mi
  });

  test('tiles come from the configured server; nothing else leaves the page', async () => {
    expect(tiles.hits.length).toBeGreaterThan(0);
    expect(await inFinder(page, `return root.querySelector('.leaflet-control-attribution').textContent;`)).toContain('Test tiles');
    expect(outside).toEqual([]);
  });
});

describe("today's dated exception (holiday and special hours)", () => {
  // The fixed clock is Saturday 2026-06-06 20:30 in Portland: the Pearl District store is open till 21:00 by its weekly hours.
  beforeAll(async () => {
    const em = t.em();
    const { pearl, seattle } = world.stores;
    em.create(HourException, { retailerLocation: pearl.retailerLocation!.id, startsOn: '2026-06-06', endsOn: '2026-06-06', closed: true, label: 'Public holiday' });
    em.create(HourException, {
      retailerLocation: seattle.retailerLocation!.id, startsOn: '2026-06-05', endsOn: '2026-06-07', closed: false, label: 'Inventory',
      hours: [{ open_at_hour: 10, open_at_minute: 0, close_at_hour: 14, close_at_minute: 0 }],
    });
    await em.flush();
  });
  afterAll(() => t.em().nativeDelete(HourException, {}));

  /** A page that reads the API afresh (the earlier pages' answers are in the browser's cache). */
  async function fresh(url: string): Promise<Page> {
    const page = await browser.newPage();
    await page.setCacheEnabled(false);
    await page.goto(url);
    await waitForList(page, 6);
    return page;
  }

  test('the list says "Closed today: <label>" and shows special hours with their label, in English and French', async () => {
    const en = await fresh(`${service.url}/locator/${world.company.id}`);
    const stores = await listed(en);
    expect(stores.find((s) => s.name.endsWith('Pearl District'))).toMatchObject({ state: 'Closed', today: 'Closed today: Public holiday' });
    expect(stores.find((s) => s.name.endsWith('Seattle'))).toMatchObject({ state: 'Closed', today: 'Today: 10:00 AM–2:00 PM (Inventory)' });
    expect(stores.find((s) => s.name.endsWith('Night Owl'))).toMatchObject({ state: 'Open now', today: 'Today: 6:00 PM – 2:00 AM' });
    await en.close();
    hostAttributes = `data-company="${world.company.id}" data-lang="fr"`;
    const fr = await fresh(host.url);
    const fr_stores = await listed(fr);
    expect(fr_stores.find((s) => s.name.endsWith('Pearl District'))).toMatchObject({ state: 'Fermé', today: 'Fermé aujourd’hui : Public holiday' });
    expect(fr_stores.find((s) => s.name.endsWith('Seattle'))?.today).toBe('Aujourd’hui : 10 h 00–14 h 00 (Inventory)');
    await fr.close();
  });
});

describe('a phone-sized screen', () => {
  test('the map sits above the list and shows a marker for every result, inside its frame', async () => {
    const page = await open(`${service.url}/locator/${world.company.id}`, { width: 390, height: 844 });
    try {
      await waitForList(page, 6);
      await searchFor(page, '97205');
      await waitForStatus(page, /found near 97205/);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the map settles
      const layout = await inFinder<{ map: any; list: any; markers: any[] }>(
        page,
        `const box = (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
         return { map: box(root.querySelector('.ln-map')), list: box(root.querySelector('.ln-results')), markers: [...root.querySelectorAll('.ln-marker, .ln-cluster')].map(box) };`,
      );
      expect(layout.map.bottom).toBeLessThanOrEqual(layout.list.top);
      expect(layout.map.right - layout.map.left).toBeGreaterThan(300);
      // Downtown and Pearl District (0.7 km apart) overlap at this width: one cluster of two.
      const map = await everyStoreOnce(page, (await listed(page)).map((s) => s.id));
      expect(layout.markers).toHaveLength(map.markers.length + map.clusters.length);
      for (const m of layout.markers) {
        expect([m.left >= layout.map.left, m.right <= layout.map.right, m.top >= layout.map.top, m.bottom <= layout.map.bottom]).toEqual([true, true, true, true]);
      }
    } finally {
      await page.close();
    }
  });
});

describe('the snippet on a brand\'s page (another origin, hostile CSS)', () => {
  let page: Page;
  beforeAll(async () => {
    hostAttributes = `data-company="${world.company.id}" data-lang="fr" data-units="km" data-radius="10" data-color="#2f7d32"`;
    page = await open(host.url, { width: 1100, height: 900 });
    await waitForList(page, 6);
  });
  afterAll(() => page?.close());

  test('searches through the public API with CORS, in French and kilometres, within the given radius', async () => {
    await searchFor(page, '97205');
    await waitForStatus(page, /trouvés près de 97205/);
    // Great-circle distances from ZIP 97205's centroid: 0.62, 0.79, 3.88 and 9.70 km.
    expect((await listed(page)).map((s) => [s.name, s.distance, s.state])).toEqual([
      ['Summit Sports Downtown', '0,6 km', 'Fermé'],
      ['Summit Sports Pearl District', '0,8 km', 'Ouvert'],
      ['Summit Sports Night Owl', '3,9 km', 'Ouvert'],
      ['Summit Sports Beaverton', '9,7 km', 'Fermé'],
    ]);
    expect((await listed(page))[2].today).toBe('Aujourd’hui : 18 h 00 – 2 h 00');
    expect(await inFinder(page, `return root.querySelector('select[name=radius]').value;`)).toBe('10');
  });

  test('the page\'s CSS does not reach the finder, and the brand colour does', async () => {
    const styles = await inFinder<Record<string, string>>(
      page,
      `const name = getComputedStyle(root.querySelector('.ln-name'));
       const item = getComputedStyle(root.querySelector('.ln-store'));
       const search = getComputedStyle(root.querySelector('button[type=submit]'));
       return { font: name.fontFamily, color: name.color, display: item.display, button: search.backgroundColor, text: search.color };`,
    );
    expect(styles.font).not.toMatch(/Comic/);
    expect(styles.color).not.toBe('rgb(255, 0, 0)');
    expect(styles.display).toBe('grid');
    expect(styles.button).toBe('rgb(47, 125, 50)');
    expect(styles.text).toBe('rgb(255, 255, 255)');
    // The finder's styles stay inside: the brand's own text keeps the brand's look.
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('footer')).fontFamily)).toMatch(/Comic/);
  });

  test('nothing outside the service, the brand\'s page and the tiles was requested', () => {
    expect(outside).toEqual([]);
  });
});
