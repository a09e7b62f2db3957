// Breaches are kept facts (docs/response-times.md "Breaches"): a lead that breached at several stores in a
// row counts each breach in leadResponseStats, on every read path (facts, rollups, store weeks), although
// each reassignment restarts its timer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { locatorNetwork, north, store } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';

const MILE = 1609.344;
const ORIGIN = { latitude: 45, longitude: -100 };

let t: TestApp;
let now = new Date();
const clock = () => now;
let timers: ResponseTimeWorker;

beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
  withGeocoder({ geocode: async () => ORIGIN });
  timers = new ResponseTimeWorker(t.orm, { clock });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

async function ok(key: string, query: string, variables: Record<string, unknown>) {
  const res = await gql(t, key, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** Places the lead's current timer in the past and runs the worker past its due time. */
async function overdue(leadId: string) {
  await sql(`update lead_response_timers set assigned_at = now() - interval '2 hours', counted_from = null, computed = false where lead_id = ?`, [leadId]);
  now = new Date(Date.now() - 2 * 3_600_000);
  await timers.tick(); // the due time
  now = new Date();
  expect((await timers.tick()).breached).toBe(1);
}

const STATS = `query($where: LeadWhere, $groupBy: [ResponseStatsGroup!]) {
  leadResponseStats(where: $where, groupBy: $groupBy) { storeId week received breaches } }`;
/** Whole weeks around now: the rollup and store-week paths answer it. */
const YEAR = { createdAt: { gte: '2026-01-05T00:00:00Z', lt: '2027-01-04T00:00:00Z' } };

test('a lead that breached at three stores counts three breaches, on every read path', async () => {
  const net = await locatorNetwork(em());
  const admin = (await f.userWithKey(em(), Role.CompanyAdmin, net.company)).key;
  const stores = [];
  for (const miles of [1, 2, 3]) stores.push(await store(em(), net.companyRetailer, north(ORIGIN, miles * MILE)));
  await ok(admin, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', {
    input: { enabled: false, strategies: ['Nearest'], nearestMaxDistanceMiles: 50 },
  });
  await ok(admin, 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { firstResponseMinutes } }', {
    input: { firstResponseMinutes: 60, businessHours: false, reassign: true },
  });
  const lead = await createLead(t, admin, quoteRequest({ assignee_id: stores[0].id, location: { street_line_one: '1 Main St', city: 'Springfield', postal_code: '97205', country: 'US' } }));
  for (let i = 0; i < 3; i++) await overdue(lead.id);
  const events = await sql(`select data->>'store_id' as store_id, data->>'reassignment' as r from lead_events where lead_id = ? and type = 'lead.sla_breached' order by seq`, [lead.id]);
  expect(events.map((e: any) => e.store_id)).toEqual(stores.map((s) => s.id));
  expect(events[2].r).toBe('no_eligible_store');
  // The current timer shows the last breach only; the count keeps them all.
  expect((await sql(`select breaches from lead_response_timers where lead_id = ?`, [lead.id]))[0].breaches).toBe(3);

  const total = (rows: any[]) => rows.reduce((n, r) => n + r.breaches, 0);
  // The facts path (no whole weeks), the rollup (whole weeks, no grouping), the store weeks (by store), store by store (store and week).
  expect(total((await ok(admin, STATS, {})).leadResponseStats)).toBe(3);
  expect(total((await ok(admin, STATS, { where: YEAR })).leadResponseStats)).toBe(3);
  expect(total((await ok(admin, STATS, { where: YEAR, groupBy: ['WEEK'] })).leadResponseStats)).toBe(3);
  expect(total((await ok(admin, STATS, { where: YEAR, groupBy: ['STORE'] })).leadResponseStats)).toBe(3);
  expect(total((await ok(admin, STATS, { where: YEAR, groupBy: ['STORE', 'WEEK'] })).leadResponseStats)).toBe(3);

  // A new assignment (a person moving the lead) restarts the timer; the breaches stay counted.
  expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin, body: { lead: { assignee_id: stores[0].id } } })).status).toBe(200);
  expect((await sql(`select store_id, breached_at, breaches from lead_response_timers where lead_id = ?`, [lead.id]))[0]).toMatchObject({ store_id: stores[0].id, breached_at: null, breaches: 3 });
  expect(total((await ok(admin, STATS, {})).leadResponseStats)).toBe(3);
  expect(total((await ok(admin, STATS, { where: YEAR })).leadResponseStats)).toBe(3);
  // The kept sums equal a recount from the facts.
  const [kept] = await sql(`select coalesce(sum(breaches), 0)::int as n from lead_response_rollups where owner_company_id = ?`, [net.company.id]);
  expect(kept.n).toBe(3);
});
