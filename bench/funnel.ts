/**
 * Lead funnel benchmark (`npm run bench:funnel`, docs/lead-loop.md "The funnel", docs/benchmarks.md).
 * Not a test: on the database `BENCH_DATABASE_URL` (migrated on start), it seeds one company with
 * BENCH_STORES (1,000) stores over 50 retailers and 10 territories and BENCH_LEADS (100,000) leads spread
 * over 2026, each offered to a store (about 60% accepted within 0 to 48 hours, 15% declined and offered to
 * a second store, 10% lapsed, the rest open), 70% with an answered first-response timer, 20% won (USD or
 * EUR amounts) and 10% lost; then sends the company admin's `leadFunnel` over the year through GraphQL
 * over HTTP (the whole app in-process on an ephemeral port), BENCH_REQUESTS (30) sequential requests per
 * grouping after 3 warm-up ones, and prints p50/p99 per grouping, the statement's execution time
 * (EXPLAIN ANALYZE, median of 5) and, with BENCH_EXPLAIN=1, its plans.
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
import { leadFunnelStatement, type LeadFunnelArgs } from '../src/modules/lead-outcomes/lead-funnel';
import type { LeadFunnelGroup } from '../src/modules/lead-outcomes/lead-outcome.types';

const URL = process.env.BENCH_DATABASE_URL;
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const STORES = Number(process.env.BENCH_STORES ?? 1000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30);
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
      for (const table of ['lead_outcomes', 'lead_offers', 'lead_response_timers']) {
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
    await client.query('commit');
    for (const table of ['leads', 'lead_offers', 'lead_response_timers', 'lead_outcomes', 'company_retailer_locations', 'company_retailers']) {
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
    const statementOf = (groupBy: string[] | null) => {
      const st = leadFunnelStatement(admin, { where: { createdAt: YEAR }, groupBy: groupBy as LeadFunnelGroup[] | null } as LeadFunnelArgs);
      return { sql: positional(st.sql, st.bindings), bindings: st.bindings };
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
    console.log(`${'groupBy'.padEnd(14)} ${'rows'.padStart(6)} ${'leads'.padStart(8)} ${'offered'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'statement ms'.padStart(13)}`);
    for (const groupBy of GROUPINGS) {
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
      const label = groupBy ? groupBy.join(', ') : 'none';
      const sum = (k: string) => rows.reduce((n, r) => n + r[k], 0);
      console.log(`${label.padEnd(14)} ${String(rows.length).padStart(6)} ${String(sum('leads')).padStart(8)} ${String(sum('offered')).padStart(8)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 99).toFixed(1).padStart(8)} ${runs[2].toFixed(1).padStart(13)}`);
      if (process.env.BENCH_EXPLAIN === '1') console.log((await executed(statement, true)).plan);
    }
    console.log(`load average after: ${load()}`);
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
