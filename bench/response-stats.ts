/**
 * Response-time analytics benchmark (`npm run bench:response-stats`, docs/response-times.md "Speed").
 * Not a test: on the database `BENCH_DATABASE_URL` (migrated on start), it seeds one company with
 * BENCH_STORES (1,000) stores over 50 retailers and 10 territories and BENCH_LEADS (100,000) leads spread
 * over 2026, each assigned to a store and holding a first-response timer (about 80% answered, some
 * breached), then sends the company admin's `leadResponseStats` over the year through GraphQL over HTTP
 * (the whole app in-process on an ephemeral port), BENCH_REQUESTS (50) sequential requests per grouping
 * after 5 warm-up ones, and prints p50/p99 per grouping and the plan (EXPLAIN ANALYZE) of the statement.
 *
 * The seed is set-based (a few statements, docs/scaling.md "Loading many leads" style): leads and timers
 * are written with triggers off, their scope keys computed in the statement, and the kept lead counts
 * counted again. Idempotent: skipped when the company already has BENCH_LEADS leads (BENCH_RESEED=1
 * seeds again). Use a database of its own: `createdb -h 127.0.0.1 -U postgres leadnet_stats_bench`.
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

const URL = process.env.BENCH_DATABASE_URL;
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const STORES = Number(process.env.BENCH_STORES ?? 1000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const NAME = 'Response stats bench brand';
const YEAR = { gte: '2026-01-01', lt: '2027-01-01' };
const GROUPINGS: (string[] | null)[] = [null, ['WEEK'], ['STORE'], ['TERRITORY'], ['RETAILER'], ['STORE', 'WEEK']];
/**
 * The same leads by the per-lead facts path: a filter with its lower bound twice is not read from the
 * kept totals (docs/response-times.md "Which path answers"), so each grouping is also measured as the
 * facts alone answer it, in the same run, and both answers must be equal.
 */
const FACTS_PATH = { _and: [{ createdAt: { gte: YEAR.gte } }, { createdAt: { gte: YEAR.gte } }, { createdAt: { lt: YEAR.lt } }] };

const STATS = `query($where: LeadWhere, $groupBy: [ResponseStatsGroup!]) {
  leadResponseStats(where: $where, groupBy: $groupBy) { storeId week received answered medianFirstResponseSeconds p90FirstResponseSeconds breaches won lost } }`;

