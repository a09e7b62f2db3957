import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config';
import { withDatabase } from '../support/global-setup';

/**
 * The assignee keys a lead keeps for its scope (Migration20261123110000_lead_scope_keys): back-filled
 * on a database that already holds leads, then kept by triggers through every change that moves them;
 * the stored phone format (Migration20261123110100_phone_formatted), back-filled the same way; and the
 * keys of the other lists, the same way: a lead activity's owner (Migration20261124161000_lead_activity_owner_keys)
 * and a CRL's retailer (Migration20261124162000_crl_retailer_key).
 */
const BEFORE = 'Migration20261122014000_lead_search_text';

let url: string;
let name: string;
let orm: MikroORM;
let db: Client;

const q = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows;

/** Leads whose stored keys differ from those computed from their assignee right now. */
const STALE = `
  select l.id from leads l
    left join company_retailer_locations a on a.id = l.assignee_id
    left join company_retailers a_cr on a_cr.id = a.company_retailer_id
    left join retailer_locations a_rl on a_rl.id = a.retailer_location_id
   where (l.assignee_company_id, l.assignee_territory_id, l.assignee_company_retailer_id, l.assignee_retailer_id, l.assignee_retailer_location_id)
         is distinct from (a.company_id, coalesce(a.territory_id, a_cr.territory_id), a.company_retailer_id, a_rl.retailer_id, a.retailer_location_id)`;

/**
 * Activities whose owner or assignee keys differ from their lead's
 * (Migration20261124171000_lead_activity_assignee_keys), and CRLs whose retailer differs from their store's.
 */
const ACTIVITY_KEYS = ['owner_company_id', 'owner_retailer_id', 'assignee_id', 'assignee_company_id', 'assignee_territory_id',
  'assignee_company_retailer_id', 'assignee_retailer_id', 'assignee_retailer_location_id'];
const STALE_ACTIVITIES = `
  select la.id from lead_activities la join leads l on l.id = la.lead_id
   where (${ACTIVITY_KEYS.map((k) => `la.${k}`).join(', ')}) is distinct from (${ACTIVITY_KEYS.map((k) => `l.${k}`).join(', ')})`;
const STALE_CRLS = `
  select crl.id from company_retailer_locations crl left join retailer_locations rl on rl.id = crl.retailer_location_id
   where crl.retailer_id is distinct from rl.retailer_id`;

/**
 * Keys whose kept lead count differs from their leads counted: per owner (Migration20261124170000_lead_owner_counts)
 * and per assignee scope (Migration20261202100000_lead_assignee_counts), written out here as the scopes read
 * them rather than through the migration's `leadnet_lead_count_keys`.
 */
const NONE = '00000000-0000-0000-0000-000000000000';
const WRONG_COUNTS = `
  with kept as (select field, within_key, key, sum(n)::int as n from lead_counts group by 1, 2, 3),
       actual as (
         select 'owner_company_id' as field, '${NONE}'::uuid as within_key, owner_company_id as key, count(*)::int as n
           from leads where owner_company_id is not null group by 3
         union all
         select 'owner_retailer_id', '${NONE}', owner_retailer_id, count(*)::int from leads where owner_retailer_id is not null group by 3
         union all
         select 'assignee_company_beyond_owner_id', '${NONE}', assignee_company_id, count(*)::int
           from leads where assignee_company_id is distinct from owner_company_id and assignee_company_id is not null group by 3
         union all
         select 'assignee_retailer_beyond_owner_id', '${NONE}', assignee_retailer_id, count(*)::int
           from leads where assignee_retailer_id is distinct from owner_retailer_id and assignee_retailer_id is not null group by 3
         union all
         select 'assignee_company_id,assignee_territory_id', assignee_company_id, assignee_territory_id, count(*)::int
           from leads where assignee_territory_id is not null group by 2, 3
         union all
         select 'assignee_company_id,assignee_company_retailer_id', assignee_company_id, assignee_company_retailer_id, count(*)::int
           from leads where assignee_company_retailer_id is not null group by 2, 3)
  select * from kept full join actual using (field, within_key, key) where kept.n is distinct from actual.n and coalesce(kept.n, actual.n) <> 0`;

