import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, roles } from '../support/leads';
import { Lead } from '../../src/modules/lead/lead.entity';
import { Email } from '../../src/modules/contact/email.entity';
import { PhoneNumber } from '../../src/modules/contact/phone-number.entity';
import { Location } from '../../src/modules/contact/location.entity';
import { LeadActivity } from '../../src/modules/lead/lead-activity.entity';
import { Role } from '../../src/modules/user/role';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());

const FORBIDDEN = { error: 'Unauthorized', status: 403 };

function detailsOf(res: { body: any }) {
  return res.body.details.map((d: any) => ({ field: d.field, code: d.code }));
}

describe('POST /v1/leads: the quote request recipe (SPEC 4.3)', () => {
  test('creates the lead with its nested records and answers 201 with the bare lead', async () => {
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: {
        lead: {
          name: '  Jane Shopper ',
          emails: [{ email: ' Jane@Example.COM ' }],
          phone_numbers: [{ phone_number: '(503) 555-0123', country_code: 'us' }],
          location: { street_line_one: '1 Main St', city: 'Portland', province: 'OR', postal_code: '97201', country: 'US' },
          assignee_type: 'CompanyRetailerLocation',
          assignee_id: r.net.storeNorth.id,
          lead_activities: [
            {
              type: 'LeadActivity::QuoteRequest',
              source_type: 'CompanyRetailerLocation',
              source_id: r.net.storeNorth.id,
              data: {
                products: [{ name: 'Anvil 100', sku: 'ANV-100', quantity: 2, price: '199.00', colour: 'red' }],
                notes: 'Saturday?',
                additionalData: { campaign: 'spring', nested: { a: [1, 2] } },
              },
            },
          ],
        },
      },
    });
    expect(res.status).toBe(201);
    const lead = res.body;
    expect(lead).toMatchObject({ name: 'Jane Shopper', status: 'New' });
    expect(lead.emails).toEqual([{ id: expect.any(String), email: 'jane@example.com' }]);
    expect(lead.phone_numbers).toEqual([{ id: expect.any(String), phone_number: '+15035550123', country_code: 'US', formatted: '+1 503 555 0123' }]);
    expect(lead.location).toEqual({
      id: expect.any(String),
      address_name: null,
      street_line_one: '1 Main St',
      street_line_two: null,
      postal_code: '97201',
      city: 'Portland',
      province: 'OR',
      country: 'US',
      latitude: expect.any(Number),
      longitude: expect.any(Number),
    });
    // Placed by the default offline geocoder (ZIP 97201 centroid).
    expect(lead.location.latitude).toBeCloseTo(45.51, 1);
    expect(lead.location.longitude).toBeCloseTo(-122.69, 1);
    const storeName = r.net.storeNorth.retailerLocation!.name;
    expect(lead.assignee).toEqual({
      id: r.net.storeNorth.id,
      type: 'CompanyRetailerLocation',
      name: storeName,
      company_retailer_id: r.net.companyRetailer.id,
      retailer_location_id: r.net.storeNorth.retailerLocation!.id,
    });
    expect(lead.lead_activities).toHaveLength(1);
    expect(lead.lead_activities[0]).toEqual({
      id: expect.any(String),
      type: 'LeadActivity::QuoteRequest',
      lead_id: lead.id,
      data: {
        products: [{ name: 'Anvil 100', sku: 'ANV-100', quantity: 2, price: '199.00', colour: 'red' }],
        notes: 'Saturday?',
        additionalData: { campaign: 'spring', nested: { a: [1, 2] } },
      },
      source_type: 'CompanyRetailerLocation',
      source_id: r.net.storeNorth.id,
      crm_id: null,
      crm_provider: null,
      crm_data_cache: null,
      created_at: expect.any(String),
    });
  });

  test('rule 1: the owner is always the caller\'s company or retailer; owner_id and owner_type are ignored', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ owner_id: r.other.company.id, owner_type: 'Company' }));
    const stored = await t.em().findOneOrFail(Lead, { id: lead.id });
    expect(stored.ownerCompany?.id).toBe(r.net.company.id);
    expect(stored.ownerRetailer).toBeNull();

    const byRetailer = await createLead(t, r.users.retailerAdmin.key, quoteRequest({ owner_id: r.net.company.id, owner_type: 'Company' }));
    const storedR = await t.em().findOneOrFail(Lead, { id: byRetailer.id });
    expect(storedR.ownerRetailer?.id).toBe(r.net.retailer.id);
    expect(storedR.ownerCompany).toBeNull();
  });

  test('rule 2: without assignee the lead is unassigned; a retailer admin may route to a store of its retailer', async () => {
    const unassigned = await createLead(t, r.users.companyAdmin.key);
    expect(unassigned.assignee).toBeNull();
    const routed = await createLead(t, r.users.retailerAdmin.key, quoteRequest({ assignee_id: r.net.storeSouth.id, assignee_type: 'CompanyRetailerLocation' }));
    expect(routed.assignee.id).toBe(r.net.storeSouth.id);
  });

  test.each([
    ['another company\'s location', () => ({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.other.storeNorth.id })],
    ['a location that does not exist', () => ({ assignee_type: 'CompanyRetailerLocation', assignee_id: '00000000-0000-4000-8000-000000000000' })],
    ['another assignee type', () => ({ assignee_type: 'User', assignee_id: r.net.storeNorth.id })],
    ['an assignee type alone', () => ({ assignee_type: 'Retailer' })],
  ])('rule 3: assigning %s is 403 with the SPEC body, and nothing is written', async (_what, extra) => {
    const before = await t.em().count(Lead, {});
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest(extra()) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await t.em().count(Lead, {})).toBe(before);
  });

  test('rule 3: a location outside the caller\'s own scope is 403 (territory manager, store manager)', async () => {
    const south = { assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeSouth.id };
    for (const user of [r.users.territoryManager, r.users.locationUser, r.users.storeManager]) {
      const res = await api(t, 'post', '/v1/leads', { key: user.key, body: quoteRequest(south) });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    const north = { assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeNorth.id };
    for (const user of [r.users.territoryManager, r.users.locationUser, r.users.storeManager, r.users.retailerManager]) {
      const res = await api(t, 'post', '/v1/leads', { key: user.key, body: quoteRequest(north) });
      expect(res.status).toBe(201);
      expect(res.body.assignee.id).toBe(r.net.storeNorth.id);
    }
  });

  test('a malformed assignee_id is 422 invalid on assignee_id', async () => {
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest({ assignee_id: 'store-7' }) });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'assignee_id', code: 'invalid' }]);
  });

  test('rule 4: an unknown activity type is 422 invalid on type', async () => {
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: quoteRequest({ lead_activities: [{ type: 'LeadActivity::Telepathy', data: {} }] }),
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 422, error: 'Unprocessable Entity', errors: { type: [expect.any(String)] } });
    expect(detailsOf(res)).toEqual([{ field: 'type', code: 'invalid' }]);
  });

  test.each([[''], ['   '], [null]])('rule 5: name %p is 422 blank', async (name) => {
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest({ name }) });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'name', code: 'blank', message: "can't be blank", full_message: "Name can't be blank" }]);
  });

  test('rule 5: a missing name is 422 blank', async () => {
    const body = quoteRequest();
    delete (body.lead as any).name;
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'name', code: 'blank' }]);
  });

  test.each([
    ['no keys', {}],
    ['empty lists', { emails: [], phone_numbers: [] }],
    ['only blank rows', { emails: [{ email: '' }], phone_numbers: [{ phone_number: ' ' }] }],
  ])('rule 6: no email and no phone number (%s) is 422 contact_required on base', async (_what, contact) => {
    const body = quoteRequest(contact);
    if (!('emails' in contact)) delete (body.lead as any).emails;
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      { field: 'base', code: 'contact_required', message: 'needs at least one email or phone number', full_message: 'needs at least one email or phone number' },
    ]);
  });

  test('rule 6: a phone number alone is enough', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ emails: undefined, phone_numbers: [{ phone_number: '+44 20 7946 0958' }] }));
    expect(lead.emails).toEqual([]);
    expect(lead.phone_numbers[0]).toMatchObject({ phone_number: '+442079460958', country_code: 'GB', formatted: '+44 20 7946 0958' });
  });

  test.each([['abc'], ['123'], ['555-1234'], ['+1 000 000 0000']])('rule 7: malformed phone %p is 422 invalid', async (phone) => {
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest({ phone_numbers: [{ phone_number: phone }] }) });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      { field: 'phone_numbers.phone_number', code: 'invalid', message: 'is invalid', full_message: 'Phone numbers phone number is invalid' },
    ]);
  });

  test('rule 7: a phone number is parsed by its country_code', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ phone_numbers: [{ phone_number: '020 7946 0958', country_code: 'GB' }] }));
    expect(lead.phone_numbers[0]).toMatchObject({ phone_number: '+442079460958', country_code: 'GB' });
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest({ phone_numbers: [{ phone_number: '020 7946 0958', country_code: 'ZZ' }] }) });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'phone_numbers.country_code', code: 'invalid' }]);
  });

  test.each([
    ['no data', undefined],
    ['no products', { notes: 'hi' }],
    ['empty products', { products: [] }],
    ['products not a list', { products: 'Anvil' }],
  ])('rule 8: a quote request with %s is 422 blank on data.products', async (_what, data) => {
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: quoteRequest({ lead_activities: [{ type: 'LeadActivity::QuoteRequest', ...(data ? { data } : {}) }] }),
    });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'data.products', code: 'blank' }]);
  });

  test('rule 8: products that are not objects are 422 invalid on data.products', async () => {
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: quoteRequest({ lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { products: ['Anvil'] } }] }),
    });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'data.products', code: 'invalid' }]);
  });

  test('several problems are reported together, and nothing is written', async () => {
    const before = await t.em().count(Lead, {});
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: { lead: { name: '', emails: [{ email: 'not-an-email' }], lead_activities: [{ type: 'Nope' }] } },
    });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual(
      expect.arrayContaining([
        { field: 'name', code: 'blank' },
        { field: 'emails.email', code: 'invalid' },
        { field: 'type', code: 'invalid' },
      ]),
    );
    expect(await t.em().count(Lead, {})).toBe(before);
  });

  test('nested activity keys message and body are kept in data; an absent type is a Note', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ lead_activities: [{ message: 'Call me', body: 'after 5pm' }] }));
    expect(lead.lead_activities[0]).toMatchObject({ type: 'LeadActivity::Note', data: { message: 'Call me', body: 'after 5pm' } });
  });

  test('a nested item id on create is 422: it cannot be one of the new lead\'s items', async () => {
    const other = await createLead(t, r.users.companyAdmin.key);
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: quoteRequest({ emails: [{ id: other.emails[0].id, email: 'steal@example.com' }] }),
    });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([
      { field: 'emails.id', code: 'invalid' },
      { field: 'base', code: 'contact_required' },
    ]);
    const untouched = await t.em().findOneOrFail(Email, { id: other.emails[0].id });
    expect(untouched.email).toBe(other.emails[0].email);
  });

  test('malformed input never gives a 5xx', async () => {
    const bodies = [
      { lead: { name: 'A\u0000B', emails: [{ email: 'a@example.com' }] } },
      { lead: { name: 'x'.repeat(300), emails: [{ email: 'a@example.com' }] } },
      { lead: { name: 'N', emails: [{ email: `${'a'.repeat(250)}@example.com` }] } },
      { lead: { name: 'N', emails: 'a@example.com' } },
      { lead: { name: 'N', emails: [null] } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com' }], location: { city: 'x'.repeat(256) } } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com' }], location: 'Portland' } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com' }], lead_activities: [{ type: 'LeadActivity::Note', data: 'hi' }] } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com' }], lead_activities: [{ type: 'LeadActivity::Note', data: { k: 'a\u0000' } }] } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com' }], lead_activities: [{ type: 42 }] } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com' }], source_type: 'x'.repeat(300) } },
      { lead: { name: 'N', emails: [{ email: 'a@example.com', _destroy: 'maybe' }] } },
      { lead: { name: ['N'], emails: [{ email: 'a@example.com' }] } },
      { lead: [] },
      { lead: 'x' },
    ];
    for (const body of bodies) {
      const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body });
      expect(res.status).toBe(422);
    }
    const raw = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, raw: '{"lead": {' });
    expect(raw.status).toBe(400);
    expect(raw.body).toMatchObject({ status: 400, error: 'Bad Request', message: expect.stringMatching(/^Invalid JSON: /) });
    const missing = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: { name: 'x' } });
    expect(missing.status).toBe(422);
    expect(detailsOf(missing)).toEqual([{ field: 'lead', code: 'missing' }]);
  });
});

