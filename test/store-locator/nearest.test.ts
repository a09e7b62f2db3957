/**
 * The fast point search (`nearestSql`: nearest-neighbour scans per boost value, counts kept per cell)
 * must answer exactly as the full scoring (`storeLocatorSql`, kept as the reference): the same page in the
 * same order, the same total and the same facets, for any origin, radius, page and score settings.
 */
import fc from 'fast-check';
import { Client } from 'pg';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';
import { backendQuery, parseStoreLocatorParams } from '../../src/modules/store-locator/store-locator.params';
import { nearestSql, storeLocatorSql, NEAREST_MAX_RADIUS_M } from '../../src/modules/store-locator/store-locator.postgres';
import type { ScoreSettings } from '../../src/modules/store-locator/store-locator.types';
import type { Sql } from '../../src/search/types';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { Location } from '../../src/modules/contact/location.entity';
import { CompanyStoreType } from '../../src/modules/company-store-type/company-store-type.entity';

let t: TestApp;
let companyId: string;
const STORES = Number(process.env.NEAREST_STORES ?? 2500);

/** A deterministic pseudo-random sequence, so the fixture is the same on every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

let db: Client;
/** One statement (`?` placeholders) on a plain connection; its single row. */
async function run(q: Sql) {
  let n = 0;
  return (await db.query(q.sql.replace(/\?/g, () => `$${++n}`), q.bindings as unknown[])).rows[0];
}

beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  const net = await lf.locatorNetwork(em);
  companyId = net.company.id;
  const types = [
    await lf.storeType(em, net.company, 'Flagship', 2),
    await lf.storeType(em, net.company, 'Premier', 2),
    await lf.storeType(em, net.company, 'Dealer', 1),
    await lf.storeType(em, net.company, 'Kiosk', 0.25),
    await lf.storeType(em, net.company, 'Outlet', 0),
  ];
  // Another company's stores share the area: they must never count.
  const other = await lf.locatorNetwork(em);
  for (let i = 0; i < 20; i++) await lf.store(em, other.companyRetailer, { latitude: 40 + i / 10, longitude: -100 + i / 10 });

  const random = rng(21);
  const cities = ['Springfield', 'Riverside', 'Franklin', 'Greenville', 'Bristol', 'Clinton', 'Fairview', 'Salem', '', null];
  const rows = Array.from({ length: STORES }, (_, i) => {
    // Clusters, exact duplicates (ties broken by id), points on cell edges and a spread over the continent.
    const kind = random();
    let latitude = 25 + random() * 30;
    let longitude = -125 + random() * 55;
    if (kind < 0.3) {
      latitude = 40 + (random() - 0.5) * 2;
      longitude = -100 + (random() - 0.5) * 2;
    } else if (kind < 0.4) {
      latitude = Math.round(latitude * 2) / 2;
      longitude = Math.round(longitude * 2) / 2;
    } else if (kind < 0.5) {
      latitude = 41.25;
      longitude = -99.75;
    }
    const city = cities[Math.floor(random() * cities.length)];
    const pick = random();
    return {
      latitude,
      longitude,
      city: city === null ? null : `${city} ${i % 37}`,
      province: random() < 0.05 ? null : ['NE', 'KS', 'CO', 'TX', 'ON'][i % 5],
      country: random() < 0.05 ? null : i % 5 === 4 ? 'CA' : 'US',
      type: pick < 0.35 ? null : types[Math.floor(random() * types.length)].id,
      listed: random() > 0.03,
    };
  });
  // Set-based, as an import does: the read-model triggers see a few hundred rows a statement.
  // Set-based, as an import does: the read-model triggers see a few hundred rows a statement.
  db = new Client({ connectionString: t.config.databaseUrl });
  await db.connect();
  for (let i = 0; i < rows.length; i += 250) {
    await db.query(
      `with input as (
         select x.*, gen_random_uuid() as location_id from json_to_recordset($1::json)
           as x(latitude float8, longitude float8, city text, province text, country text, type uuid, listed boolean)
       ), placed as (
         insert into locations (id, city, province, country, latitude, longitude, coordinates_source)
         select location_id, city, province, country, latitude, longitude, 'explicit' from input
       )
       insert into company_retailer_locations (company_id, company_retailer_id, physical_address_id, company_store_type_id, sending_leads, receiving_leads)
       select $2::uuid, $3::uuid, location_id, type, listed, true from input`,
      [JSON.stringify(rows.slice(i, i + 250)), companyId, net.companyRetailer.id],
    );
  }
  // Then single writes through the ORM: moves, delistings, type changes and deletions keep the counts exact.
  const em2 = t.em();
  const crls = await em2.find(CompanyRetailerLocation, { company: companyId }, { populate: ['physicalAddress'], orderBy: { id: 'asc' }, limit: 60 });
  crls.forEach((crl, i) => {
    if (i % 4 === 0) crl.physicalAddress!.latitude = 40.5 + i / 100;
    if (i % 4 === 1) crl.sendingLeads = false;
    if (i % 4 === 2) crl.companyStoreType = em2.getReference(CompanyStoreType, types[i % types.length].id);
    if (i % 4 === 3) crl.physicalAddress = em2.create(Location, { city: 'Moved', latitude: 39.9, longitude: -100.1, coordinatesSource: 'explicit' });
  });
  await em2.flush();
  em2.remove(crls.slice(0, 5));
  await em2.flush();
}, 120_000);
afterAll(async () => {
  await db?.end();
  await t?.close();
});

