import { createTestApp, type TestApp } from '../support/app';
import { leadActivitySearch } from '../../src/modules/lead/lead.search';
import { leadScope } from '../../src/modules/lead/lead.policy';
import { crlSearch } from '../../src/modules/company-retailer-location/company-retailer-location.search';
import { crlScope } from '../../src/modules/company-retailer-location/company-retailer-location.policy';
import { companyRetailerSearch } from '../../src/modules/company-retailer/company-retailer.search';
import { companyRetailerScope } from '../../src/modules/company-retailer/company-retailer.policy';
import { planSearch } from '../../src/search/postgres.queries';
import type { SearchDocument, Where } from '../../src/search/types';
import type { Caller } from '../../src/auth/caller';
import { query } from '../../src/db/sql';
import { planCallers, planOf, seedPlanData } from '../support/plans';

/**
 * Issue 10 beyond leads: the other scoped lists (lead activities, CRLs, company retailers) read each
 * role's first page and total without scanning the whole table. The indexes that serve them end in the
 * list order (Migration20261124160000_list_order_indexes). Where a role's scope still crosses tables
 * that no index of the list's table covers (the scope keys are not kept on the row, as they are on
 * leads), its case is `test.failing`: it documents the gap and fails the day the gap closes.
 */
let t: TestApp;
let data: Record<string, any>;

beforeAll(async () => {
  t = await createTestApp();
  data = await seedPlanData(t);
});
afterAll(() => t.close());

const callers = planCallers(() => data);

interface List {
  doc: SearchDocument;
  table: string;
  scope: (caller: Caller) => Where;
  /** The roles whose plans still scan the whole table (open in issue 10). */
  gaps: string[];
}

const LISTS: Record<string, List> = {
  // An activity keeps its lead's owner and assignee keys: every branch but the creator's reads no lead.
  'lead activities': { doc: leadActivitySearch, table: 'lead_activities', scope: leadScope, gaps: [] },
  'company retailer locations': { doc: crlSearch, table: 'company_retailer_locations', scope: crlScope, gaps: [] },
  'company retailers': { doc: companyRetailerSearch, table: 'company_retailers', scope: companyRetailerScope, gaps: [] },
};

async function wholeScans(list: List, caller: Caller): Promise<string[]> {
  const plan = planSearch(list.doc, { page: 1, perPage: 50, scope: list.scope(caller) });
  const found: string[] = [];
  for (const [name, statement] of [['page', plan.page], ['total', plan.count]] as const) {
    const nodes = await planOf(t, statement);
    if (nodes.some((n) => n['Relation Name'] === list.table && n['Node Type'] === 'Seq Scan')) found.push(name);
  }
  return found;
}

describe.each(Object.entries(LISTS))('%s', (_, list) => {
  test('every role sees part of the list (the plans below are not over an empty or a whole scope)', async () => {
    const [{ all }] = await query(t.em(), `select count(*)::int as all from ${list.table}`);
    for (const [role, who] of callers) {
      const { count } = planSearch(list.doc, { page: 1, perPage: 50, scope: list.scope(who()) });
      const [{ total }] = await query(t.em(), count.sql, count.bindings);
      expect([role, total > 0 && total < all / 2]).toEqual([role, true]);
    }
  });

  for (const [role, who] of callers) {
    const check = list.gaps.includes(role) ? test.failing : test;
    check(`${role}: the first page and the total never scan the whole table`, async () => {
      expect(await wholeScans(list, who())).toEqual([]);
    });
  }
});

describe.each(callers.filter(([name]) => name.endsWith('admin')))('lead activities, %s, unfiltered', (_, who) => {
  test("the total of its own leads' activities is read from the owners' kept counts, and equals their count", async () => {
    const plain = planSearch(leadActivitySearch, { page: 1, perPage: 50, scope: leadScope(who()) });
    const found = await planOf(t, plain.count);
    expect(found.some((n) => n['Relation Name'] === 'lead_activity_counts')).toBe(true);
    expect(found.filter((n) => /owner_(company|retailer)_id/.test(n['Index Name'] ?? ''))).toEqual([]);
    // The same list with a `where` that every activity satisfies is counted row by row.
    const counted = planSearch(leadActivitySearch, { page: 1, perPage: 50, scope: leadScope(who()), where: { id: { exists: true } } });
    expect((await planOf(t, counted.count)).some((n) => n['Relation Name'] === 'lead_activity_counts')).toBe(false);
    const [[kept], [actual]] = await Promise.all([query(t.em(), plain.count.sql, plain.count.bindings), query(t.em(), counted.count.sql, counted.count.bindings)]);
    expect(kept.total).toBe(actual.total);
    expect(kept.total).toBeGreaterThan(0);
  });
});
