// The leads' stored search text (Migration20261125160000_lead_search_text_statements): statement
// triggers keep it equal, to the byte, to a recomputation from scratch through single writes (the API)
// and bulk writes (one statement over many leads, contacts and locations), and recompute a lead once
// per statement however many of its rows the statement writes.
import { api, createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { leadSearch } from '../../src/modules/lead/lead.search';
import { textExpression } from '../../src/search/text';
import { fromClause } from '../../src/search/types';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
const sql = (text: string, params: unknown[] = []) => t.em().getConnection().execute(text, params as any[]);

/** Leads whose stored text differs from `leadnet_lead_search_text(l)` or from lead.search.ts' text expression. */
const stale = async () =>
  (
    await sql(`select count(*)::int as n,
                      count(*) filter (where l.search_text is distinct from leadnet_lead_search_text(l))::int as from_function,
                      count(*) filter (where l.search_text is distinct from ${textExpression(leadSearch)})::int as from_expression
                 from ${fromClause(leadSearch)}`)
  )[0];

/** How many lead rows `statement` rewrote (counted by a row trigger the first test does not have). */
const leadUpdates = async (statement: string) => {
  await sql(`delete from lead_update_counts`);
  await sql(statement);
  return Number((await sql(`select count(*) as n from lead_update_counts`))[0].n);
};

beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());

test('single and bulk writes leave every lead with the text computed from scratch', async () => {
  const key = r.users.companyAdmin.key;
  const company = r.net.company.id;
  // Single writes through the API: a create, a duplicate merged into it, a nested update.
  const lead = await createLead(t, key, quoteRequest({
    name: 'Crème Brûlée',
    emails: [{ email: 'first@example.com' }, { email: 'second@example.com' }],
    phone_numbers: [{ phone_number: '(503) 555-0123' }],
    location: { city: 'Zürich', province: 'ZH', postal_code: '8001', country: 'CH' },
  }));
  const merged = await api(t, 'post', '/v1/leads', {
    key,
    body: { lead: { name: 'Other', emails: [{ email: 'FIRST@example.com' }, { email: 'third@example.com' }], phone_numbers: [{ phone_number: '503-555-0177' }] } },
  });
  expect(merged.body.id).toBe(lead.id);
  const patched = await api(t, 'patch', `/v1/leads/${lead.id}`, {
    key,
    body: { lead: { status: 'Contacted', emails: [{ id: lead.emails[1].id, _destroy: true }], location: { city: 'Genève' } } },
  });
  expect(patched.status).toBe(200);

  // Bulk writes: 60 leads with locations (some shared), then their emails and phone numbers, each one statement.
  await sql(`create temp table bulk as
    select g, gen_random_uuid() as id, case when g % 7 = 0 then null else gen_random_uuid() end as location_id from generate_series(1, 60) g`);
  await sql(`insert into locations (id, city, province, country, postal_code)
    select location_id, 'Town ' || (g % 4), 'QC', 'CA', 'H2X ' || g from bulk where location_id is not null`);
  await sql(`insert into leads (id, name, status, owner_company_id, location_id, created_at, updated_at)
    select id, 'Bulk Çelik ' || g, 'New', ?, location_id, now(), now() from bulk`, [company]);
  await sql(`insert into emails (lead_id, email)
    select id, 'bulk' || g || '@example.com' from bulk union all select id, 'alt' || g || '@example.com' from bulk where g % 3 = 0`);
  await sql(`insert into phone_numbers (lead_id, phone_number, country_code)
    select id, '+1514555' || lpad(g::text, 4, '0'), 'CA' from bulk where g % 2 = 0
    union all select id, '+1', 'CA' from bulk where g = 4`);
  expect(await stale()).toEqual({ n: expect.any(Number), from_function: 0, from_expression: 0 });
  // Found by q right after the bulk load, its trigrams possibly still in the index's pending list.
  expect((await sql(`select reloptions from pg_class where relname = 'leads_search_text_trgm_index'`))[0].reloptions).toEqual(['fastupdate=on', 'gin_pending_list_limit=256']);
  const search = await api(t, 'get', `/v1/leads?q=${encodeURIComponent('bulk17@example')}`, { key });
  expect(search.body.leads.map((l: { name: string }) => l.name)).toEqual(['Bulk Çelik 17']);

  // Bulk changes: texts edited, emails moved between leads and reordered, rows deleted, a no-op update,
  // locations edited (one shared by two leads) and deleted, leads renamed and moved.
  await sql(`update emails set email = upper(email) where email like 'alt%'`);
  await sql(`update emails e set lead_id = (select id from bulk where g = 1) where e.email like 'bulk1_@example.com'`);
  await sql(`update emails e set seq = -e.seq where e.lead_id = (select id from bulk where g = 1)`);
  await sql(`update phone_numbers set phone_number = '+15145550000' || right(phone_number, 1) where phone_number like '+1514555001%'`);
  await sql(`delete from phone_numbers where phone_number like '+1514555002%'`);
  await sql(`delete from emails where email like 'bulk3_@example.com'`);
  await sql(`update emails set updated_at = now()`);
  await sql(`update leads set location_id = (select location_id from bulk where g = 1) where id = (select id from bulk where g = 2)`);
  await sql(`update locations set city = city || ' Nord', postal_code = null where id in (select location_id from bulk where g < 20)`);
  await sql(`update leads set name = 'Renamed ' || name, status = 'Won' where id in (select id from bulk where g > 50)`);
  await sql(`delete from locations where id in (select location_id from bulk where g between 40 and 45)`);
  expect(await stale()).toEqual({ n: expect.any(Number), from_function: 0, from_expression: 0 });
  expect((await sql(`select search_text from leads where id = ?`, [lead.id]))[0].search_text).toBe(
    'creme brulee contacted first@example.com third@example.com 15035550123 5035550123 035550123 35550123 5550123 550123 50123 0123 ' +
      '15035550177 5035550177 035550177 35550177 5550177 550177 50177 0177 geneve zh ch 8001',
  );

  // A lead removed with its contacts, and a whole company's leads at once.
  expect((await api(t, 'delete', `/v1/leads/${lead.id}`, { key })).status).toBe(204);
  await sql(`delete from leads where id in (select id from bulk where g % 5 = 0)`);
  expect(await stale()).toEqual({ n: expect.any(Number), from_function: 0, from_expression: 0 });
});

