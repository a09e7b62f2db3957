/**
 * Lead funnel benchmark (`npm run bench:funnel`, docs/lead-loop.md "The funnel", docs/benchmarks.md).
 * Not a test: on the database `BENCH_DATABASE_URL` (migrated on start), it seeds one company with
 * BENCH_STORES (1,000) stores over 50 retailers and 10 territories and BENCH_LEADS (100,000) leads spread
 * over 2026, each offered to a store (about 60% accepted within 0 to 48 hours, 15% declined and offered to
 * a second store, 10% lapsed, the rest open), 70% with an answered first-response timer, 20% won (USD or
 * EUR amounts) and 10% lost; then sends the company admin's `leadFunnel` over the year through GraphQL
 * over HTTP (the whole app in-process on an ephemeral port), BENCH_REQUESTS (30) sequential requests per
 * grouping after 3 warm-up ones, and prints per grouping the path (kept figures or plain statement),
 * p50/p99, the statement's execution time (EXPLAIN ANALYZE, median of 5), the plain statement's for the
 * same request (median of 3) and, with BENCH_EXPLAIN=1, the plans; then times writes (`writes`).
 *
 * The seed is set-based with triggers off (the scope keys computed in the statement). Idempotent: skipped
 * when the company already has BENCH_LEADS leads (BENCH_RESEED=1 seeds again). Use a database of its own:
 * `createdb -h 127.0.0.1 -U postgres leadnet_funnel_bench`.
 */
import 'reflect-metadata';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { parseConfig } from '../src/config';
import { initAppOrm } from '../mikro-orm.config';
import { databaseOptions } from '../src/db/pool';
import { buildApp } from '../src/app';
import { generatePlainKey, hashKey, keyPrefix } from '../src/auth/api-keys';
import { positional } from '../src/db/sql';
import { organisationAdmin } from '../src/auth/caller';
import { leadFunnelKeptStatement, leadFunnelStatement, type LeadFunnelArgs } from '../src/modules/lead-outcomes/lead-funnel';
import type { LeadFunnelGroup } from '../src/modules/lead-outcomes/lead-outcome.types';

