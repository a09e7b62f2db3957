/**
 * The store locator cases every search backend must pass (PRODUCT.md section 7). Each backend's test file
 * calls `storeLocatorConformance`; expected orders and sets are derived here from the fixture coordinates
 * with this file's own haversine, never from the code under test.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';
import { parseStoreLocatorParams } from '../../src/modules/store-locator/store-locator.params';
import { StoreLocatorReader } from '../../src/modules/store-locator/store-locator.reader';
import { StoreLocatorService, type StoreLocatorPage } from '../../src/modules/store-locator/store-locator.service';
import type { Execute, StoreLocatorSearch } from '../../src/modules/store-locator/store-locator.types';
import { Location } from '../../src/modules/contact/location.entity';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { HourException } from '../../src/modules/company-retailer-location/hour-exception.entity';
import { OfflineGeocoder } from '../../src/geo/offline-geocoder';

export interface ConformanceBackend {
  name: string;
  /** Builds the backend on the test app's database; `index` makes written data searchable. */
  create(t: TestApp, execute: Execute): Promise<{ search: StoreLocatorSearch; index(companyIds: string[]): Promise<void>; close(): Promise<void> }>;
}

// --- independent geometry -------------------------------------------------------------------------------
const R = 6_371_008.7714;
const MILE = 1609.344;
interface Point {
  latitude: number;
  longitude: number;
}
function distance(a: Point, b: Point): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(b.latitude - a.latitude) / 2) ** 2 +
    Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(rad(b.longitude - a.longitude) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}
const gauss = (d: number) => Math.pow(0.5, (d / (5 * MILE)) ** 2);

interface Placed extends Point {
  id: string;
  boost: number;
}

/** Point search order: score (gauss + boost) desc, distance asc, id asc. */
function ranked(stores: Placed[], origin: Point, radius = 1000 * MILE): string[] {
  return stores
    .map((s) => ({ s, d: distance(origin, s) }))
    .filter((x) => x.d <= radius)
    .sort((a, b) => gauss(b.d) + b.s.boost - (gauss(a.d) + a.s.boost) || a.d - b.d || (a.s.id < b.s.id ? -1 : 1))
    .map((x) => x.s.id);
}

function boxed(stores: Placed[], box: { n: number; w: number; s: number; e: number }): string[] {
  const width = box.w <= box.e ? box.e - box.w : 360 - box.w + box.e;
  let lng = box.w + width / 2;
  if (lng > 180) lng -= 360;
  const centre = { latitude: (box.n + box.s) / 2, longitude: lng };
  const inLng = (x: number) => (box.w <= box.e ? x >= box.w && x <= box.e : x >= box.w || x <= box.e);
  return stores
    .filter((p) => p.latitude <= box.n && p.latitude >= box.s && inLng(p.longitude))
    .map((s) => ({ s, d: distance(centre, s) }))
    .sort((a, b) => a.d - b.d || (a.s.id < b.s.id ? -1 : 1))
    .map((x) => x.s.id);
}

const sortIds = (ids: string[]) => [...ids].sort();

