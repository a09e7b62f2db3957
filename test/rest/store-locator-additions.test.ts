/**
 * The store locator additions of PRODUCT.md 11 over HTTP: `address`, `distance` and its unit, `open_now`
 * (per result and as a filter, after midnight and across DST changes, on a fixed clock),
 * `directions_url`, and Cache-Control / ETag / 304. Every response of `api()` is checked against the
 * OpenAPI document as well.
 */
import express from 'express';
import request from 'supertest';
import { api, createTestApp, type TestApp } from '../support/app';
import { assertMatchesOpenApi } from '../support/openapi';
import * as lf from '../support/locator-factories';
import { storeLocatorRouter } from '../../src/modules/store-locator/store-locator.router';
import { restErrorHandler } from '../../src/rest/router';
import { createSearchBackend } from '../../src/search/factory';
import { OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { Location } from '../../src/modules/contact/location.entity';

let t: TestApp;
let w: Awaited<ReturnType<typeof build>>;

const R = 6_371_008.7714;
/** The test's own haversine, metres. */
function metres(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h = Math.sin(rad(b.latitude - a.latitude) / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(rad(b.longitude - a.longitude) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}

const PDX = { latitude: 45.5197, longitude: -122.681 };
const NIGHT = { latitude: 45.53, longitude: -122.66 };
const SEA = { latitude: 47.6109, longitude: -122.3374 };
const VAN = { latitude: 49.2855, longitude: -123.1226 };
/** ZIP 97205's centroid in the `zipcodes` package the offline geocoder reads. */
const ZIP_97205 = { latitude: 45.5207, longitude: -122.6888 };

const everyDay = (open: number, close: number) =>
  (['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const).map((day) => ({ day, openAtHour: open, closeAtHour: close }));

async function build() {
  const em = t.em();
  const net = await lf.locatorNetwork(em, 'Northwind Outdoors');
  const flagship = await lf.storeType(em, net.company, 'Flagship', 1);
  const pdx = await lf.store(em, net.companyRetailer, {
    ...PDX, name: 'Downtown', streetLineOne: '921 SW Morrison St', city: 'Portland', province: 'OR', postalCode: '97205', storeType: flagship,
    hours: [
      ...(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const).map((day) => ({ day, openAtHour: 10, closeAtHour: 18 })),
      { day: 'saturday' as const, openAtHour: 10, closeAtHour: 17 },
      { day: 'sunday' as const, open: false },
    ],
  });
  // Closes after midnight on Friday and Saturday nights; its hours and zone are on the CRL itself.
  const night = await lf.store(em, net.companyRetailer, {
    ...NIGHT, onRetailerLocation: false, name: 'Night Owl', city: 'Portland', province: 'OR', timezone: 'America/Los_Angeles',
    hours: [
      { day: 'friday', openAtHour: 18, closeAtHour: 2 },
      { day: 'saturday', openAtHour: 18, closeAtHour: 2 },
    ],
  });
  const sea = await lf.store(em, net.companyRetailer, { ...SEA, name: 'Seattle', city: 'Seattle', province: 'WA', postalCode: '98101', hours: everyDay(9, 21) });
  const van = await lf.store(em, net.companyRetailer, {
    ...VAN, name: 'Vancouver', city: 'Vancouver', province: 'BC', country: 'CA', postalCode: 'V6E 3P3', locationTimezone: 'America/Vancouver', hours: everyDay(8, 20),
  });
  // New York: Saturday nights across the spring-forward (2026-03-08) and fall-back (2026-11-01) changes.
  const nySpring = await lf.store(em, net.companyRetailer, {
    latitude: 40.75, longitude: -73.99, name: 'Spring', city: 'New York', province: 'NY', timezone: 'America/New_York',
    hours: [{ day: 'saturday', openAtHour: 20, closeAtHour: 3, closeAtMinute: 30 }],
  });
  const nyFall = await lf.store(em, net.companyRetailer, {
    latitude: 40.76, longitude: -73.98, name: 'Fall', city: 'New York', province: 'NY', timezone: 'America/New_York',
    hours: [{ day: 'saturday', openAtHour: 20, closeAtHour: 1, closeAtMinute: 30 }],
  });
  const other = await lf.locatorNetwork(em, 'Other brand');
  const otherNight = await lf.store(em, other.companyRetailer, { ...NIGHT, timezone: 'America/Los_Angeles', hours: [{ day: 'friday', openAtHour: 18, closeAtHour: 2 }] });
  return { net, pdx, night, sea, van, nySpring, nyFall, other, otherNight };
}

beforeAll(async () => {
  t = await createTestApp();
  w = await build();
});
afterAll(() => t.close());

const cc = () => `cc_id=${w.net.company.id}`;
const search = (query: string, headers: Record<string, string> = {}) => api(t, 'get', `/v1/store_locator?${cc()}&${query}`, { headers });
const ids = (res: { body: any }) => res.body.results.map((r: any) => r.id);

/** The store locator on a clock the test sets (the app's real router, the configured offline geocoder). */
let now = new Date();
const clocked = () => {
  const a = express();
  a.set('query parser', 'extended');
  const deps = { orm: t.orm, config: t.config, search: createSearchBackend(t.config, t.orm), geocoder: new OfflineGeocoder(t.orm) };
  a.use('/v1', storeLocatorRouter(deps, { now: () => now }), restErrorHandler);
  return a;
};
async function at(instant: string, path: string) {
  now = new Date(instant);
  const res = await request(clocked()).get(path).set('Accept', 'application/json');
  assertMatchesOpenApi('get', path, res.status, res.body);
  return res;
}

describe('address', () => {
  test('a ZIP code is searched as a point at its centroid, nearest first within a tier', async () => {
    const res = await search('address=97205&radius=200mi');
    expect(res.status).toBe(200);
    // Flagship first (boost 1), then by distance: the Night Owl, then Seattle; Vancouver is 230 mi away.
    expect(ids(res)).toEqual([w.pdx.id, w.night.id, w.sea.id]);
    expect(res.body.meta.origin).toEqual(ZIP_97205);
    const byPoint = await search(`latitude=${ZIP_97205.latitude}&longitude=${ZIP_97205.longitude}&radius=200mi`);
    expect(res.body.results).toEqual(byPoint.body.results);
  });

  test.each([
    ['a city and state', 'Seattle, WA', SEA],
    ['a city alone, looked up in the countries of the company\'s stores', 'Seattle', SEA],
    ['a Canadian postal code', 'V6E 3P3', VAN],
    ['a Canadian forward sortation area', 'v6e', VAN],
    ['a city, province and country', 'Vancouver, BC, Canada', VAN],
    ['a street address with a ZIP', '921 SW Morrison St, Portland, OR 97205', PDX],
  ])('%s: %s', async (_label, address, expectedNearest) => {
    const res = await search(`address=${encodeURIComponent(address)}&radius=20mi`);
    expect(res.status).toBe(200);
    const nearest = res.body.results.reduce((a: any, r: any) => (!a || r.distance < a.distance ? r : a), null);
    expect({ latitude: nearest.address.latitude, longitude: nearest.address.longitude }).toEqual(expectedNearest);
    expect(nearest.distance).toBeLessThan(5);
  });

  test.each([
    ['an unknown place', 'Xyzzyville'],
    ['an unknown ZIP', '00000'],
    ['a city in a province that has none of that name', 'Seattle, BC'],
    ['punctuation only', ',,,'],
  ])('%s: 400 naming the parameter', async (_label, address) => {
    const res = await search(`address=${encodeURIComponent(address)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid search parameters', parameter: 'address', message: expect.stringContaining('address') });
  });

  test.each([
    ['repeated', 'address=Seattle&address=Portland'],
    ['nested', 'address[a]=Seattle'],
    ['longer than 200 characters', `address=${'a'.repeat(201)}`],
  ])('%s: 400 naming the parameter', async (_label, query) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Invalid search parameters', parameter: 'address' });
  });

  test('a blank address is absent: without a point or a box it stays the contract\'s 400', async () => {
    const res = await search('address=%20');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid search parameters' });
  });

  test('a full point wins over an address; an address wins over a box; a partial point stays 400', async () => {
    const point = await search(`latitude=${VAN.latitude}&longitude=${VAN.longitude}&address=97205&radius=10mi`);
    expect(ids(point)).toEqual([w.van.id]);
    const box = await search('address=Seattle,WA&radius=10mi&top_left_latitude=50&top_left_longitude=-124&bottom_right_latitude=49&bottom_right_longitude=-122');
    expect(ids(box)).toEqual([w.sea.id]);
    const partial = await search('address=Seattle&latitude=47');
    expect(partial.status).toBe(400);
    expect(partial.body).toEqual({ error: 'Invalid search parameters' });
  });
});

describe('distance', () => {
  const origin = PDX;
  const q = `latitude=${origin.latitude}&longitude=${origin.longitude}`;
  test.each([
    ['no radius: miles', '', 'mi', 1609.344],
    ['km', '&radius=500km', 'km', 1000],
    ['miles reads mi', '&radius=300miles', 'mi', 1609.344],
    ['a bare number is metres', '&radius=500000', 'm', 1],
    ['NM reads nmi', '&radius=200NM', 'nmi', 1852],
    ['ft', '&radius=2000000ft', 'ft', 0.3048],
  ])('%s', async (_label, radius, unit, perUnit) => {
    const res = await search(`${q}${radius}`);
    expect(res.body.meta.distance_unit).toBe(unit);
    expect(res.body.results.length).toBeGreaterThanOrEqual(3);
    for (const r of res.body.results) {
      const expected = metres(origin, { latitude: r.address.latitude, longitude: r.address.longitude }) / perUnit;
      expect(Math.abs(r.distance - expected)).toBeLessThanOrEqual(0.006);
    }
    expect(res.body.results.find((r: any) => r.id === w.pdx.id).distance).toBe(0);
  });

  test('a box measures from its centre, in miles', async () => {
    const res = await search('top_left_latitude=50&top_left_longitude=-124&bottom_right_latitude=45&bottom_right_longitude=-122');
    expect(res.body.meta.origin).toEqual({ latitude: 47.5, longitude: -123 });
    expect(res.body.meta.distance_unit).toBe('mi');
    const sea = res.body.results.find((r: any) => r.id === w.sea.id);
    expect(Math.abs(sea.distance - metres({ latitude: 47.5, longitude: -123 }, SEA) / 1609.344)).toBeLessThanOrEqual(0.006);
  });
});

describe('directions_url', () => {
  test('a maps link to the coordinates of every result and of a shown store', async () => {
    const res = await search('address=97205&radius=10mi');
    const pdx = res.body.results.find((r: any) => r.id === w.pdx.id);
    expect(pdx.directions_url).toBe(`https://www.google.com/maps/dir/?api=1&destination=${PDX.latitude}%2C${PDX.longitude}`);
    const shown = await api(t, 'get', `/v1/store_locator/${w.van.id}`);
    expect(new URL(shown.body.company_retailer_location.directions_url).searchParams.get('destination')).toBe(`${VAN.latitude},${VAN.longitude}`);
  });

  test('a shown store without coordinates links to its address; without an address there is no link', async () => {
    const em = t.em();
    const unplaced = await lf.store(em, w.net.companyRetailer, { latitude: null, longitude: null, streetLineOne: '1 Main St', city: 'Bend', province: 'OR', postalCode: '97701' });
    const res = await api(t, 'get', `/v1/store_locator/${unplaced.id}`);
    expect(new URL(res.body.company_retailer_location.directions_url).searchParams.get('destination')).toBe('1 Main St, Bend, OR 97701, US');
    const nowhere = await lf.store(em, w.net.companyRetailer, { noAddress: true });
    expect((await api(t, 'get', `/v1/store_locator/${nowhere.id}`)).body.company_retailer_location.directions_url).toBeNull();
  });
});

describe('open_now on a fixed clock', () => {
  const near = () => `/v1/store_locator?${cc()}&address=97205&radius=300mi`;
  const openOf = (res: { body: any }) => Object.fromEntries(res.body.results.map((r: any) => [r.id, r.open_now]));

  test('per result, by each store\'s hours in its own zone', async () => {
    // Saturday 2026-06-06 12:00 in Portland and Vancouver (PDT).
    const res = await at('2026-06-06T19:00:00Z', near());
    expect(openOf(res)).toEqual({ [w.pdx.id]: true, [w.night.id]: false, [w.sea.id]: true, [w.van.id]: true });
    expect(res.body.results.every((r: any) => r.local_weekday === 'saturday')).toBe(true);
    // 20:30 PDT: Portland closed at 17:00 on Saturdays, the Night Owl opened at 18:00, Vancouver closed at 20:00.
    const evening = await at('2026-06-07T03:30:00Z', near());
    expect(openOf(evening)).toEqual({ [w.pdx.id]: false, [w.night.id]: true, [w.sea.id]: true, [w.van.id]: false });
  });

  test.each([
    ['Friday 17:59: not yet', '2026-06-06T00:59:00Z', false],
    ['Friday 18:00: opens', '2026-06-06T01:00:00Z', true],
    ['Friday 23:59', '2026-06-06T06:59:00Z', true],
    ['Saturday 01:59: Friday\'s shift runs past midnight', '2026-06-06T08:59:00Z', true],
    ['Saturday 02:00: closed', '2026-06-06T09:00:00Z', false],
    ['Sunday 01:00: Saturday\'s shift', '2026-06-07T08:00:00Z', true],
    ['Monday 01:00: no Sunday shift to run over', '2026-06-08T08:00:00Z', false],
  ])('after midnight: %s', async (_label, instant, open) => {
    const res = await at(instant, `/v1/store_locator/${w.night.id}`);
    expect(res.body.company_retailer_location.open_now).toBe(open);
  });

  test.each([
    // Clocks spring forward at 02:00 EST (07:00Z) to 03:00 EDT on Sunday 2026-03-08. Closing 03:30.
    ['spring: Saturday 23:00 EST', 'nySpring', '2026-03-08T04:00:00Z', true],
    ['spring: 01:59 EST', 'nySpring', '2026-03-08T06:59:00Z', true],
    ['spring: 03:05 EDT, one real minute after 01:59 plus the skipped hour', 'nySpring', '2026-03-08T07:05:00Z', true],
    // 04:10 EDT; on the EST offset of the evening it would read 03:10 and count as open.
    ['spring: 04:10 EDT, past 03:30 by the wall clock', 'nySpring', '2026-03-08T08:10:00Z', false],
    // Clocks fall back at 02:00 EDT (06:00Z) to 01:00 EST on Sunday 2026-11-01. Closing 01:30.
    ['fall: first 01:15 (EDT)', 'nyFall', '2026-11-01T05:15:00Z', true],
    ['fall: 01:45 EDT', 'nyFall', '2026-11-01T05:45:00Z', false],
    // The clock reads 01:15 again; on the EDT offset of the evening it would read 02:15 and count as closed.
    ['fall: second 01:15 (EST)', 'nyFall', '2026-11-01T06:15:00Z', true],
    ['fall: second 01:45 (EST)', 'nyFall', '2026-11-01T06:45:00Z', false],
  ])('across DST: %s', async (_label, key, instant, open) => {
    const res = await at(instant, `/v1/store_locator/${(w as any)[key].id}`);
    expect(res.body.company_retailer_location.open_now).toBe(open);
  });

  test('open_now=true lists only the stores open now: results, total, pages and facets', async () => {
    // Friday 2026-06-05 23:30 PDT: only the Night Owl (and another company's night store, not listed).
    const late = await at('2026-06-06T06:30:00Z', `${near()}&open_now=true`);
    expect(ids(late)).toEqual([w.night.id]);
    expect(late.body.meta).toMatchObject({ total: 1, total_pages: 1 });
    expect(late.body.meta.aggs.city.buckets).toEqual([{ key: 'Portland', doc_count: 1 }]);
    expect(late.body.results[0].open_now).toBe(true);
    // Saturday noon: three open; a page of two holds the first two of the unfiltered order that are open.
    const noon = await at('2026-06-06T19:00:00Z', `${near()}&open_now=1&per_page=2`);
    expect(ids(noon)).toEqual([w.pdx.id, w.sea.id]);
    expect(noon.body.meta).toMatchObject({ total: 3, total_pages: 2 });
    const second = await at('2026-06-06T19:00:00Z', `${near()}&open_now=true&per_page=2&page=2`);
    expect(ids(second)).toEqual([w.van.id]);
    // With other filters and a box.
    const wa = await at('2026-06-06T19:00:00Z', `${near()}&open_now=true&province=WA`);
    expect(ids(wa)).toEqual([w.sea.id]);
    const box = await at(
      '2026-06-06T06:30:00Z',
      `/v1/store_locator?${cc()}&open_now=true&top_left_latitude=46&top_left_longitude=-123&bottom_right_latitude=45&bottom_right_longitude=-122`,
    );
    expect(ids(box)).toEqual([w.night.id]);
    // Monday 03:00 PDT: nothing open.
    const none = await at('2026-06-08T10:00:00Z', `${near()}&open_now=true`);
    expect(none.body).toMatchObject({ results: [], meta: { total: 0 } });
  });

  test.each(['false', '0', ''])('open_now=%s does not filter', async (value) => {
    const res = await at('2026-06-06T06:30:00Z', `${near()}&open_now=${value}`);
    expect(ids(res)).toHaveLength(4);
  });

  test.each([['yes'], ['TRUEISH'], ['open_now[]=true']])('open_now %s: 400 naming the parameter', async (value) => {
    const query = value.includes('=') ? value : `open_now=${value}`;
    const res = await search(`latitude=45.5&longitude=-122.6&${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Invalid search parameters', parameter: 'open_now' });
  });

  test('statements per search stay fixed with address and open_now: 6 and 7 for 1 or 3 results', async () => {
    const count = async (perPage: number) => {
      t.resetStatements();
      const res = await at('2026-06-06T19:00:00Z', `${near()}&per_page=${perPage}`);
      expect(res.body.results).toHaveLength(perPage);
      const plain = t.statements.length;
      t.resetStatements();
      const open = await at('2026-06-06T19:00:00Z', `${near()}&open_now=true&per_page=${perPage}`);
      expect(open.body.results).toHaveLength(Math.min(perPage, 3));
      return [plain, t.statements.length];
    };
    // company, countries (address), [open stores,] search, the results
    expect(await count(1)).toEqual([4, 5]);
    expect(await count(3)).toEqual([4, 5]);
  });
});

describe('caching', () => {
  test('Cache-Control, a weak ETag and Vary on searches; a matching If-None-Match is a 304 without a body', async () => {
    const first = await search('address=97205');
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect(first.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(first.headers.vary).toMatch(/X-Cc-Id/i);
    const again = await search('address=97205', { 'If-None-Match': first.headers.etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const stale = await search('address=97205', { 'If-None-Match': 'W/"something-else"' });
    expect(stale.status).toBe(200);
    const other = await search('address=Seattle');
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  test('a change to a listed store changes the ETag', async () => {
    const before = await search('address=V6E&radius=5mi');
    const em = t.em();
    const location = await em.findOneOrFail(Location, { postalCode: 'V6E 3P3' });
    location.streetLineOne = '1055 W Georgia St';
    await em.flush();
    const after = await search('address=V6E&radius=5mi', { 'If-None-Match': before.headers.etag });
    expect(after.status).toBe(200);
    expect(after.body.results[0].address.street_line_one).toBe('1055 W Georgia St');
  });

  test('the ETag follows the clock: open_now changing is a new ETag', async () => {
    const path = `/v1/store_locator/${w.night.id}`;
    const open = await at('2026-06-06T06:30:00Z', path);
    const sameMinute = await at('2026-06-06T06:30:00Z', path);
    expect(sameMinute.headers.etag).toBe(open.headers.etag);
    now = new Date('2026-06-06T06:30:00Z');
    const notModified = await request(clocked()).get(path).set('If-None-Match', open.headers.etag);
    expect(notModified.status).toBe(304);
    const closed = await at('2026-06-06T10:00:00Z', path);
    expect(closed.body.company_retailer_location.open_now).toBe(false);
    expect(closed.headers.etag).not.toBe(open.headers.etag);
  });

  test('the show endpoint answers 304 too; errors are not marked cacheable', async () => {
    const shown = await api(t, 'get', `/v1/store_locator/${w.pdx.id}`);
    expect(shown.headers['cache-control']).toBe('public, max-age=60');
    const again = await api(t, 'get', `/v1/store_locator/${w.pdx.id}`, { headers: { 'If-None-Match': shown.headers.etag } });
    expect(again.status).toBe(304);
    const bad = await search('address=Xyzzyville');
    expect(bad.status).toBe(400);
    expect(bad.headers['cache-control']).toBeUndefined();
    const missing = await api(t, 'get', '/v1/store_locator/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBeUndefined();
  });

  test('browsers on other sites may send If-None-Match and read the ETag', async () => {
    const preflight = await request(t.app)
      .options('/v1/store_locator')
      .set('Origin', 'https://shop.example.test')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'if-none-match, x-cc-id');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/If-None-Match/i);
    const res = await search('address=97205', { Origin: 'https://shop.example.test' });
    expect(res.headers['access-control-expose-headers']).toMatch(/ETag/i);
  });

  test('STORE_LOCATOR_MAX_AGE sets max-age', async () => {
    const other = await createTestApp({ STORE_LOCATOR_MAX_AGE: '15' });
    try {
      const { company } = await lf.locatorNetwork(other.em(), 'Short cache brand');
      const res = await request(other.app).get(`/v1/store_locator?cc_id=${company.id}&latitude=1&longitude=1`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=15');
    } finally {
      await other.close();
    }
  });
});
