/**
 * Store pages over HTTP (docs/store-pages.md): a page's content and its schema.org JSON-LD, a 404 for a
 * store that is not public, a 301 after a rename (which also shows on the page at once: the write purges
 * the page cache), the directory, the sitemap index and files, robots.txt, ETag and Last-Modified with 304.
 */
import request from 'supertest';
import { mapHtml } from '../../src/modules/store-pages/store-pages.render';
import { createTestApp, type TestApp } from '../support/app';
import { finderWorld } from '../support/finder-world';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { storePagesRouter } from '../../src/modules/store-pages/store-pages.router';
import { sitemapFileCount, sitemapFileRange } from '../../src/modules/store-pages/store-pages.sitemap';
import express from 'express';

let t: TestApp;
let world: Awaited<ReturnType<typeof finderWorld>>;
const BASE = 'https://shop.example.com';
const PAGE = '/stores/cascade-cycles/portland/summit-sports-downtown';

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: BASE });
  world = await finderWorld(t.em());
});
afterAll(async () => {
  await t?.close();
});

const sql = (text: string, params: unknown[] = []) => t.em().getConnection().execute(text, params as any[]);
const get = (path: string, headers: Record<string, string> = {}) => {
  let r = request(t.app).get(path);
  for (const [k, v] of Object.entries(headers)) r = r.set(k, v);
  return r;
};
/** GETs `path` until `done` holds for the answer (the purge is heard a few milliseconds after the commit). */
async function eventually(path: string, done: (r: request.Response) => boolean): Promise<request.Response> {
  const until = Date.now() + 5000;
  for (;;) {
    const r = await get(path);
    if (done(r) || Date.now() > until) return r;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** REST PATCH of a store's name, as a partner's integration sends it. */
const rename = (key: string, id: string, name: string) =>
  request(t.app).patch(`/v1/company_retailer_locations/${id}`).set('X-Api-Key', key).send({ company_retailer_location: { name } });

function jsonLd(html: string): any {
  const m = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]);
}

/** The properties schema.org defines for LocalBusiness (and its parents Organization, Place, Thing) that a page may use. */
const LOCAL_BUSINESS_PROPERTIES = new Set([
  '@context', '@type', '@id', 'name', 'url', 'description', 'brand', 'telephone', 'email', 'sameAs', 'address', 'geo', 'hasMap',
  'openingHoursSpecification', 'image', 'priceRange', 'currenciesAccepted', 'paymentAccepted', 'openingHours', 'areaServed',
]);
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].map((d) => `https://schema.org/${d}`);