describe('visibility and permissions (PRODUCT.md sections 3 and 4)', () => {
  let leads: Record<'north' | 'south' | 'unassigned' | 'byAssociate' | 'retailerOwned' | 'otherCompany', string>;
  beforeAll(async () => {
    const assign = (crl: { id: string }) => ({ assignee_type: 'CompanyRetailerLocation', assignee_id: crl.id });
    leads = {
      north: (await createLead(t, r.users.companyAdmin.key, quoteRequest(assign(r.net.storeNorth)))).id,
      south: (await createLead(t, r.users.companyAdmin.key, quoteRequest(assign(r.net.storeSouth)))).id,
      unassigned: (await createLead(t, r.users.companyAdmin.key)).id,
      byAssociate: (await createLead(t, r.users.salesAssociate.key)).id,
      retailerOwned: (await createLead(t, r.users.retailerAdmin.key)).id,
      otherCompany: (await createLead(t, r.users.otherAdmin.key)).id,
    };
  });

  const expected: Record<string, Array<keyof typeof leads>> = {
    companyAdmin: ['north', 'south', 'unassigned', 'byAssociate'],
    territoryManager: ['north'],
    retailerManager: ['north', 'south'],
    locationUser: ['north'],
    salesAssociate: ['south', 'byAssociate'],
    retailerAdmin: ['north', 'south', 'retailerOwned'],
    storeManager: ['north'],
    otherAdmin: ['otherCompany'],
  };

  test.each(Object.keys(expected))('%s sees exactly its leads in lists and shows; the rest is 404', async (role) => {
    const user = (r.users as any)[role];
    const ids = Object.values(leads);
    const res = await api(t, 'get', `/v1/leads?opts[per_page]=500&opts[where][id][]=${ids.join('&opts[where][id][]=')}`, { key: user.key });
    expect(res.status).toBe(200);
    const seen = res.body.leads.map((l: any) => l.id).sort();
    expect(seen).toEqual(expected[role].map((k) => leads[k]).sort());
    expect(res.body.meta.total).toBe(expected[role].length);
    for (const [name, id] of Object.entries(leads)) {
      const show = await api(t, 'get', `/v1/leads/${id}`, { key: user.key });
      if (expected[role].includes(name as any)) expect(show.status).toBe(200);
      else {
        expect(show.status).toBe(404);
        expect(show.body).toEqual({ status: 404, error: 'Not Found', message: `Couldn't find Lead with 'id'=${id}` });
      }
    }
  });

  test('the creator sees its lead even when it is assigned elsewhere', async () => {
    const lead = await createLead(t, r.users.retailerManager.key, quoteRequest({ assignee_id: r.net.storeSouth.id, assignee_type: 'CompanyRetailerLocation' }));
    const res = await api(t, 'get', `/v1/leads/${lead.id}`, { key: r.users.retailerManager.key });
    expect(res.status).toBe(200);
  });

  test.each(Object.keys(expected))('%s may update what it sees and gets 404 elsewhere', async (role) => {
    const user = (r.users as any)[role];
    for (const [name, id] of Object.entries(leads)) {
      const res = await api(t, 'patch', `/v1/leads/${id}`, { key: user.key, body: { lead: { status: `Seen by ${role}` } } });
      expect(res.status).toBe(expected[role].includes(name as any) ? 200 : 404);
    }
  });

  test('only company and retailer admins destroy leads; others get 403 on what they see, 404 elsewhere', async () => {
    const fresh = async () => (await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id, location: { city: 'Salem' } }))).id;
    const id = await fresh();
    for (const user of [r.users.territoryManager, r.users.retailerManager, r.users.locationUser, r.users.storeManager]) {
      const res = await api(t, 'delete', `/v1/leads/${id}`, { key: user.key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect((await api(t, 'delete', `/v1/leads/${id}`, { key: r.users.salesAssociate.key })).status).toBe(404);
    expect((await api(t, 'delete', `/v1/leads/${id}`, { key: r.users.otherAdmin.key })).status).toBe(404);

    const lead = await t.em().findOneOrFail(Lead, { id });
    const res = await api(t, 'delete', `/v1/leads/${id}`, { key: r.users.companyAdmin.key });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const em = t.em();
    expect(await em.count(Lead, { id })).toBe(0);
    expect(await em.count(Email, { lead: id })).toBe(0);
    expect(await em.count(LeadActivity, { lead: id })).toBe(0);
    expect(await em.count(Location, { id: lead.location!.id })).toBe(0);
    expect((await api(t, 'delete', `/v1/leads/${id}`, { key: r.users.companyAdmin.key })).status).toBe(404);

    const second = await fresh();
    expect((await api(t, 'delete', `/v1/leads/${second}`, { key: r.users.retailerAdmin.key })).status).toBe(204);
  });

  test('the platform operator gets 403 on every lead endpoint', async () => {
    const key = r.users.operator.key;
    const calls = [
      api(t, 'get', '/v1/leads', { key }),
      api(t, 'post', '/v1/leads', { key, body: quoteRequest() }),
      api(t, 'get', `/v1/leads/${leads.north}`, { key }),
      api(t, 'patch', `/v1/leads/${leads.north}`, { key, body: { lead: { status: 'x' } } }),
      api(t, 'put', `/v1/leads/${leads.north}`, { key, body: { lead: { name: 'x' } } }),
      api(t, 'delete', `/v1/leads/${leads.north}`, { key }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
  });

  test('401 without a key or with an unknown key; 404 for an id that is not a uuid', async () => {
    expect((await api(t, 'get', '/v1/leads')).status).toBe(401);
    const res = await api(t, 'get', '/v1/leads', { key: 'lnk_' + 'x'.repeat(43) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
    const bad = await api(t, 'get', '/v1/leads/42', { key: r.users.companyAdmin.key });
    expect(bad.status).toBe(404);
    expect(bad.body.message).toBe("Couldn't find Lead with 'id'=42");
  });
});

describe('PATCH /v1/leads/{id}: status, assignment and nested items', () => {
  test('a status change appends a StatusChange; the same status appends nothing; newest first', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const first = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status: 'Contacted' } } });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('Contacted');
    expect(first.body.lead_activities.map((a: any) => a.type)).toEqual(['LeadActivity::StatusChange', 'LeadActivity::QuoteRequest']);
    expect(first.body.lead_activities[0].data).toEqual({ from: 'New', to: 'Contacted' });

    const same = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status: 'Contacted' } } });
    expect(same.body.lead_activities).toHaveLength(2);

    const won = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status: 'Won' } } });
    expect(won.body.lead_activities.map((a: any) => a.data)).toEqual([{ from: 'Contacted', to: 'Won' }, { from: 'New', to: 'Contacted' }, expect.any(Object)]);
  });

  test.each([
    ['', 'blank'],
    [null, 'blank'],
    ['x'.repeat(65), 'too_long'],
  ])('status %p is 422 %s', async (status, code) => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const res = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status } } });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'status', code }]);
  });

  test('an assignee change appends an Assignment with from_id and to_id; unassigning too', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
    const moved = await api(t, 'patch', `/v1/leads/${lead.id}`, {
      key: r.users.companyAdmin.key,
      body: { lead: { assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeSouth.id, status: 'Routed' } },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.assignee.id).toBe(r.net.storeSouth.id);
    const [a, b] = moved.body.lead_activities;
    expect([a.type, b.type].sort()).toEqual(['LeadActivity::Assignment', 'LeadActivity::StatusChange']);
    const assignment = moved.body.lead_activities.find((x: any) => x.type === 'LeadActivity::Assignment');
    expect(assignment.data).toEqual({ from_id: r.net.storeNorth.id, to_id: r.net.storeSouth.id });

    const same = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { assignee_id: r.net.storeSouth.id } } });
    expect(same.body.lead_activities).toHaveLength(3);

    const cleared = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { assignee_id: null } } });
    expect(cleared.body.assignee).toBeNull();
    expect(cleared.body.lead_activities[0]).toMatchObject({ type: 'LeadActivity::Assignment', data: { from_id: r.net.storeSouth.id, to_id: null } });

    const forbiddenMove = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { assignee_id: r.other.storeSouth.id } } });
    expect(forbiddenMove.status).toBe(403);
    expect(forbiddenMove.body).toEqual(FORBIDDEN);
  });

  test("a company's lead stays on its company's stores, whoever routes it (SPEC 2.1)", async () => {
    // The retailer also sells for a rival company and so sees one of the rival's stores.
    const em = t.em();
    const rival = await f.company(em);
    const rivalStore = await f.crl(em, await f.companyRetailer(em, rival, r.net.retailer));
    const rivalAdmin = await f.userWithKey(em, Role.CompanyAdmin, rival);
    const retailerAdmin = r.users.retailerAdmin.key;
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
    const assign = (crl: { id: string }) => ({ assignee_type: 'CompanyRetailerLocation', assignee_id: crl.id });

    for (const [method, body] of [
      ['patch', { lead: assign(rivalStore) }],
      ['put', { lead: { name: lead.name, emails: lead.emails, ...assign(rivalStore) } }],
    ] as const) {
      const res = await api(t, method, `/v1/leads/${lead.id}`, { key: retailerAdmin, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect((await api(t, 'get', `/v1/leads/${lead.id}`, { key: rivalAdmin.key })).status).toBe(404);
    expect((await t.em().findOneOrFail(Lead, { id: lead.id })).assignee?.id).toBe(r.net.storeNorth.id);

    const moved = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: retailerAdmin, body: { lead: assign(r.net.storeSouth) } });
    expect(moved.status).toBe(200);
    expect(moved.body.assignee.id).toBe(r.net.storeSouth.id);
    // The retailer's own lead goes to the store of any company it sells for.
    const own = await createLead(t, retailerAdmin, quoteRequest(assign(rivalStore)));
    expect(own.assignee.id).toBe(rivalStore.id);
  });

  test('nested items: id updates, id + _destroy removes, no id adds', async () => {
    const lead = await createLead(
      t,
      r.users.companyAdmin.key,
      quoteRequest({ emails: [{ email: 'one@example.com' }, { email: 'two@example.com' }], phone_numbers: [{ phone_number: '503-555-0100' }] }),
    );
    const [one, two] = lead.emails;
    const res = await api(t, 'patch', `/v1/leads/${lead.id}`, {
      key: r.users.companyAdmin.key,
      body: {
        lead: {
          emails: [{ id: one.id, email: 'ONE-new@example.com' }, { id: two.id, _destroy: true }, { email: 'three@example.com' }],
          phone_numbers: [{ id: lead.phone_numbers[0].id, phone_number: '503-555-0199' }, { phone_number: '212-555-0142' }],
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.emails.map((e: any) => [e.id === one.id, e.email])).toEqual([
      [true, 'one-new@example.com'],
      [false, 'three@example.com'],
    ]);
    expect(res.body.phone_numbers.map((p: any) => p.phone_number)).toEqual(['+15035550199', '+12125550142']);
    expect(res.body.phone_numbers[0].id).toBe(lead.phone_numbers[0].id);
    expect(await t.em().count(Email, { id: two.id })).toBe(0);
  });

  test('an id that is not the lead\'s own item is 422 and never writes to the other lead', async () => {
    const mine = await createLead(t, r.users.companyAdmin.key, quoteRequest({ phone_numbers: [{ phone_number: '503-555-0111' }] }));
    const theirs = await createLead(t, r.users.companyAdmin.key, quoteRequest({ phone_numbers: [{ phone_number: '503-555-0112' }] }));
    const attempts = [
      { emails: [{ id: theirs.emails[0].id, email: 'hijack@example.com' }] },
      { emails: [{ id: theirs.emails[0].id, _destroy: true }] },
      { phone_numbers: [{ id: theirs.phone_numbers[0].id, phone_number: '503-555-0000' }] },
      { lead_activities: [{ id: theirs.lead_activities[0].id, data: { products: [{ name: 'x' }] } }] },
      { location: { id: theirs.id, city: 'Nowhere' } },
    ];
    const fields = ['emails.id', 'emails.id', 'phone_numbers.id', 'lead_activities.id', 'location.id'];
    for (const [i, lead] of attempts.entries()) {
      const res = await api(t, 'patch', `/v1/leads/${mine.id}`, { key: r.users.companyAdmin.key, body: { lead } });
      expect(res.status).toBe(422);
      expect(detailsOf(res)).toEqual([{ field: fields[i], code: 'invalid' }]);
    }
    const after = await api(t, 'get', `/v1/leads/${theirs.id}`, { key: r.users.companyAdmin.key });
    expect(after.body.emails).toEqual(theirs.emails);
    expect(after.body.phone_numbers).toEqual(theirs.phone_numbers);
    expect(after.body.lead_activities).toEqual(theirs.lead_activities);
    const unchanged = await api(t, 'get', `/v1/leads/${mine.id}`, { key: r.users.companyAdmin.key });
    expect(unchanged.body.emails).toEqual(mine.emails);
  });

  test('removing the last email and phone number is 422 contact_required', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const res = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { emails: [{ id: lead.emails[0].id, _destroy: true }] } } });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'base', code: 'contact_required' }]);
    expect(await t.em().count(Email, { id: lead.emails[0].id })).toBe(1);
  });

  test('location: fields merge on PATCH; null or _destroy removes it', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ location: { city: 'Portland', province: 'OR' } }));
    const merged = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { location: { postal_code: '97201' } } } });
    expect(merged.body.location).toMatchObject({ id: lead.location.id, city: 'Portland', province: 'OR', postal_code: '97201' });
    const destroyed = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { location: { _destroy: true } } } });
    expect(destroyed.body.location).toBeNull();
    expect(await t.em().count(Location, { id: lead.location.id })).toBe(0);
    const added = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { location: { city: 'Bend' } } } });
    expect(added.body.location).toMatchObject({ city: 'Bend', province: null });
    const removed = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { location: null } } });
    expect(removed.body.location).toBeNull();
  });

  test('nested activities: update by id, append new ones; _destroy needs the lead destroy right', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeSouth.id }));
    const quote = lead.lead_activities[0];
    const res = await api(t, 'patch', `/v1/leads/${lead.id}`, {
      key: r.users.salesAssociate.key,
      body: {
        lead: {
          lead_activities: [
            { id: quote.id, data: { products: [{ name: 'Anvil', quantity: 3 }], notes: 'more' } },
            { type: 'LeadActivity::OutboundCall', message: 'Left a message' },
          ],
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.lead_activities.map((a: any) => a.type)).toEqual(['LeadActivity::OutboundCall', 'LeadActivity::QuoteRequest']);
    expect(res.body.lead_activities[0].data).toEqual({ message: 'Left a message' });
    expect(res.body.lead_activities[1]).toMatchObject({ id: quote.id, data: { products: [{ name: 'Anvil', quantity: 3 }], notes: 'more' } });

    const emptied = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.salesAssociate.key, body: { lead: { lead_activities: [{ id: quote.id, data: { products: [] } }] } } });
    expect(emptied.status).toBe(422);
    expect(detailsOf(emptied)).toEqual([{ field: 'data.products', code: 'blank' }]);

    const call = res.body.lead_activities[0];
    const denied = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.salesAssociate.key, body: { lead: { lead_activities: [{ id: call.id, _destroy: true }] } } });
    expect(denied.status).toBe(403);
    const done = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { lead_activities: [{ id: call.id, _destroy: true }] } } });
    expect(done.status).toBe(200);
    expect(done.body.lead_activities.map((a: any) => a.id)).toEqual([quote.id]);
  });

  test('a missing root is 422 missing; an unknown lead is 404', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const res = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: {} });
    expect(res.status).toBe(422);
    expect(detailsOf(res)).toEqual([{ field: 'lead', code: 'missing' }]);
    const missing = await api(t, 'patch', '/v1/leads/00000000-0000-4000-8000-000000000000', { key: r.users.companyAdmin.key, body: { lead: { status: 'x' } } });
    expect(missing.status).toBe(404);
  });
});

