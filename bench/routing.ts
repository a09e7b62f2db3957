/**
 * Lead routing benchmark (`npm run bench:routing`). Not a test: it seeds one company with 100,000
 * receiving stores across North America (US ZIP and Canadian FSA centroids, jittered), 40% with a delivery
 * radius of 5-30 miles and 10% listing their own postal code as a delivery area, then routes leads at
 * random postal codes with all three rules on (nearest within 50 miles) and prints the latency of the
 * routing decision (the settings read and the routing statement, as a lead create runs them) and the
 * plan of one decision, so the index use can be checked.
 *
 * Environment: BENCH_STORES (100000), BENCH_LEADS (1000), DATABASE_URL (else an embedded PostgreSQL kept
 * under BENCH_DIR, default <tmp>/leadnet-bench-routing), BENCH_RESEED=1 to seed again.
 */
import 'reflect-metadata';
import os from 'node:os';
import path from 'node:path';
import { Pool, type PoolClient } from 'pg';
import zipcodes from 'zipcodes';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { initAppOrm } from '../mikro-orm.config';
import { routingSql } from '../src/modules/routing/routing.repository';
import { countrySpellings } from '../src/modules/routing/routing.service';
import { RoutingRule } from '../src/modules/routing/routing.repository';
import type { Sql } from '../src/search/types';

const STORES = Number(process.env.BENCH_STORES ?? 100_000);
const LEADS = Number(process.env.BENCH_LEADS ?? 1000);
const NAME = 'Routing bench brand';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = process.env.BENCH_DIR ?? path.join(os.tmpdir(), 'leadnet-bench-routing');
  return startEmbeddedPostgres(path.join(dir, 'pg'), 55900 + (process.pid % 90), true);
}

const places = Object.values(zipcodes.codes)
  .filter((z) => Number.isFinite(z.latitude) && Number.isFinite(z.longitude) && z.latitude > 24 && z.latitude < 62 && z.longitude < -52)
  .map((z) => ({ country: z.country === 'US' ? 'US' : 'CA', postal: z.zip, lat: z.latitude, lng: z.longitude }));

async function seed(pool: Pool): Promise<string> {
  const existing = await pool.query(`select id from companies where name = $1`, [NAME]);
  if (existing.rowCount && !process.env.BENCH_RESEED) {
    const { rows } = await pool.query(`select count(*)::int as n from routing_entries where company_id = $1`, [existing.rows[0].id]);
    if (rows[0].n === STORES) return existing.rows[0].id;
  }
  await pool.query(`delete from company_retailer_locations where company_id in (select id from companies where name = $1)`, [NAME]);
  await pool.query(`delete from companies where name = $1`, [NAME]);
  await pool.query(`delete from retailers where name = $1`, [NAME]);
  const started = Date.now();
  console.log(`seeding ${STORES.toLocaleString()} stores...`);
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(`select setseed(0.42)`);
    await client.query(`create temp table places (n int primary key, country text, postal text, lat float8, lng float8) on commit drop`);
    await client.query(
      `insert into places select (row_number() over () - 1)::int, x.country, x.postal, x.lat, x.lng
         from json_to_recordset($1::json) as x(country text, postal text, lat float8, lng float8)`,
      [JSON.stringify(places)],
    );
    const { rows: [brand] } = await client.query(`insert into companies (name) values ($1) returning id`, [NAME]);
    await client.query(`insert into company_store_types (company_id, name, boost) values ($1, 'Flagship', 2), ($1, 'Dealer', 1)`, [brand.id]);
    const { rows: [dealer] } = await client.query(`insert into retailers (name) values ($1) returning id`, [NAME]);
    const { rows: [cr] } = await client.query(`insert into company_retailers (company_id, retailer_id, name) values ($1, $2, $3) returning id`, [brand.id, dealer.id, NAME]);
    await client.query(
      `create temp table stores on commit drop as
       select g, gen_random_uuid() as location_id, gen_random_uuid() as crl_id, p.country, p.postal,
              p.lat + (random() - 0.5) * 0.08 as lat, p.lng + (random() - 0.5) * 0.1 as lng, random() as r
         from generate_series(1, ${STORES}) g
         join places p on p.n = (g * 7919) % (select count(*) from places)`,
    );
    await client.query(
      `insert into locations (id, postal_code, country, latitude, longitude, coordinates_source)
       select location_id, postal, country, lat, lng, 'explicit' from stores`,
    );
    await client.query(
      `insert into company_retailer_locations (id, company_id, company_retailer_id, physical_address_id, receiving_leads, delivery_radius, company_store_type_id)
       select s.crl_id, $1, $2, s.location_id, true, case when s.r < 0.4 then 5 + s.r * 62.5 end,
              case when s.r < 0.1 then (select id from company_store_types where company_id = $1 and name = 'Flagship')
                   when s.r < 0.3 then (select id from company_store_types where company_id = $1 and name = 'Dealer') end
         from stores s`,
      [brand.id, cr.id],
    );
    await client.query(
      `insert into delivery_areas (company_retailer_location_id, postal_code, country) select crl_id, postal, country from stores where r > 0.9`,
    );
    await client.query(
      `insert into company_routing_settings (company_id, enabled, strategies, nearest_max_distance_miles)
       values ($1, true, '{delivery_area,delivery_radius,nearest}', 50)`,
      [brand.id],
    );
    await client.query('commit');
  } catch (e) {
    await client.query('rollback');
    throw e;
  } finally {
    client.release();
  }
  await pool.query('analyze');
  console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return (await pool.query(`select id from companies where name = $1`, [NAME])).rows[0].id;
}