const ids = {
  company: '10000000-0000-4000-8000-000000000001',
  company2: '10000000-0000-4000-8000-000000000002',
  retailer: '20000000-0000-4000-8000-000000000001',
  retailer2: '20000000-0000-4000-8000-000000000002',
  north: '30000000-0000-4000-8000-000000000001',
  south: '30000000-0000-4000-8000-000000000002',
  cr: '40000000-0000-4000-8000-000000000001',
  cr2: '40000000-0000-4000-8000-000000000002',
  rl: '50000000-0000-4000-8000-000000000001',
  rl2: '50000000-0000-4000-8000-000000000002',
  crlOwnTerritory: '60000000-0000-4000-8000-000000000001',
  crlInherits: '60000000-0000-4000-8000-000000000002',
  crlNoStore: '60000000-0000-4000-8000-000000000003',
};

beforeAll(async () => {
  const server = process.env.LEADNET_TEST_SERVER_URL!;
  name = `leadnet_scope_keys_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: withDatabase(server, 'postgres') });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  url = withDatabase(server, name);
  orm = await MikroORM.init(ormConfig(url, { debug: false }));
  await orm.getMigrator().up({ to: BEFORE });
  db = new Client({ connectionString: url });
  await db.connect();

  // The network and 300 leads, written with the schema as it was before the migration.
  await q(`insert into companies (id, name) values ($1, 'Acme'), ($2, 'Other')`, [ids.company, ids.company2]);
  await q(`insert into retailers (id, name) values ($1, 'Dealer'), ($2, 'Dealer 2')`, [ids.retailer, ids.retailer2]);
  await q(`insert into territories (id, company_id, name) values ($1, $3, 'North'), ($2, $3, 'South')`, [ids.north, ids.south, ids.company]);
  await q(`insert into company_retailers (id, company_id, retailer_id, territory_id) values ($1, $3, $4, $5), ($2, $3, $6, null)`, [
    ids.cr,
    ids.cr2,
    ids.company,
    ids.retailer,
    ids.south,
    ids.retailer2,
  ]);
  await q(`insert into retailer_locations (id, retailer_id, name) values ($1, $3, 'Main St'), ($2, $3, 'High St')`, [ids.rl, ids.rl2, ids.retailer]);
  await q(
    `insert into company_retailer_locations (id, company_id, company_retailer_id, retailer_location_id, territory_id)
     values ($1, $4, $5, $6, $7), ($2, $4, $5, $8, null), ($3, $4, $5, null, null)`,
    [ids.crlOwnTerritory, ids.crlInherits, ids.crlNoStore, ids.company, ids.cr, ids.rl, ids.north, ids.rl2],
  );
  await q(
    `insert into leads (name, owner_company_id, assignee_id, created_at)
     select 'Lead ' || i, $1, (array[$2, $3, $4, null]::uuid[])[1 + i % 4], now() - i * interval '1 minute' from generate_series(1, 300) i`,
    [ids.company, ids.crlOwnTerritory, ids.crlInherits, ids.crlNoStore],
  );
  await q(`insert into leads (name, owner_retailer_id, created_at) values ('Walk-in', $1, now())`, [ids.retailer]);
  await q(`insert into lead_activities (lead_id, type, data) select id, 'LeadActivity::Note', '{}' from leads, generate_series(1, 2)`);
  await q(`insert into phone_numbers (phone_number, country_code) values ('+15035550123', 'US'), ('+442071838750', 'GB'), ('not a number', 'US')`);
  await orm.getMigrator().up();
});

afterAll(async () => {
  await db?.end();
  await orm?.close();
  const admin = new Client({ connectionString: withDatabase(process.env.LEADNET_TEST_SERVER_URL!, 'postgres') });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

test('the migration back-fills the keys of leads that existed before it', async () => {
  const rows = await q(`select assignee_id, assignee_company_id, assignee_territory_id, assignee_company_retailer_id, assignee_retailer_id,
                               assignee_retailer_location_id, count(*)::int as n
                          from leads group by 1, 2, 3, 4, 5, 6 order by n, assignee_id`);
  expect(rows).toHaveLength(4);
  const by = Object.fromEntries(rows.map((r) => [r.assignee_id ?? 'none', r]));
  expect(by[ids.crlOwnTerritory]).toMatchObject({
    assignee_company_id: ids.company,
    assignee_territory_id: ids.north,
    assignee_company_retailer_id: ids.cr,
    assignee_retailer_id: ids.retailer,
    assignee_retailer_location_id: ids.rl,
    n: 75,
  });
  // No territory of its own: its company retailer's.
  expect(by[ids.crlInherits]).toMatchObject({ assignee_territory_id: ids.south, assignee_retailer_location_id: ids.rl2, assignee_retailer_id: ids.retailer });
  expect(by[ids.crlNoStore]).toMatchObject({ assignee_company_id: ids.company, assignee_retailer_id: null, assignee_retailer_location_id: null });
  expect(by.none).toMatchObject({ assignee_company_id: null, assignee_territory_id: null, assignee_retailer_id: null });
  expect(await q(STALE)).toEqual([]);
  // And counts them per assignee scope: a territory manager's, a retailer manager's, the retailer admin's beyond its own.
  expect(await q(`select field, within_key, key, sum(n)::int as n from lead_counts where field not like 'owner_%' group by 1, 2, 3 order by 1, 4, 3`)).toEqual([
    { field: 'assignee_company_id,assignee_company_retailer_id', within_key: ids.company, key: ids.cr, n: 225 },
    { field: 'assignee_company_id,assignee_territory_id', within_key: ids.company, key: ids.north, n: 75 },
    { field: 'assignee_company_id,assignee_territory_id', within_key: ids.company, key: ids.south, n: 150 }, // two stores inherit it
    { field: 'assignee_retailer_beyond_owner_id', within_key: NONE, key: ids.retailer, n: 150 },
  ]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
});

test("the list keys are back-filled: each activity has its lead's owner, each CRL its store's retailer", async () => {
  expect(await q(`select count(*)::int as n from lead_activities where owner_company_id = $1`, [ids.company])).toEqual([{ n: 600 }]);
  expect(await q(`select count(*)::int as n from lead_activities where owner_retailer_id = $1`, [ids.retailer])).toEqual([{ n: 2 }]);
  expect(await q(STALE_ACTIVITIES)).toEqual([]);
  expect(await q(`select retailer_id from company_retailer_locations where id = $1`, [ids.crlNoStore])).toEqual([{ retailer_id: null }]);
  expect(await q(STALE_CRLS)).toEqual([]);
});

test('a lead written after it gets its keys on insert and on every change of assignee', async () => {
  const [lead] = await q(`insert into leads (name, owner_company_id, assignee_id) values ('New', $1, $2) returning *`, [ids.company, ids.crlInherits]);
  expect(lead).toMatchObject({ assignee_company_id: ids.company, assignee_territory_id: ids.south, assignee_retailer_location_id: ids.rl2 });
  await q(`update leads set assignee_id = $2::uuid where id = $1::uuid`, [lead.id, ids.crlOwnTerritory]);
  expect(await q(STALE)).toEqual([]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
  await q(`update leads set assignee_id = null where id = $1::uuid`, [lead.id]);
  const [after] = await q(`select * from leads where id = $1`, [lead.id]);
  expect(after).toMatchObject({ assignee_company_id: null, assignee_territory_id: null, assignee_company_retailer_id: null, assignee_retailer_id: null });
  // Keys written by hand get the true values back.
  await q(`update leads set assignee_company_id = $1::uuid where assignee_id is not null`, [ids.company2]);
  expect(await q(STALE)).toEqual([]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
});

test('re-pointing a CRL, a company retailer or a retailer location moves the keys of the leads under it, and of their activities', async () => {
  await q(`update company_retailer_locations set territory_id = $2 where id = $1`, [ids.crlInherits, ids.north]);
  expect(await q(`select distinct assignee_territory_id from leads where assignee_id = $1`, [ids.crlInherits])).toEqual([{ assignee_territory_id: ids.north }]);
  await q(`update company_retailer_locations set territory_id = null where id = $1`, [ids.crlInherits]);
  await q(`update company_retailers set territory_id = $2 where id = $1`, [ids.cr, ids.north]);
  expect(await q(`select distinct assignee_territory_id from leads where assignee_id = $1`, [ids.crlInherits])).toEqual([{ assignee_territory_id: ids.north }]);
  expect(await q(STALE)).toEqual([]);
  expect(await q(WRONG_COUNTS)).toEqual([]);

  await q(`update company_retailer_locations set company_retailer_id = $2, retailer_location_id = $3 where id = $1`, [ids.crlNoStore, ids.cr2, ids.rl]);
  expect(await q(STALE)).toEqual([]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
  expect(await q(`select distinct assignee_retailer_location_id, assignee_company_retailer_id, assignee_territory_id from leads where assignee_id = $1`, [ids.crlNoStore])).toEqual([
    { assignee_retailer_location_id: ids.rl, assignee_company_retailer_id: ids.cr2, assignee_territory_id: null },
  ]);

  await q(`update retailer_locations set retailer_id = $2 where id = $1`, [ids.rl, ids.retailer2]);
  expect(await q(`select distinct assignee_retailer_id from leads where assignee_retailer_location_id = $1`, [ids.rl])).toEqual([{ assignee_retailer_id: ids.retailer2 }]);
  await q(`update company_retailer_locations set retailer_location_id = null where id = $1`, [ids.crlOwnTerritory]);
  expect(await q(STALE)).toEqual([]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
  expect(await q(STALE_ACTIVITIES)).toEqual([]);
  expect(await q(`select distinct assignee_retailer_id from lead_activities where assignee_retailer_location_id = $1`, [ids.rl])).toEqual([{ assignee_retailer_id: ids.retailer2 }]);

  // Within the transaction of the change, and undone with it.
  await q('begin');
  await q(`update company_retailers set territory_id = $2 where id = $1`, [ids.cr2, ids.south]);
  expect(await q(`select distinct assignee_territory_id from leads where assignee_id = $1`, [ids.crlNoStore])).toEqual([{ assignee_territory_id: ids.south }]);
  await q('rollback');
  expect(await q(`select distinct assignee_territory_id from leads where assignee_id = $1`, [ids.crlNoStore])).toEqual([{ assignee_territory_id: null }]);
  expect(await q(STALE)).toEqual([]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
  expect(await q(STALE_ACTIVITIES)).toEqual([]);
});

test("the phone migration stores every existing number's international format", async () => {
  const rows = await q(`select phone_number, formatted_international from phone_numbers order by phone_number`);
  expect(rows).toEqual([
    { phone_number: '+15035550123', formatted_international: '+1 503 555 0123' },
    { phone_number: '+442071838750', formatted_international: '+44 20 7183 8750' },
    { phone_number: 'not a number', formatted_international: 'not a number' },
  ]);
});

test('the list keys follow every change: new activities, an owner changed by hand, a CRL re-pointed, a store moved to another retailer', async () => {
  const [lead] = await q(`insert into leads (name, owner_company_id) values ('Keys', $1) returning id`, [ids.company]);
  await q(`insert into lead_activities (lead_id, type, data) values ($1, 'LeadActivity::Note', '{}')`, [lead.id]);
  expect(await q(`select owner_company_id, owner_retailer_id from lead_activities where lead_id = $1`, [lead.id])).toEqual([
    { owner_company_id: ids.company, owner_retailer_id: null },
  ]);
  await q(`update leads set owner_company_id = null, owner_retailer_id = $2 where id = $1`, [lead.id, ids.retailer2]);
  await q(`update lead_activities set owner_company_id = $1`, [ids.company2]); // by hand: the true values come back
  expect(await q(STALE_ACTIVITIES)).toEqual([]);

  const [crl] = await q(
    `insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id) values ($1, $2, $3) returning retailer_id`,
    [ids.company, ids.cr2, ids.rl2],
  );
  expect(crl.retailer_id).toBe((await q(`select retailer_id from retailer_locations where id = $1`, [ids.rl2]))[0].retailer_id);
  await q(`update company_retailer_locations set retailer_location_id = $2 where id = $1`, [ids.crlOwnTerritory, ids.rl]);
  expect(await q(STALE_CRLS)).toEqual([]);
  await q(`update retailer_locations set retailer_id = $2 where id = $1`, [ids.rl2, ids.retailer2]);
  expect(await q(`select distinct retailer_id from company_retailer_locations where retailer_location_id = $1`, [ids.rl2])).toEqual([{ retailer_id: ids.retailer2 }]);
  await q(`update company_retailer_locations set retailer_id = $1`, [ids.retailer]); // by hand
  expect(await q(STALE_CRLS)).toEqual([]);
});

/** Six writers on connections of their own, each running `sql` ten times, at once. */
async function concurrently(sql: string, params: unknown[]): Promise<void> {
  const writers = await Promise.all(
    Array.from({ length: 6 }, async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  await Promise.all(
    writers.map(async (c) => {
      for (let i = 0; i < 10; i++) await c.query(sql, params);
      await c.end();
    }),
  );
}

test("each owner's lead count is back-filled and follows inserts, owner changes and deletes, one row or many at a time", async () => {
  expect(await q(`select field, key, sum(n)::int as n from lead_counts group by 1, 2 order by 1`)).toEqual(
    expect.arrayContaining([{ field: 'owner_retailer_id', key: ids.retailer, n: 1 }]),
  );
  expect(await q(WRONG_COUNTS)).toEqual([]);
  const created = await q(`insert into leads (name, owner_company_id) select 'Counted ' || i, $1 from generate_series(1, 40) i returning id`, [ids.company2]);
  await q(`update leads set owner_company_id = null, owner_retailer_id = $2 where id = any($1::uuid[])`, [created.slice(0, 10).map((r) => r.id), ids.retailer2]);
  await q(`update leads set name = 'Renamed' where id = any($1::uuid[])`, [created.map((r) => r.id)]);
  await q(`delete from leads where id = any($1::uuid[])`, [created.slice(5, 25).map((r) => r.id)]);
  expect(await q(`select field, key, sum(n)::int as n from lead_counts where key = any($1::uuid[]) and field like 'owner_%' group by 1, 2 order by 1`, [[ids.company2, ids.retailer2]])).toEqual([
    { field: 'owner_company_id', key: ids.company2, n: 15 },
    { field: 'owner_retailer_id', key: ids.retailer2, n: 6 }, // and the lead the test before moved to it
  ]);
  // A rolled-back write leaves no trace; concurrent writers of one owner each add their own rows.
  await q('begin');
  await q(`insert into leads (name, owner_company_id) values ('Rolled back', $1)`, [ids.company2]);
  await q('rollback');
  await concurrently(`insert into leads (name, owner_company_id) values ('Concurrent', $1)`, [ids.company2]);
  expect(await q(`select sum(n)::int as n from lead_counts where field = 'owner_company_id' and key = $1`, [ids.company2])).toEqual([{ n: 75 }]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
});

test("each assignee scope's lead count follows reassignments, a lead given to its assignee's retailer, deletes, a rollback and concurrent writers", async () => {
  const territory = (t: string) =>
    q(`select coalesce(sum(n), 0)::int as n from lead_counts where field = 'assignee_company_id,assignee_territory_id' and within_key = $1 and key = $2`, [ids.company, t]);
  const leads = (await q(`insert into leads (name, owner_company_id, assignee_id) select 'Routed ' || i, $1, $2 from generate_series(1, 30) i returning id`, [
    ids.company,
    ids.crlOwnTerritory,
  ])).map((r) => r.id);
  const north = (await territory(ids.north))[0].n;
  await q(`update leads set assignee_id = $2 where id = any($1::uuid[])`, [leads.slice(0, 10), ids.crlNoStore]); // a routing reassignment, out of the territory
  await q(`update leads set assignee_id = null where id = any($1::uuid[])`, [leads.slice(10, 15)]);
  await q(`update leads set owner_company_id = null, owner_retailer_id = $2 where id = any($1::uuid[])`, [leads.slice(15, 20), ids.retailer]); // no longer beyond its owner
  await q(`delete from leads where id = any($1::uuid[])`, [leads.slice(20, 25)]);
  expect(await territory(ids.north)).toEqual([{ n: north - 20 }]);
  expect(await q(WRONG_COUNTS)).toEqual([]);
  await q('begin');
  await q(`update leads set assignee_id = null where id = any($1::uuid[])`, [leads]);
  await q('rollback');
  expect(await territory(ids.north)).toEqual([{ n: north - 20 }]);
  // Writers moving leads between two stores at once, one lead per statement.
  await concurrently(
    `update leads set assignee_id = case when assignee_id = $1::uuid then $2::uuid else $1::uuid end
      where id = (select id from leads where assignee_id in ($1, $2) order by random() limit 1)`,
    [ids.crlOwnTerritory, ids.crlInherits],
  );
  expect(await q(WRONG_COUNTS)).toEqual([]);
});

/** Owners and days whose kept count (Migration20261130100000_lead_day_counts) differs from their leads counted. */
const WRONG_DAY_COUNTS = `
  with kept as (select field, key, day, sum(n)::int as n from lead_day_counts group by 1, 2, 3),
       actual as (select 'owner_company_id' as field, owner_company_id as key, (created_at at time zone 'UTC')::date as day, count(*)::int as n
                    from leads where owner_company_id is not null group by 2, 3
                  union all
                  select 'owner_retailer_id', owner_retailer_id, (created_at at time zone 'UTC')::date, count(*)::int
                    from leads where owner_retailer_id is not null group by 2, 3)
  select * from kept full join actual using (field, key, day) where kept.n is distinct from actual.n and coalesce(kept.n, actual.n) <> 0`;

test("each owner's lead count per day of creation (UTC) is back-filled and follows inserts, owner and creation time changes, deletes and concurrent writers", async () => {
  // The leads written before the migration, and every one since.
  expect(await q(WRONG_DAY_COUNTS)).toEqual([]);
  const days = ['2026-03-01T00:00:00Z', '2026-03-01T23:59:59.999999Z', '2026-03-02T00:00:00Z', '2026-03-02T12:00:00+05:00'];
  const created = await q(
    `insert into leads (name, owner_company_id, created_at) select 'Day ' || i, $1, ($2::timestamptz[])[1 + i % 4] from generate_series(0, 39) i returning id`,
    [ids.company2, days],
  );
  const byDay = async () =>
    q(`select day::text, sum(n)::int as n from lead_day_counts where field = 'owner_company_id' and key = $1 and day between '2026-03-01' and '2026-03-02' group by 1 order by 1`, [ids.company2]);
  // 10 at midnight and 10 a microsecond before the next, 10 at the next midnight; +05:00 noon is 07:00 UTC.
  expect(await byDay()).toEqual([{ day: '2026-03-01', n: 20 }, { day: '2026-03-02', n: 20 }]);
  const leads = created.map((r) => r.id);
  await q(`update leads set created_at = created_at + interval '1 microsecond' where id = any($1::uuid[])`, [leads.slice(0, 8)]); // 2 cross midnight
  await q(`update leads set owner_company_id = null, owner_retailer_id = $2 where id = any($1::uuid[])`, [leads.slice(8, 12), ids.retailer2]);
  await q(`update leads set name = 'Renamed' where id = any($1::uuid[])`, [leads]);
  await q(`delete from leads where id = any($1::uuid[])`, [leads.slice(30)]);
  // 2 moved to the 2nd, 2 of each day to a retailer; 4 of the 1st and 6 of the 2nd deleted.
  expect(await byDay()).toEqual([{ day: '2026-03-01', n: 12 }, { day: '2026-03-02', n: 14 }]);
  expect(await q(WRONG_DAY_COUNTS)).toEqual([]);
  // A rolled-back write leaves no trace; concurrent writers of one owner and day each add their own rows.
  await q('begin');
  await q(`insert into leads (name, owner_company_id, created_at) values ('Rolled back', $1, '2026-03-01T10:00:00Z')`, [ids.company2]);
  await q('rollback');
  await concurrently(`insert into leads (name, owner_company_id, created_at) values ('Concurrent', $1, '2026-03-01T10:00:00Z')`, [ids.company2]);
  expect(await byDay()).toEqual([{ day: '2026-03-01', n: 72 }, { day: '2026-03-02', n: 14 }]);
  expect(await q(WRONG_DAY_COUNTS)).toEqual([]);
});

/** Owners whose kept activity count (Migration20261129110000_lead_activity_owner_counts) differs from their activities counted. */
const WRONG_ACTIVITY_COUNTS = `
  with kept as (select field, key, sum(n)::int as n from lead_activity_counts group by 1, 2),
       actual as (select 'owner_company_id' as field, owner_company_id as key, count(*)::int as n from lead_activities where owner_company_id is not null group by 2
                  union all
                  select 'owner_retailer_id', owner_retailer_id, count(*)::int from lead_activities where owner_retailer_id is not null group by 2)
  select * from kept full join actual using (field, key) where kept.n is distinct from actual.n and coalesce(kept.n, actual.n) <> 0`;

test("each owner's activity count is back-filled and follows inserts, a lead's owner change, edits by hand, deletes and a lead's deletion", async () => {
  // The activities written before the migration, and every one since.
  expect(await q(WRONG_ACTIVITY_COUNTS)).toEqual([]);
  expect(await q(`select sum(n)::int as n from lead_activity_counts where field = 'owner_retailer_id' and key = $1`, [ids.retailer])).toEqual([{ n: 2 }]);
  const leads = await q(`insert into leads (name, owner_company_id) select 'Counted activities ' || i, $1 from generate_series(1, 4) i returning id`, [ids.company2]);
  const leadIds = leads.map((r) => r.id);
  await q(`insert into lead_activities (lead_id, type, data) select id, 'LeadActivity::Note', '{}' from leads, generate_series(1, 5) where id = any($1::uuid[])`, [leadIds]);
  const kept = async () =>
    (await q(`select field, sum(n)::int as n from lead_activity_counts where key = any($1::uuid[]) group by 1 order by 1`, [[ids.company2, ids.retailer2]]));
  const before = await kept();
  const company2 = (before.find((r) => r.field === 'owner_company_id')?.n ?? 0) as number;
  const retailer2 = (before.find((r) => r.field === 'owner_retailer_id')?.n ?? 0) as number;
  // A lead handed to a retailer takes its 5 activities along; one edited by hand gets its lead's owner back.
  await q(`update leads set owner_company_id = null, owner_retailer_id = $2 where id = $1`, [leadIds[0], ids.retailer2]);
  await q(`update lead_activities set owner_company_id = $2 where lead_id = $1`, [leadIds[1], ids.company]);
  await q(`update lead_activities set data = '{"edited": true}' where lead_id = any($1::uuid[])`, [leadIds]);
  // Two activities deleted, and a lead with its 5 (the cascade).
  await q(`delete from lead_activities where id in (select id from lead_activities where lead_id = $1 limit 2)`, [leadIds[2]]);
  await q(`delete from leads where id = $1`, [leadIds[3]]);
  expect(await kept()).toEqual([
    { field: 'owner_company_id', n: company2 - 5 - 2 - 5 },
    { field: 'owner_retailer_id', n: retailer2 + 5 },
  ]);
  // A rolled-back insert leaves no trace.
  await q('begin');
  await q(`insert into lead_activities (lead_id, type, data) values ($1, 'LeadActivity::Note', '{}')`, [leadIds[1]]);
  await q('rollback');
  expect(await q(WRONG_ACTIVITY_COUNTS)).toEqual([]);
});
