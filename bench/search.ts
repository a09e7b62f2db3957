// Search benchmark (not a test): seeds products and leads on an embedded PostgreSQL and reports list
// latency (p50/p99) and throughput for q, where and aggs queries through the service (HTTP in-process:
// REST facade, GraphQL, auth, PostgreSQL backend), beside the bare SQL the backend runs for the same
// request and the ratio of the two.
//
//   npm run bench:search                     100,000 products and 100,000 leads, 200 requests per case, 8 at a time
//   BENCH_RESOURCE=leads BENCH_LEADS=20000 BENCH_REQUESTS=100 BENCH_CONCURRENCY=4 npm run bench:search
//
// BENCH_RESOURCE is products, leads or all (the default); BENCH_PRODUCTS and BENCH_LEADS set the sizes.
// BENCH_DATABASE_URL seeds and measures an existing empty database (e.g. the system PostgreSQL) instead
// of a temporary embedded one, and leaves the data there. BENCH_ROLES=none only seeds (and times it).
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, Pool } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { initAppOrm } from '../mikro-orm.config';
import { buildApp } from '../src/app';
import { authenticate, generatePlainKey, hashKey, keyPrefix } from '../src/auth/api-keys';
import { Role } from '../src/modules/user/role';
import { User } from '../src/modules/user/user.entity';
import { ApiKey } from '../src/modules/user/api-key.entity';
import { Company } from '../src/modules/company/company.entity';
import { Retailer } from '../src/modules/retailer/retailer.entity';
import { Territory } from '../src/modules/territory/territory.entity';
import { productSearch } from '../src/modules/product/product.search';
import { productScope } from '../src/modules/product/product.policy';
import { leadSearch } from '../src/modules/lead/lead.search';
import { leadScope } from '../src/modules/lead/lead.policy';
import { LEAD_ACTIVITY_TYPES } from '../src/modules/lead/lead-activity.entity';
import { planSearch } from '../src/search/postgres.queries';
import type { SearchDocument, Where } from '../src/search/types';
import { listRequest, parseQueryString } from '../src/rest/query';
import type { Caller } from '../src/auth/caller';

const RESOURCE = process.env.BENCH_RESOURCE ?? 'all';
/** Lead roles to measure: `all`, or a comma list of name prefixes (`company admin,store manager`). */
const ROLES = process.env.BENCH_ROLES ?? 'all';
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
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