// --- the cases ------------------------------------------------------------------------------------------
export function storeLocatorConformance(backend: ConformanceBackend): void {
  describe(`store locator conformance: ${backend.name}`, () => {
    let t: TestApp;
    let service: StoreLocatorService;
    let execute: Execute;
    let backendSearch: StoreLocatorSearch;
    let close: () => Promise<void>;
    const find = (companyId: string, query: Record<string, unknown>): Promise<StoreLocatorPage> =>
      service.search(companyId, parseStoreLocatorParams(query));
    const ids = (page: StoreLocatorPage) => page.results.map((r) => r.id);

    // Ranking world: around Minneapolis.
    const O = { latitude: 44.98, longitude: -93.27 };
    const at = (dLat: number, dLng: number) => ({ latitude: O.latitude + dLat, longitude: O.longitude + dLng });
    let ranking: { companyId: string; listed: Placed[]; named: Record<string, string> };
    // Filter world: cities of North America.
    let filters: {
      companyId: string;
      b: Record<string, string>;
      p: Record<string, string>;
      c: Record<string, string>;
      foreignCollection: string;
    };
    let antimeridian: { companyId: string; listed: Placed[]; named: Record<string, string> };

    beforeAll(async () => {
      t = await createTestApp();
      execute = (sql, b) => t.orm.em.getConnection().execute(sql, b as any[]);
      const built = await backend.create(t, execute);
      close = built.close;
      backendSearch = built.search;
      service = new StoreLocatorService(execute, built.search, new StoreLocatorReader(execute));
      const em = t.em();
      ranking = await rankingWorld(em, at);
      filters = await filterWorld(em);
      antimeridian = await antimeridianWorld(em);
      await built.index([ranking.companyId, filters.companyId, antimeridian.companyId]);
    });
    afterAll(async () => {
      await close?.();
      await t?.close();
    });

    test('point search ranks by Gaussian score plus store type boost: tiers, each by distance, ties by id', async () => {
      const page = await find(ranking.companyId, { latitude: String(O.latitude), longitude: String(O.longitude) });
      const expected = ranked(ranking.listed, O);
      expect(ids(page)).toEqual(expected);
      expect(page.meta).toMatchObject({ total: expected.length, page: 1, per_page: 15, total_pages: 1 });
      // The tiers as a person reads them: flagships, then dealers, then the rest, each nearest first.
      const n = ranking.named;
      expect(expected).toEqual([
        n.flagMid, n.flagFar,
        n.dealerNear, n.dealerMid,
        n.plainNear, n.plainMid, n.outlet, ...[n.twinA, n.twinB].sort(), n.ownAddress, n.plainFar,
      ]);
    });

    test('only stores with both lead flags, the company, and a placed address (read through) are listed', async () => {
      const page = await find(ranking.companyId, { latitude: '44.98', longitude: '-93.27', radius: '20000km', per_page: '100' });
      expect(sortIds(ids(page))).toEqual(sortIds([...ranking.listed.map((s) => s.id), ranking.named.veryFar]));
      for (const hidden of ['notSending', 'notReceiving', 'noCoordinates', 'noAddress', 'addressOnCrlButLinked']) {
        expect(ids(page)).not.toContain(ranking.named[hidden]);
      }
    });

    test.each([
      ['1000mi (default)', undefined, 1000 * MILE],
      ['10km', '10km', 10_000],
      ['5mi', '5mi', 5 * MILE],
      ['2 miles', '2miles', 2 * MILE],
      ['bare metres', '3500', 3500],
      ['m', '2500m', 2500],
      ['yd', '5000yd', 5000 * 0.9144],
      ['ft', '20000ft', 20000 * 0.3048],
      ['in', '150000in', 150000 * 0.0254],
      ['NM', '20NM', 20 * 1852],
      ['nmi', '1nmi', 1852],
      ['fraction', '0.5km', 500],
      ['zero', '0mi', 0],
    ])('radius %s', async (_label, radius, metres) => {
      const all = [...ranking.listed, { id: ranking.named.veryFar, boost: 0, ...at(18, 0) }];
      for (const s of all) expect(Math.abs(distance(O, s) - metres)).toBeGreaterThan(5); // no store on the edge
      const query: Record<string, unknown> = { latitude: String(O.latitude), longitude: String(O.longitude), per_page: '100' };
      if (radius !== undefined) query.radius = radius;
      const page = await find(ranking.companyId, query);
      expect(ids(page)).toEqual(ranked(all, O, metres));
    });

    test('box search: inside the box, by distance from its centre, then id; 500 per page', async () => {
      const box = { n: 45.2, w: -93.6, s: 44.9, e: -93.0 };
      const page = await find(ranking.companyId, {
        top_left_latitude: String(box.n),
        top_left_longitude: String(box.w),
        bottom_right_latitude: String(box.s),
        bottom_right_longitude: String(box.e),
        per_page: '2',
      });
      const expected = boxed(ranking.listed, box);
      expect(expected.length).toBeGreaterThan(3);
      expect(expected.length).toBeLessThan(ranking.listed.length);
      expect(ids(page)).toEqual(expected);
      expect(page.meta).toMatchObject({ total: expected.length, per_page: 500, total_pages: 1 });
    });

    test('a full point wins over a box', async () => {
      const page = await find(ranking.companyId, {
        latitude: String(O.latitude),
        longitude: String(O.longitude),
        top_left_latitude: '0',
        top_left_longitude: '0',
        bottom_right_latitude: '-1',
        bottom_right_longitude: '1',
      });
      expect(ids(page)).toEqual(ranked(ranking.listed, O));
    });

    test('box and radius across the antimeridian', async () => {
      const box = { n: 11, w: 179, s: 9, e: -179 };
      const page = await find(antimeridian.companyId, {
        top_left_latitude: '11',
        top_left_longitude: '179',
        bottom_right_latitude: '9',
        bottom_right_longitude: '-179',
      });
      expect(ids(page)).toEqual(boxed(antimeridian.listed, box));
      expect(ids(page)).toHaveLength(2);
      const origin = { latitude: 10, longitude: 179.99 };
      const near = await find(antimeridian.companyId, { latitude: '10', longitude: '179.99', radius: '100km' });
      expect(ids(near)).toEqual(ranked(antimeridian.listed, origin, 100_000));
      expect(ids(near)).toHaveLength(2);
    });

    test('pages: per_page and page; past the end is empty with the true total', async () => {
      const all = ranked(ranking.listed, O);
      const q = { latitude: String(O.latitude), longitude: String(O.longitude), per_page: '4' };
      expect(ids(await find(ranking.companyId, { ...q, page: '2' }))).toEqual(all.slice(4, 8));
      const last = await find(ranking.companyId, { ...q, page: '3' });
      expect(ids(last)).toEqual(all.slice(8));
      expect(last.meta).toMatchObject({ total: all.length, page: 3, per_page: 4, total_pages: Math.ceil(all.length / 4) });
      const past = await find(ranking.companyId, { ...q, page: '9' });
      expect(past.results).toEqual([]);
      expect(past.meta.total).toBe(all.length);
    });

    // Filter world: a wide search holding every store of the company.
    const wide = { latitude: '45', longitude: '-100', radius: '6000km', per_page: '50' };

    test.each([
      ['city', { city: 'Portland' }, ['pdx1', 'pdx2', 'portlandMe']],
      ['province', { province: 'WA' }, ['seattle', 'vancouverWa']],
      ['country', { country: 'CA' }, ['vancouverBc', 'toronto']],
      ['store_type (its name)', { store_type: 'Dealer' }, ['pdx2', 'portlandMe', 'vancouverBc', 'vancouverWa']],
      ['repeated values are any-of', { store_type: ['Dealer', 'Flagship'] }, ['pdx1', 'pdx2', 'portlandMe', 'vancouverBc', 'toronto', 'vancouverWa']],
      ['city and country', { city: 'Vancouver', country: 'CA' }, ['vancouverBc']],
      ['province and store type', { province: 'OR', store_type: 'Dealer' }, ['pdx2']],
      ['all four', { city: 'Portland', province: 'ME', country: 'US', store_type: 'Dealer' }, ['portlandMe']],
      ['no match', { city: 'Atlantis' }, []],
      ['exact value', { city: 'portland' }, []],
    ])('filter: %s', async (_label, params, expected) => {
      const page = await find(filters.companyId, { ...wide, ...params });
      expect(sortIds(ids(page))).toEqual(sortIds(expected.map((k) => filters.b[k])));
      expect(page.meta.total).toBe(expected.length);
    });

    test('facets: buckets by count then key, each ignoring its own filter only', async () => {
      const bucket = (key: string, doc_count: number) => ({ key, doc_count });
      const agg = (...buckets: Array<{ key: string; doc_count: number }>) => ({ doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets });
      const none = await find(filters.companyId, wide);
      expect(none.meta.aggs).toEqual({
        city: agg(bucket('Portland', 3), bucket('Vancouver', 2), bucket('Seattle', 1), bucket('Toronto', 1)),
        province: agg(bucket('OR', 2), bucket('WA', 2), bucket('BC', 1), bucket('ME', 1), bucket('ON', 1)),
        country: agg(bucket('US', 5), bucket('CA', 2)),
        store_type: agg(bucket('Dealer', 4), bucket('Flagship', 2)),
      });
      const portland = await find(filters.companyId, { ...wide, city: 'Portland' });
      expect(portland.meta.aggs.city).toEqual(none.meta.aggs.city);
      expect(portland.meta.aggs.province).toEqual(agg(bucket('OR', 2), bucket('ME', 1)));
      expect(portland.meta.aggs.country).toEqual(agg(bucket('US', 3)));
      expect(portland.meta.aggs.store_type).toEqual(agg(bucket('Dealer', 2), bucket('Flagship', 1)));
      const vancouverCa = await find(filters.companyId, { ...wide, city: 'Vancouver', country: 'CA' });
      expect(vancouverCa.meta.aggs.city).toEqual(agg(bucket('Toronto', 1), bucket('Vancouver', 1)));
      expect(vancouverCa.meta.aggs.country).toEqual(agg(bucket('CA', 1), bucket('US', 1)));
      expect(vancouverCa.meta.aggs.store_type).toEqual(agg(bucket('Dealer', 1)));
      // Product filters narrow every facet.
      const stocked = await find(filters.companyId, { ...wide, stocked_product_ids: [filters.p.p2] });
      expect(stocked.meta.aggs.city).toEqual(agg(bucket('Portland', 1), bucket('Vancouver', 1)));
    });

    test.each([
      ['stocked ids, one', { stocked_product_ids: ['p1'] }, ['pdx1']],
      ['stocked ids, any of', { stocked_product_ids: ['p1', 'p2'] }, ['pdx1', 'pdx2', 'vancouverWa']],
      ['available ids read the available flag', { available_product_ids: ['p1'] }, ['pdx1', 'vancouverBc']],
      ['stocked SKUs', { stocked_product_skus: ['P-3'] }, ['pdx1']],
      ['available SKUs', { available_product_skus: ['P-3', 'P-4'] }, ['portlandMe', 'vancouverWa']],
      ['stocked external ids', { stocked_product_external_ids: ['E-2'] }, ['pdx2', 'vancouverWa']],
      ['available external ids', { available_product_external_ids: ['E-1'] }, ['pdx1', 'vancouverBc']],
      ['stocked collections', { stocked_product_collection_ids: ['c1'] }, ['pdx1', 'pdx2', 'vancouverWa']],
      ['available collections', { available_product_collection_ids: ['c2'] }, ['portlandMe']],
      ['AND across parameters', { stocked_product_ids: ['p2'], available_product_ids: ['p4'] }, ['vancouverWa']],
      ['AND of SKU and id of one kind', { stocked_product_skus: ['P-2'], stocked_product_ids: ['p4'] }, []],
      ['collection replaces SKUs of its kind', { stocked_product_collection_ids: ['c2'], stocked_product_skus: ['P-2'] }, ['pdx1']],
      ['collection replaces external ids of its kind', { stocked_product_collection_ids: ['c2'], stocked_product_external_ids: ['E-2'] }, ['pdx1']],
      ['collection keeps the other kind', { stocked_product_collection_ids: ['c1'], available_product_skus: ['P-2'] }, ['vancouverWa']],
      ['collection keeps product ids', { stocked_product_collection_ids: ['c1'], stocked_product_ids: ['p1'] }, ['pdx1']],
      ['a non-UUID id matches nothing', { stocked_product_ids: ['not-a-uuid'] }, []],
      ['a non-UUID beside a good one', { stocked_product_ids: ['not-a-uuid', 'p4'] }, ['seattle']],
      ["another company's collection", { stocked_product_collection_ids: ['foreign'] }, []],
      ['unknown SKU', { stocked_product_skus: ['NOPE'] }, []],
      ['product and place filters', { stocked_product_ids: ['p1', 'p2'], country: 'US', store_type: 'Dealer' }, ['pdx2', 'vancouverWa']],
    ])('product filter: %s', async (_label, params, expected) => {
      const resolve = (v: string) => filters.p[v] ?? filters.c[v] ?? (v === 'foreign' ? filters.foreignCollection : v);
      const query: Record<string, unknown> = { ...wide };
      for (const [k, v] of Object.entries(params)) query[k] = (v as string[]).map ? (v as string[]).map(resolve) : v;
      const page = await find(filters.companyId, query);
      expect(sortIds(ids(page))).toEqual(sortIds(expected.map((k) => filters.b[k])));
    });

    test('product filters on a narrow search (the index finds the stores first) and a wide box', async () => {
      const portland = { latitude: '45.52', longitude: '-122.68', radius: '60km' };
      const narrow = await find(filters.companyId, { ...portland, stocked_product_ids: [filters.p.p1, filters.p.p2] });
      expect(sortIds(ids(narrow))).toEqual(sortIds(['pdx1', 'pdx2', 'vancouverWa'].map((k) => filters.b[k])));
      const none = await find(filters.companyId, { ...portland, stocked_product_ids: [filters.p.p4] });
      expect(ids(none)).toEqual([]);
      const both = await find(filters.companyId, { ...portland, stocked_product_ids: [filters.p.p2], available_product_ids: [filters.p.p4] });
      expect(ids(both)).toEqual([filters.b.vancouverWa]);
      const box = { top_left_latitude: '60', top_left_longitude: '-130', bottom_right_latitude: '40', bottom_right_longitude: '-60' };
      const wideBox = await find(filters.companyId, { ...box, available_product_ids: [filters.p.p1] });
      expect(sortIds(ids(wideBox))).toEqual(sortIds(['pdx1', 'vancouverBc'].map((k) => filters.b[k])));
    });

    test('additions: address geocoded, open_now filter on a fixed clock, distances in the radius unit', async () => {
      const at = (instant: string) =>
        new StoreLocatorService(execute, backendSearch, new StoreLocatorReader(execute, () => new Date(instant)), { geocoder: new OfflineGeocoder(t.orm) });
      const query = { address: 'Portland, OR', radius: '100km', open_now: 'true' };
      // Saturday 2026-06-06 01:00 PDT: Seattle's Friday shift (18:00-02:00) is on; Portland's 9-17 is not.
      const night = await at('2026-06-06T08:00:00Z').search(filters.companyId, parseStoreLocatorParams({ ...query, radius: '500km' }));
      expect(ids(night)).toEqual([filters.b.seattle]);
      expect(night.meta.total).toBe(1);
      // Saturday noon: the Portland flagship only, 1.x km from the city's centre, in km.
      const noon = await at('2026-06-06T19:00:00Z').search(filters.companyId, parseStoreLocatorParams(query));
      expect(ids(noon)).toEqual([filters.b.pdx1]);
      expect(noon.meta.distance_unit).toBe('km');
      const d = distance(noon.meta.origin, { latitude: 45.52, longitude: -122.68 }) / 1000;
      expect(Math.abs(noon.results[0].distance - d)).toBeLessThanOrEqual(0.006);
      const all = await at('2026-06-06T19:00:00Z').search(filters.companyId, parseStoreLocatorParams({ ...query, open_now: 'false' }));
      expect(sortIds(ids(all))).toEqual(sortIds(['pdx1', 'pdx2', 'vancouverWa'].map((k) => filters.b[k])));
      expect(all.results.map((r) => r.open_now)).toEqual(ids(all).map((id) => id === filters.b.pdx1));
    });

    test('dated exceptions: a closed day and special hours decide open_now and its filter alike', async () => {
      const em = t.em();
      const owner = async (key: string) => (await em.findOneOrFail(CompanyRetailerLocation, filters.b[key])).retailerLocation!;
      // Saturday 2026-06-13: the flagship (9-17 every day) is closed; the Vancouver, WA store (no hours) opens 10-14.
      em.create(HourException, { retailerLocation: await owner('pdx1'), startsOn: '2026-06-13', endsOn: '2026-06-13', closed: true, label: 'Closed' });
      em.create(HourException, {
        retailerLocation: await owner('vancouverWa'), startsOn: '2026-06-12', endsOn: '2026-06-14', closed: false, label: 'Open days',
        hours: [{ open_at_hour: 10, open_at_minute: 0, close_at_hour: 14, close_at_minute: 0 }],
      });
      await em.flush();
      try {
        const at = (instant: string) =>
          new StoreLocatorService(execute, backendSearch, new StoreLocatorReader(execute, () => new Date(instant)), { geocoder: new OfflineGeocoder(t.orm) });
        const query = { address: 'Portland, OR', radius: '100km' };
        const open = await at('2026-06-13T19:00:00Z').search(filters.companyId, parseStoreLocatorParams({ ...query, open_now: 'true' }));
        expect(ids(open)).toEqual([filters.b.vancouverWa]);
        const all = await at('2026-06-13T19:00:00Z').search(filters.companyId, parseStoreLocatorParams(query));
        expect(Object.fromEntries(all.results.map((r) => [r.id, [r.open_now, r.hours_today.label]]))).toEqual({
          [filters.b.pdx1]: [false, 'Closed'],
          [filters.b.pdx2]: [false, null],
          [filters.b.vancouverWa]: [true, 'Open days'],
        });
      } finally {
        await t.em().nativeDelete(HourException, { startsOn: { $in: ['2026-06-12', '2026-06-13'] } });
      }
    });

    test('results carry the stocked and available products with their images', async () => {
      const page = await find(filters.companyId, { ...wide, stocked_product_ids: [filters.p.p3] });
      expect(page.results).toHaveLength(1);
      const products = page.results[0].retailer_location_products;
      expect(products.map((p) => [p.sku, p.stocked, p.available])).toEqual([
        ['P-1', true, true],
        ['P-3', true, false],
      ]);
      expect(products[0]).toMatchObject({ product_id: filters.p.p1, external_id: 'E-1', collection_id: filters.c.c1 });
      expect(products[0].images).toHaveLength(2);
      expect(products[0].images[0]).toEqual({ id: expect.any(String), url: expect.stringContaining('/P-1/0.jpg'), thumbnail_url: expect.stringContaining('/P-1/0-thumb.jpg') });
    });
  });
}