/** A LocalBusiness as schema.org defines it: the expected properties present and of their types, nothing unknown. */
function expectLocalBusiness(ld: any, expected: { url: string; telephone?: string }): void {
  expect(ld['@context']).toBe('https://schema.org');
  expect(ld['@type']).toBe('LocalBusiness');
  for (const key of Object.keys(ld)) expect(LOCAL_BUSINESS_PROPERTIES.has(key) ? key : `unknown property ${key}`).toBe(key);
  expect(typeof ld.name).toBe('string');
  expect(ld.url).toBe(expected.url);
  if (expected.telephone) expect(ld.telephone).toBe(expected.telephone);
  expect(ld.address).toEqual(expect.objectContaining({ '@type': 'PostalAddress', streetAddress: expect.any(String), addressLocality: expect.any(String), postalCode: expect.any(String), addressCountry: expect.any(String) }));
  for (const key of Object.keys(ld.address)) expect(['@type', 'streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry']).toContain(key);
  expect(ld.geo).toEqual({ '@type': 'GeoCoordinates', latitude: expect.any(Number), longitude: expect.any(Number) });
  expect(Array.isArray(ld.openingHoursSpecification)).toBe(true);
  for (const spec of ld.openingHoursSpecification) {
    expect(spec['@type']).toBe('OpeningHoursSpecification');
    expect(spec.opens).toMatch(/^\d{2}:\d{2}$/);
    expect(spec.closes).toMatch(/^\d{2}:\d{2}$/);
    if (spec.dayOfWeek !== undefined) expect(DAYS).toContain(spec.dayOfWeek);
    else {
      expect(spec.validFrom).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(spec.validThrough).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    for (const key of Object.keys(spec)) expect(['@type', 'name', 'dayOfWeek', 'opens', 'closes', 'validFrom', 'validThrough']).toContain(key);
  }
}

test('a public store has a page: content, tags, JSON-LD (LocalBusiness with dated exceptions)', async () => {
  const store = world.stores.downtown;
  const [{ retailer_location_id: rl }] = await sql('select retailer_location_id from company_retailer_locations where id = ?', [store.id]);
  await sql(`insert into hour_exceptions (retailer_location_id, starts_on, ends_on, closed, label) values (?, current_date + 30, current_date + 30, true, 'Public holiday')`, [rl]);
  const res = await eventually(PAGE, (r) => r.text.includes('Public holiday'));
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/html/);
  const html = res.text;
  expect(html).toContain('<h1>Summit Sports Downtown</h1>');
  expect(html).toContain('921 SW Morrison St');
  expect(html).toContain('href="tel:+15035550142"');
  expect(html).toContain('Ridgeline 29 Trail Bike');
  expect(html).toContain('https://www.google.com/maps/dir/?api=1&#38;destination=45.5197');
  expect(html).toContain('https://www.openstreetmap.org/?mlat=45.5197');
  expect(html).toContain(`<link rel="canonical" href="${BASE}${PAGE}">`);
  expect(html).toContain(`<link rel="alternate" hreflang="fr" href="${BASE}/fr${PAGE}">`);
  expect(html).toContain('<meta property="og:title"');
  expect(html).toContain('id="contact"');
  const ld = jsonLd(html);
  expectLocalBusiness(ld, { url: `${BASE}${PAGE}`, telephone: '+1 503 555 0142' });
  expect(ld.openingHoursSpecification).toEqual(
    expect.arrayContaining([
      { '@type': 'OpeningHoursSpecification', dayOfWeek: 'https://schema.org/Monday', opens: '10:00', closes: '19:00' },
      expect.objectContaining({ name: 'Public holiday', opens: '00:00', closes: '00:00', validFrom: expect.any(String), validThrough: expect.any(String) }),
    ]),
  );
  expect(ld.openingHoursSpecification.some((s: any) => s.dayOfWeek === 'https://schema.org/Sunday')).toBe(false);

  const fr = await get(`/fr${PAGE}`);
  expect(fr.status).toBe(200);
  expect(fr.text).toContain('<html lang="fr">');
  expect(fr.text).toContain('Horaires d’ouverture');
  expect(fr.text).toContain(`<link rel="canonical" href="${BASE}/fr${PAGE}">`);
});

test('ETag and Last-Modified answer 304; cache headers', async () => {
  const first = await get(PAGE);
  expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/);
  expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
  expect((await get(PAGE, { 'If-None-Match': first.headers.etag })).status).toBe(304);
  expect((await get(PAGE, { 'If-Modified-Since': first.headers['last-modified'] })).status).toBe(304);
  expect((await get(PAGE, { 'If-None-Match': '"other"' })).status).toBe(200);
  // Kept in the process: asked again, the page sends no statement; its ETag is the same.
  t.resetStatements();
  expect((await get(PAGE)).headers.etag).toBe(first.headers.etag);
  expect(t.statements).toEqual([]);
});

test('a store that is not public is a 404 page; unknown and malformed paths too', async () => {
  const path = '/stores/cascade-cycles/beaverton/summit-sports-beaverton';
  expect((await get(path)).status).toBe(200);
  await sql('update company_retailer_locations set receiving_leads = false where id = ?', [world.stores.beaverton.id]);
  const gone = await eventually(path, (r) => r.status === 404);
  expect(gone.status).toBe(404);
  expect(gone.text).toContain('noindex');
  for (const bad of ['/stores/cascade-cycles/portland/nope', '/stores/nope/portland/x', '/stores/Cascade/%00/x', `/stores/cascade-cycles/portland/${'a'.repeat(300)}`, '/stores/cascade-cycles?page=x', '/stores/cascade-cycles?page=99']) {
    expect((await get(bad)).status).toBe(404);
  }
  await sql('update company_retailer_locations set receiving_leads = true where id = ?', [world.stores.beaverton.id]);
});