function numbered(q: Sql): { text: string; values: unknown[] } {
  let n = 0;
  return { text: q.sql.replace(/\?/g, () => `$${++n}`), values: q.bindings };
}

const OPTIONS = {
  strategies: [RoutingRule.DeliveryArea, RoutingRule.DeliveryRadius, RoutingRule.Nearest],
  nearestMaxDistanceMiles: 50,
  nearestInTerritory: false,
  roundRobin: false,
};

/** One decision as a lead create makes it: the settings read, then the routing statement. */
async function route(client: PoolClient, companyId: string, lead: { postal: string; country: string; lat: number; lng: number }) {
  await client.query(`select * from company_routing_settings where company_id = $1`, [companyId]);
  const q = numbered(
    routingSql({ companyId, postalCode: lead.postal, countries: countrySpellings(lead.country), point: { latitude: lead.lat, longitude: lead.lng }, territoryId: null }, OPTIONS)!,
  );
  const { rows } = await client.query(q.text, q.values);
  return rows[0] as { rule: string } | undefined;
}

async function main() {
  const db = await database();
  const orm = await initAppOrm(db.url, { debug: false });
  await orm.close();
  const pool = new Pool({ connectionString: db.url, max: 2 });
  try {
    const companyId = await seed(pool);
    const random = rng(11);
    // Leads at random postal codes, half of them moved off the centroid so not every one has a listing store.
    const leads = Array.from({ length: LEADS }, (_, i) => {
      const p = places[Math.floor(random() * places.length)];
      const off = i % 2 ? (random() - 0.5) * 2 : 0;
      return { postal: i % 2 ? 'X' + p.postal : p.postal, country: p.country, lat: p.lat + off, lng: p.lng + off };
    });
    const client = await pool.connect();
    try {
      for (const lead of leads.slice(0, 50)) await route(client, companyId, lead); // warm-up
      const latencies: number[] = [];
      const rules: Record<string, number> = {};
      for (const lead of leads) {
        const t0 = performance.now();
        const row = await route(client, companyId, lead);
        latencies.push(performance.now() - t0);
        rules[row?.rule ?? 'unassigned'] = (rules[row?.rule ?? 'unassigned'] ?? 0) + 1;
      }
      latencies.sort((a, b) => a - b);
      // The floor of this machine at this moment: the same two round trips with nothing to do.
      const floor: number[] = [];
      for (let i = 0; i < LEADS; i++) {
        const t0 = performance.now();
        await client.query('select 1');
        await client.query('select 1');
        floor.push(performance.now() - t0);
      }
      floor.sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
      console.log(`\nrouting one lead at ${STORES.toLocaleString()} stores (${LEADS} leads, one connection, settings read + routing statement):`);
      console.log(`  p50 ${at(0.5)} ms   p99 ${at(0.99)} ms   mean ${(latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(2)} ms`);
      console.log(`  outcomes: ${JSON.stringify(rules)}`);
      console.log(`  two empty round trips (select 1) for comparison: p50 ${floor[Math.floor(floor.length / 2)].toFixed(2)} ms`);
      const sample = leads[1];
      const q = numbered(
        routingSql({ companyId, postalCode: sample.postal, countries: ['US'], point: { latitude: sample.lat, longitude: sample.lng }, territoryId: null }, OPTIONS)!,
      );
      const plan = await client.query(`explain (analyze, costs off, timing off, summary on) ${q.text}`, q.values);
      console.log('\nplan of one decision:');
      for (const row of plan.rows) console.log('  ' + row['QUERY PLAN']);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