// --- worlds ---------------------------------------------------------------------------------------------
async function rankingWorld(em: EntityManager, at: (dLat: number, dLng: number) => Point) {
  const net = await lf.locatorNetwork(em, 'Ranking brand');
  const flagship = await lf.storeType(em, net.company, 'Flagship', 2);
  const dealer = await lf.storeType(em, net.company, 'Dealer', 1);
  const outletType = await lf.storeType(em, net.company, 'Outlet', 0);
  const named: Record<string, string> = {};
  const listed: Placed[] = [];
  const place = async (name: string, p: Point, spec: lf.StoreSpec = {}, boost = 0, isListed = true) => {
    const crl = await lf.store(em, net.companyRetailer, { ...p, name, ...spec });
    named[name] = crl.id;
    if (isListed) listed.push({ id: crl.id, boost, ...p });
    return crl;
  };
  await place('plainNear', at(0.009, 0));
  await place('plainMid', at(0, 0.04));
  await place('plainFar', at(4.5, 0));
  await place('dealerNear', at(-0.018, 0), { storeType: dealer }, 1);
  await place('dealerMid', at(0.2, 0.2), { storeType: dealer }, 1);
  await place('flagMid', at(-0.5, 0.6), { storeType: flagship }, 2);
  await place('flagFar', at(1.3, 0), { storeType: flagship }, 2);
  await place('twinA', at(0.05, 0.05));
  await place('twinB', at(0.05, 0.05));
  await place('outlet', at(0.03, -0.03), { storeType: outletType });
  await place('ownAddress', at(0.1, -0.1), { onRetailerLocation: false });
  await place('veryFar', at(18, 0), {}, 0, false);
  await place('notSending', at(0.001, 0), { sendingLeads: false, storeType: flagship }, 2, false);
  await place('notReceiving', at(0.001, 0.001), { receivingLeads: false }, 0, false);
  await place('noCoordinates', { latitude: null, longitude: null } as unknown as Point, {}, 0, false);
  await place('noAddress', at(0, 0), { noAddress: true }, 0, false);
  // Linked to a retailer location without an address: the CRL's own (stale) address is not read.
  const linked = await place('addressOnCrlButLinked', at(0, 0), { noAddress: true }, 0, false);
  const stale = em.create(Location, { city: 'Minneapolis', ...at(0.002, 0) });
  em.getReference(CompanyRetailerLocation, linked.id).physicalAddress = stale;
  await em.flush();
  // Another company's store at the very origin.
  const other = await lf.locatorNetwork(em, 'Other brand');
  await lf.store(em, other.companyRetailer, at(0, 0));
  return { companyId: net.company.id, listed, named };
}

