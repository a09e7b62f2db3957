/**
 * The fast point search must answer exactly as the full scoring (`storeLocatorSql`, kept as the
 * reference): the same page in the same order, the same total and the same facets, for any origin, radius,
 * page and score settings, whether its total and facets come from a copy of the company's stores held in
 * memory (`store-locator.held.ts`) or from the counts kept per cell (`nearestSql` alone), and across writes.
 */
import fc from 'fast-check';
import { Client, Pool } from 'pg';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';
import { backendQuery, parseStoreLocatorParams } from '../../src/modules/store-locator/store-locator.params';
import { PostgresStoreLocatorSearch } from '../../src/modules/store-locator/store-locator.postgres';
import { nearestSql, storeLocatorSql, NEAREST_MAX_RADIUS_M, NEAREST_MIN_RADIUS_M } from '../../src/modules/store-locator/store-locator.repository';
import { EDGE_BAND_M } from '../../src/modules/store-locator/store-locator.held';
import type { StoreLocatorQuery } from '../../src/modules/store-locator/store-locator.types';
import type { ScoreSettings } from '../../src/modules/store-locator/store-locator.types';
import type { Sql } from '../../src/search/types';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { Location } from '../../src/modules/contact/location.entity';
import { CompanyStoreType } from '../../src/modules/company-store-type/company-store-type.entity';

let t: TestApp;
let companyId: string;
const STORES = Number(process.env.NEAREST_STORES ?? 2500);
/** Random searches of the property test: 300 in `npm test`, 3,000 once in CI (`.ci/run`). */
const RUNS = Number(process.env.NEAREST_RUNS ?? 300);

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
/** The searches' connections (a copy is read while searches run). */
let pool: Pool;

/** A search of its own, with the rows of every statement it ran, in order. */
function recordedSearch(settings: ScoreSettings) {
  const rows: Array<Record<string, unknown>> = [];
  const search = new PostgresStoreLocatorSearch(async (sql, bindings) => {
    let n = 0;
    const result = await pool.query(sql.replace(/\?/g, () => `$${++n}`), bindings);
    rows.push(...result.rows);
    return result.rows;
  }, settings);
  // Searches answered from the held copy.
  const heldAnswers = () => search.fromCopy;
  return { search, rows, heldAnswers };
}

/** The search's answer as the full scoring gives it. */
async function reference(query: StoreLocatorQuery, settings: ScoreSettings) {
  const row = await run(storeLocatorSql(query, settings));
  const aggs: Record<string, unknown> = {};
  for (const facet of ['city', 'province', 'country', 'store_type']) {
    const { buckets, all } = row[facet];
    const shown = buckets.reduce((sum: number, b: { doc_count: number }) => sum + b.doc_count, 0);
    aggs[facet] = { doc_count_error_upper_bound: 0, sum_other_doc_count: Number(all) - shown, buckets };
  }
  return { ids: row.ids, total: row.total, aggs };
}

/** A search with its held copy of the company read. */
async function searchWithCopy(settings: ScoreSettings) {
  const recorded = recordedSearch(settings);
  recorded.search.held.get(companyId);
  await recorded.search.held.settled(companyId);
  expect(recorded.search.held.get(companyId)).toBeDefined();
  return recorded;
}
/** The columns both statements have. */
const answer = (row: Record<string, unknown>) => ({ ids: row.ids, total: row.total, city: row.city, province: row.province, country: row.country, store_type: row.store_type });