async function seed(pool: Pool): Promise<string> {
  const { rows: [existing] } = await pool.query(`select id from companies where name = $1`, [NAME]);
  if (existing && !process.env.BENCH_RESEED) {
    const { rows: [{ n }] } = await pool.query(
      `select count(*)::int as n from leads l join lead_response_timers t on t.lead_id = l.id where l.owner_company_id = $1`, [existing.id]);
    if (n === LEADS) {
      console.log(`already seeded (${n.toLocaleString()} leads with timers); BENCH_RESEED=1 to seed again`);
      return existing.id;
    }
  }
  const started = Date.now();
  const client = await pool.connect();
  try {
    await client.query('begin');
    if (existing) {
      await client.query(`set local session_replication_role = replica`);
      await client.query(`delete from lead_response_timers where lead_id in (select id from leads where owner_company_id = $1)`, [existing.id]);
      // Triggers (and so cascades) are off here: the kept statistics go by hand.
      await client.query(`delete from lead_response_facts where owner_company_id = $1`, [existing.id]);
      await client.query(`delete from lead_response_rollups where owner_company_id = $1`, [existing.id]);
      await client.query(`delete from lead_response_store_weeks where owner_company_id = $1`, [existing.id]);
      await client.query(`delete from leads where owner_company_id = $1`, [existing.id]);
      await client.query(`delete from api_keys where user_id in (select id from users where company_id = $1)`, [existing.id]);
      await client.query(`delete from users where company_id = $1`, [existing.id]);
      await client.query(`delete from company_retailer_locations where company_id = $1`, [existing.id]);
      await client.query(`delete from crl_key_counts where key = $1 or key in (select id from retailers where name like $2 || '%')`, [existing.id, NAME]);
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
    // The company admin, with an API key.
    const key = generatePlainKey();
    const { rows: [admin] } = await client.query(
      `insert into users (email, name, role, company_id) values ('admin@stats-bench.example.test', 'Bench admin', 'company_admin', $1) returning id`, [company.id]);
    await client.query(`insert into api_keys (user_id, key_hash, prefix, label) values ($1, $2, $3, 'bench')`, [admin.id, hashKey(key), keyPrefix(key)]);
    await client.query(`create table if not exists bench_response_stats_key (key text not null)`);
    await client.query(`delete from bench_response_stats_key`);
    await client.query(`insert into bench_response_stats_key values ($1)`, [key]);
    const network = Date.now();

    // The leads and their timers, triggers off: the assignee's scope keys computed here (as
    // leadnet_lead_scope_keys does), deterministic picks (hashtext).
    await client.query(`set local session_replication_role = replica`);
    await client.query(`set local work_mem = '256MB'`);
    await client.query(
      `create temp table seed on commit drop as
       with stores as (select id, (row_number() over (order by id) - 1)::int as n from company_retailer_locations where company_id = $1),
            g as (select g, abs(hashtext('s' || g)) % (select count(*) from stores) as pick,
                         timestamptz '2026-01-01' + g * (interval '364 days' / $2::int) as created_at
                    from generate_series(1, $2::int) g)
       select g.g, gen_random_uuid() as id, g.created_at, s.id as store_id,
              (array['New','New','New','Contacted','Contacted','Qualified','Won','Lost'])[1 + abs(hashtext('t' || g.g)) % 8] as status,
              abs(hashtext('r' || g.g)) % 100 as r,
              (abs(hashtext('m' || g.g)) % 2880) * interval '1 minute' as wait
         from g join stores s on s.n = g.pick`,
      [company.id, LEADS],
    );
    await client.query(
      `insert into leads (id, name, status, owner_company_id, assignee_id, assignee_company_id, assignee_territory_id, assignee_company_retailer_id,
                          assignee_retailer_id, assignee_retailer_location_id, source_type, created_at, updated_at)
       select s.id, 'Lead ' || s.g, s.status, $1, a.id, a.company_id, coalesce(a.territory_id, cr.territory_id), a.company_retailer_id,
              rl.retailer_id, a.retailer_location_id, 'Bench', s.created_at, s.created_at
         from seed s join company_retailer_locations a on a.id = s.store_id
         left join company_retailers cr on cr.id = a.company_retailer_id
         left join retailer_locations rl on rl.id = a.retailer_location_id
        order by s.g`,
      [company.id],
    );
    // Assigned with the create; due 4 hours later; 80% answered (within 0 to 48 hours), breached when the
    // answer came after the due time or never did.
    await client.query(
      `insert into lead_response_timers (lead_id, store_id, first_assigned_at, assigned_at, computed, due_at, answered_at, breached_at)
       select s.id, s.store_id, s.created_at, s.created_at, true, s.created_at + interval '4 hours',
              case when s.r < 80 then s.created_at + s.wait end,
              case when s.r >= 80 or s.wait > interval '4 hours' then s.created_at + interval '4 hours' end
         from seed s order by s.g`,
    );
    await client.query(`set local session_replication_role = origin`);
    // The kept response statistics (Migration20261127130000_response_stats; the facts' triggers keep the
    // rollup and the store weeks of Migration20261128100000_response_store_stats), by the function the triggers call.
    await client.query(`select leadnet_response_facts_refresh(array(select id from leads where owner_company_id = $1))`, [company.id]);
    // The kept lead counts of the company (Migration20261124170000_lead_owner_counts, Migration20261130100000_lead_day_counts), counted again.
    await client.query(`delete from lead_counts where field = 'owner_company_id' and key = $1`, [company.id]);
    await client.query(
      `insert into lead_counts (field, key, slot, n) select 'owner_company_id', $1::uuid, 0, count(*) from leads where owner_company_id = $1`,
      [company.id],
    );
    await client.query(`delete from lead_day_counts where field = 'owner_company_id' and key = $1`, [company.id]);
    await client.query(
      `insert into lead_day_counts (field, key, day, slot, n)
       select 'owner_company_id', $1::uuid, (created_at at time zone 'UTC')::date, 0, count(*) from leads where owner_company_id = $1 group by 3`,
      [company.id],
    );
    await client.query('commit');
    await client.query('vacuum analyze leads');
    await client.query('vacuum analyze lead_response_timers');
    await client.query('vacuum analyze lead_response_facts');
    await client.query('vacuum analyze lead_response_rollups');
    await client.query('vacuum analyze lead_response_store_weeks');
    await client.query('vacuum analyze company_retailer_locations');
    console.log(`seeded ${STORES.toLocaleString()} stores in ${((network - started) / 1000).toFixed(1)} s, ${LEADS.toLocaleString()} leads with timers in ${((Date.now() - network) / 1000).toFixed(1)} s (with vacuum analyze)`);
    return company.id;
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main(): Promise<void> {
  if (!URL) throw new Error('BENCH_DATABASE_URL is required (a database of its own: createdb -h 127.0.0.1 -U postgres leadnet_stats_bench)');
  const config = parseConfig({
    DATABASE_URL: URL, LOG_LEVEL: 'silent', WEBHOOK_WORKER: 'false', NOTIFICATION_WORKER: 'false', SEARCH_INDEXER: 'false',
    RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0', DB_STATEMENT_TIMEOUT_MS: '60000',
  });
  // The statements the app sends, to explain the stats statement afterwards.
  let last: { sql: string; bindings: unknown[] } | undefined;
  const orm = await initAppOrm(URL, databaseOptions(config.database));
  (orm.em.getConnection() as any).getKnex().on('query', (q: { sql: string; bindings?: unknown[] }) => {
    if (q.sql.includes('lead_response_')) last = { sql: q.sql, bindings: q.bindings ?? [] };
  });
  const pool = new Pool({ connectionString: URL, max: 2 });
  const { app, stop } = await buildApp(config, orm);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const companyId = await seed(pool);
    const { rows: [{ key }] } = await pool.query(`select key from bench_response_stats_key`);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const ask = async (groupBy: string[] | null, where: unknown = { createdAt: YEAR }, as = key) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': as },
        body: JSON.stringify({ query: STATS, variables: { where, groupBy } }),
      });
      const body = (await res.json()) as any;
      if (res.status !== 200 || body.errors) throw new Error(`leadResponseStats failed: ${res.status} ${JSON.stringify(body.errors)}`);
      return body.data.leadResponseStats as any[];
    };

    console.log(`\nleadResponseStats, company admin, where createdAt in [${YEAR.gte}, ${YEAR.lt}), ${REQUESTS} sequential requests per grouping (GraphQL over HTTP)`);
    console.log(`load average before: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    console.log(`HTTP: kept = as sent; facts = the same figures from the per-lead facts (requests alternate, equal answers checked)`);
    console.log(`${'groupBy'.padEnd(16)} ${'rows'.padStart(6)} ${'received'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'facts p50'.padStart(10)} ${'facts p99'.padStart(10)}`);
    const plans: { groupBy: string; kept: { sql: string; bindings: unknown[] }; facts: { sql: string; bindings: unknown[] } }[] = [];
    for (const groupBy of REQUESTS > 0 ? GROUPINGS : []) {
      for (let i = 0; i < 3; i++) await ask(groupBy);
      for (let i = 0; i < 3; i++) await ask(groupBy, FACTS_PATH);
      const times: number[] = [];
      const factTimes: number[] = [];
      let rows: any[] = [];
      let factRows: any[] = [];
      let kept = last!;
      let facts = last!;
      for (let i = 0; i < REQUESTS; i++) {
        let t0 = process.hrtime.bigint();
        rows = await ask(groupBy);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        kept = last!;
        t0 = process.hrtime.bigint();
        factRows = await ask(groupBy, FACTS_PATH);
        factTimes.push(Number(process.hrtime.bigint() - t0) / 1e6);
        facts = last!;
      }
      if (JSON.stringify(rows) !== JSON.stringify(factRows)) throw new Error(`groupBy ${groupBy}: the kept and the facts answers differ`);
      times.sort((a, b) => a - b);
      factTimes.sort((a, b) => a - b);
      const label = groupBy ? groupBy.join(', ') : 'none';
      const received = rows.reduce((n, r) => n + r.received, 0);
      console.log(`${label.padEnd(16)} ${String(rows.length).padStart(6)} ${String(received).padStart(9)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 99).toFixed(1).padStart(8)} ${times[times.length - 1].toFixed(1).padStart(8)} ${percentile(factTimes, 50).toFixed(1).padStart(10)} ${percentile(factTimes, 99).toFixed(1).padStart(10)}`);
      plans.push({ groupBy: label, kept, facts });
    }
    console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    // The statements alone, side by side: EXPLAIN ANALYZE of each, alternating, 5 times; the median execution time.
    const executed = async (st: { sql: string; bindings: unknown[] }, explain = false) => {
      const { rows } = await pool.query(`explain (analyze${explain ? ', buffers' : ''}) ${st.sql}`, st.bindings as unknown[]);
      const lines = rows.map((r) => r['QUERY PLAN'] as string);
      return { ms: Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))![1]), plan: lines.join('\n') };
    };
    console.log(`\nstatement execution (EXPLAIN ANALYZE, median of 5, alternating), load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    console.log(`${'groupBy'.padEnd(16)} ${'kept ms'.padStart(9)} ${'facts ms'.padStart(9)} ${'ratio'.padStart(7)}`);
    for (const p of plans) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 5; i++) {
        a.push((await executed(p.kept)).ms);
        b.push((await executed(p.facts)).ms);
      }
      a.sort((x, y) => x - y);
      b.sort((x, y) => x - y);
      console.log(`${p.groupBy.padEnd(16)} ${a[2].toFixed(1).padStart(9)} ${b[2].toFixed(1).padStart(9)} ${(b[2] / a[2]).toFixed(1).padStart(6)}x`);
    }
    console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    for (const p of plans.filter((x) => process.env.BENCH_EXPLAIN_ALL === '1' || x.groupBy === 'STORE, WEEK')) {
      console.log(`\nEXPLAIN (ANALYZE, BUFFERS), groupBy ${p.groupBy}:\n${p.kept.sql}\n-- ${JSON.stringify(p.kept.bindings)}`);
      console.log((await executed(p.kept, true)).plan);
    }
    // A narrower role reads the facts: a territory manager of one of the 10 territories (a new key each run).
    if (REQUESTS > 0) {
      const { rows: [territory] } = await pool.query(`select id from territories where company_id = $1 order by name limit 1`, [companyId]);
      await pool.query(`delete from api_keys where user_id in (select id from users where email = 'territory@stats-bench.example.test')`);
      await pool.query(`delete from users where email = 'territory@stats-bench.example.test'`);
      const { rows: [manager] } = await pool.query(
        `insert into users (email, name, role, company_id, territory_id) values ('territory@stats-bench.example.test', 'Bench territory manager', 'company_territory_manager', $1, $2) returning id`,
        [companyId, territory.id]);
      const managerKey = generatePlainKey();
      await pool.query(`insert into api_keys (user_id, key_hash, prefix, label) values ($1, $2, $3, 'bench')`, [manager.id, hashKey(managerKey), keyPrefix(managerKey)]);
      console.log(`\nterritory manager (one territory of 10), same year, ${REQUESTS} requests, then the statement's plan`);
      for (const groupBy of [null, ['STORE'], ['STORE', 'WEEK']]) {
        for (let i = 0; i < 3; i++) await ask(groupBy, { createdAt: YEAR }, managerKey);
        const times: number[] = [];
        let rows: any[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const t0 = process.hrtime.bigint();
          rows = await ask(groupBy, { createdAt: YEAR }, managerKey);
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        times.sort((a, b) => a - b);
        const label = groupBy ? groupBy.join(', ') : 'none';
        const plan = (await executed(last!, true)).plan;
        console.log(`${label.padEnd(16)} rows ${String(rows.length).padStart(5)}, received ${rows.reduce((n, r) => n + r.received, 0)}, p50 ${percentile(times, 50).toFixed(1)} ms, statement ${/Execution Time: ([\d.]+)/.exec(plan)![1]} ms`);
        if (process.env.BENCH_EXPLAIN_ALL === '1') console.log(plan);
      }
    }
    if (process.env.BENCH_WRITES !== '0') await writeCost(pool);
  } finally {
    server.close();
    await stop();
    await orm.close(true);
    await pool.end();
  }
}