async function seedProducts(em: EntityManager, url: string): Promise<{ companyKey: string; retailerKey: string; company: Company }> {
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

const LEAD_COMPANIES = 4;
const LEAD_RETAILERS = 10;
const STORES_PER_RETAILER = 10;
const FIRST_NAMES = ['Olivia', 'Liam', 'Emma', 'Noah', 'Amélie', 'Lucas', 'Sofía', 'Mateo', 'Chloé', 'Ethan', 'Zoë', 'Mason', 'Isabella', 'James', 'Mia', 'Benjamin', 'Charlotte', 'Élodie', 'Henry', 'Harper'];
const LAST_NAMES = ['Smith', 'Johnson', 'Garcia', 'Brown', 'Martínez', 'Tremblay', 'Nguyen', 'Wilson', 'Anderson', 'Gagnon', 'Lee', 'Roy', 'Müller', 'Taylor', 'Côté', 'Thomas', 'Moore', 'Jackson', 'Martin', 'White'];
const CITIES: Array<[string, string, string, string]> = [
  ['Portland', 'OR', 'US', '97201'],
  ['Seattle', 'WA', 'US', '98101'],
  ['Denver', 'CO', 'US', '80202'],
  ['Austin', 'TX', 'US', '73301'],
  ['Chicago', 'IL', 'US', '60601'],
  ['Montréal', 'QC', 'CA', 'H2X'],
  ['Toronto', 'ON', 'CA', 'M5V'],
  ['Vancouver', 'BC', 'CA', 'V6B'],
];
const STATUSES = ['New', 'New', 'New', 'Contacted', 'Contacted', 'Qualified', 'Won', 'Lost'];

/**
 * LEADS leads over LEAD_COMPANIES companies, each dealing with LEAD_RETAILERS retailers of
 * STORES_PER_RETAILER stores (a CRL per company and store). 90% are assigned to a store of their owner
 * company; each has a location in one of CITIES (1 in 13 has none), one email (1 in 5 a second), one
 * phone number; a third have 1 to 3 activities. Keys: one user of every role around the first company
 * and the first dealer (a territory over dealers 1-3, company retailers of dealers 1-2, 5 stores each for
 * the location user and the sales associate, 2 stores of dealer 1 for its store manager), each seeing
 * thousands of leads.
 */
interface SeededLeads {
  /** Each role's key, with what it sees, the company admin first. */
  keys: Array<{ name: string; key: string }>;
  emailPrefix: string;
}

async function seedLeads(em: EntityManager, url: string): Promise<SeededLeads> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await pg.query('begin');
    await pg.query(`insert into companies (name) select 'Lead brand ' || g from generate_series(1, ${LEAD_COMPANIES}) g`);
    await pg.query(`insert into retailers (name) select 'Lead dealer ' || g from generate_series(1, ${LEAD_RETAILERS}) g`);
    await pg.query(
      `insert into company_retailers (company_id, retailer_id, name)
       select c.id, r.id, r.name from companies c, retailers r where c.name like 'Lead brand %' and r.name like 'Lead dealer %'`,
    );
    await pg.query(
      `insert into retailer_locations (retailer_id, name)
       select r.id, r.name || ' store ' || g from retailers r, generate_series(1, ${STORES_PER_RETAILER}) g where r.name like 'Lead dealer %'`,
    );
    await pg.query(
      `insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id)
       select cr.company_id, cr.id, rl.id
         from company_retailers cr join companies c on c.id = cr.company_id join retailer_locations rl on rl.retailer_id = cr.retailer_id
        where c.name like 'Lead brand %'`,
    );
    // Deterministic pseudo-random picks (hashtext), as for products.
    await pg.query(
      `create temp table seed_leads on commit drop as
       with c as (select id, row_number() over (order by name) - 1 as n from companies where name like 'Lead brand %'),
            crl as (select id, company_id, row_number() over (partition by company_id order by id) - 1 as n
                      from company_retailer_locations where company_id in (select id from c)),
            g as (select g, g % ${LEAD_COMPANIES} as company_n,
                         1 + abs(hashtext('f' || g)) % ${FIRST_NAMES.length} as f, 1 + abs(hashtext('l' || g)) % ${LAST_NAMES.length} as l
                    from generate_series(1, $1::int) g)
       select g.g, gen_random_uuid() as id, case when g.g % 13 = 0 then null else gen_random_uuid() end as location_id,
              c.id as company_id, crl.id as assignee_id, g.f, g.l,
              timestamptz '2026-01-01' + g.g * (interval '300 days' / $1::int) as created_at
         from g join c on c.n = g.company_n
         left join crl on crl.company_id = c.id and g.g % 10 <> 0
                      and crl.n = abs(hashtext('s' || g.g)) % ${LEAD_RETAILERS * STORES_PER_RETAILER}`,
      [LEADS],
    );
    await pg.query(
      `with cities as (select (n - 1)::int as n, city, province, country, postal
                        from unnest($1::text[], $2::text[], $3::text[], $4::text[]) with ordinality as x(city, province, country, postal, n))
       insert into locations (id, street_line_one, city, province, country, postal_code)
       select s.location_id, s.g || ' Main St', c.city, c.province, c.country, c.postal
         from seed_leads s join cities c on c.n = abs(hashtext('c' || s.g)) % ${CITIES.length}
        where s.location_id is not null`,
      [0, 1, 2, 3].map((i) => CITIES.map((c) => c[i])),
    );
    await pg.query(
      `insert into leads (id, name, status, owner_company_id, assignee_id, location_id, source_type, created_at, updated_at)
       select s.id, ($1::text[])[s.f] || ' ' || ($2::text[])[s.l], ($3::text[])[1 + abs(hashtext('t' || s.g)) % array_length($3::text[], 1)],
              s.company_id, s.assignee_id, s.location_id, 'Bench', s.created_at, s.created_at
         from seed_leads s`,
      [FIRST_NAMES, LAST_NAMES, STATUSES],
    );
    // Bulk load: the leads' search text is computed once at the end, for all of them in one set-based
    // statement, not by the contacts' statement triggers (each would rewrite every lead).
    for (const table of ['emails', 'phone_numbers']) await pg.query(`alter table ${table} disable trigger leadnet_lead_search_text`);
    // Email: first letter and last name, folded to ASCII, and the lead number (olivia + garcia -> ogarcia123@...).
    await pg.query(
      `insert into emails (lead_id, email, created_at)
       select s.id, lower(unaccent(left(($1::text[])[s.f], 1) || ($2::text[])[s.l])) || s.g || '@mail.example.test', s.created_at from seed_leads s
       union all
       select s.id, 'lead' || s.g || '@work.example.test', s.created_at from seed_leads s where s.g % 5 = 0`,
      [FIRST_NAMES, LAST_NAMES],
    );
    await pg.query(
      `insert into phone_numbers (lead_id, phone_number, country_code, created_at)
       select s.id, '+1503' || lpad((s.g % 10000000)::text, 7, '0'), 'US', s.created_at from seed_leads s`,
    );
    await pg.query(
      `insert into lead_activities (lead_id, type, data, created_at, updated_at)
       select s.id, ($1::text[])[1 + abs(hashtext('a' || s.g || '-' || j)) % array_length($1::text[], 1)], '{"note": "bench"}'::jsonb,
              s.created_at + j * interval '1 hour', s.created_at + j * interval '1 hour'
         from seed_leads s cross join lateral generate_series(1, 1 + s.g % 3) j where s.g % 3 = 0`,
      [LEAD_ACTIVITY_TYPES],
    );
    for (const table of ['emails', 'phone_numbers']) await pg.query(`alter table ${table} enable trigger leadnet_lead_search_text`);
    await pg.query('select leadnet_lead_search_text_refresh(array(select id from seed_leads))');
    await pg.query('commit');
    await pg.query('vacuum analyze');

    const company = (await em.findOne(Company, { name: 'Lead brand 1' }))!;
    const retailer = (await em.findOne(Retailer, { name: 'Lead dealer 1' }))!;
    // A territory of the first company over its company retailers of dealers 1-3 (their CRLs inherit it).
    const { rows: [territory] } = await pg.query(`insert into territories (company_id, name) values ($1, 'Bench north') returning id`, [company.id]);
    await pg.query(
      `update company_retailers set territory_id = $1
        where company_id = $2 and retailer_id in (select id from retailers where name in ('Lead dealer 1', 'Lead dealer 2', 'Lead dealer 3'))`,
      [territory.id, company.id],
    );
    const users: Array<{ name: string; user: User; plain: string }> = [];
    const key = (name: string, role: Role, org: { company?: Company; retailer?: Retailer; territory?: string }) => {
      const user = em.create(User, {
        email: `lead-${role}@bench.test`,
        name: role,
        role,
        company: org.company ?? null,
        retailer: org.retailer ?? null,
        territory: org.territory ? em.getReference(Territory, org.territory) : null,
      });
      const plain = generatePlainKey();
      em.create(ApiKey, { user, keyHash: hashKey(plain), prefix: keyPrefix(plain), label: 'bench' });
      users.push({ name, user, plain });
      return user;
    };
    key('company admin', Role.CompanyAdmin, { company });
    key('territory manager (dealers 1-3)', Role.CompanyTerritoryManager, { company, territory: territory.id });
    const retailerManager = key('retailer manager (dealers 1-2)', Role.CompanyRetailerManager, { company });
    const locationUser = key('location user (5 stores)', Role.CompanyLocationUser, { company });
    const salesAssociate = key('sales associate (5 stores)', Role.CompanySalesAssociate, { company });
    key('retailer admin (dealer 1, every brand)', Role.RetailerAdmin, { retailer });
    const storeManager = key('store manager (2 stores, every brand)', Role.RetailerStoreManager, { retailer });
    await em.flush();
    const crlsOfCompany = `select id from company_retailer_locations where company_id = $2 order by id`;
    await pg.query(`insert into user_company_retailer_locations (user_id, company_retailer_location_id) select $1, id from (${crlsOfCompany} limit 5) x`, [locationUser.id, company.id]);
    await pg.query(`insert into user_company_retailer_locations (user_id, company_retailer_location_id) select $1, id from (${crlsOfCompany} offset 5 limit 5) x`, [salesAssociate.id, company.id]);
    await pg.query(
      `insert into user_company_retailers (user_id, company_retailer_id)
       select $1, id from company_retailers where company_id = $2 and retailer_id in (select id from retailers where name in ('Lead dealer 1', 'Lead dealer 2'))`,
      [retailerManager.id, company.id],
    );
    await pg.query(`insert into user_retailer_locations (user_id, retailer_location_id) select $1, id from retailer_locations where retailer_id = $2 order by id limit 2`, [
      storeManager.id,
      retailer.id,
    ]);
    const { rows: [store] } = await pg.query(
      `select min(split_part(e.email, '@', 1)) as email
         from leads l join emails e on e.lead_id = l.id and e.email like '%@mail.example.test'
        where l.assignee_id in (select company_retailer_location_id from user_company_retailer_locations where user_id = $1)`,
      [locationUser.id],
    );
    // A prefix of an email the location user sees (its last two digits cut): a handful of matches.
    return { keys: users.map((u) => ({ name: u.name, key: u.plain })), emailPrefix: String(store.email).slice(0, -2) };
  } catch (e) {
    await pg.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    await pg.end();
  }
}