beforeAll(async () => {
  t = await createTestApp({ STORE_LOCATOR_HELD_COMPANIES: '16' });
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
  pool = new Pool({ connectionString: t.config.databaseUrl, max: 3 });
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
  // Statistics of the loaded tables, as autovacuum would gather them: without them the planner takes the
  // read-model triggers' statements for one-row scans (the ORM's write below then ran past the statement timeout).
  await db.query('analyze');
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
  await pool?.end();
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
  fc.integer({ min: Math.ceil(NEAREST_MIN_RADIUS_M) - 2, max: 3_100_000 }).map(String),
  fc.integer({ min: Math.ceil(NEAREST_MIN_RADIUS_M) - 2, max: 3_100_000 }).map(String),
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
  const searches = await Promise.all(SETTINGS.map(searchWithCopy));
  let fast = 0;
  let wide = 0;
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
        const expected = await reference(query, settings);
        if (nearestSql(query, settings) && query.geo.kind === 'point' && query.geo.radius >= NEAREST_MIN_RADIUS_M) wide++;
        // What the endpoint answers (from the held copy when the search is wide enough).
        expect(await searches[SETTINGS.indexOf(settings)].search.search(query)).toEqual(expected);
        const statement = nearestSql(query, settings);
        if (!statement) return;
        // The kept counts alone (the answer while a copy is read), on every third wide search.
        if (fast++ % 3) return;
        // The kept counts (the answer while a copy is being read).
        expect(answer(await run(statement))).toEqual(answer(await run(storeLocatorSql(query, settings))));
      },
    ),
    { numRuns: RUNS, seed: 2026 },
  );
  // Most runs took the fast path, and every wide one was answered from the held copy: the property is not vacuous.
  expect(fast).toBeGreaterThan(RUNS / 2);
  expect(wide).toBeGreaterThan(RUNS / 4);
  expect(searches.reduce((sum, s) => sum + s.heldAnswers(), 0)).toBe(wide);
}, 600_000);

test('every page of wide searches, in order, as the full scoring', async () => {
  const settings = SETTINGS[0];
  const held = await searchWithCopy(settings);
  for (const o of [{ latitude: 41.25, longitude: -99.75 }, { latitude: 40, longitude: -100 }, { latitude: 33.3, longitude: -111.1 }]) {
    const seen: string[] = [];
    let total = 0;
    for (let page = 1; page * 50 <= 1000; page++) {
      const query = backendQuery(companyId, parseStoreLocatorParams({ latitude: String(o.latitude), longitude: String(o.longitude), page: String(page), per_page: '50' }));
      const fast = await run(nearestSql(query, settings)!);
      expect(answer(fast)).toEqual(answer(await run(storeLocatorSql(query, settings))));
      expect(await held.search.search(query)).toEqual(await reference(query, settings));
      seen.push(...fast.ids);
      total = fast.total;
    }
    expect(total).toBeGreaterThan(1000);
    expect(new Set(seen).size).toBe(1000);
  }
}, 300_000);