/**
 * What the kept statistics add to a write (docs/response-times.md "Speed"): a lead's status change
 * timed by EXPLAIN ANALYZE's trigger times (all of them), and its fact's change with each kept table's
 * trigger apart (the company rollup, the store weeks), for a lead created in the year's first week (its
 * store's running totals of 52 weeks follow) and one in the last, in transactions rolled back. Then contention:
 * BENCH_WRITERS (8) connections changing the status (Won <-> Lost, 20 times each, so it ends as it began)
 * of leads of one store in one week, and of different stores in one week, against one at a time.
 */
async function writeCost(pool: Pool): Promise<void> {
  const { rows: [company] } = await pool.query(`select id from companies where name = $1`, [NAME]);
  const pick = async (order: 'asc' | 'desc') => (await pool.query(
    `select id from leads where owner_company_id = $1 and status in ('Won', 'Lost') and created_at >= '2026-01-05' order by created_at ${order} limit 1`, [company.id])).rows[0].id as string;
  // Trigger times (ms) of one statement, by trigger name, in a transaction rolled back.
  const triggers = async (sql: string, lead: string) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query(`explain (analyze, format json) ${sql}`, [lead]);
      return Object.fromEntries((rows[0]['QUERY PLAN'][0].Triggers ?? []).map((t: any) => [t['Trigger Name'], t.Time as number])) as Record<string, number>;
    } finally {
      await client.query('rollback');
      client.release();
    }
  };
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  console.log(`\nwrite cost (ms, median of 9, rolled back), load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  console.log(`${''.padEnd(24)} ${'status change, all triggers'.padStart(28)} ${'fact change: rollup'.padStart(20)} ${'store weeks'.padStart(12)}`);
  // 2026-01-05 is the year's first Monday: that lead's running totals span 52 weeks, the last one's 1.
  for (const [label, order] of [['lead of the first week', 'asc'], ['lead of the last week', 'desc']] as const) {
    const lead = await pick(order);
    const all: number[] = [];
    const rollup: number[] = [];
    const storeWeeks: number[] = [];
    for (let i = 0; i < 9; i++) {
      const status = await triggers(`update leads set status = case when status = 'Won' then 'Lost' else 'Won' end where id = $1`, lead);
      all.push(Object.values(status).reduce((n, x) => n + x, 0));
      // The fact's own change, as the status change's trigger makes it: each kept table's trigger apart.
      const fact = await triggers(`update lead_response_facts set won = not won, lost = not lost where lead_id = $1`, lead);
      rollup.push(fact.response_rollups_facts_updated);
      storeWeeks.push(fact.response_store_weeks_facts_updated);
    }
    console.log(`${label.padEnd(24)} ${median(all).toFixed(2).padStart(28)} ${median(rollup).toFixed(2).padStart(20)} ${median(storeWeeks).toFixed(2).padStart(12)}`);
  }

  const writers = Number(process.env.BENCH_WRITERS ?? 8);
  const { rows: [week] } = await pool.query(
    `select f.assignee_id, f.created_week from lead_response_facts f where f.owner_company_id = $1 and (f.won or f.lost) group by 1, 2 order by count(*) desc limit 1`, [company.id]);
  const sameStore = (await pool.query(`select lead_id from lead_response_facts where assignee_id = $1 and created_week = $2 and (won or lost)`, [week.assignee_id, week.created_week])).rows.map((r) => r.lead_id);
  const manyStores = (await pool.query(
    `select distinct on (assignee_id) lead_id from lead_response_facts where owner_company_id = $1 and created_week = $2 and (won or lost) order by assignee_id, lead_id limit $3`,
    [company.id, week.created_week, writers])).rows.map((r) => r.lead_id);
  const writersPool = new Pool({ connectionString: URL, max: writers });
  const flip = async (lead: string) => {
    await writersPool.query(`update leads set status = case when status = 'Won' then 'Lost' else 'Won' end where id = $1`, [lead]);
  };
  const run = async (leads: string[], concurrent: number) => {
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: concurrent }, async (_, w) => {
      for (let i = 0; i < 20; i++) await flip(leads[w % leads.length]);
    }));
    return Number(process.hrtime.bigint() - started) / 1e6 / (20 * concurrent);
  };
  try {
    console.log(`contention: ${writers} writers x 20 status changes (ms per write, wall time / writes), week ${week.created_week.toISOString?.().slice(0, 10) ?? week.created_week}`);
    console.log(`  one at a time              ${(await run(sameStore, 1)).toFixed(2)}`);
    console.log(`  one store, ${String(Math.min(writers, sameStore.length)).padStart(2)} leads       ${(await run(sameStore, writers)).toFixed(2)}  (${sameStore.length} leads of the store that week)`);
    console.log(`  ${String(manyStores.length).padStart(2)} stores, 1 lead each   ${(await run(manyStores, writers)).toFixed(2)}`);
    console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  } finally {
    await writersPool.end();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