const URL = process.env.BENCH_DATABASE_URL;
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const STORES = Number(process.env.BENCH_STORES ?? 1000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
const WRITES = Number(process.env.BENCH_WRITES ?? 40);
const NAME = 'Funnel bench brand';
const YEAR = { gte: '2026-01-01', lt: '2027-01-01' };
const GROUPINGS: (string[] | null)[] = [null, ['WEEK'], ['SOURCE'], ['STORE'], ['TERRITORY'], ['RETAILER'], ['STORE', 'WEEK']];

const FUNNEL = `query($where: LeadWhere, $groupBy: [LeadFunnelGroup!]) {
  leadFunnel(where: $where, groupBy: $groupBy) {
    storeId territoryId retailerId week source leads offered accepted declined declinedByReason { reason count } expired
    contacted won lost revenue { currency amountMinor } medianSecondsToAccept } }`;

async function seed(pool: Pool): Promise<void> {
  const { rows: [existing] } = await pool.query(`select id from companies where name = $1`, [NAME]);
  if (existing && !process.env.BENCH_RESEED) {
    const { rows: [{ n }] } = await pool.query(`select count(*)::int as n from leads where owner_company_id = $1`, [existing.id]);
    if (n === LEADS) {
      console.log(`already seeded (${n.toLocaleString()} leads); BENCH_RESEED=1 to seed again`);
      return;
    }
  }
  const started = Date.now();
  const client = await pool.connect();
  try {
    await client.query('begin');
    if (existing) {
      await client.query(`set local session_replication_role = replica`);
      await client.query(`delete from lead_funnel_weeks where owner_company_id = $1 or assignee_company_id = $1`, [existing.id]);
      for (const table of ['lead_funnel_store_years', 'lead_funnel_store_weeks']) {
        await client.query(`delete from ${table} where owner_company_id = $1 or assignee_company_id = $1`, [existing.id]);
      }
      for (const table of ['lead_funnel_offer_facts', 'lead_funnel_facts', 'lead_outcomes', 'lead_offers', 'lead_response_timers']) {
        await client.query(`delete from ${table} where lead_id in (select id from leads where owner_company_id = $1)`, [existing.id]);
      }
      await client.query(`delete from leads where owner_company_id = $1`, [existing.id]);
      await client.query(`delete from api_keys where user_id in (select id from users where company_id = $1)`, [existing.id]);
      await client.query(`delete from users where company_id = $1`, [existing.id]);
      await client.query(`delete from company_retailer_locations where company_id = $1`, [existing.id]);
      await client.query(`delete from company_retailers where company_id = $1`, [existing.id]);
      await client.query(`delete from retailer_locations where retailer_id in (select id from retailers where name like $1 || '%')`, [NAME]);
      await client.query(`delete from retailers where name like $1 || '%'`, [NAME]);
      await client.query(`delete from territories where company_id = $1`, [existing.id]);
      await client.query(`delete from companies where id = $1`, [existing.id]);
      await client.query(`set local session_replication_role = origin`);
    }
    // The network, with its triggers (small): 10 territories, 50 retailers, STORES stores.
    const { rows: [company] } = await client.query(`insert into companies (name) values ($1) returning id`, [NAME]);
    await client.query(`insert into territories (company_id, name) select $1, 'Territory ' || g from generate_series(1, 10) g`, [company.id]);
    await client.query(`insert into retailers (name) select $1 || ' dealer ' || g from generate_series(1, 50) g`, [NAME]);
    await client.query(
      `insert into company_retailers (company_id, retailer_id, name, territory_id)
       select $1, r.id, r.name, t.id
         from (select id, name, (row_number() over (order by name)) % 10 as n from retailers where name like $2 || ' dealer %') r
         join (select id, (row_number() over (order by name)) % 10 as n from territories where company_id = $1) t on t.n = r.n`,
      [company.id, NAME],
    );
    await client.query(
      `insert into retailer_locations (retailer_id, name)
       select r.id, r.name || ' store ' || g from retailers r cross join generate_series(1, ceil($2::int / 50.0)::int) g
        where r.name like $1 || ' dealer %'`,
      [NAME, STORES],
    );
    await client.query(
      `insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id, name)
       select $1, cr.id, rl.id, rl.name
         from retailer_locations rl join company_retailers cr on cr.retailer_id = rl.retailer_id and cr.company_id = $1
        order by rl.name limit $2`,
      [company.id, STORES],
    );
    const key = generatePlainKey();
    const { rows: [admin] } = await client.query(
      `insert into users (email, name, role, company_id) values ('admin@funnel-bench.example.test', 'Bench admin', 'company_admin', $1) returning id`, [company.id]);
    await client.query(`insert into api_keys (user_id, key_hash, prefix, label) values ($1, $2, $3, 'bench')`, [admin.id, hashKey(key), keyPrefix(key)]);
    await client.query(`create table if not exists bench_funnel_key (key text not null)`);
    await client.query(`delete from bench_funnel_key`);
    await client.query(`insert into bench_funnel_key values ($1)`, [key]);
    const network = Date.now();

    await client.query(`set local session_replication_role = replica`);
    await client.query(`set local work_mem = '256MB'`);
    await client.query(
      `create temp table seed on commit drop as
       with stores as (select id, (row_number() over (order by id) - 1)::int as n from company_retailer_locations where company_id = $1),
            g as (select g, abs(hashtext('s' || g)) % (select count(*) from stores) as pick,
                         timestamptz '2026-01-01' + g * (interval '364 days' / $2::int) as created_at
                    from generate_series(1, $2::int) g)
       select g.g, gen_random_uuid() as id, g.created_at, s.id as store_id, p.id as previous_store_id,
              abs(hashtext('r' || g.g)) % 100 as r, abs(hashtext('o' || g.g)) % 100 as o,
              (abs(hashtext('m' || g.g)) % 2880) * interval '1 minute' as wait,
              (array['web', 'partner', 'phone'])[1 + abs(hashtext('src' || g.g)) % 3] as source
         from g join stores s on s.n = g.pick join stores p on p.n = (g.pick + 1) % (select count(*) from stores)`,
      [company.id, LEADS],
    );
    await client.query(
      `insert into leads (id, name, status, owner_company_id, assignee_id, assignee_company_id, assignee_territory_id, assignee_company_retailer_id,
                          assignee_retailer_id, assignee_retailer_location_id, source_type, created_at, updated_at)
       select s.id, 'Lead ' || s.g, case when s.o < 20 then 'Won' when s.o < 30 then 'Lost' else 'New' end, $1, a.id, a.company_id,
              coalesce(a.territory_id, cr.territory_id), a.company_retailer_id, rl.retailer_id, a.retailer_location_id, s.source, s.created_at, s.created_at
         from seed s join company_retailer_locations a on a.id = s.store_id
         left join company_retailers cr on cr.id = a.company_retailer_id
         left join retailer_locations rl on rl.id = a.retailer_location_id
        order by s.g`,
      [company.id],
    );
    // Declined (15%): first offered to the neighbouring store, which declined within the wait, then here.
    await client.query(
      `insert into lead_offers (lead_id, store_id, company_id, offered_at, state, answered_at, decline_reason, handovers)
       select s.id, s.previous_store_id, $1, s.created_at, 'declined', s.created_at + s.wait / 10,
              (array['too_far', 'out_of_stock', 'no_capacity', 'not_our_products', 'duplicate', 'other'])[1 + s.r % 6], 0
         from seed s where s.r between 60 and 74`,
      [company.id],
    );
    await client.query(
      `insert into lead_offers (lead_id, store_id, company_id, offered_at, state, answered_at, handovers)
       select s.id, s.store_id, $1, s.created_at + case when s.r between 60 and 74 then s.wait / 10 else interval '0' end,
              case when s.r < 60 then 'accepted' when s.r < 75 then 'open' when s.r < 85 then 'expired' else 'open' end,
              case when s.r < 60 then s.created_at + s.wait when s.r between 75 and 84 then s.created_at + interval '1 day' end,
              case when s.r between 60 and 74 then 1 else 0 end
         from seed s order by s.g`,
      [company.id],
    );
    await client.query(
      `insert into lead_response_timers (lead_id, store_id, first_assigned_at, assigned_at, computed, due_at, answered_at)
       select s.id, s.store_id, s.created_at, s.created_at, true, s.created_at + interval '4 hours',
              case when s.r < 70 then s.created_at + s.wait end
         from seed s order by s.g`,
    );
    await client.query(
      `insert into lead_outcomes (lead_id, result, amount_minor, currency, lost_reason, closed_on, recorded_at)
       select s.id, case when s.o < 20 then 'won' else 'lost' end,
              case when s.o < 20 then 1000 + abs(hashtext('a' || s.g)) % 500000 end,
              case when s.o < 20 then (array['USD', 'EUR'])[1 + s.g % 2] end,
              case when s.o >= 20 then 'Price' end, (s.created_at + interval '10 days')::date, s.created_at + interval '10 days'
         from seed s where s.o < 30 order by s.g`,
    );
    await client.query(`set local session_replication_role = origin`);
    // The kept funnel figures of the seeded leads (their triggers were off): the facts, and the rollups from them.
    const kept = Date.now();
    await client.query(`select leadnet_funnel_facts_refresh(array(select id from leads where owner_company_id = $1))`, [company.id]);
    console.log(`kept funnel figures of ${LEADS.toLocaleString()} leads in ${((Date.now() - kept) / 1000).toFixed(1)} s`);
    await client.query('commit');
    for (const table of ['leads', 'lead_offers', 'lead_response_timers', 'lead_outcomes', 'company_retailer_locations', 'company_retailers',
      'lead_funnel_facts', 'lead_funnel_offer_facts', 'lead_funnel_weeks', 'lead_funnel_store_years', 'lead_funnel_store_weeks']) {
      await client.query(`vacuum analyze ${table}`);
    }
    console.log(`seeded ${STORES.toLocaleString()} stores in ${((network - started) / 1000).toFixed(1)} s, ${LEADS.toLocaleString()} leads with offers, timers and outcomes in ${((Date.now() - network) / 1000).toFixed(1)} s (with vacuum analyze)`);
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** The triggers that keep the funnel's facts (Migration20261207000500_funnel_rollups), switched off for the "without" rounds. */
const FUNNEL_TRIGGERS: [string, string][] = ['leads', 'lead_offers', 'lead_outcomes', 'lead_response_timers']
  .flatMap((table) => ['inserted', 'updated', ...(table === 'leads' ? [] : ['deleted'])].map((op) => [table, `funnel_${table}_${op}`] as [string, string]));

/**
 * Writes with and without the kept funnel figures (BENCH_WRITES pairs, 0 skips): a lead created over
 * REST by the admin for a store, then accepted by the store's user, timed each; rounds of 10 alternate
 * the funnel's triggers on and off on the same database (the first 5 of a round, after the switch, not
 * timed: switching triggers drops the connections' cached plans); then the bench's leads are deleted.
 */
async function writes(pool: Pool, base: string, companyId: string, adminKey: string): Promise<void> {
  const { rows: [store] } = await pool.query(`select id from company_retailer_locations where company_id = $1 order by id limit 1`, [companyId]);
  const storeKey = generatePlainKey();
  const { rows: [user] } = await pool.query(
    `insert into users (email, name, role, company_id) values ('store-' || gen_random_uuid() || '@funnel-bench.example.test', 'Bench store user', 'company_location_user', $1) returning id`, [companyId]);
  await pool.query(`insert into user_company_retailer_locations (user_id, company_retailer_location_id) values ($1, $2)`, [user.id, store.id]);
  await pool.query(`insert into api_keys (user_id, key_hash, prefix, label) values ($1, $2, $3, 'bench')`, [user.id, hashKey(storeKey), keyPrefix(storeKey)]);
  const call = async (key: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const times = { on: { create: [] as number[], accept: [] as number[] }, off: { create: [] as number[], accept: [] as number[] } };
  const toggle = async (on: boolean) => {
    for (const [table, trigger] of FUNNEL_TRIGGERS) await pool.query(`alter table ${table} ${on ? 'enable' : 'disable'} trigger ${trigger}`);
  };
  let n = 0;
  try {
    for (let round = 0; round < Math.ceil(WRITES / 10) * 2; round++) {
      const mode = round % 2 === 0 ? 'on' : 'off';
      await toggle(mode === 'on');
      for (let i = 0; i < 15; i++) {
        const t0 = process.hrtime.bigint();
        const lead = await call(adminKey, '/v1/leads', { lead: { name: `Bench write ${++n}`, emails: [{ email: `write${n}.${Date.now()}@funnel-bench.example.test` }], assignee_id: store.id } });
        const t1 = process.hrtime.bigint();
        await call(storeKey, `/v1/leads/${lead.id}/accept`, {});
        const t2 = process.hrtime.bigint();
        if (i < 5) continue;
        times[mode].create.push(Number(t1 - t0) / 1e6);
        times[mode].accept.push(Number(t2 - t1) / 1e6);
      }
    }
  } finally {
    await toggle(true);
    // The bench's own writes go again (the seed stays BENCH_LEADS leads).
    await pool.query(`delete from leads where name like 'Bench write %' and owner_company_id = $1`, [companyId]);
    await pool.query(`delete from api_keys where user_id = $1`, [user.id]);
    await pool.query(`delete from user_company_retailer_locations where user_id = $1`, [user.id]);
    await pool.query(`delete from users where id = $1`, [user.id]);
  }
  console.log(`\nwrites over REST (${times.on.create.length} per mode, rounds of 10 alternating), load average ${load()}`);
  for (const mode of ['on', 'off'] as const) {
    const c = [...times[mode].create].sort((a, b) => a - b);
    const a = [...times[mode].accept].sort((a, b) => a - b);
    console.log(`funnel triggers ${mode.padEnd(3)}: create p50 ${percentile(c, 50).toFixed(1)} ms p90 ${percentile(c, 90).toFixed(1)} ms, accept p50 ${percentile(a, 50).toFixed(1)} ms p90 ${percentile(a, 90).toFixed(1)} ms`);
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' ');

async function main(): Promise<void> {
  if (!URL) throw new Error('BENCH_DATABASE_URL is required (a database of its own: createdb -h 127.0.0.1 -U postgres leadnet_funnel_bench)');
  const config = parseConfig({
    DATABASE_URL: URL, LOG_LEVEL: 'silent', WEBHOOK_WORKER: 'false', NOTIFICATION_WORKER: 'false', SEARCH_INDEXER: 'false',
    RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0', DB_STATEMENT_TIMEOUT_MS: '60000',
  });
  const orm = await initAppOrm(URL, databaseOptions(config.database));
  const pool = new Pool({ connectionString: URL, max: 2 });
  const { app, stop } = await buildApp(config, orm);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await seed(pool);
    const { rows: [{ key }] } = await pool.query(`select key from bench_funnel_key`);
    const { rows: [company] } = await pool.query(`select id from companies where name = $1`, [NAME]);
    // The statement the app sends for the admin's request (its own leads arm reads no lead here: the admin made none).
    const admin = { ...organisationAdmin({ companyId: company.id }), userId: (await pool.query(`select id from users where email = 'admin@funnel-bench.example.test'`)).rows[0].id };
    // The statement the app sends: the kept figures' when they answer, else the plain one.
    const statementOf = (groupBy: string[] | null) => {
      const args = { where: { createdAt: YEAR }, groupBy: groupBy as LeadFunnelGroup[] | null } as LeadFunnelArgs;
      const kept = leadFunnelKeptStatement(admin, args);
      const st = kept ?? leadFunnelStatement(admin, args);
      const plain = leadFunnelStatement(admin, args);
      return {
        sql: positional(st.sql, st.bindings), bindings: st.bindings, path: kept ? 'kept' : 'plain',
        plain: { sql: positional(plain.sql, plain.bindings), bindings: plain.bindings },
      };
    };
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const ask = async (groupBy: string[] | null) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: FUNNEL, variables: { where: { createdAt: YEAR }, groupBy } }),
      });
      const body = (await res.json()) as any;
      if (res.status !== 200 || body.errors) throw new Error(`leadFunnel failed: ${res.status} ${JSON.stringify(body.errors)}`);
      return body.data.leadFunnel as any[];
    };
    const executed = async (st: { sql: string; bindings: unknown[] }, explain = false) => {
      const { rows } = await pool.query(`explain (analyze${explain ? ', buffers' : ''}) ${st.sql}`, st.bindings as unknown[]);
      const lines = rows.map((r) => r['QUERY PLAN'] as string);
      return { ms: Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))![1]), plan: lines.join('\n') };
    };

    console.log(`\nleadFunnel, company admin, where createdAt in [${YEAR.gte}, ${YEAR.lt}), ${REQUESTS} sequential requests per grouping (GraphQL over HTTP)`);
    console.log(`load average before: ${load()}`);
    console.log(`${'groupBy'.padEnd(14)} ${'path'.padEnd(6)} ${'rows'.padStart(6)} ${'leads'.padStart(8)} ${'offered'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'statement ms'.padStart(13)} ${'plain ms'.padStart(9)}`);
    for (const groupBy of REQUESTS > 0 ? GROUPINGS : []) {
      for (let i = 0; i < 3; i++) await ask(groupBy);
      const times: number[] = [];
      let rows: any[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = process.hrtime.bigint();
        rows = await ask(groupBy);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      times.sort((a, b) => a - b);
      const statement = statementOf(groupBy ? groupBy.map((g) => g.toLowerCase()) : null);
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) runs.push((await executed(statement)).ms);
      runs.sort((a, b) => a - b);
      // The plain statement for the same request, for comparison under the same load.
      const plainRuns: number[] = [];
      for (let i = 0; i < (statement.path === 'plain' ? 0 : 3); i++) plainRuns.push((await executed(statement.plain)).ms);
      plainRuns.sort((a, b) => a - b);
      const label = groupBy ? groupBy.join(', ') : 'none';
      const sum = (k: string) => rows.reduce((n, r) => n + r[k], 0);
      console.log(`${label.padEnd(14)} ${statement.path.padEnd(6)} ${String(rows.length).padStart(6)} ${String(sum('leads')).padStart(8)} ${String(sum('offered')).padStart(8)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 99).toFixed(1).padStart(8)} ${runs[2].toFixed(1).padStart(13)} ${(plainRuns.length ? plainRuns[1] : runs[2]).toFixed(1).padStart(9)}`);
      if (process.env.BENCH_EXPLAIN === '1') console.log((await executed(statement, true)).plan);
    }
    console.log(`load average after: ${load()}`);
    if (WRITES > 0) await writes(pool, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, company.id, key);
  } finally {
    server.close();
    await stop();
    await orm.close(true);
    await pool.end();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
