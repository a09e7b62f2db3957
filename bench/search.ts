// Search benchmark (not a test): seeds products on an embedded PostgreSQL and reports list latency
// (p50/p99) and throughput for q, where and aggs queries through the service (HTTP in-process: REST
// facade, GraphQL, auth, PostgreSQL backend), beside the bare SQL the backend runs for the same request.
//
//   npm run bench:search                     100,000 products, 200 requests per case, 8 at a time
//   BENCH_PRODUCTS=20000 BENCH_REQUESTS=100 BENCH_CONCURRENCY=4 npm run bench:search
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, Pool } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { initOrm } from '../src/db/orm';
import { buildApp } from '../src/app';
import { generatePlainKey, hashKey, keyPrefix } from '../src/auth/api-keys';
import { Role } from '../src/modules/user/role';
import { User } from '../src/modules/user/user.entity';
import { ApiKey } from '../src/modules/user/api-key.entity';
import { Company } from '../src/modules/company/company.entity';
import { Retailer } from '../src/modules/retailer/retailer.entity';
import { productSearch, productScope } from '../src/modules/product/product.search';
import { planSearch } from '../src/search/postgres';
import { listVariables, parseQueryString } from '../src/rest/query';
import type { Caller } from '../src/auth/caller';

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const COMPANIES = 20;

const WORDS = ['Anvil', 'Hammer', 'Lantern', 'Lamp', 'Lampshade', 'Wardrobe', 'Crème', 'Brûlée', 'Straße', 'Oak', 'Walnut', 'Brass', 'Copper', 'Velvet', 'Linen', 'Desk', 'Chair', 'Table', 'Sofa', 'Shelf', 'Mirror', 'Rug', 'Pillow', 'Blanket', 'Bench', 'Stool', 'Cabinet', 'Dresser', 'Ottoman', 'Candle', 'Vase', 'Clock', 'Torch', 'Kettle', 'Skillet', 'Grinder', 'Sprocket', 'Widget', 'Gadget', 'Gizmo'];
const CATEGORIES = ['Furniture', 'Lighting', 'Décor', 'Tools', 'Kitchen', 'Textiles', 'Outdoor', 'Storage'];

interface Case {
  name: string;
  query: string;
}

const CASES: Case[] = [
  { name: 'list (default order)', query: '' },
  { name: 'q: one word', query: 'q=lantern' },
  { name: 'q: short word (fuzzy, unindexable)', query: 'q=lamp' },
  { name: 'q: two words', query: 'q=walnut+wardrobe' },
  { name: 'q: a typo', query: 'q=wardrobr' },
  { name: 'q: accents', query: 'q=creme+brulee' },
  { name: 'where: a value', query: 'opts[where][category]=Lighting' },
  { name: 'where: a range and a list', query: 'opts[where][created_at][gte]=2026-03-01&opts[where][category][]=Tools&opts[where][category][]=Kitchen' },
  { name: 'where: _or, prefix', query: 'opts[where][_or][0][sku][prefix]=SKU-12&opts[where][_or][1][category]=Outdoor' },
  { name: 'aggs: two facets', query: 'opts[aggs][]=category&opts[aggs][]=collection_id' },
  { name: 'aggs under where', query: 'opts[where][category]=Lighting&opts[aggs][]=category&opts[aggs][collection_id][limit]=5' },
  { name: 'q + where + aggs + order', query: 'q=oak&opts[where][category][not]=Tools&opts[aggs][]=category&opts[order][name]=asc' },
  { name: 'deep page', query: 'opts[page]=150&opts[per_page]=100' },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(run: () => Promise<void>): Promise<{ p50: number; p99: number; rps: number }> {
  for (let i = 0; i < Math.min(10, REQUESTS); i++) await run();
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const t0 = performance.now();
        await run();
        times.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), rps: times.length / elapsed };
}

