// The side-by-side benchmark's bulk lead seed (bench/peers/seed-leads.mjs) and its users (roles.mjs), at a
// tiny size: the rows it writes are those the triggers it turns off would have written (search text,
// scope keys, activity keys, kept counts), the indexes it drops come back, a reseed replaces the leads,
// and the printed keys authenticate as their roles.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { api, createTestApp, type TestApp } from '../support/app';

const run = promisify(execFile);
const PEERS = path.join(__dirname, '../../bench/peers');
let t: TestApp;
const sql = async (text: string, params: unknown[] = []) => t.em().getConnection().execute(text, params as any[]);
const node = (script: string, env: Record<string, string> = {}) =>
  run(process.execPath, [path.join(PEERS, script)], { env: { ...process.env, DATABASE_URL: t.config.databaseUrl!, ...env } });

beforeAll(async () => {
  t = await createTestApp();
  // A small 'Bench brand' network as bench/store-locator.ts seeds it: 3 dealers of 4 stores each.
  await sql(`insert into companies (name) values ('Bench brand')`);
  await sql(`insert into retailers (name) select 'Bench dealer ' || g from generate_series(1, 3) g`);
  await sql(`insert into company_retailers (company_id, retailer_id, name)
             select c.id, r.id, r.name from companies c, retailers r where c.name = 'Bench brand' and r.name like 'Bench dealer %'`);
  await sql(`insert into retailer_locations (retailer_id, name) select r.id, r.name || ' store ' || g from retailers r, generate_series(1, 4) g where r.name like 'Bench dealer %'`);
  await sql(`insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id)
             select cr.company_id, cr.id, rl.id from company_retailers cr join retailer_locations rl on rl.retailer_id = cr.retailer_id`);
});
afterAll(() => t.close());

const counts = async () =>
  (
    await sql(`select (select count(*)::int from leads) as leads, (select count(*)::int from emails where lead_id is not null) as emails,
                      (select count(*)::int from phone_numbers where lead_id is not null) as phones, (select count(*)::int from lead_activities) as activities,
                      (select count(*)::int from leads l where l.search_text is distinct from leadnet_lead_search_text(l)) as stale_texts,
                      (select count(*)::int from leads l
                         join company_retailer_locations a on a.id = l.assignee_id
                         left join company_retailers cr on cr.id = a.company_retailer_id
                         left join retailer_locations rl on rl.id = a.retailer_location_id
                        where (l.assignee_company_id, l.assignee_territory_id, l.assignee_company_retailer_id, l.assignee_retailer_id, l.assignee_retailer_location_id)
                              is distinct from (a.company_id, coalesce(a.territory_id, cr.territory_id), a.company_retailer_id, rl.retailer_id, a.retailer_location_id)) as stale_keys,
                      (select count(*)::int from lead_activities x join leads l on l.id = x.lead_id
                        where (x.owner_company_id, x.assignee_id, x.assignee_territory_id, x.assignee_retailer_id)
                              is distinct from (l.owner_company_id, l.assignee_id, l.assignee_territory_id, l.assignee_retailer_id)) as stale_activities,
                      (select coalesce(sum(n), 0)::int from lead_counts where field = 'owner_company_id') as kept_count,
                      (select count(*)::int from (
                         select key, day, sum(n) from lead_day_counts where field = 'owner_company_id' group by 1, 2
                         except
                         select owner_company_id, (created_at at time zone 'UTC')::date, count(*) from leads where owner_company_id is not null group by 1, 2) d) as wrong_day_counts,
                      (select coalesce(sum(n), 0)::int from lead_activity_counts where field = 'owner_company_id') as kept_activity_count,
                      (select count(*)::int from pg_indexes where tablename in ('leads', 'emails', 'phone_numbers', 'lead_activities')) as indexes,
                      (select count(*)::int from pg_trigger where not tgisinternal and tgenabled = 'D') as disabled_triggers,
                      (select count(*)::int from lead_events) as events,
                      (select count(*)::int from lead_funnel_facts) as funnel_facts,
                      (select coalesce(sum(leads), 0)::int from lead_funnel_weeks) as funnel_kept_leads`)
  )[0];

test('seeds leads with the values the triggers compute, and the keys of every role authenticate', async () => {
  const before = await counts();
  await node('roles.mjs');
  const { stdout } = await node('seed-leads.mjs', { PERF_LEADS: '1000', PERF_LEADS_B: '100' });
  expect(stdout).toMatch(/seeded 1000 leads \(company A\) \+ 100 leads \(company B\)/);
  expect(stdout).toMatch(/checked 1100 leads/);
  const after = await counts();
  expect(after).toEqual({
    leads: 1100,
    emails: 1100 + 220,
    phones: 1100,
    activities: 2200,
    stale_texts: 0,
    stale_keys: 0,
    stale_activities: 0,
    kept_count: 1100,
    wrong_day_counts: 0,
    kept_activity_count: 2200,
    indexes: before.indexes,
    disabled_triggers: 0,
    events: 0,
    funnel_facts: 1100,
    funnel_kept_leads: 1100,
  });
  // The territory of roles.mjs (dealers 1-3: here every dealer) is on the leads' scope keys.
  expect((await sql(`select count(*)::int as n from leads where assignee_territory_id is not null`))[0].n).toBe(1000);

  const { keys } = JSON.parse((await node('roles.mjs')).stdout);
  const admin = await api(t, 'get', '/v1/leads?opts[per_page]=5', { key: keys.company_admin });
  expect(admin.status).toBe(200);
  expect(admin.body.meta.total).toBe(1000);
  // q goes through the trigram index created again after the load.
  const word = await api(t, 'get', '/v1/leads?q=tremblay&opts[per_page]=1', { key: keys.company_admin });
  const expected = (await sql(`select count(*)::int as n from leads l join companies c on c.id = l.owner_company_id
                                where c.name = 'Bench brand' and l.name like '% Tremblay'`))[0].n;
  expect(word.body.meta.total).toBe(expected);
  expect(expected).toBeGreaterThan(0);
  const b = await api(t, 'get', '/v1/leads?opts[per_page]=1', { key: keys.company_b_admin });
  expect(b.body.meta.total).toBe(100);
  const retailer = await api(t, 'get', '/v1/lead_activities?opts[per_page]=1', { key: keys.retailer_admin });
  expect(retailer.status).toBe(200);
  expect(retailer.body.meta.total).toBe(
    (await sql(`select count(*)::int as n from lead_activities x join retailers r on r.id = x.assignee_retailer_id where r.name = 'Bench dealer 1'`))[0].n,
  );

  // A reseed replaces the leads (and their kept counts) instead of adding to them.
  await node('seed-leads.mjs', { PERF_LEADS: '1000', PERF_LEADS_B: '100', PERF_RESEED: '1' });
  expect(await counts()).toEqual(after);
});
