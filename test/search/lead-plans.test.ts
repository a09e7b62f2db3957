import { createTestApp, type TestApp } from '../support/app';
import type { Caller } from '../../src/auth/caller';
import { Role } from '../../src/modules/user/role';
import { leadScope, leadSearch } from '../../src/modules/lead/lead.search';
import { planSearch } from '../../src/search/postgres';
import type { Sql } from '../../src/search/types';
import { query } from '../../src/db/sql';

/**
 * Issue 10: every role's first lead page and its total are index-served. On 4,000 leads of eight
 * companies and their retailers, PostgreSQL's own plan for each statement must not read the whole
 * `leads` table (no sequential scan of it, hence no hash join over all of it).
 */
let t: TestApp;
let data: Record<string, any>;

// As the app sends them: values as parameters.
const rows = async (sql: string, bindings: unknown[] = []) => query(t.em(), sql, bindings);

beforeAll(async () => {
  t = await createTestApp();
  await rows(`insert into companies (name) select 'Company ' || i from generate_series(1, 8) i`);
  await rows(`insert into retailers (name) select 'Retailer ' || i from generate_series(1, 8) i`);
  await rows(`insert into territories (company_id, name) select c.id, 'T' || i from companies c, generate_series(1, 2) i`);
  // Each company sells through two retailers; each retailer has four stores, each a CRL of its companies.
  await rows(`insert into company_retailers (company_id, retailer_id, territory_id)
              select c.id, r.id, (select id from territories t where t.company_id = c.id order by name limit 1)
                from (select id, row_number() over (order by name) n from companies) c
                join (select id, row_number() over (order by name) n from retailers) r on r.n in (c.n, c.n % 8 + 1)`);
  await rows(`insert into retailer_locations (retailer_id, name) select r.id, 'Store ' || i from retailers r, generate_series(1, 4) i`);
  await rows(`insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id, territory_id)
              select cr.company_id, cr.id, rl.id,
                     case when rl.name in ('Store 1', 'Store 2') then (select id from territories t where t.company_id = cr.company_id order by name desc limit 1) end
                from company_retailers cr join retailer_locations rl on rl.retailer_id = cr.retailer_id`);
  await rows(`insert into users (email, name, role, company_id) select 'admin@example.test', 'Admin', 'company_admin', id from companies order by name limit 1`);
  // 4,000 leads: owned by a company (nine in ten, assigned to one of its stores or to none) or by a
  // retailer (assigned to one of its stores), created over 4,000 minutes; a few by the admin.
  await rows(`insert into leads (name, owner_company_id, owner_retailer_id, assignee_id, created_by_id, created_at)
              select 'Lead ' || i,
                     case when i % 10 <> 0 then crl.company_id end,
                     case when i % 10 = 0 then rl.retailer_id end,
                     case when i % 7 <> 0 then crl.id end,
                     case when i % 97 = 0 then (select id from users limit 1) end,
                     now() - i * interval '1 minute'
                from generate_series(1, 4000) i
                join (select id, company_id, retailer_location_id, row_number() over (order by id) - 1 n from company_retailer_locations) crl
                  on crl.n = i % (select count(*) from company_retailer_locations)
                join retailer_locations rl on rl.id = crl.retailer_location_id`);
  await rows('vacuum analyze leads');
  const [first] = await rows(`select c.id as company, u.id as user_id, (select id from territories t where t.company_id = c.id order by name limit 1) as territory
                                from companies c join users u on u.company_id = c.id`);
  const crs = await rows(`select id from company_retailers where company_id = ? order by id`, [first.company]);
  const crls = await rows(`select id from company_retailer_locations where company_id = ? order by id limit 2`, [first.company]);
  const [retailer] = await rows(`select id from retailers order by name limit 1`);
  const rls = await rows(`select id from retailer_locations where retailer_id = ? order by id limit 2`, [retailer.id]);
  data = { ...first, crs: crs.map((r) => r.id), crls: crls.map((r) => r.id), retailer: retailer.id, rls: rls.map((r) => r.id) };
});
afterAll(() => t.close());

function caller(role: Role, extra: Partial<Caller> = {}): Caller {
  return {
    userId: data.user_id,
    role,
    companyId: null,
    retailerId: null,
    territoryId: null,
    companyRetailerIds: [],
    companyRetailerLocationIds: [],
    retailerLocationIds: [],
    ...extra,
  };
}

const callers: Array<[string, () => Caller]> = [
  ['company admin', () => caller(Role.CompanyAdmin, { companyId: data.company })],
  ['territory manager', () => caller(Role.CompanyTerritoryManager, { companyId: data.company, territoryId: data.territory })],
  ['retailer manager', () => caller(Role.CompanyRetailerManager, { companyId: data.company, companyRetailerIds: data.crs })],
  ['location user', () => caller(Role.CompanyLocationUser, { companyId: data.company, companyRetailerLocationIds: data.crls })],
  ['sales associate', () => caller(Role.CompanySalesAssociate, { companyId: data.company, companyRetailerLocationIds: data.crls.slice(0, 1) })],
  ['retailer admin', () => caller(Role.RetailerAdmin, { retailerId: data.retailer })],
  ['store manager', () => caller(Role.RetailerStoreManager, { retailerId: data.retailer, retailerLocationIds: data.rls })],
];

/** Every node of a JSON plan. */
function nodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

async function planOf(statement: Sql): Promise<any[]> {
  const [row] = await rows(`explain (format json) ${statement.sql}`, statement.bindings);
  return nodes(row['QUERY PLAN'][0].Plan);
}

const wholeLeadsScan = (n: any) => n['Relation Name'] === 'leads' && n['Node Type'] === 'Seq Scan';

test('each role sees part of the leads (the plans below are not over an empty or a whole scope)', async () => {
  for (const [, who] of callers) {
    const { count } = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()) });
    const [{ total }] = await rows(count.sql, count.bindings);
    expect(total).toBeGreaterThan(10);
    expect(total).toBeLessThan(2000);
  }
});

describe.each(callers)('%s', (_, who) => {
  test('the first page, a later page and the total never scan the whole leads table', async () => {
    for (const page of [1, 3]) {
      const plan = planSearch(leadSearch, { page, perPage: 50, scope: leadScope(who()) });
      for (const statement of [plan.page, plan.count]) {
        const found = await planOf(statement);
        expect(found.filter(wholeLeadsScan)).toEqual([]);
        expect(found.some((n) => n['Relation Name'] === 'leads')).toBe(true);
      }
    }
  });
});

describe.each(callers)('%s, by cursors', (_, who) => {
  test('a page after (and before) a cursor seeks in the index, never scans the whole leads table', async () => {
    const [row] = await rows(`select created_at::text as created_at, id from leads order by created_at desc, id limit 1 offset 1500`);
    for (const backward of [false, true]) {
      const plan = planSearch(leadSearch, { page: 1, perPage: 21, scope: leadScope(who()), keyset: { after: [row.created_at, row.id], backward } });
      const found = await planOf(plan.page);
      expect(found.filter(wholeLeadsScan)).toEqual([]);
      expect(found.some((n) => n['Relation Name'] === 'leads')).toBe(true);
    }
  });
});

test('the check itself sees a whole-table scan when there is one', async () => {
  const found = await planOf({ sql: "select count(*) from leads where name like '%1%'", bindings: [] });
  expect(found.filter(wholeLeadsScan)).toHaveLength(1);
});
