// What visitors searched for (docs/locator-demand.md): searches through the public REST locator are
// counted in memory, flushed in one statement, and read with `locatorDemand` as coarse cells, products
// and outcomes; the table holds no IP address, user agent or exact point; who may read it; the buffer's
// bound; overlapping flushes add up; a stopped flusher writes what it holds; old days are deleted.
import request from 'supertest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestApp, gql, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';
import { roles } from '../support/leads';
import { DemandFlusher, flushLocatorDemand } from '../../src/modules/locator-demand/locator-demand.recorder';
import { DemandRetentionWorker } from '../../src/modules/locator-demand/locator-demand.retention';
import { DemandBuffer, type DemandSearch } from '../../src/modules/locator-demand/locator-demand.buffer';
import { addCounts, demandGroupsSql } from '../../src/modules/locator-demand/locator-demand.repository';
import { demandSearchCounts } from '../../src/observability/locator-demand-counts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TRUST_PROXY: 'true', LOCATOR_DEMAND: 'true', LOCATOR_DEMAND_FLUSH_MS: '300000' });
});
afterAll(async () => {
  await t.close();
});

const LYON = { latitude: 45.764043, longitude: 4.835659 };
const DEMAND = `query($c: ID, $w: LocatorDemandWhere!, $g: [LocatorDemandGroupBy!], $first: Int) {
  locatorDemand(companyId: $c, where: $w, groupBy: $g, first: $first) {
    truncated cellDegrees farKm
    groups { cell { latitude longitude south west north east } product day outcome searches noResultSearches farOnlySearches productSearches averageResults
             nearest { under5km under10km under25km under50km under100km over100km } } } }`;

const today = () => new Date().toISOString().slice(0, 10);