function leadCases(emailPrefix: string): Case[] {
  return [
    { name: 'list (default order)', query: '' },
    { name: 'q: a name word', query: 'q=garcia' },
    { name: 'q: an email prefix', query: `q=${encodeURIComponent(emailPrefix)}` },
    { name: 'where: status and city', query: 'opts[where][status]=Qualified&opts[where][city]=Portland' },
    { name: 'where: created_at range', query: 'opts[where][created_at][gte]=2026-03-01&opts[where][created_at][lt]=2026-04-01' },
    { name: 'aggs: status and city', query: 'opts[aggs][]=status&opts[aggs][]=city' },
    { name: 'q + where + aggs', query: 'q=olivia&opts[where][status][]=New&opts[where][status][]=Contacted&opts[aggs][]=status&opts[aggs][]=city' },
  ];
}

interface Who {
  name: string;
  key: string;
  scope: Where;
}

/** Every case for every caller: through the service, then the same search statements straight to PostgreSQL. */
async function runCases(title: string, base: string, doc: SearchDocument, callers: Who[], cases: Case[], pg: Pool): Promise<void> {
  console.log(title);
  console.log(`HTTP = GET ${new URL(base).pathname} through the service; SQL = the same search statements sent straight to PostgreSQL; ratio = HTTP p50 / SQL p50.\n`);
  const header = ['case', 'total', 'HTTP p50 ms', 'HTTP p99 ms', 'HTTP req/s', 'SQL p50 ms', 'SQL p99 ms', 'SQL q/s', 'ratio'];
  for (const who of callers) {
    console.log(`## ${who.name}`);
    const rows: string[][] = [header];
    for (const c of cases) {
      const url = c.query ? `${base}?${c.query}` : base;
      let total = 0;
      const http = await measure(async () => {
        const res = await fetch(url, { headers: { 'X-Api-Key': who.key } });
        if (res.status !== 200) throw new Error(`${c.name}: HTTP ${res.status} ${await res.text()}`);
        total = ((await res.json()) as any).meta.total;
      });
      const { variables, options } = listRequest(parseQueryString(`?${c.query}`));
      const plan = planSearch(doc, { ...variables, where: options.where as any, order: options.order as any, aggs: options.aggs as any, scope: who.scope });
      const statements = [plan.page, plan.count, ...(plan.facets ? [plan.facets] : [])].map((s) => toPg(s.sql, s.bindings));
      const sql = await measure(async () => {
        await Promise.all(statements.map((s) => pg.query(s.text, s.values)));
      });
      rows.push([c.name, String(total), ms(http.p50), ms(http.p99), http.rps.toFixed(0), ms(sql.p50), ms(sql.p99), sql.rps.toFixed(0), `${(http.p50 / sql.p50).toFixed(1)}x`]);
    }
    printTable(rows);
    console.log('');
  }
}