test('a statement writing many rows of one lead rewrites the lead once', async () => {
  await sql(`create table lead_update_counts (lead_id uuid)`);
  await sql(`create function lead_update_count() returns trigger language plpgsql as $$
    begin insert into lead_update_counts values (NEW.id); return null; end $$`);
  await sql(`create trigger lead_update_count after update on leads for each row execute function lead_update_count()`);
  const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ name: 'Once' }));
  const emails = Array.from({ length: 5 }, (_, i) => `('${lead.id}', 'once${i}@example.com')`).join(', ');
  const phones = Array.from({ length: 5 }, (_, i) => `('${lead.id}', '+1503555010${i}', 'US')`).join(', ');
  expect(await leadUpdates(`insert into emails (lead_id, email) values ${emails}`)).toBe(1);
  expect(await leadUpdates(`insert into phone_numbers (lead_id, phone_number, country_code) values ${phones}`)).toBe(1);
  expect(await leadUpdates(`update emails set email = 'x' || email where lead_id = '${lead.id}'`)).toBe(1);
  expect(await leadUpdates(`delete from phone_numbers where lead_id = '${lead.id}'`)).toBe(1);
  // Rows written without a change of the text leave the lead alone.
  expect(await leadUpdates(`update emails set updated_at = now() where lead_id = '${lead.id}'`)).toBe(0);
  expect(await stale()).toEqual({ n: expect.any(Number), from_function: 0, from_expression: 0 });
});

test("a create writes its lead's text with the row: no lead is rewritten by its contacts' triggers, alone or in a batch", async () => {
  const key = r.users.companyAdmin.key;
  const rewrites = async (write: () => Promise<unknown>) => {
    await sql(`delete from lead_update_counts`);
    await write();
    return Number((await sql(`select count(*) as n from lead_update_counts`))[0].n);
  };
  const person = (n: number) => ({
    name: `Straße Ödön ${n}`,
    status: 'Contacted',
    emails: [{ email: `at.insert.${n}@example.com` }, { email: `At.Insert.${n}.Second@Example.com` }],
    phone_numbers: [{ phone_number: `(503) 555-01${n}0` }, { phone_number: `+44 20 7946 0${n}58` }],
    location: n % 2 ? { city: 'Düsseldorf', province: 'NW', postal_code: '40213', country: 'DE' } : { city: null, country: 'US' },
  });
  expect(await rewrites(() => createLead(t, key, quoteRequest(person(1))))).toBe(0);
  expect(await rewrites(() => createLead(t, key, quoteRequest({ name: 'No location', emails: [{ email: 'at.insert.bare@example.com' }] })))).toBe(0);
  const batch = await rewrites(async () => {
    const res = await api(t, 'post', '/v1/leads/batch', { key, body: { leads: [2, 3, 4].map((n) => quoteRequest(person(n)).lead) } });
    expect(res.body.results.map((x: { status: number }) => x.status)).toEqual([201, 201, 201]);
  });
  expect(batch).toBe(0);
  expect(await stale()).toEqual({ n: expect.any(Number), from_function: 0, from_expression: 0 });
  // Found by q at once: by a phone number's digits, and by the name written with its accents.
  const found = async (q: string) => (await api(t, 'get', `/v1/leads?q=${encodeURIComponent(q)}`, { key })).body.leads.map((l: { name: string }) => l.name);
  expect(await found('5550130')).toEqual(['Straße Ödön 3']);
  expect((await found('Straße Ödön')).sort()).toEqual([1, 2, 3, 4].map((n) => `Straße Ödön ${n}`));
});