test('REST searches become coarse cells with products and outcomes; nothing exact is stored; who reads them', async () => {
  const { net, other, users } = await roles(t.em());
  const bike = await lf.catalogProduct(t.em(), net.company, { sku: 'BIKE-1' });
  await lf.store(t.em(), net.companyRetailer, { ...LYON, city: 'Lyon', country: 'FR', stock: [{ product: bike }] });

  const search = (query: Record<string, string>) =>
    request(t.app)
      .get('/v1/store_locator')
      .query({ cc_id: net.company.id, ...query })
      .set('X-Forwarded-For', '203.0.113.77')
      .set('User-Agent', 'Mozilla/5.0 (DemandTest)')
      .expect(200);
  // Found near (one asking for the bike), nothing (a made-up product in Lyon, and Marseille), only far (Grenoble: ~95 km).
  const near = await search({ latitude: '45.760123', longitude: '4.840456', radius: '10km', stocked_product_skus: 'BIKE-1' });
  expect(near.body.meta.total).toBe(1);
  await search({ latitude: '45.760123', longitude: '4.840456', radius: '10km', stocked_product_skus: 'MADE-UP-9' });
  await search({ latitude: '45.758', longitude: '4.832', radius: '10km' });
  await search({ latitude: '43.296482', longitude: '5.369780', radius: '20km' });
  await search({ latitude: '45.188529', longitude: '5.724524', radius: '200km' });
  // A small box around Lyon counts at its centre; a later page and the whole world do not count.
  await search({ top_left_latitude: '45.80', top_left_longitude: '4.80', bottom_right_latitude: '45.72', bottom_right_longitude: '4.88' });
  await search({ latitude: '45.758', longitude: '4.832', radius: '10km', page: '2' });
  await search({ top_left_latitude: '85', top_left_longitude: '-180', bottom_right_latitude: '-85', bottom_right_longitude: '180' });
  await flushLocatorDemand();

  // The stored rows: cells, days, products and counts only.
  const rows = (await t.em().execute('select * from locator_demand where company_id = ?', [net.company.id])) as Array<Record<string, unknown>>;
  expect(Object.keys(rows[0]).sort()).toEqual(
    ['company_id', 'day', 'lat_cell', 'lng_cell', 'product', 'outcome', 'searches', 'results',
      'nearest_under_5km', 'nearest_under_10km', 'nearest_under_25km', 'nearest_under_50km', 'nearest_under_100km', 'nearest_over_100km'].sort(),
  );
  const stored = JSON.stringify(rows);
  for (const secret of ['203.0.113', 'Mozilla', 'DemandTest', '45.76', '4.84', '43.29', '5.36', '45.18', '5.72']) expect(stored).not.toContain(secret);
  expect(rows.some((r) => String(r.product).includes('MADE-UP'))).toBe(false);

  const read = (key: string, variables: Record<string, unknown>) => gql(t, key, DEMAND, { w: { from: today(), to: today() }, ...variables });
  const admin = users.companyAdmin.key;
  const byCell = await read(admin, { g: ['CELL', 'OUTCOME'] });
  expect(byCell.body.errors).toBeUndefined();
  const report = byCell.body.data.locatorDemand;
  expect(report).toMatchObject({ truncated: false, cellDegrees: 0.1, farKm: 50 });
  const lyon = report.groups.find((g: any) => g.outcome === 'FOUND');
  // Lyon's cell: 0.1 degree, its centre and bounds, never the searched point.
  expect(lyon).toMatchObject({
    cell: { latitude: 45.75, longitude: 4.85, south: 45.7, west: 4.8, north: 45.8, east: 4.9 },
    searches: 3,
    noResultSearches: 0,
    productSearches: 1,
    averageResults: 1,
    nearest: { under5km: 3, under10km: 0, under25km: 0, under50km: 0, under100km: 0, over100km: 0 },
  });
  const none = report.groups.filter((g: any) => g.outcome === 'NO_RESULT');
  expect(none.map((g: any) => [g.cell.latitude, g.cell.longitude, g.searches, g.noResultSearches, g.productSearches]).sort()).toEqual([
    [43.25, 5.35, 1, 1, 0],
    [45.75, 4.85, 1, 1, 1],
  ]);
  expect(report.groups.find((g: any) => g.outcome === 'FAR_ONLY')).toMatchObject({
    cell: { latitude: 45.15, longitude: 5.75 },
    searches: 1,
    farOnlySearches: 1,
    nearest: { under100km: 1 },
  });

  const totals = (await read(admin, { g: [] })).body.data.locatorDemand.groups;
  expect(totals).toEqual([expect.objectContaining({ cell: null, outcome: null, searches: 6, noResultSearches: 2, farOnlySearches: 1, productSearches: 2 })]);
  const products = (await read(admin, { g: ['PRODUCT'] })).body.data.locatorDemand.groups;
  expect(products.map((g: any) => [g.product, g.searches])).toEqual([['sku:BIKE-1', 1]]);
  const bikeDays = (await read(admin, { g: ['DAY'], w: { from: today(), to: today(), product: 'sku:BIKE-1' } })).body.data.locatorDemand.groups;
  expect(bikeDays).toEqual([expect.objectContaining({ day: today(), searches: 1 })]);
  // A place: only the cells a box reaches (Marseille's), or the one cell holding a point.
  const south = (await read(admin, { w: { from: today(), to: today(), bbox: { south: 43, west: 5, north: 44, east: 6 } } })).body.data.locatorDemand.groups;
  expect(south.map((g: any) => g.cell.latitude)).toEqual([43.25]);
  const cell = (await read(admin, { w: { from: today(), to: today(), cell: LYON } })).body.data.locatorDemand.groups;
  expect(cell).toEqual([expect.objectContaining({ searches: 4, noResultSearches: 1 })]);
  // Capped: the group with most searches first.
  const first = (await read(admin, { g: ['CELL'], first: 1 })).body.data.locatorDemand;
  expect(first).toMatchObject({ truncated: true, groups: [{ cell: { latitude: 45.75 }, searches: 4 }] });
  // Bad input is a 422-style error, never a 5xx.
  const bad = await read(admin, { w: { from: '2026-02-30', to: today() } });
  expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

  // The counts of this process are in /metrics.
  const metrics = (await request(t.app).get('/metrics').expect(200)).text;
  expect(metrics).toMatch(/leadnet_locator_demand_searches_total\{outcome="recorded"\} [1-9]/);
  expect(metrics).toMatch(/leadnet_locator_demand_searches_total\{outcome="skipped"\} [1-9]/);
  expect(metrics).toMatch(/leadnet_locator_demand_flushes_total\{outcome="ok"\} [1-9]/);

  // Who reads: the company's admins and the operator; store users FORBIDDEN; another company NOT_FOUND.
  expect((await read(users.operator.key, { c: net.company.id, g: [] })).body.data.locatorDemand.groups[0].searches).toBe(6);
  for (const u of [users.locationUser, users.salesAssociate, users.territoryManager, users.retailerAdmin, users.storeManager]) {
    expect((await read(u.key, { g: [] })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  }
  expect((await read(users.otherAdmin.key, { c: net.company.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
  expect((await read(users.otherAdmin.key, {})).body.data.locatorDemand.groups).toEqual([]);
  expect(other.company.id).not.toBe(net.company.id);
});

const searchAt = (latitude: number, products: string[] = []): DemandSearch => ({
  companyId: '00000000-0000-4000-8000-000000000001',
  at: new Date('2026-12-01T10:00:00Z'),
  place: { latitude, longitude: 4.8 },
  products,
  total: 3,
  nearestMetres: 1200,
});

test('a full buffer drops new keys whole and counts the drops; keys it holds still count', () => {
  const buffer = new DemandBuffer({ maxEntries: 3, maxBytes: 1_000_000, farMetres: 50_000 });
  const dropped = () => demandSearchCounts().get('dropped') ?? 0;
  const before = dropped();
  expect(buffer.record(searchAt(45.01))).toBe(true);
  expect(buffer.record(searchAt(46.01))).toBe(true);
  // A search with a product needs three more keys ('', '*', the product): dropped whole.
  expect(buffer.record(searchAt(47.01, ['sku:A']))).toBe(false);
  expect(buffer.record(searchAt(47.01))).toBe(true);
  expect(buffer.record(searchAt(48.01))).toBe(false);
  expect(buffer.record(searchAt(45.02))).toBe(true); // the same cell as the first
  expect(dropped() - before).toBe(2);
  expect(buffer.size).toBe(3);
  const counts = buffer.take();
  expect(counts.map((c) => c.searches)).toEqual([2, 1, 1]);
  expect(buffer.size).toBe(0);
  expect(buffer.bytes).toBe(0);

  const small = new DemandBuffer({ maxEntries: 1000, maxBytes: 1100, farMetres: 50_000 });
  expect(small.record(searchAt(45.01))).toBe(true);
  expect(small.record(searchAt(46.01))).toBe(true);
  expect(small.record(searchAt(47.01))).toBe(false);
  expect(small.bytes).toBeLessThanOrEqual(1100);
});

test('overlapping flushes at once end with the summed counts', async () => {
  const { net } = await roles(t.em());
  const companyId = net.company.id;
  const buffers = Array.from({ length: 4 }, () => new DemandBuffer({ maxEntries: 10_000, maxBytes: 10_000_000, farMetres: 50_000 }));
  buffers.forEach((b, i) => {
    for (let k = 0; k < 300; k++) b.record({ ...searchAt(40 + k * 0.1), companyId, nearestMetres: i === 0 ? null : 1200, total: i === 0 ? 0 : 3 });
    for (let k = 0; k < 300; k++) b.record({ ...searchAt(40 + k * 0.1), companyId });
  });
  const forks = buffers.map(() => t.orm.em.fork() as EntityManager);
  await Promise.all(buffers.map((b, i) => addCounts(forks[i], b.take())));
  await Promise.all(buffers.map((b, i) => addCounts(forks[i], (b.record({ ...searchAt(40), companyId }), b.take()))));
  const [sum] = (await t.em().execute(
    `select sum(searches)::int as searches, count(*)::int as rows, sum(searches) filter (where outcome = 'none')::int as none from locator_demand where company_id = ?`,
    [companyId],
  )) as Array<{ searches: number; rows: number; none: number }>;
  expect(sum).toEqual({ searches: 4 * 600 + 4, rows: 600, none: 300 });
});

test('stopping the flusher writes what it holds; the retention job deletes the days past the period', async () => {
  const { net } = await roles(t.em());
  const companyId = net.company.id;
  const flusher = new DemandFlusher(t.orm, new DemandBuffer({ maxEntries: 100, maxBytes: 100_000, farMetres: 50_000 }), 60_000);
  flusher.start();
  flusher.buffer.record({ ...searchAt(45), companyId, at: new Date() });
  flusher.buffer.record({ ...searchAt(45), companyId, at: new Date(Date.now() - 401 * 86_400_000) });
  await flusher.stop();
  const days = async () =>
    ((await t.em().execute(`select to_char(day, 'YYYY-MM-DD') as day from locator_demand where company_id = ? order by day`, [companyId])) as Array<{ day: string }>).map((r) => r.day);
  expect(await days()).toHaveLength(2);
  expect(await new DemandRetentionWorker(t.orm, 400).purge()).toBeGreaterThanOrEqual(1);
  expect(await days()).toEqual([today()]);
});

test("a company's range of days is read along the primary key", async () => {
  const { net } = await roles(t.em());
  // Every company's counts over 200 days, then the plan of one company's month by cell.
  await t.em().execute(
    `insert into locator_demand (company_id, day, lat_cell, lng_cell, product, outcome, searches)
     select c.id, date '2026-01-01' + d, 1300 + (d % 7), 1800 + (d % 11), '', 'found', 1
       from companies c cross join generate_series(0, 199) d
     on conflict do nothing`,
  );
  await t.em().execute('analyze locator_demand');
  const { sql, bindings } = demandGroupsSql({ companyId: net.company.id, from: '2026-03-01', to: '2026-03-31', groupBy: ['cell'], limit: 501 });
  const plan = JSON.stringify(await t.em().execute(`explain (format json) ${sql}`, bindings));
  expect(plan).toContain('locator_demand_pkey');
});