async function filterWorld(em: EntityManager) {
  const net = await lf.locatorNetwork(em, 'Filter brand');
  const flagship = await lf.storeType(em, net.company, 'Flagship', 2);
  const dealer = await lf.storeType(em, net.company, 'Dealer', 1);
  const c1 = await lf.collection(em, net.company, 'Kitchens');
  const c2 = await lf.collection(em, net.company, 'Baths');
  const p1 = await lf.catalogProduct(em, net.company, { sku: 'P-1', name: 'Alpha', externalId: 'E-1', collection: c1, images: 2 });
  const p2 = await lf.catalogProduct(em, net.company, { sku: 'P-2', name: 'Beta', externalId: 'E-2', collection: c1 });
  const p3 = await lf.catalogProduct(em, net.company, { sku: 'P-3', name: 'Gamma', externalId: 'E-3', collection: c2 });
  const p4 = await lf.catalogProduct(em, net.company, { sku: 'P-4', name: 'Delta' });
  const other = await lf.locatorNetwork(em, 'Foreign brand');
  const foreign = await lf.collection(em, other.company, 'Kitchens');
  const b: Record<string, string> = {};
  const add = async (key: string, spec: lf.StoreSpec) => {
    b[key] = (await lf.store(em, net.companyRetailer, spec)).id;
  };
  await add('pdx1', {
    city: 'Portland', province: 'OR', country: 'US', latitude: 45.52, longitude: -122.68, storeType: flagship,
    hours: (['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const).map((day) => ({ day, openAtHour: 9, closeAtHour: 17 })),
    stock: [{ product: p1, stocked: true, available: true }, { product: p3, stocked: true, available: false }],
  });
  await add('pdx2', { city: 'Portland', province: 'OR', country: 'US', latitude: 45.5, longitude: -122.6, storeType: dealer, stock: [{ product: p2, stocked: true }] });
  await add('portlandMe', {
    city: 'Portland', province: 'ME', country: 'US', latitude: 43.66, longitude: -70.26, storeType: dealer,
    stock: [{ product: p3, stocked: false, available: true }],
  });
  await add('seattle', {
    city: 'Seattle', province: 'WA', country: 'US', latitude: 47.61, longitude: -122.33, stock: [{ product: p4, stocked: true }],
    hours: [{ day: 'friday', openAtHour: 18, closeAtHour: 2 }],
  });
  await add('vancouverBc', {
    city: 'Vancouver', province: 'BC', country: 'CA', latitude: 49.28, longitude: -123.12, storeType: dealer,
    stock: [{ product: p1, stocked: false, available: true }],
  });
  await add('toronto', { city: 'Toronto', province: 'ON', country: 'CA', latitude: 43.65, longitude: -79.38, storeType: flagship });
  await add('vancouverWa', {
    city: 'Vancouver', province: 'WA', country: 'US', latitude: 45.64, longitude: -122.66, storeType: dealer,
    stock: [{ product: p2, stocked: true, available: true }, { product: p4, stocked: false, available: true }],
  });
  return {
    companyId: net.company.id,
    b,
    p: { p1: p1.id, p2: p2.id, p3: p3.id, p4: p4.id },
    c: { c1: c1.id, c2: c2.id },
    foreignCollection: foreign.id,
  };
}

async function antimeridianWorld(em: EntityManager) {
  const net = await lf.locatorNetwork(em, 'Pacific brand');
  const named: Record<string, string> = {};
  const listed: Placed[] = [];
  for (const [name, p] of [
    ['east', { latitude: 10.2, longitude: 179.95 }],
    ['west', { latitude: 10, longitude: -179.5 }],
    ['greenwich', { latitude: 10, longitude: 0 }],
  ] as Array<[string, Point]>) {
    const crl = await lf.store(em, net.companyRetailer, { ...p, city: 'Pacific' });
    named[name] = crl.id;
    listed.push({ id: crl.id, boost: 0, ...p });
  }
  return { companyId: net.company.id, listed, named };
}