async function seed(em: EntityManager, url: string): Promise<{ companyKey: string; retailerKey: string; company: Company }> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  await pg.query(`insert into companies (name) select 'Company ' || g from generate_series(1, ${COMPANIES}) g`);
  await pg.query(`insert into collections (company_id, name) select c.id, 'Collection ' || g from companies c, generate_series(1, 10) g`);
  // Deterministic pseudo-random picks (hashtext) so that every company gets a mix of words.
  await pg.query(
    `with c as (select id, row_number() over (order by id) - 1 as n from companies),
          w as (select $1::text[] as words, $2::text[] as cats),
          g as (select g, abs(hashtext('c' || g)) % ${COMPANIES} as company_n from generate_series(1, $3::int) g)
     insert into products (company_id, collection_id, sku, name, category, external_id, url, created_at, updated_at)
     select c.id,
            (select id from collections where company_id = c.id order by id offset (abs(hashtext('k' || g)) % 10) limit 1),
            'SKU-' || g,
            w.words[1 + abs(hashtext('a' || g)) % array_length(w.words, 1)] || ' ' ||
              w.words[1 + abs(hashtext('b' || g)) % array_length(w.words, 1)] || ' ' ||
              w.words[1 + abs(hashtext('d' || g)) % array_length(w.words, 1)],
            case when g % 17 = 0 then null else w.cats[1 + abs(hashtext('e' || g)) % array_length(w.cats, 1)] end,
            'EXT-' || (g * 7919 % 1000003),
            'https://example.test/p/' || g,
            timestamptz '2026-01-01' + (g * interval '2 minutes'),
            now()
       from g join c on c.n = g.company_n, w`,
    [WORDS, CATEGORIES, PRODUCTS],
  );
  await pg.query('vacuum analyze');
  await pg.end();

  const company = (await em.findOne(Company, { name: 'Company 1' }))!;
  const retailer = em.create(Retailer, { name: 'Bench Retailer' });
  const key = (role: Role, org: { company?: Company; retailer?: Retailer }) => {
    const user = em.create(User, { email: `${role}@bench.test`, name: role, role, company: org.company ?? null, retailer: org.retailer ?? null });
    const plain = generatePlainKey();
    em.create(ApiKey, { user, keyHash: hashKey(plain), prefix: keyPrefix(plain), label: 'bench' });
    return plain;
  };
  const companyKey = key(Role.CompanyAdmin, { company });
  const retailerKey = key(Role.RetailerAdmin, { retailer });
  await em.flush();
  return { companyKey, retailerKey, company };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-bench-'));
  const port = 56000 + Math.floor(Math.random() * 2000);
  process.stderr.write(`starting PostgreSQL in ${dir} on port ${port}\n`);
  const db = await startEmbeddedPostgres(path.join(dir, 'pg'), port, false);
  const orm = await initOrm(db.url, { debug: false });
  const config = parseConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
  const { app, stop } = await buildApp(config, orm);
  const server = app.listen(0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/products`;
  const pg = new Pool({ connectionString: db.url, max: CONCURRENCY * 3 });
  try {
    const t0 = performance.now();
    const { companyKey, retailerKey, company } = await seed(orm.em.fork() as EntityManager, db.url);
    process.stderr.write(`seeded ${PRODUCTS} products in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

    const callers: Array<{ name: string; key: string; caller: Caller }> = [
      { name: `retailer admin (sees all ${PRODUCTS})`, key: retailerKey, caller: { role: Role.RetailerAdmin } as Caller },
      { name: `company admin (sees ~${Math.round(PRODUCTS / COMPANIES)})`, key: companyKey, caller: { role: Role.CompanyAdmin, companyId: company.id } as Caller },
    ];
    console.log(`\nSearch benchmark: ${PRODUCTS} products, ${REQUESTS} requests per case, concurrency ${CONCURRENCY}, per_page 50 unless stated`);
    console.log('HTTP = GET /v1/products through the service; SQL = the same statements sent straight to PostgreSQL.\n');
    const header = ['case', 'total', 'HTTP p50 ms', 'HTTP p99 ms', 'HTTP req/s', 'SQL p50 ms', 'SQL p99 ms', 'SQL q/s'];
    for (const who of callers) {
      console.log(`## ${who.name}`);
      const rows: string[][] = [header];
      for (const c of CASES) {
        const url = c.query ? `${base}?${c.query}` : base;
        let total = 0;
        const http = await measure(async () => {
          const res = await fetch(url, { headers: { 'X-Api-Key': who.key } });
          if (res.status !== 200) throw new Error(`${c.name}: HTTP ${res.status} ${await res.text()}`);
          total = ((await res.json()) as any).meta.total;
        });
        const vars = listVariables(parseQueryString(`?${c.query}`));
        const plan = planSearch(productSearch, { ...vars, where: vars.where as any, order: vars.order as any, aggs: vars.aggs as any, scope: productScope(who.caller) });
        const statements = [plan.page, plan.count, ...(plan.facets ? [plan.facets] : [])].map((s) => toPg(s.sql, s.bindings));
        const sql = await measure(async () => {
          await Promise.all(statements.map((s) => pg.query(s.text, s.values)));
        });
        rows.push([c.name, String(total), ms(http.p50), ms(http.p99), http.rps.toFixed(0), ms(sql.p50), ms(sql.p99), sql.rps.toFixed(0)]);
      }
      printTable(rows);
      console.log('');
    }
  } finally {
    await pg.end().catch(() => undefined);
    server.close();
    await stop();
    await orm.close();
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `?` bindings -> `$n` parameters; an `array[?]` binding is one parameter that pg sends as an array. */
function toPg(sql: string, bindings: unknown[]): { text: string; values: unknown[] } {
  let i = 0;
  return { text: sql.replace(/array\[\?\]|\?/g, () => `$${++i}`), values: bindings };
}

const ms = (v: number) => v.toFixed(1);

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  rows.forEach((r, j) => {
    console.log(`| ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`);
    if (j === 0) console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
