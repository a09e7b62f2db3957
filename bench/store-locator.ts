/**
 * Store locator benchmark (`npm run bench:store-locator`). Not a test: it seeds 100,000 stores across North
 * America (US ZIP and Canadian FSA centroids, jittered) with hours, contacts and stock, then measures the
 * public endpoint over HTTP (the app runs in a child process, so client and server do not share an event
 * loop) and the bare SQL of the same searches (the statements the endpoint runs: `nearestSql` when it answers,
 * else `storeLocatorSql`), and prints latency, throughput and ratios.
 *
 * Environment: BENCH_STORES (100000), BENCH_REQUESTS per scenario (600), BENCH_CONCURRENCY (8),
 * DATABASE_URL (else an embedded PostgreSQL kept under BENCH_DIR, default <tmp>/leadnet-bench),
 * BENCH_RESEED=1 to seed again.
 */
import 'reflect-metadata';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fork } from 'node:child_process';
import { Pool } from 'pg';
import zipcodes from 'zipcodes';
import { parseConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { initAppOrm } from '../mikro-orm.config';
import { buildApp } from '../src/app';
import { backendQuery, parseStoreLocatorParams } from '../src/modules/store-locator/store-locator.params';
import { nearestSql, readerStatement, storeLocatorSql } from '../src/modules/store-locator/store-locator.repository';
import type { Sql } from '../src/search/types';

const STORES = Number(process.env.BENCH_STORES ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PRODUCTS = 200;

/** A deterministic pseudo-random sequence, so every run asks the same questions. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = process.env.BENCH_DIR ?? path.join(os.tmpdir(), 'leadnet-bench');
  const db = await startEmbeddedPostgres(path.join(dir, 'pg'), 55400 + (process.pid % 500), true);
  return db;
}

/** Seeds with set-based SQL; returns the company id. Skipped when the bench data is already there. */
export async function seed(pool: Pool): Promise<string> {
  const existing = await pool.query(`select id from companies where name = 'Bench brand'`);
  if (existing.rowCount && !process.env.BENCH_RESEED) {
    const { rows } = await pool.query(`select count(*)::int as n from company_retailer_locations where company_id = $1`, [existing.rows[0].id]);
    if (rows[0].n === STORES) return existing.rows[0].id;
  }
  await pool.query(`delete from companies where name = 'Bench brand'`);
  await pool.query(`delete from retailers where name like 'Bench dealer %'`);
  const started = Date.now();
  console.log(`seeding ${STORES.toLocaleString()} stores...`);
  const places = Object.values(zipcodes.codes)
    .filter((z) => Number.isFinite(z.latitude) && Number.isFinite(z.longitude) && z.latitude > 24 && z.latitude < 62 && z.longitude < -52)
    .map((z) => ({
      city: z.country === 'US' ? z.city : z.state,
      province: zipcodes.states.normalize(z.state.toUpperCase()) ?? z.state,
      country: z.country === 'US' ? 'US' : 'CA',
      postal: z.zip,
      lat: z.latitude,
      lng: z.longitude,
    }));
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(`select setseed(0.42)`);
    await client.query(`create temp table places (n int primary key, city text, province text, country text, postal text, lat float8, lng float8) on commit drop`);
    await client.query(
      `insert into places select (row_number() over () - 1)::int, x.city, x.province, x.country, x.postal, x.lat, x.lng
         from json_to_recordset($1::json) as x(city text, province text, country text, postal text, lat float8, lng float8)`,
      [JSON.stringify(places)],
    );
    const { rows: [brand] } = await client.query(`insert into companies (name) values ('Bench brand') returning id`);
    await client.query(
      `insert into company_store_types (company_id, name, boost) values ($1, 'Flagship', 2), ($1, 'Dealer', 1), ($1, 'Outlet', 0)`,
      [brand.id],
    );
    await client.query(`insert into retailers (name) select 'Bench dealer ' || g from generate_series(1, 50) g`);
    await client.query(
      `insert into company_retailers (company_id, retailer_id, name) select $1, id, name from retailers where name like 'Bench dealer %'`,
      [brand.id],
    );
    await client.query(`insert into collections (company_id, name) select $1, 'Collection ' || g from generate_series(1, 20) g`, [brand.id]);
    await client.query(
      `insert into products (company_id, collection_id, sku, name, category, external_id)
       select $1, (select id from collections where company_id = $1 order by name offset (g % 20) limit 1),
              'SKU-' || g, 'Product ' || g, 'Category ' || (g % 7), 'EXT-' || g
         from generate_series(1, ${PRODUCTS}) g`,
      [brand.id],
    );
    await client.query(
      `insert into product_images (product_id, url, thumbnail_url, position)
       select id, 'https://img.example.test/' || sku || '.jpg', 'https://img.example.test/' || sku || '-t.jpg', 0
         from products where company_id = $1`,
      [brand.id],
    );
    await client.query(
      `create temp table stores on commit drop as
       select g, gen_random_uuid() as location_id, gen_random_uuid() as rl_id, gen_random_uuid() as crl_id,
              gen_random_uuid() as email_id, gen_random_uuid() as phone_id,
              p.city, p.province, p.country, p.postal,
              p.lat + (random() - 0.5) * 0.08 as lat, p.lng + (random() - 0.5) * 0.1 as lng,
              random() as r
         from generate_series(1, ${STORES}) g
         join places p on p.n = (g * 7919) % (select count(*) from places)`,
    );
    await client.query(
      `insert into locations (id, street_line_one, postal_code, city, province, country, latitude, longitude, coordinates_source)
       select location_id, g || ' Main St', postal, city, province, country, lat, lng, 'explicit' from stores`,
    );
    await client.query(`insert into emails (id, email) select email_id, 'store' || g || '@bench.example.test' from stores`);
    await client.query(`insert into phone_numbers (id, phone_number, country_code) select phone_id, '+1503555' || lpad((g % 10000)::text, 4, '0'), 'US' from stores`);
    await client.query(
      `with dealers as (select id, row_number() over (order by id) - 1 as n from retailers where name like 'Bench dealer %')
       insert into retailer_locations (id, retailer_id, name, physical_address_id, general_email_id, general_phone_number_id)
       select s.rl_id, d.id, 'Store ' || s.g, s.location_id, s.email_id, s.phone_id from stores s join dealers d on d.n = s.g % 50`,
    );
    await client.query(
      `with crs as (select cr.id, rl.id as rl_id from company_retailers cr join retailer_locations rl on rl.retailer_id = cr.retailer_id
                     where cr.company_id = $1),
            types as (select id, name from company_store_types where company_id = $1)
       insert into company_retailer_locations (id, company_id, company_retailer_id, retailer_location_id, sending_leads, receiving_leads, company_store_type_id)
       select s.crl_id, $1, crs.id, s.rl_id, s.r < 0.97, s.r > 0.01,
              case when s.r < 0.1 then (select id from types where name = 'Flagship')
                   when s.r < 0.4 then (select id from types where name = 'Dealer')
                   when s.r < 0.6 then (select id from types where name = 'Outlet') end
         from stores s join crs on crs.rl_id = s.rl_id`,
      [brand.id],
    );
    await client.query(
      `insert into hours (retailer_location_id, day, open, open_at_hour, open_at_minute, close_at_hour, close_at_minute)
       select s.rl_id, d.day, d.day <> 'sunday' or s.g % 3 = 0, 9 + s.g % 2, 0, case when s.g % 10 = 0 then 1 else 18 end, 30
         from stores s cross join (values ('monday'), ('tuesday'), ('wednesday'), ('thursday'), ('friday'), ('saturday'), ('sunday')) d(day)`,
    );
    await client.query(
      `with numbered as (select id, row_number() over (order by sku) - 1 as n from products where company_id = $1)
       insert into stocks (company_retailer_location_id, product_id, stocked, available)
       select s.crl_id, p.id, random() < 0.8, random() < 0.5
         from stores s cross join generate_series(0, 4) j
         join numbered p on p.n = (s.g * 31 + j * 37) % ${PRODUCTS}`,
      [brand.id],
    );
    await client.query('commit');
    await client.query('analyze');
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return brand.id;
  } catch (e) {
    await client.query('rollback');
    throw e;
  } finally {
    client.release();
  }
}

interface Stats {
  p50: number;
  p99: number;
  throughput: number;
}

/** Runs `task` REQUESTS times with CONCURRENCY workers; latencies in ms. */
async function measure(task: (i: number) => Promise<void>): Promise<Stats> {
  for (let i = 0; i < Math.min(40, REQUESTS); i++) await task(i); // warm-up
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), throughput: REQUESTS / seconds };
}