test('a rename shows on the page at once and the old URL answers 301; collisions get a suffix', async () => {
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, world.company);
  const before = await get('/stores/cascade-cycles/portland/summit-sports-pearl-district');
  expect(before.status).toBe(200);
  const renamed = await rename(admin.key, world.stores.pearl.id, 'Vélos Lyon Perrache');
  expect(renamed.status).toBe(200);
  const old = await eventually('/stores/cascade-cycles/portland/summit-sports-pearl-district', (r) => r.status === 301);
  expect(old.status).toBe(301);
  expect(old.headers.location).toBe('/stores/cascade-cycles/portland/velos-lyon-perrache');
  const now = await get('/stores/cascade-cycles/portland/velos-lyon-perrache');
  expect(now.text).toContain('<h1>Summit Sports - Vélos Lyon Perrache</h1>');
  expect((await get('/fr/stores/cascade-cycles/portland/summit-sports-pearl-district')).headers.location).toBe('/fr/stores/cascade-cycles/portland/velos-lyon-perrache');

  // Another store of the city takes the same name: a suffix; the first keeps its URL.
  const other = await rename(admin.key, world.stores.night.id, 'Vélos Lyon Perrache');
  expect(other.status).toBe(200);
  const suffixed = await eventually('/stores/cascade-cycles/portland/velos-lyon-perrache-2', (r) => r.status === 200);
  expect(suffixed.status).toBe(200);
  expect((await get('/stores/cascade-cycles/portland/velos-lyon-perrache')).status).toBe(200);

  // A company rename: its old slug redirects.
  await sql(`update companies set name = 'Cascade Cycles Europe' where id = ?`, [world.company.id]);
  const moved = await eventually('/stores/cascade-cycles', (r) => r.status === 301);
  expect(moved.headers.location).toBe('/stores/cascade-cycles-europe');
  await sql(`update companies set name = 'Cascade Cycles' where id = ?`, [world.company.id]);
  expect((await eventually('/stores/cascade-cycles', (r) => r.status === 200)).status).toBe(200);
});

test('a stock change shows on the page at once (the write purges the cached page)', async () => {
  const path = '/stores/cascade-cycles/seattle/summit-sports-seattle';
  expect((await get(path)).text).toContain('Summit MIPS Helmet');
  await sql('update stocks set stocked = false, available = false where company_retailer_location_id = ? and product_id = ?', [world.stores.seattle.id, world.products.helmet.id]);
  expect((await eventually(path, (r) => !r.text.includes('Summit MIPS Helmet'))).text).not.toContain('Summit MIPS Helmet');
  await sql('update stocks set available = true where company_retailer_location_id = ? and product_id = ?', [world.stores.seattle.id, world.products.helmet.id]);
  expect((await eventually(path, (r) => r.text.includes('Summit MIPS Helmet'))).text).toContain('Summit MIPS Helmet <span class="muted">(available)</span>');
});

test("a change to the store's phone number (a write to its phone_numbers row alone) shows on its page at once", async () => {
  const path = '/stores/cascade-cycles/seattle/summit-sports-seattle';
  expect((await get(path)).text).toContain('href="tel:+12065550123"');
  await sql(`update phone_numbers set phone_number = '+12065550199' where phone_number = '+12065550123' and lead_id is null`);
  expect((await eventually(path, (r) => r.text.includes('+12065550199'))).text).toContain('href="tel:+12065550199"');
});