describe('PUT /v1/leads/{id}: replace', () => {
  test('the body is the whole lead: unsent emails, phones, location, source and assignee go; status and timeline stay', async () => {
    const lead = await createLead(
      t,
      r.users.companyAdmin.key,
      quoteRequest({
        emails: [{ email: 'keep@example.com' }, { email: 'drop@example.com' }],
        phone_numbers: [{ phone_number: '503-555-0142' }],
        location: { city: 'Portland' },
        assignee_id: r.net.storeNorth.id,
        source_type: 'Website',
        source_id: r.net.storeNorth.id,
      }),
    );
    await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status: 'Working' } } });
    const keep = lead.emails.find((e: any) => e.email === 'keep@example.com');
    const res = await api(t, 'put', `/v1/leads/${lead.id}`, {
      key: r.users.companyAdmin.key,
      body: { lead: { name: 'Replaced', emails: [{ id: keep.id, email: 'kept@example.com' }, { email: 'new@example.com' }] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Replaced', status: 'Working', phone_numbers: [], location: null, assignee: null });
    expect(res.body.emails).toEqual([
      { id: keep.id, email: 'kept@example.com' },
      { id: expect.any(String), email: 'new@example.com' },
    ]);
    expect(res.body.lead_activities.map((a: any) => a.type)).toEqual(['LeadActivity::Assignment', 'LeadActivity::StatusChange', 'LeadActivity::QuoteRequest']);
    const stored = await t.em().findOneOrFail(Lead, { id: lead.id });
    expect(stored.sourceType).toBeNull();
    expect(stored.sourceId).toBeNull();
    expect(await t.em().count(PhoneNumber, { lead: lead.id })).toBe(0);
    expect(await t.em().count(Location, { id: lead.location.id })).toBe(0);
  });

  test('PUT without name is 422 blank; without any contact 422 contact_required', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const noName = await api(t, 'put', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { emails: [{ email: 'a@example.com' }] } } });
    expect(noName.status).toBe(422);
    expect(detailsOf(noName)).toEqual([{ field: 'name', code: 'blank' }]);
    const noContact = await api(t, 'put', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { name: 'X' } } });
    expect(noContact.status).toBe(422);
    expect(detailsOf(noContact)).toEqual([{ field: 'base', code: 'contact_required' }]);
  });

  test('PUT replaces the location as a whole', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ location: { city: 'Portland', province: 'OR' } }));
    const res = await api(t, 'put', `/v1/leads/${lead.id}`, {
      key: r.users.companyAdmin.key,
      body: { lead: { name: 'X', emails: [{ id: lead.emails[0].id }], location: { city: 'Salem' } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.location).toMatchObject({ id: lead.location.id, city: 'Salem', province: null });
    expect(res.body.emails).toEqual(lead.emails);
  });
});

