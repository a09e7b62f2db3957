import type { TestApp } from './app';
import type { Caller } from '../../src/auth/caller';
import { Role } from '../../src/modules/user/role';
import type { Sql } from '../../src/search/types';
import { query } from '../../src/db/sql';
import { callerOf } from './caller';

/**
 * The data of the plan tests (issue 10): eight companies and retailers, their network (with thousands of
 * stores and company retailers more), and 4,000 leads with ten activities each, enough that PostgreSQL plans as it does at scale (an index where one
 * serves, a sequential scan where none does); and each role's caller over it.
 */
export async function seedPlanData(t: TestApp): Promise<Record<string, any>> {
  const rows = async (sql: string, bindings: unknown[] = []) => query(t.em(), sql, bindings);
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
                     case when i % 397 = 0 then (select id from users limit 1) end,
                     now() - i * interval '1 minute'
                from generate_series(1, 4000) i
                join (select id, company_id, retailer_location_id, row_number() over (order by id) - 1 n from company_retailer_locations) crl
                  on crl.n = i % (select count(*) from company_retailer_locations)
                join retailer_locations rl on rl.id = crl.retailer_location_id`);
  // A timeline of ten activities each (a quote request, then notes): 40,000.
  await rows(`insert into lead_activities (lead_id, type, data, created_at)
              select l.id, case when n = 0 then 'LeadActivity::QuoteRequest' else 'LeadActivity::Note' end, '{}', l.created_at + n * interval '1 second'
                from leads l, generate_series(0, 9) n`);
  // Stores without leads and retailers of the other companies, so the network tables are large enough
  // to be planned as at scale: 1,200 more stores (2,400 CRLs, 300 of the first company), 7,000 more
  // company retailers (none of the first company).
  await rows(`insert into retailer_locations (retailer_id, name) select r.id, 'Extra ' || i from retailers r, generate_series(1, 150) i`);
  await rows(`insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id)
              select cr.company_id, cr.id, rl.id
                from company_retailers cr join retailer_locations rl on rl.retailer_id = cr.retailer_id and rl.name like 'Extra %'`);
  await rows(`insert into retailers (name) select 'Filler ' || i from generate_series(1, 1000) i`);
  await rows(`insert into company_retailers (company_id, retailer_id)
              select c.id, r.id from companies c, retailers r where c.name <> 'Company 1' and r.name like 'Filler %'`);
  // Every table the plans read has statistics: a plan must not depend on whether autovacuum reached one yet
  // (an unanalyzed `retailers` once hid a whole scan of `company_retailers`).
  for (const table of ['leads', 'lead_activities', 'companies', 'retailers', 'territories', 'company_retailers', 'company_retailer_locations', 'retailer_locations']) await rows(`vacuum analyze ${table}`);
  const [first] = await rows(`select c.id as company, u.id as user_id, (select id from territories t where t.company_id = c.id order by name limit 1) as territory
                                from companies c join users u on u.company_id = c.id`);
  const crs = await rows(`select id from company_retailers where company_id = ? order by id`, [first.company]);
  const crls = await rows(
    `select crl.id from company_retailer_locations crl join retailer_locations rl on rl.id = crl.retailer_location_id
      where crl.company_id = ? and rl.name like 'Store %' order by crl.id limit 2`,
    [first.company],
  );
  const [retailer] = await rows(`select id from retailers where name like 'Retailer %' order by name limit 1`);
  const rls = await rows(`select id from retailer_locations where retailer_id = ? and name like 'Store %' order by id limit 2`, [retailer.id]);
  return { ...first, crs: crs.map((r) => r.id), crls: crls.map((r) => r.id), retailer: retailer.id, rls: rls.map((r) => r.id) };
}

/** Each role's caller over the seeded data (read when a test runs), by name. */
export function planCallers(seeded: () => Record<string, any>): Array<[string, () => Caller]> {
  const as = (role: Role, extra: (d: Record<string, any>) => Partial<Caller>) => () => callerOf(role, { userId: seeded().user_id, ...extra(seeded()) });
  return [
    ['company admin', as(Role.CompanyAdmin, (d) => ({ companyId: d.company }))],
    ['territory manager', as(Role.CompanyTerritoryManager, (d) => ({ companyId: d.company, territoryId: d.territory }))],
    ['retailer manager', as(Role.CompanyRetailerManager, (d) => ({ companyId: d.company, companyRetailerIds: d.crs }))],
    ['location user', as(Role.CompanyLocationUser, (d) => ({ companyId: d.company, companyRetailerLocationIds: d.crls }))],
    ['sales associate', as(Role.CompanySalesAssociate, (d) => ({ companyId: d.company, companyRetailerLocationIds: d.crls.slice(0, 1) }))],
    ['retailer admin', as(Role.RetailerAdmin, (d) => ({ retailerId: d.retailer }))],
    ['store manager', as(Role.RetailerStoreManager, (d) => ({ retailerId: d.retailer, retailerLocationIds: d.rls }))],
  ];
}

/** Every node of a JSON plan. */
export function nodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** PostgreSQL's plan of a statement, sent as the app sends it (values as parameters), as a list of nodes. */
export async function planOf(t: TestApp, statement: Sql): Promise<any[]> {
  const [row] = await query(t.em(), `explain (format json) ${statement.sql}`, statement.bindings);
  return nodes(row['QUERY PLAN'][0].Plan);
}