async function main(): Promise<void> {
  if (!['products', 'leads', 'all'].includes(RESOURCE)) throw new Error(`BENCH_RESOURCE must be products, leads or all, not ${RESOURCE}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-bench-'));
  const port = 56000 + Math.floor(Math.random() * 2000);
  const external = process.env.BENCH_DATABASE_URL;
  process.stderr.write(external ? `using ${external}\n` : `starting PostgreSQL in ${dir} on port ${port}\n`);
  const db = external ? { url: external, stop: async () => undefined } : await startEmbeddedPostgres(path.join(dir, 'pg'), port, false);
  const orm = await initAppOrm(db.url, { debug: false });
  // No rate limits: the benchmark sends thousands of requests a minute with one key.
  const config = parseConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0' });
  const { app, stop } = await buildApp(config, orm);
  const server = app.listen(0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const pg = new Pool({ connectionString: db.url, max: CONCURRENCY * 3 });
  try {
    if (RESOURCE !== 'leads') {
      const t0 = performance.now();
      const { companyKey, retailerKey, company } = await seedProducts(orm.em.fork() as EntityManager, db.url);
      process.stderr.write(`seeded ${PRODUCTS} products in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      await runCases(
        `\nSearch benchmark: ${PRODUCTS} products, ${REQUESTS} requests per case, concurrency ${CONCURRENCY}, per_page 50 unless stated`,
        `${base}/products`,
        productSearch,
        [
          { name: `retailer admin (sees all ${PRODUCTS})`, key: retailerKey, scope: productScope({ role: Role.RetailerAdmin } as Caller) },
          { name: `company admin (sees ~${Math.round(PRODUCTS / COMPANIES)})`, key: companyKey, scope: productScope({ role: Role.CompanyAdmin, companyId: company.id } as Caller) },
        ],
        CASES,
        pg,
      );
    }
    if (RESOURCE !== 'products') {
      const t0 = performance.now();
      const em = orm.em.fork() as EntityManager;
      const seeded = await seedLeads(em, db.url);
      process.stderr.write(`seeded ${LEADS} leads in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      const scope = async (key: string) => leadScope((await authenticate(em.fork() as EntityManager, key))!);
      await runCases(
        `\nSearch benchmark: ${LEADS} leads (with emails, phone numbers, locations, activities; all associations included), ${REQUESTS} requests per case, concurrency ${CONCURRENCY}, per_page 50`,
        `${base}/leads`,
        leadSearch,
        await Promise.all(seeded.keys.filter((k) => ROLES === 'all' || ROLES.split(',').some((r) => k.name.startsWith(r))).map(async (k) => ({ ...k, scope: await scope(k.key) }))),
        leadCases(seeded.emailPrefix),
        pg,
      );
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
