import { createTestApp, type TestApp } from '../support/app';
import { leadSearch } from '../../src/modules/lead/lead.search';
import { leadScope } from '../../src/modules/lead/lead.policy';
import { planSearch } from '../../src/search/postgres.queries';
import { query } from '../../src/db/sql';
import { planCallers, planOf as plansOf, seedPlanData } from '../support/plans';
import type { Sql } from '../../src/search/types';

/**
 * The escalated leads' list (docs/lead-loop.md "Escalation": `where: {escalatedAt: {exists: true}}`, a
 * territory manager's or admin's dashboard) is index-served: on the plan tests' 4,000 leads with a few
 * escalated, no role's page or total reads the whole `leads` table, and a company admin's goes through
 * the partial index of escalated leads (Migration20261206200100_lead_escalations).
 */
let t: TestApp;
let data: Record<string, any>;
const rows = async (sql: string, bindings: unknown[] = []) => query(t.em(), sql, bindings);
const planOf = (statement: Sql) => plansOf(t, statement);
const wholeLeadsScan = (n: any) => n['Relation Name'] === 'leads' && n['Node Type'] === 'Seq Scan';
const ESCALATED = { escalated_at: { exists: true } };

beforeAll(async () => {
  t = await createTestApp();
  data = await seedPlanData(t);
  // One lead in a hundred of the assigned ones is escalated.
  await rows(`update leads set escalated_at = now() - (random() * interval '3 days') where assignee_id is not null and abs(hashtext(id::text)) % 100 = 0`);
  await rows('analyze leads');
});
afterAll(() => t.close());

describe.each(planCallers(() => data))('%s', (name, who) => {
  test('the escalated leads: the page and the total never scan the whole leads table, and hold only escalated leads', async () => {
    const plan = planSearch(leadSearch, { page: 1, perPage: 50, scope: leadScope(who()), where: ESCALATED });
    for (const statement of [plan.page, plan.count]) expect((await planOf(statement)).filter(wholeLeadsScan)).toEqual([]);
    const page = await rows(plan.page.sql, plan.page.bindings);
    const ids = page.map((r: any) => r.id);
    if (ids.length) {
      const [{ n }] = await rows(`select count(*)::int as n from leads where id = any(?::uuid[]) and escalated_at is null`, [ids]);
      expect(n).toBe(0);
    }
    if (name === 'company admin') {
      expect(ids.length).toBeGreaterThan(0);
      const indexes = [...(await planOf(plan.page)), ...(await planOf(plan.count))].map((n) => n['Index Name']).filter(Boolean);
      expect(indexes).toContain('leads_escalated_at_index');
    }
  });
});