test('the company directory lists stores by country and city', async () => {
  const res = await get('/stores/cascade-cycles');
  expect(res.status).toBe(200);
  const html = res.text;
  expect(html).toContain('<h1>Cascade Cycles stores</h1>');
  const order = ['<h2>CA</h2>', '<h3>Vancouver</h3>', '<h2>US</h2>', '<h3>Beaverton</h3>', '<h3>Portland</h3>', '<h3>Seattle</h3>'].map((s) => html.indexOf(s));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  expect(html).toContain('href="/stores/cascade-cycles/seattle/summit-sports-seattle"');
  expect(html).toContain(`<link rel="canonical" href="${BASE}/stores/cascade-cycles">`);
});

test('robots.txt and the sitemap index and files (valid XML, split at the file size)', async () => {
  const robots = await get('/robots.txt');
  expect(robots.text).toContain('Allow: /stores/');
  expect(robots.text).toContain(`Sitemap: ${BASE}/sitemap.xml`);

  const index = await get('/sitemap.xml');
  expect(index.headers['content-type']).toMatch(/application\/xml/);
  expect(index.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<sitemapindex xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
  expect(index.text).toContain(`<loc>${BASE}/sitemaps/stores-1.xml</loc><lastmod>`);
  const file = await get('/sitemaps/stores-1.xml');
  const urls = [...file.text.matchAll(/<url><loc>([^<]+)<\/loc><lastmod>(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)<\/lastmod>/g)].map((m) => m[1]);
  expect(urls).toHaveLength(6);
  expect(urls).toContain(`${BASE}/stores/cascade-cycles/seattle/summit-sports-seattle`);
  expect(file.text.trim().endsWith('</urlset>')).toBe(true);
  expect((await get('/sitemaps/stores-2.xml')).status).toBe(404);
  expect((await get('/sitemaps/other.xml')).status).toBe(404);

  // The split, with 4 URLs a file: 2 files, every store once.
  const small = express().use(storePagesRouter({ orm: t.orm, config: t.config } as any, { sitemapUrlsPerFile: 4 }));
  const smallIndex = await request(small).get('/sitemap.xml');
  expect([...smallIndex.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1])).toEqual([`${BASE}/sitemaps/stores-1.xml`, `${BASE}/sitemaps/stores-2.xml`]);
  const parts = await Promise.all([1, 2].map((n) => request(small).get(`/sitemaps/stores-${n}.xml`)));
  const split = parts.map((p) => [...p.text.matchAll(/<url><loc>([^<]+)<\/loc>/g)].map((m) => m[1]));
  expect(split.map((s) => s.length)).toEqual([4, 2]);
  expect(new Set(split.flat())).toEqual(new Set(urls));
  expect((await request(small).get('/sitemaps/stores-3.xml')).status).toBe(404);
});

test('sitemap split arithmetic', () => {
  expect(sitemapFileCount(0, 50_000)).toBe(1);
  expect(sitemapFileCount(50_000, 50_000)).toBe(1);
  expect(sitemapFileCount(50_001, 50_000)).toBe(2);
  expect(sitemapFileCount(100_000, 50_000)).toBe(2);
  expect(sitemapFileRange(3, 10)).toEqual({ offset: 20, limit: 10 });
});

test('the map: the tiles around the point, placed from the middle of the box (the pin)', () => {
  const html = mapHtml({ latitude: 0, longitude: 0 }, { url: 'https://tiles.example/{z}/{x}/{y}.png', attribution: '&copy; OSM' }, 'Map: where A is');
  // (0, 0) is the corner of tile 65536, 65536 at zoom 17: that tile starts at the pin, the one up-left of it 128 px before.
  expect(html).toContain('<img src="https://tiles.example/17/65536/65536.png" alt="" width="128" height="128" loading="lazy" decoding="async" style="left:calc(50% + 0px);top:100px">');
  expect(html).toContain('src="https://tiles.example/17/65535/65535.png" alt="" width="128" height="128" loading="lazy" decoding="async" style="left:calc(50% + -128px);top:-28px"');
  // A box of up to 480 x 200 px: 4 columns by 2 rows here.
  expect(html.match(/<img /g)!.length).toBe(8);
  expect(html).toContain('role="img" aria-label="Map: where A is"');
});