test('the kept cell counts equal a count of the listed stores', async () => {
  const differences = await t.em().getConnection().execute(`
    with recount as (
      select company_id, cell, f.facet, f.key, count(*)::int as n from store_locator_entries e
       cross join lateral (values ('city', e.city), ('province', e.province), ('country', e.country),
                                  ('store_type', e.company_store_type_id::text)) f(facet, key)
       group by 1, 2, 3, 4)
    (select company_id, cell, facet, key, n from store_locator_cell_counts where n <> 0 except select * from recount)
    union all
    (select * from recount except select company_id, cell, facet, key, n from store_locator_cell_counts)`);
  expect(differences).toEqual([]);
});

const SETTINGS: ScoreSettings[] = [
  { scaleMeters: 5 * 1609.344, offsetMeters: 0, decay: 0.5 },
  { scaleMeters: 40_000, offsetMeters: 25_000, decay: 0.3 },
  { scaleMeters: 1000, offsetMeters: 0, decay: 1 },
];

const radius = fc.oneof(
  fc.constantFrom('1mi', '10mi', '50mi', '300km', '1000mi', '1500mi', `${NEAREST_MAX_RADIUS_M}`, `${NEAREST_MAX_RADIUS_M + 1}`),
  fc.double({ min: 1, max: 3_100_000, noNaN: true }).map((m) => `${Math.round(m)}`),
);
const origin = fc.oneof(
  fc.record({ latitude: fc.double({ min: 20, max: 60, noNaN: true }), longitude: fc.double({ min: -130, max: -65, noNaN: true }) }),
  fc.record({ latitude: fc.integer({ min: 50, max: 110 }).map((x) => x / 2), longitude: fc.integer({ min: -250, max: -140 }).map((x) => x / 2) }),
  fc.constant({ latitude: 41.25, longitude: -99.75 }),
  // Near a pole and the antimeridian, where the cells give way to the full scoring.
  fc.record({ latitude: fc.double({ min: 70, max: 89.9, noNaN: true }), longitude: fc.double({ min: 170, max: 180, noNaN: true }) }),
);
const filters = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ store_type: fc.subarray(['Flagship', 'Dealer', 'Outlet'], { minLength: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ country: fc.constantFrom(['US'], ['CA'], ['US', 'CA']) }) },
);

test('any origin, radius, page and filter: the same page, total and facets as the full scoring', async () => {
  let fast = 0;
  await fc.assert(
    fc.asyncProperty(
      origin,
      radius,
      fc.integer({ min: 1, max: 12 }),
      fc.constantFrom('15', '1', '50', '100'),
      fc.constantFrom(...SETTINGS),
      filters,
      async (o, r, page, perPage, settings, filter) => {
        const params = parseStoreLocatorParams({
          latitude: String(o.latitude),
          longitude: String(o.longitude),
          radius: r,
          page: String(page),
          per_page: perPage,
          ...filter,
        });
        const query = backendQuery(companyId, params);
        const statement = nearestSql(query, settings);
        if (!statement) return;
        fast++;
        expect(await run(statement)).toEqual(await run(storeLocatorSql(query, settings)));
      },
    ),
    { numRuns: 2000, seed: 2026 },
  );
  // Most runs took the fast path: the property is not vacuous.
  expect(fast).toBeGreaterThan(1000);
}, 600_000);

test('every page of wide searches, in order, as the full scoring', async () => {
  const settings = SETTINGS[0];
  for (const o of [{ latitude: 41.25, longitude: -99.75 }, { latitude: 40, longitude: -100 }, { latitude: 33.3, longitude: -111.1 }]) {
    const seen: string[] = [];
    let total = 0;
    for (let page = 1; page * 50 <= 1000; page++) {
      const query = backendQuery(companyId, parseStoreLocatorParams({ latitude: String(o.latitude), longitude: String(o.longitude), page: String(page), per_page: '50' }));
      const fast = await run(nearestSql(query, settings)!);
      expect(fast).toEqual(await run(storeLocatorSql(query, settings)));
      seen.push(...fast.ids);
      total = fast.total;
    }
    expect(total).toBeGreaterThan(1000);
    expect(new Set(seen).size).toBe(1000);
  }
}, 300_000);

test('GET /v1/store_locator with no radius answers as the full scoring', async () => {
  const latitude = 40.2;
  const longitude = -100.3;
  const res = await request(t.app).get('/v1/store_locator').query({ cc_id: companyId, latitude, longitude, page: 2 }).expect(200);
  const query = backendQuery(companyId, parseStoreLocatorParams({ latitude: String(latitude), longitude: String(longitude), page: '2' }));
  const reference = await run(storeLocatorSql(query, t.config.storeLocator));
  expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(reference.ids);
  expect(res.body.meta.total).toBe(reference.total);
  for (const facet of ['city', 'province', 'country', 'store_type']) {
    expect(res.body.meta.aggs[facet].buckets).toEqual(reference[facet].buckets);
  }
  // The endpoint took the fast path.
  expect(nearestSql(query, t.config.storeLocator)).not.toBeNull();
});
