// The leads' stored search text (Migration20261122014000_lead_search_text): triggers keep it equal to
// the text expression of lead.search.ts through every write of a lead, its contacts and its location.
import { api, createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { leadSearch } from '../../src/modules/lead/lead.search';
import { planSearch } from '../../src/search/postgres.queries';
import { textExpression } from '../../src/search/text';
import { fromClause } from '../../src/search/types';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
const one = async (sql: string, params: unknown[] = []) => (await t.em().getConnection().execute(sql, params as any[]))[0];
const stale = () =>
  one(`select count(*)::int as n, count(*) filter (where l.search_text is distinct from ${textExpression(leadSearch)})::int as different
         from ${fromClause(leadSearch)}`);
const found = async (q: string) => {
  const res = await api(t, 'get', `/v1/leads?q=${encodeURIComponent(q)}`, { key: r.users.companyAdmin.key });
  expect(res.status).toBe(200);
  return res.body.leads.map((l: { id: string }) => l.id);
};

beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());

test('stays equal to the text expression through creates, nested updates, deletes and location changes', async () => {
  const key = r.users.companyAdmin.key;
  const lead = await createLead(t, key, quoteRequest({
    name: 'Crème Brûlée',
    emails: [{ email: 'first@example.com' }, { email: 'second@example.com' }],
    phone_numbers: [{ phone_number: '(503) 555-0123' }],
    location: { city: 'Zürich', province: 'ZH', postal_code: '8001', country: 'CH' },
  }));
  const bare = await createLead(t, key, { lead: { name: 'Bare', emails: [{ email: 'bare@example.com' }] } });
  expect(await stale()).toEqual({ n: expect.any(Number), different: 0 });
  expect(await found('zurich')).toEqual([lead.id]);

  const first = lead.emails.find((e: { email: string }) => e.email === 'first@example.com');
  const res = await api(t, 'patch', `/v1/leads/${lead.id}`, {
    key,
    body: {
      lead: {
        status: 'Contacted',
        emails: [{ id: first.id, _destroy: true }, { email: 'brandnew@example.com' }],
        phone_numbers: [{ id: lead.phone_numbers[0].id, phone_number: '(503) 555-0199' }],
        location: { city: 'Genève' },
      },
    },
  });
  expect(res.status).toBe(200);
  expect(await stale()).toEqual({ n: expect.any(Number), different: 0 });
  expect(await found('brandnew')).toEqual([lead.id]);
  expect(await found('first@example.com')).toEqual([]);
  expect(await found('15035550199')).toEqual([lead.id]);
  expect(await found('geneve')).toEqual([lead.id]);
  expect(await found('zurich')).toEqual([]);

  // A location changed elsewhere (not through the lead), a lead moved to another one, emails moved.
  await t.em().getConnection().execute(`update locations set postal_code = 'G-1201' where id = (select location_id from leads where id = ?)`, [lead.id]);
  expect(await found('g-1201')).toEqual([lead.id]);
  await t.em().getConnection().execute(`update leads set location_id = (select location_id from leads where id = ?) where id = ?`, [lead.id, bare.id]);
  await t.em().getConnection().execute(`update emails set lead_id = ? where email = 'brandnew@example.com'`, [bare.id]);
  expect(await stale()).toEqual({ n: expect.any(Number), different: 0 });
  expect(await found('brandnew')).toEqual([bare.id]);

  expect((await api(t, 'delete', `/v1/leads/${lead.id}`, { key })).status).toBe(204);
  await t.em().getConnection().execute(`delete from locations where id = (select location_id from leads where id = ?)`, [bare.id]);
  expect(await stale()).toEqual({ n: expect.any(Number), different: 0 });
  expect(await one(`select search_text from leads where id = ?`, [bare.id])).toEqual({ search_text: 'bare new bare@example.com brandnew@example.com     ' });
});

test('a q search is served by the trigram index', async () => {
  const plan = planSearch(leadSearch, { q: 'shopper portland', page: 1, perPage: 50, scope: {} });
  const lines = await t.em().transactional(async (em) => {
    await em.execute('set local enable_seqscan = off');
    return em.execute(`explain ${plan.count.sql}`, plan.count.bindings as any[]);
  });
  expect(lines.map((l: any) => l['QUERY PLAN']).join('\n')).toContain('leads_search_text_trgm_index');
});