test('GET /v1/store_locator with no radius answers as the full scoring, from the kept counts, then from the held copy', async () => {
  const latitude = 40.2;
  const longitude = -100.3;
  const query = backendQuery(companyId, parseStoreLocatorParams({ latitude: String(latitude), longitude: String(longitude), page: '2' }));
  const expected = await reference(query, t.config.storeLocator);
  const answers: string[] = [];
  for (let attempt = 0; attempt < 100 && !answers.includes('held'); attempt++) {
    t.resetStatements();
    const res = await request(t.app).get('/v1/store_locator').query({ cc_id: companyId, latitude, longitude, page: 2 }).expect(200);
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(expected.ids);
    expect(res.body.meta.total).toBe(expected.total);
    expect(res.body.meta.aggs).toEqual(expected.aggs);
    answers.push(t.statements.some((s) => s.includes('near_within')) ? 'held' : 'counts');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The first answer came while the copy was read; a later one from the copy.
  expect(answers[0]).toBe('counts');
  expect(answers).toContain('held');
});

test('a store on the very edge of the circle is decided by the database, as the full scoring does', async () => {
  const settings = SETTINGS[0];
  const { search, rows: seen } = await searchWithCopy(settings);
  const origin = { latitude: 40.1, longitude: -100.2 };
  // Radii exactly the database's distance to some stores: those stores are on the edge and within.
  const { rows } = await db.query(
    `select 2 * 6371008.7714 * asin(sqrt(least(1, power(sin(radians(latitude - $1::float8) / 2), 2)
              + cos(radians($1::float8)) * cos(radians(latitude)) * power(sin(radians(longitude - $2::float8) / 2), 2)))) as d
       from store_locator_entries where company_id = $3::uuid order by crl_id limit 40`,
    [origin.latitude, origin.longitude, companyId],
  );
  const radii = rows.map((r) => Number(r.d)).filter((d) => d > 400_000 && d < 2_000_000);
  expect(radii.length).toBeGreaterThan(5);
  const before = seen.length;
  for (const radius of radii) {
    for (const r of [radius, radius - EDGE_BAND_M / 2, radius + EDGE_BAND_M / 2]) {
      const query: StoreLocatorQuery = { ...backendQuery(companyId, parseStoreLocatorParams({ latitude: String(origin.latitude), longitude: String(origin.longitude) })) };
      query.geo = { kind: 'point', origin, radius: r };
      expect(await search.search(query)).toEqual(await reference(query, settings));
    }
  }
  // The edge stores were sent to the database, and some found within.
  const decided = seen.slice(before).filter((row) => 'near_within' in row);
  expect(decided.length).toBe(radii.length * 3);
  expect(decided.some((row) => (row.near_within as number[]).length > 0)).toBe(true);
});

test('writes: the next search answers from the kept counts, then from a copy read again; an uncommitted write changes nothing', async () => {
  const settings = SETTINGS[1];
  const { search, heldAnswers } = await searchWithCopy(settings);
  const query = backendQuery(companyId, parseStoreLocatorParams({ latitude: '40.3', longitude: '-100.1', radius: '700mi', page: '1', per_page: '50' }));
  const check = async (expectHeld: boolean) => {
    const before = heldAnswers();
    expect(await search.search(query)).toEqual(await reference(query, settings));
    expect(heldAnswers() - before).toBe(expectHeld ? 1 : 0);
  };
  await check(true);
  const version = async () => (await db.query('select version from store_locator_versions where company_id = $1', [companyId])).rows[0].version;
  const writes: Array<() => Promise<unknown>> = [
    // A move, a delisting, a new type, a rename of a type (no entry changes: names are read with each search).
    () => db.query(`update locations set latitude = latitude + 0.3, city = 'Relocated' where id in (
                      select physical_address_id from company_retailer_locations where company_id = $1 order by id limit 3)`, [companyId]),
    () => db.query(`update company_retailer_locations set sending_leads = false where id in (
                      select crl_id from store_locator_entries where company_id = $1 order by crl_id limit 4)`, [companyId]),
    () => db.query(`update company_retailer_locations set company_store_type_id = (select id from company_store_types where company_id = $1 and name = 'Kiosk')
                     where id in (select crl_id from store_locator_entries where company_id = $1 order by crl_id desc limit 5)`, [companyId]),
    () => db.query(`delete from company_retailer_locations where id in (
                      select crl_id from store_locator_entries where company_id = $1 order by crl_id desc limit 2)`, [companyId]),
  ];
  // Searches until one is answered from the copy (read again in the background, spaced out), each exact.
  const eventuallyHeld = async () => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const before = heldAnswers();
      expect(await search.search(query)).toEqual(await reference(query, settings));
      if (heldAnswers() > before) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('never answered from the copy');
  };
  for (const write of writes) {
    const v = await version();
    await write();
    expect(BigInt(await version())).toBeGreaterThan(BigInt(v));
    // The copy is stale: the statement read a newer version, the kept counts answer.
    await check(false);
    await eventuallyHeld();
  }
  // A type renamed: no entry changes, the held answer names it as the database does.
  await db.query(`update company_store_types set name = 'Kiosk renamed' where company_id = $1 and name = 'Kiosk'`, [companyId]);
  await check(true);
  expect(JSON.stringify((await search.search(query)).aggs.store_type)).toContain('Kiosk renamed');

  // A write not yet committed is seen neither by the reference nor by the held answer; once committed, it is.
  const writer = new Client({ connectionString: t.config.databaseUrl });
  await writer.connect();
  try {
    await writer.query('begin');
    await writer.query(`update locations set city = 'Uncommitted' where id in (
                          select physical_address_id from company_retailer_locations where company_id = $1 order by id limit 10)`, [companyId]);
    await check(true);
    await writer.query('commit');
    await check(false);
    await eventuallyHeld();
  } finally {
    await writer.end();
  }
  // Another company's writes leave this company's copy in use.
  const loads = search.held.loads;
  await db.query(`update locations set city = 'Elsewhere' where id in (
                    select physical_address_id from company_retailer_locations where company_id <> $1 limit 3)`, [companyId]);
  await check(true);
  expect(search.held.loads).toBe(loads);
}, 120_000);