/** `?` placeholders (MikroORM style) -> `$n` for node-postgres. */
function numbered(q: Sql): { text: string; values: unknown[] } {
  let n = 0;
  return { text: q.sql.replace(/\?/g, () => `$${++n}`), values: q.bindings };
}

async function main() {
  const db = await database();
  const orm = await initAppOrm(db.url, { debug: false });
  const pool = new Pool({ connectionString: db.url, max: 10 });
  try {
    const companyId = await seed(pool);
    const config = parseConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    const server = fork(__filename, ['--serve'], { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_SERVE_URL: db.url } });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('message', (m: any) => resolve(m.port));
      server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${port}/v1/store_locator`;

    const random = rng(7);
    const origins = Object.values(zipcodes.codes)
      .filter((z) => z.latitude > 25 && z.latitude < 55 && z.longitude < -60)
      .filter(() => random() < 0.01)
      .map((z) => ({ lat: z.latitude, lng: z.longitude }));
    const { rows: products } = await pool.query(`select id, collection_id from products where company_id = $1 order by sku`, [companyId]);
    const pick = <T>(list: T[], i: number) => list[(i * 7919) % list.length];

    const scenarios: Array<{ name: string; query: (i: number) => Record<string, string | string[]> }> = [
      {
        name: 'point, default 1000mi, 15 per page',
        query: (i) => ({ latitude: String(pick(origins, i).lat), longitude: String(pick(origins, i).lng) }),
      },
      {
        name: 'point, 50mi, 15 per page',
        query: (i) => ({ latitude: String(pick(origins, i).lat), longitude: String(pick(origins, i).lng), radius: '50mi' }),
      },
      {
        name: 'box ~1.0 x 1.4 deg, up to 500 per page',
        query: (i) => {
          const o = pick(origins, i);
          return {
            top_left_latitude: String(o.lat + 0.5),
            top_left_longitude: String(o.lng - 0.7),
            bottom_right_latitude: String(o.lat - 0.5),
            bottom_right_longitude: String(o.lng + 0.7),
          };
        },
      },
      {
        name: 'point 1000mi + product filters + store type',
        query: (i) => ({
          latitude: String(pick(origins, i).lat),
          longitude: String(pick(origins, i).lng),
          stocked_product_ids: [pick(products, i).id, pick(products, i + 1).id],
          available_product_collection_ids: [pick(products, i + 2).collection_id],
          store_type: ['Dealer', 'Flagship'],
        }),
      },
    ];

    const explain = await pool.query(
      `explain (format json) ${numbered(storeLocatorSql(backendQuery(companyId, parseStoreLocatorParams(scenarios[1].query(0))), config.storeLocator)).text}`,
      numbered(storeLocatorSql(backendQuery(companyId, parseStoreLocatorParams(scenarios[1].query(0))), config.storeLocator)).values,
    );
    const plan = JSON.stringify(explain.rows[0]);
    console.log(`GiST index used by a 50mi point search: ${plan.includes('store_locator_entries_earth_index') ? 'yes' : 'NO'}`);
    console.log(`${STORES.toLocaleString()} stores, ${REQUESTS} requests per scenario, concurrency ${CONCURRENCY}\n`);

    const rows: string[][] = [];
    for (const s of scenarios) {
      const urls = Array.from({ length: REQUESTS }, (_, i) => {
        const params = new URLSearchParams({ cc_id: companyId });
        for (const [k, v] of Object.entries(s.query(i))) for (const x of Array.isArray(v) ? v : [v]) params.append(k, x);
        return `${base}?${params}`;
      });
      let results = 0;
      let total = 0;
      const http = await measure(async (i) => {
        const res = await fetch(urls[i % urls.length]);
        if (res.status !== 200) throw new Error(`HTTP ${res.status} for ${urls[i % urls.length]}`);
        const body: any = await res.json();
        results += body.results.length;
        total += body.meta.total;
      });
      // The same statements the endpoint runs (company, search, then its read), on a plain pool.
      const sql = await measure(async (i) => {
        const params = parseStoreLocatorParams(s.query(i % urls.length));
        await pool.query('select id from companies where id = $1::uuid', [companyId]);
        const query = backendQuery(companyId, params);
        const { rows: [hit] } = await pool.query(numbered(nearestSql(query, config.storeLocator) ?? storeLocatorSql(query, config.storeLocator)));
        await pool.query(numbered(readerStatement(hit.ids)));
      });
      const n = REQUESTS + Math.min(40, REQUESTS);
      rows.push([
        s.name,
        (total / n).toFixed(0),
        (results / n).toFixed(0),
        http.p50.toFixed(1),
        http.p99.toFixed(1),
        http.throughput.toFixed(0),
        sql.p50.toFixed(1),
        sql.p99.toFixed(1),
        sql.throughput.toFixed(0),
        (http.p50 / sql.p50).toFixed(2),
        (sql.throughput / http.throughput).toFixed(2),
      ]);
    }
    const header = ['scenario', 'avg total', 'avg page', 'p50 ms', 'p99 ms', 'req/s', 'SQL p50', 'SQL p99', 'SQL q/s', 'p50 ratio', 'thru ratio'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log(line(header));
    for (const r of rows) console.log(line(r));
    console.log('\nratio: endpoint over bare SQL (p50 latency), bare SQL over endpoint (throughput).');
    server.kill();
  } finally {
    await pool.end();
    await orm.close();
    await db.stop();
  }
}

/** The app alone, on a free port of the loopback interface; tells the parent which. */
async function serve(url: string) {
  const orm = await initAppOrm(url, { debug: false });
  // The limiter would answer most of a load test with 429s: it is measured by its own tests, not here.
  const { app } = await buildApp(parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', RATE_LIMIT_STORE_LOCATOR: '0' }), orm);
  const server = app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}

// Imported by bench/locator-demand.ts for its seed: then nothing runs here.
if (require.main === module) {
  (process.argv.includes('--serve') ? serve(process.env.BENCH_SERVE_URL!) : main()).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