describe('duplicates merge (PRODUCT.md section 5)', () => {
  test('same owner and normalized email: the new lead merges into the existing one', async () => {
    const first = await createLead(t, r.users.companyAdmin.key, quoteRequest({ name: 'Jane', emails: [{ email: 'merge.me@example.com' }] }));
    const res = await api(t, 'post', '/v1/leads', {
      key: r.users.companyAdmin.key,
      body: {
        lead: {
          name: 'Jane Doe',
          emails: [{ email: ' MERGE.me@Example.com' }, { email: 'jane.work@example.com' }],
          phone_numbers: [{ phone_number: '503-555-0177' }],
          location: { city: 'Portland' },
          assignee_id: r.net.storeNorth.id,
          lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { products: [{ name: 'Second anvil' }] } }],
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(first.id);
    expect(res.body.name).toBe('Jane');
    expect(res.body.emails.map((e: any) => e.email)).toEqual(['merge.me@example.com', 'jane.work@example.com']);
    expect(res.body.phone_numbers.map((p: any) => p.phone_number)).toEqual(['+15035550177']);
    expect(res.body.location).toMatchObject({ city: 'Portland' });
    expect(res.body.assignee.id).toBe(r.net.storeNorth.id);
    // The merge heads the timeline as a Note saying what the create added (SPEC 2.2 types only).
    expect(res.body.lead_activities.map((a: any) => a.type)).toEqual(['LeadActivity::Note', 'LeadActivity::QuoteRequest', 'LeadActivity::Assignment', 'LeadActivity::QuoteRequest']);
    expect(res.body.lead_activities[0].data).toEqual({
      notes: 'A new submission merged into this lead; it added email jane.work@example.com, phone number +15035550177, the location, 1 activity and changed the assignee.',
      merge: {
        emails_added: ['jane.work@example.com'],
        phone_numbers_added: ['+15035550177'],
        name_filled: false,
        location_filled: true,
        assignee_changed: true,
        activities_added: 1,
      },
    });
    expect(res.body.lead_activities[1].data.products[0].name).toBe('Second anvil');
    expect(res.body.lead_activities[2].data).toEqual({ from_id: null, to_id: r.net.storeNorth.id });
    expect(await t.em().count(Lead, { id: first.id })).toBe(1);
  });

  test('a shared phone number in another format is a duplicate too; an existing location is kept', async () => {
    const first = await createLead(t, r.users.companyAdmin.key, quoteRequest({ phone_numbers: [{ phone_number: '+1 (541) 555-0164' }], location: { city: 'Eugene' } }));
    const second = await createLead(t, r.users.companyAdmin.key, quoteRequest({ phone_numbers: [{ phone_number: '541.555.0164' }], location: { city: 'Elsewhere' } }));
    expect(second.id).toBe(first.id);
    expect(second.location.city).toBe('Eugene');
    expect(second.emails).toHaveLength(2);
    expect(second.phone_numbers).toHaveLength(1);
  });

  test('another owner with the same email gets its own lead', async () => {
    const mine = await createLead(t, r.users.companyAdmin.key, quoteRequest({ emails: [{ email: 'shared.person@example.com' }] }));
    const theirs = await createLead(t, r.users.otherAdmin.key, quoteRequest({ emails: [{ email: 'shared.person@example.com' }] }));
    const retailers = await createLead(t, r.users.retailerAdmin.key, quoteRequest({ emails: [{ email: 'shared.person@example.com' }] }));
    expect(new Set([mine.id, theirs.id, retailers.id]).size).toBe(3);
  });

  test('a lead the caller cannot see is never merged into (its data must not leak)', async () => {
    const hidden = await createLead(t, r.users.companyAdmin.key, quoteRequest({ emails: [{ email: 'hidden.person@example.com' }], assignee_id: r.net.storeNorth.id }));
    const res = await api(t, 'post', '/v1/leads', { key: r.users.salesAssociate.key, body: quoteRequest({ emails: [{ email: 'hidden.person@example.com' }] }) });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(hidden.id);
    const again = await api(t, 'post', '/v1/leads', { key: r.users.salesAssociate.key, body: quoteRequest({ emails: [{ email: 'hidden.person@example.com' }] }) });
    expect(again.body.id).toBe(res.body.id);
  });
});

describe('GET /v1/leads: lists, include and statement counts', () => {
  test('search, filters and facets over the lead document', async () => {
    const co = await f.company(t.em(), 'Listing Co');
    const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, co);
    const a = await createLead(t, admin.key, quoteRequest({ name: 'Zoë Quartz', location: { city: 'Portland', country: 'US' }, phone_numbers: [{ phone_number: '503-555-0181' }] }));
    const b = await createLead(t, admin.key, quoteRequest({ name: 'Bruno Basalt', location: { city: 'Seattle' }, lead_activities: [{ type: 'LeadActivity::InboundCall' }] }));
    await api(t, 'patch', `/v1/leads/${b.id}`, { key: admin.key, body: { lead: { status: 'Won' } } });
    const get = async (qs: string) => (await api(t, 'get', `/v1/leads?${qs}`, { key: admin.key })).body;

    expect((await get('q=zoe')).leads.map((l: any) => l.id)).toEqual([a.id]);
    expect((await get(`q=${encodeURIComponent(a.emails[0].email)}`)).leads.map((l: any) => l.id)).toEqual([a.id]);
    expect((await get('q=%2B15035550181')).leads.map((l: any) => l.id)).toEqual([a.id]);
    expect((await get('opts[where][status]=Won')).leads.map((l: any) => l.id)).toEqual([b.id]);
    expect((await get('opts[where][city]=Portland')).leads.map((l: any) => l.id)).toEqual([a.id]);
    expect((await get(`opts[where][emails]=${encodeURIComponent(b.emails[0].email)}`)).leads.map((l: any) => l.id)).toEqual([b.id]);
    expect((await get('opts[where][activity_types]=LeadActivity::StatusChange')).leads.map((l: any) => l.id)).toEqual([b.id]);
    expect((await get('opts[where][assignee_id]=null')).meta.total).toBe(2);
    expect((await get('opts[where][owner_type]=Company')).meta.total).toBe(2);
    expect((await get('opts[order][name]=asc')).leads.map((l: any) => l.name)).toEqual(['Bruno Basalt', 'Zoë Quartz']);
    const facets = await get('opts[aggs][]=status&opts[aggs][]=activity_types');
    expect(facets.meta.aggs.status.buckets).toEqual([
      { key: 'New', doc_count: 1 },
      { key: 'Won', doc_count: 1 },
    ]);
    expect(facets.meta.aggs.activity_types.buckets).toEqual(
      expect.arrayContaining([{ key: 'LeadActivity::QuoteRequest', doc_count: 1 }, { key: 'LeadActivity::StatusChange', doc_count: 1 }]),
    );
  });

  test('include leaves out (and does not fetch) what it does not name; show accepts it too', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id, location: { city: 'Portland' } }));
    t.resetStatements();
    const res = await api(t, 'get', `/v1/leads/${lead.id}?include=emails,bogus`, { key: r.users.companyAdmin.key });
    expect(Object.keys(res.body).sort()).toEqual(['breached', 'created_at', 'emails', 'escalated_at', 'id', 'name', 'outcome', 'respond_by', 'status']);
    expect(t.statements.some((s) => /from "phone_numbers"|from "lead_activities"|from "locations"/.test(s))).toBe(false);
    const all = await api(t, 'get', `/v1/leads/${lead.id}?include=*`, { key: r.users.companyAdmin.key });
    expect(Object.keys(all.body).sort()).toEqual(['assignee', 'breached', 'created_at', 'emails', 'escalated_at', 'id', 'lead_activities', 'location', 'name', 'outcome', 'phone_numbers', 'respond_by', 'status']);
    const list = await api(t, 'get', `/v1/leads?include=assignee,lead_activities&opts[where][id]=${lead.id}`, { key: r.users.companyAdmin.key });
    expect(Object.keys(list.body.leads[0]).sort()).toEqual(['assignee', 'breached', 'created_at', 'escalated_at', 'id', 'lead_activities', 'name', 'outcome', 'respond_by', 'status']);
    t.resetStatements();
    const emailsOnly = await api(t, 'get', `/v1/leads?include=emails&opts[where][id]=${lead.id}`, { key: r.users.companyAdmin.key });
    expect(Object.keys(emailsOnly.body.leads[0]).sort()).toEqual(['breached', 'created_at', 'emails', 'escalated_at', 'id', 'name', 'outcome', 'respond_by', 'status']);
    expect(t.statements.some((s) => /\b(phone_numbers|lead_activities|locations)\b/.test(s))).toBe(false);
    const created = await api(t, 'post', '/v1/leads?include=emails', { key: r.users.companyAdmin.key, body: quoteRequest() });
    expect(Object.keys(created.body).sort()).toEqual(['breached', 'created_at', 'emails', 'escalated_at', 'id', 'name', 'outcome', 'respond_by', 'status']);
  });

  test('the assignee name is the CRL\'s own name when it has one', async () => {
    const em = t.em();
    const named = await f.crl(em, r.net.companyRetailer, { name: 'Flagship North' });
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: named.id }));
    expect(lead.assignee).toMatchObject({ id: named.id, name: 'Flagship North' });
    const bare = await f.crl(em, r.net.companyRetailer, { retailerLocation: null });
    const unnamed = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: bare.id }));
    expect(unnamed.assignee).toEqual({ id: bare.id, type: 'CompanyRetailerLocation', name: null, company_retailer_id: r.net.companyRetailer.id, retailer_location_id: null });
  });

  test("an admin's total stays exact through creates, merges and deletes (PRODUCT.md 6), unfiltered as filtered", async () => {
    // Unfiltered, an admin's own leads are summed from the owners' kept counts, and a `created_at` range from
    // a midnight on from the kept counts per day (today's included); any other `where` counts rows.
    const since = `opts[where][created_at][gte]=${new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)}`;
    const totals = async (key: string) => {
      const [plain, counted, days, daysCounted] = await Promise.all([
        api(t, 'get', '/v1/leads?opts[per_page]=1', { key }),
        api(t, 'get', '/v1/leads?opts[per_page]=1&opts[where][id][exists]=true', { key }),
        api(t, 'get', `/v1/leads?opts[per_page]=1&${since}`, { key }),
        api(t, 'get', `/v1/leads?opts[per_page]=1&${since}&opts[where][id][exists]=true`, { key }),
      ]);
      expect(plain.body.meta.total).toBe(counted.body.meta.total);
      expect(days.body.meta.total).toBe(daysCounted.body.meta.total);
      return plain.body.meta.total as number;
    };
    for (const [i, admin] of [r.users.companyAdmin, r.users.retailerAdmin].entries()) {
      const before = await totals(admin.key);
      const email = `exact-total-${i}@example.com`;
      const first = await createLead(t, admin.key, quoteRequest({ emails: [{ email }] }));
      expect(await totals(admin.key)).toBe(before + 1);
      const merged = await createLead(t, admin.key, quoteRequest({ emails: [{ email }] }));
      expect(merged.id).toBe(first.id);
      expect(await totals(admin.key)).toBe(before + 1);
      expect((await api(t, 'delete', `/v1/leads/${first.id}`, { key: admin.key })).status).toBe(204);
      expect(await totals(admin.key)).toBe(before);
    }
  });

  test("every admin's and manager's total stays exact through routing: reassignments, a store moved to another territory, unassigning, deletes", async () => {
    // Unfiltered, these totals are summed from counts kept per owner and per assignee scope; with a `where`
    // that every lead satisfies they are counted row by row. The two must agree after every step.
    const roles = { companyAdmin: r.users.companyAdmin, territoryManager: r.users.territoryManager, retailerManager: r.users.retailerManager, retailerAdmin: r.users.retailerAdmin };
    const totals = async () => {
      const each = await Promise.all(
        Object.values(roles).map(async ({ key }) => {
          const [plain, counted] = await Promise.all([
            api(t, 'get', '/v1/leads?opts[per_page]=1', { key }),
            api(t, 'get', '/v1/leads?opts[per_page]=1&opts[where][id][exists]=true', { key }),
          ]);
          expect(plain.body.meta.total).toBe(counted.body.meta.total);
          return plain.body.meta.total as number;
        }),
      );
      return Object.fromEntries(Object.keys(roles).map((role, i) => [role, each[i]]));
    };
    const admin = r.users.companyAdmin.key;
    const before = await totals();
    const plus = (deltas: Partial<Record<keyof typeof roles, number>>) =>
      Object.fromEntries(Object.entries(before).map(([role, n]) => [role, n + ((deltas as any)[role] ?? 0)]));

    const lead = await createLead(t, admin, quoteRequest({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.net.storeNorth.id }));
    expect(await totals()).toEqual(plus({ companyAdmin: 1, territoryManager: 1, retailerManager: 1, retailerAdmin: 1 }));
    const route = (assignee_id: string | null) => api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin, body: { lead: { assignee_id } } });
    expect((await route(r.net.storeSouth.id)).status).toBe(200);
    expect(await totals()).toEqual(plus({ companyAdmin: 1, retailerManager: 1, retailerAdmin: 1 }));
    const moveSouth = (territory_id: string) =>
      api(t, 'patch', `/v1/company_retailer_locations/${r.net.storeSouth.id}`, { key: admin, body: { company_retailer_location: { territory_id } } });
    expect((await moveSouth(r.net.north.id)).status).toBe(200);
    const northNow = await totals();
    expect(northNow.territoryManager).toBeGreaterThan(before.territoryManager); // the lead and any other of that store's
    expect((await moveSouth(r.net.south.id)).status).toBe(200);
    expect(await totals()).toEqual(plus({ companyAdmin: 1, retailerManager: 1, retailerAdmin: 1 }));
    expect((await route(null)).status).toBe(200);
    expect(await totals()).toEqual(plus({ companyAdmin: 1 }));
    expect((await api(t, 'delete', `/v1/leads/${lead.id}`, { key: admin })).status).toBe(204);
    expect(await totals()).toEqual(before);
    // Another company's leads, routed and unrouted in its own network, change none of these totals.
    const other = r.users.otherAdmin.key;
    const theirs = await createLead(t, other, quoteRequest({ assignee_type: 'CompanyRetailerLocation', assignee_id: r.other.storeNorth.id }));
    expect((await api(t, 'patch', `/v1/leads/${theirs.id}`, { key: other, body: { lead: { assignee_id: r.other.storeSouth.id } } })).status).toBe(200);
    expect(await totals()).toEqual(before);
  });

  test('a retailer manager of two company retailers pages through its leads in list order, each once, under its exact total', async () => {
    const em = t.em();
    const cr2 = await f.companyRetailer(em, r.net.company, await f.retailer(em));
    const store2 = await f.crl(em, cr2, { territory: r.net.south });
    const manager = await f.userWithKey(em, Role.CompanyRetailerManager, r.net.company, { companyRetailers: [r.net.companyRetailer, cr2] });
    for (const store of [store2, r.net.storeNorth, store2]) {
      await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_type: 'CompanyRetailerLocation', assignee_id: store.id }));
    }
    const all = await api(t, 'get', '/v1/leads?opts[per_page]=500', { key: manager.key });
    const total = all.body.meta.total as number;
    expect(total).toBe(all.body.leads.length);
    expect((await api(t, 'get', '/v1/leads?opts[per_page]=1&opts[where][id][exists]=true', { key: manager.key })).body.meta.total).toBe(total);
    const paged: any[] = [];
    for (let page = 1; (page - 1) * 2 < total; page++) {
      const res = await api(t, 'get', `/v1/leads?opts[per_page]=2&opts[page]=${page}`, { key: manager.key });
      expect(res.body.meta.total).toBe(total);
      paged.push(...res.body.leads);
    }
    expect(paged.map((l) => l.id)).toEqual(all.body.leads.map((l: any) => l.id));
    expect(new Set(paged.map((l) => l.id)).size).toBe(total);
  });

  test("a created_at range's total is exact for every bound: whole days summed from kept counts, the edges counted", async () => {
    const em = t.em();
    const [mine, theirs] = [await f.company(em, 'Days Co'), await f.company(em, 'Other Days Co')];
    const admin = await f.userWithKey(em, Role.CompanyAdmin, mine);
    // Leads at midnights, a microsecond before them, and mid-day, over five days; another company's on the same days.
    const instants = ['00:00:00', '00:00:00.000001', '06:30:00', '12:00:00', '23:59:59.999999'].flatMap((time) =>
      ['01', '02', '03', '04', '05'].map((day) => `2026-04-${day}T${time}Z`),
    );
    for (const company of [mine, theirs]) {
      await em.getConnection().execute(`insert into leads (name, owner_company_id, created_at) select 'Day lead', ?, unnest(?::timestamptz[])`, [
        company.id,
        `{${instants.join(',')}}`,
      ]);
    }
    const micros = (iso: string) => BigInt(Date.parse(iso.replace(/\.\d+Z$/, 'Z'))) * 1000n + BigInt((/\.(\d+)Z$/.exec(iso)?.[1] ?? '').padEnd(6, '0'));
    const expected = (range: Record<string, string>) =>
      instants.filter((at) => {
        const v = micros(at);
        const b = (k: string) => micros(new Date(range[k]).toISOString());
        return (!range.gte || v >= b('gte')) && (!range.gt || v > b('gt')) && (!range.lt || v < b('lt')) && (!range.lte || v <= b('lte'));
      }).length;
    const ranges: Array<Record<string, string>> = [
      { gte: '2026-04-02T00:00:00Z', lt: '2026-04-04T00:00:00Z' },
      { gt: '2026-04-02T00:00:00Z', lte: '2026-04-04T00:00:00Z' },
      { gte: '2026-04-01T06:30:00Z', lt: '2026-04-05T12:00:00Z' },
      { gte: '2026-04-02' },
      { lt: '2026-04-04' },
      { lte: '2026-04-03T23:59:59Z' },
      { gte: '2026-04-02T05:00:00+05:00', lt: '2026-04-05T00:00:00-02:00' },
      { gte: '2026-04-03T01:00:00Z', lt: '2026-04-03T13:00:00Z' },
      { gte: '2026-04-04', lt: '2026-04-02' },
      { gte: '2026-03-01', lt: '2026-06-01' },
      // The ends of the dates a where takes.
      { gt: '9999-12-31T12:00:00Z' },
      { gte: '9999-12-31' },
      { lte: '0001-01-01T00:00:00Z' },
      { gte: '0001-01-01', lt: '9999-12-31T23:59:59.999Z' },
    ];
    const summed: boolean[] = [];
    for (const range of ranges) {
      const qs = Object.entries(range).map(([op, v]) => `opts[where][created_at][${op}]=${encodeURIComponent(v)}`).join('&');
      t.resetStatements();
      const res = await api(t, 'get', `/v1/leads?opts[per_page]=50&${qs}`, { key: admin.key });
      expect([range, res.status, res.body.meta.total]).toEqual([range, 200, expected(range)]);
      expect(res.body.leads).toHaveLength(expected(range));
      summed.push(t.statements.some((sql) => sql.includes('lead_day_counts')));
    }
    // Only the ranges that cover a whole day read the kept counts (one within a day, one empty).
    expect(summed).toEqual([true, true, true, true, true, true, true, false, false, true, false, true, true, true]);
  });

  test('GET /v1/leads?include=* runs the same number of statements for 5 and 50 leads', async () => {
    const em = t.em();
    const net = await f.network(em);
    const admin = await f.userWithKey(em, Role.CompanyAdmin, net.company);
    const named = await f.crl(em, net.companyRetailer, { name: 'Named store' });
    const stores = [net.storeNorth, net.storeSouth, named];
    let made = 0;
    const make = async (n: number) => {
      for (let i = made; i < made + n; i++) {
        const lead = await createLead(
          t,
          admin.key,
          quoteRequest({
            phone_numbers: [{ phone_number: `503-555-${String(1000 + i).slice(-4)}` }],
            location: { city: `City ${i}` },
            assignee_id: stores[i % 3].id,
          }),
        );
        await api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin.key, body: { lead: { status: 'Contacted' } } });
      }
      made += n;
    };
    const count = async (expected: number) => {
      t.resetStatements();
      const res = await api(t, 'get', '/v1/leads?include=*&opts[per_page]=100', { key: admin.key });
      expect(res.status).toBe(200);
      expect(res.body.leads).toHaveLength(expected);
      expect(res.body.leads.every((l: any) => l.lead_activities.length === 2 && l.assignee && l.location && l.emails.length === 1)).toBe(true);
      return t.statements.length;
    };
    await make(5);
    const few = await count(5);
    await make(45);
    const many = await count(50);
    expect(many).toBe(few);
    // The key, the page with its total, and the rows with every association: one statement each.
    expect(few).toBeLessThanOrEqual(3);
  });
});
