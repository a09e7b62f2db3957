import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';

/**
 * Issue 10: leads are read as plain rows (src/modules/lead/lead.repository.ts) and a create answers from
 * what it wrote. The answers must be byte for byte what a read of the stored lead gives.
 */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;

beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());

let n = 0;
/** A lead with every association, of its own person (no duplicate merge). */
const full = (extra: Record<string, unknown> = {}) => {
  n++;
  return quoteRequest({
    name: 'Zoë Quartz',
    status: 'Contacted',
    source_type: 'Web',
    source_id: '3f0c7b5e-8d1a-4c2b-9e6f-0a1b2c3d4e5f',
    assignee_id: r.net.storeNorth.id,
    emails: [{ email: ` Zoe.${Date.now()}@Example.com ` }, { email: `second.${Date.now()}@example.com` }],
    phone_numbers: [{ phone_number: `(503) 555-0${100 + n}` }, { phone_number: `020 7183 8${100 + n}`, country_code: 'gb' }],
    location: { address_name: 'Home', street_line_one: '1 Main St', city: 'Portland', province: 'OR', postal_code: '97201', country: 'US' },
    // Keys out of jsonb's order, nested: the stored data comes back reordered, and so must the answer.
    lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { zeta: 1, products: [{ sku: 'ANV-1', name: 'Anvil', quantity: 2 }], a: { y: 1, x: 2 } } }],
    ...extra,
  });
};

test('a create answers exactly what a show of the stored lead answers', async () => {
  const created = await api(t, 'post', '/v1/leads?include=*', { key: r.users.companyAdmin.key, body: full() });
  expect(created.status).toBe(201);
  const shown = await api(t, 'get', `/v1/leads/${created.body.id}?include=*`, { key: r.users.companyAdmin.key });
  expect(JSON.stringify(created.body)).toBe(JSON.stringify(shown.body));
  expect(created.body.phone_numbers.map((p: any) => p.formatted)).toEqual([`+1 503 555 0${100 + n}`, `+44 20 7183 8${100 + n}`]);
  expect(created.body.assignee).toMatchObject({ id: r.net.storeNorth.id, type: 'CompanyRetailerLocation' });
});

test('a source id in another spelling is answered as stored', async () => {
  const created = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: full({ source_id: '3F0C7B5E-8D1A-4C2B-9E6F-0A1B2C3D4E5F' }) });
  expect(created.status).toBe(201);
  const shown = await api(t, 'get', `/v1/leads/${created.body.id}`, { key: r.users.companyAdmin.key });
  expect(JSON.stringify(created.body)).toBe(JSON.stringify(shown.body));
});

test('a create writes the lead and everything it embeds in one statement and reads nothing back', async () => {
  t.resetStatements();
  const created = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: full() });
  expect(created.status).toBe(201);
  const inserts = t.statements.filter((s) => /\binsert into\b/i.test(s));
  expect(inserts).toHaveLength(1);
  const afterCommit = t.statements.slice(t.statements.findIndex((s) => /\bcommit\b/i.test(s)) + 1);
  expect(afterCommit).toEqual([]);
  const shown = await api(t, 'get', `/v1/leads/${created.body.id}`, { key: r.users.companyAdmin.key });
  expect(JSON.stringify(created.body)).toBe(JSON.stringify(shown.body));
});

test('a merge into a duplicate answers the merged lead as stored', async () => {
  const first = await createLead(t, r.users.companyAdmin.key, full());
  const again = await api(t, 'post', '/v1/leads', {
    key: r.users.companyAdmin.key,
    body: quoteRequest({ emails: [{ email: first.emails[0].email }, { email: `third.${Date.now()}@example.com` }] }),
  });
  expect(again.body.id).toBe(first.id);
  const shown = await api(t, 'get', `/v1/leads/${first.id}`, { key: r.users.companyAdmin.key });
  expect(JSON.stringify(again.body)).toBe(JSON.stringify(shown.body));
  expect(again.body.emails).toHaveLength(3);
});

test('a number written around the application is formatted when read', async () => {
  const lead = await createLead(t, r.users.companyAdmin.key, full());
  await t.em().getConnection().execute(`update phone_numbers set formatted_international = null where lead_id = ?`, [lead.id]);
  const shown = await api(t, 'get', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key });
  expect(shown.body.phone_numbers.map((p: any) => p.formatted)).toEqual([`+1 503 555 0${100 + n}`, `+44 20 7183 8${100 + n}`]);
});

test('GraphQL reads every Lead field from the plain rows, getters included', async () => {
  const lead = await createLead(t, r.users.companyAdmin.key, full());
  const res = await gql(
    t,
    r.users.companyAdmin.key,
    `query($id: ID!) { lead(id: $id) { id ownerType ownerId assigneeId createdById sourceId updatedAt
        phoneNumbers { formatted createdAt } leadActivities { leadId lead { id ownerType } } } }`,
    { id: lead.id },
  );
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.lead).toMatchObject({
    id: lead.id,
    ownerType: 'Company',
    ownerId: r.net.company.id,
    assigneeId: r.net.storeNorth.id,
    createdById: r.users.companyAdmin.user.id,
    sourceId: '3f0c7b5e-8d1a-4c2b-9e6f-0a1b2c3d4e5f',
  });
  expect(res.body.data.lead.leadActivities[0]).toEqual({ leadId: lead.id, lead: { id: lead.id, ownerType: 'Company' } });
});
