import { createTestApp, type TestApp } from '../support/app';
import type { Caller } from '../../src/auth/caller';
import { leadSearch } from '../../src/modules/lead/lead.search';
import { leadScope } from '../../src/modules/lead/lead.policy';
import { planSearch } from '../../src/search/postgres.queries';
import { conditionToSql, parseScope } from '../../src/search/where';
import type { Sql, Where } from '../../src/search/types';
import { query } from '../../src/db/sql';
import { planCallers, planOf as plansOf, seedPlanData } from '../support/plans';
import { callerOf } from '../support/caller';
import { Role } from '../../src/modules/user/role';

/**
 * Issue 10: every role's first lead page and its total are index-served. On 4,000 leads of eight
 * companies and their retailers, PostgreSQL's own plan for each statement must not read the whole
 * `leads` table (no sequential scan of it, hence no hash join over all of it).
 */
let t: TestApp;
let data: Record<string, any>;
const rows = async (sql: string, bindings: unknown[] = []) => query(t.em(), sql, bindings);

beforeAll(async () => {
  t = await createTestApp();
  data = await seedPlanData(t);
});
afterAll(() => t.close());

const callers: Array<[string, () => Caller]> = planCallers(() => data);
const planOf = (statement: Sql) => plansOf(t, statement);

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

const fewValues = ['retailer manager', 'location user', 'store manager'];
describe.each(callers.filter(([name]) => fewValues.includes(name)))('%s, a scope over a few stores or company retailers', (_, who) => {
  test('each value is an index range read in list order: no page sorts the leads of its scope, and the page is the list of the whole scope', async () => {
    for (const page of [1, 3]) {
      const plan = planSearch(leadSearch, { page, perPage: 50, scope: leadScope(who()) });
      const found = await planOf(plan.page);
      expect(found.filter((n) => n['Node Type'] === 'Sort' && (n.Plans ?? []).some((c: any) => c['Relation Name'] === 'leads'))).toEqual([]);
    }
    // The parts' page is the scope's whole list, in order.
    const split = planSearch(leadSearch, { page: 1, perPage: 500, scope: leadScope(who()) });
    expect(split.page.sql.split(' union all ').length).toBeGreaterThan(2);
    const scope = conditionToSql(leadSearch, parseScope(leadSearch, leadScope(who())));
    const [parts, whole] = await Promise.all([
      rows(split.page.sql, split.page.bindings),
      rows(`select l.id from leads l where ${scope.sql} order by l.created_at desc, l.id limit 500`, scope.bindings),
    ]);
    expect(parts.map((r) => r.id)).toEqual(whole.map((r) => r.id));
    // With `q` the branch stays whole: a part per value would search the text again.
    const searched = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()), q: 'lead' });
    expect(searched.page.sql.split(' union all ').length).toBe(2);
  });
});

test('a scope is split by value for 2 to 16 distinct values only; a where is never split', () => {
  const manager = (companyRetailerIds: string[]) => callerOf(Role.CompanyRetailerManager, { userId: data.user_id, companyId: data.company, companyRetailerIds });
  const parts = (caller: Caller, where?: Where) => planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(caller), where }).page.sql.split(' union all ').length;
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  expect(parts(manager(ids(2)))).toBe(3); // two company retailers, and the leads the caller created
  expect(parts(manager([...ids(2), ...ids(2)]))).toBe(3);
  expect(parts(manager(ids(16)))).toBe(17);
  expect(parts(manager(ids(17)))).toBe(2);
  expect(parts(manager(ids(1)), { assignee_company_retailer_id: ids(5) })).toBe(2);
});

test('the check itself sees a whole-table scan when there is one', async () => {
  const found = await planOf({ sql: "select count(*) from leads where name like '%1%'", bindings: [] });
  expect(found.filter(wholeLeadsScan)).toHaveLength(1);
});

const counted = ['company admin', 'territory manager', 'retailer manager', 'retailer admin'];
describe.each(callers.filter(([name]) => counted.includes(name)))('%s, unfiltered', (_, who) => {
  test('the total is read from the kept counts, but for the leads the caller created, and equals their count', async () => {
    const plain = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()) });
    const found = await planOf(plain.count);
    expect(found.some((n) => n['Relation Name'] === 'lead_counts')).toBe(true);
    // Only the caller's own leads beyond its scope are counted in the leads table, by their creator's index.
    expect(found.filter((n) => n['Index Name']?.startsWith('leads_')).map((n) => n['Index Name'])).toEqual(['leads_created_by_id_created_at_index']);
    // The same list with a `where` that every lead satisfies is counted row by row.
    const counted = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()), where: { id: { exists: true } } });
    expect((await planOf(counted.count)).some((n) => n['Relation Name'] === 'lead_counts')).toBe(false);
    const [[kept], [actual]] = await Promise.all([rows(plain.count.sql, plain.count.bindings), rows(counted.count.sql, counted.count.bindings)]);
    expect(kept.total).toBe(actual.total);
    expect(kept.total).toBeGreaterThan(100);
  });
});

describe.each(callers.filter(([name]) => name.endsWith('admin')))('%s, a created_at range', (_, who) => {
  test('the total sums the kept counts of the whole days and counts only the partial days, by index; it equals the count', async () => {
    const day = 86_400_000;
    const where = { created_at: { gte: new Date(Date.now() - 2.5 * day).toISOString(), lt: new Date(Date.now() - 0.2 * day).toISOString() } };
    const plan = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()), where });
    const found = await planOf(plan.count);
    expect(found.some((n) => n['Relation Name'] === 'lead_day_counts')).toBe(true);
    expect(found.filter(wholeLeadsScan)).toEqual([]);
    const counted = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()), where: { ...where, id: { exists: true } } });
    expect((await planOf(counted.count)).some((n) => n['Relation Name'] === 'lead_day_counts')).toBe(false);
    const [[kept], [actual]] = await Promise.all([rows(plan.count.sql, plan.count.bindings), rows(counted.count.sql, counted.count.bindings)]);
    expect(kept.total).toBe(actual.total);
    expect(kept.total).toBeGreaterThan(50);
  });
});
