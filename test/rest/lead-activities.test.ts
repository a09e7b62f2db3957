import { api, createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { LeadActivity } from '../../src/modules/lead/lead-activity.entity';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
/** Leads assigned to the north store (seen by the location user) and the south store (not). */
let north: any;
let south: any;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  north = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
  south = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeSouth.id }));
});
afterAll(() => t.close());

const FORBIDDEN = { error: 'Unauthorized', status: 403 };
const detailsOf = (res: { body: any }) => res.body.details.map((d: any) => ({ field: d.field, code: d.code }));

describe('POST /v1/lead_activities', () => {
  test('creates an activity on a visible lead; the lead is embedded', async () => {
    const res = await api(t, 'post', '/v1/lead_activities', {
      key: r.users.locationUser.key,
      body: {
        lead_activity: {
          lead_id: north.id,
          type: 'LeadActivity::InboundCall',
          source_type: 'CompanyRetailerLocation',
          source_id: r.net.storeNorth.id,
          crm_id: 'SF-1',
          crm_provider: 'salesforce',
          crm_data_cache: { owner: 'x' },
          data: { transcript: 'Hello', unknown: { kept: true } },
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      type: 'LeadActivity::InboundCall',
      lead_id: north.id,
      data: { transcript: 'Hello', unknown: { kept: true } },
      source_type: 'CompanyRetailerLocation',
      source_id: r.net.storeNorth.id,
      crm_id: 'SF-1',
      crm_provider: 'salesforce',
      crm_data_cache: { owner: 'x' },
      created_at: expect.any(String),
      lead: {
        id: north.id,
        name: north.name,
        status: north.status,
        created_at: north.created_at,
        phone_numbers: north.phone_numbers,
        emails: north.emails,
        location: north.location,
        assignee: north.assignee,
      },
    });
    const lead = await api(t, 'get', `/v1/leads/${north.id}`, { key: r.users.locationUser.key });
    expect(lead.body.lead_activities[0].id).toBe(res.body.id);
  });

  test('an absent type is a Note; an unknown type is 422 invalid on type', async () => {
    const note = await api(t, 'post', '/v1/lead_activities', { key: r.users.companyAdmin.key, body: { lead_activity: { lead_id: north.id, data: { body: 'hi' } } } });
    expect(note.status).toBe(201);
    expect(note.body.type).toBe('LeadActivity::Note');
    for (const type of ['Note', 'LeadActivity::Fax', '', 'leadactivity::note']) {
      const res = await api(t, 'post', '/v1/lead_activities', { key: r.users.companyAdmin.key, body: { lead_activity: { lead_id: north.id, type } } });
      expect(res.status).toBe(422);
      expect(detailsOf(res)).toEqual([{ field: 'type', code: 'invalid' }]);
    }
  });

  test('quote request data rules', async () => {
    const post = (data: unknown) =>
      api(t, 'post', '/v1/lead_activities', { key: r.users.companyAdmin.key, body: { lead_activity: { lead_id: north.id, type: 'LeadActivity::QuoteRequest', data } } });
    expect(detailsOf(await post(undefined))).toEqual([{ field: 'data.products', code: 'blank' }]);
    expect(detailsOf(await post({ products: [] }))).toEqual([{ field: 'data.products', code: 'blank' }]);
    expect(detailsOf(await post({ products: [1] }))).toEqual([{ field: 'data.products', code: 'invalid' }]);
    expect(detailsOf(await post({ products: [{}], notes: 7 }))).toEqual([{ field: 'data.notes', code: 'invalid' }]);
    expect(detailsOf(await post({ products: [{}], additionalData: 'x' }))).toEqual([{ field: 'data.additionalData', code: 'invalid' }]);
    const ok = await post({ products: [{ sku: 'A', mystery: [1, { deep: true }] }], notes: 'n', additionalData: { a: 1 } });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toEqual({ products: [{ sku: 'A', mystery: [1, { deep: true }] }], notes: 'n', additionalData: { a: 1 } });
  });

  test('lead_id: missing is 422 blank; a lead the caller does not see (or none) is 422 invalid', async () => {
    const missing = await api(t, 'post', '/v1/lead_activities', { key: r.users.locationUser.key, body: { lead_activity: { type: 'LeadActivity::Note' } } });
    expect(missing.status).toBe(422);
    expect(detailsOf(missing)).toEqual([{ field: 'lead_id', code: 'blank' }]);
    for (const leadId of [south.id, '00000000-0000-4000-8000-000000000000']) {
      const before = await t.em().count(LeadActivity, {});
      const res = await api(t, 'post', '/v1/lead_activities', { key: r.users.locationUser.key, body: { lead_activity: { lead_id: leadId } } });
      expect(res.status).toBe(422);
      expect(detailsOf(res)).toEqual([{ field: 'lead_id', code: 'invalid' }]);
      expect(await t.em().count(LeadActivity, {})).toBe(before);
    }
    const malformed = await api(t, 'post', '/v1/lead_activities', { key: r.users.locationUser.key, body: { lead_activity: { lead_id: 'nope' } } });
    expect(detailsOf(malformed)).toEqual([{ field: 'lead_id', code: 'invalid' }]);
  });

  test('malformed input is 422 or 400, never 5xx', async () => {
    const bodies = [
      { lead_activity: { lead_id: north.id, data: [1, 2] } },
      { lead_activity: { lead_id: north.id, data: 'text' } },
      { lead_activity: { lead_id: north.id, crm_data_cache: 'x' } },
      { lead_activity: { lead_id: north.id, crm_id: 'x'.repeat(300) } },
      { lead_activity: { lead_id: north.id, crm_provider: 'a\u0000b' } },
      { lead_activity: { lead_id: north.id, data: { 'a\u0000': 1 } } },
      { lead_activity: { lead_id: north.id, source_id: 'x' } },
      {},
    ];
    for (const body of bodies) expect((await api(t, 'post', '/v1/lead_activities', { key: r.users.companyAdmin.key, body })).status).toBe(422);
    expect((await api(t, 'post', '/v1/lead_activities', { key: r.users.companyAdmin.key, raw: '{' })).status).toBe(400);
  });
});

describe('show, update, replace and destroy follow the parent lead', () => {
  let activity: any;
  beforeAll(async () => {
    activity = (
      await api(t, 'post', '/v1/lead_activities', {
        key: r.users.companyAdmin.key,
        body: { lead_activity: { lead_id: north.id, type: 'LeadActivity::OutboundEmail', data: { subject: 'Quote' }, source_type: 'User' } },
      })
    ).body;
  });

  test('show: visible with the lead, else 404; include=lead can leave the lead out', async () => {
    expect((await api(t, 'get', `/v1/lead_activities/${activity.id}`, { key: r.users.locationUser.key })).status).toBe(200);
    const hidden = await api(t, 'get', `/v1/lead_activities/${activity.id}`, { key: r.users.salesAssociate.key });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ status: 404, error: 'Not Found', message: `Couldn't find LeadActivity with 'id'=${activity.id}` });
    expect((await api(t, 'get', '/v1/lead_activities/x', { key: r.users.companyAdmin.key })).status).toBe(404);
    const bare = await api(t, 'get', `/v1/lead_activities/${activity.id}?include=`, { key: r.users.companyAdmin.key });
    expect(bare.body.lead).toBeDefined();
    const none = await api(t, 'get', `/v1/lead_activities/${activity.id}?include=nothing`, { key: r.users.companyAdmin.key });
    expect(none.body).not.toHaveProperty('lead');
  });

  test('PATCH attaches crm fields; anyone who sees the lead may update', async () => {
    const res = await api(t, 'patch', `/v1/lead_activities/${activity.id}`, {
      key: r.users.storeManager.key,
      body: { lead_activity: { crm_id: '00Q5', crm_provider: 'salesforce', crm_data_cache: { stage: 'Open' } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'LeadActivity::OutboundEmail', data: { subject: 'Quote' }, source_type: 'User', crm_id: '00Q5', crm_provider: 'salesforce', crm_data_cache: { stage: 'Open' } });
    expect((await api(t, 'patch', `/v1/lead_activities/${activity.id}`, { key: r.users.salesAssociate.key, body: { lead_activity: { crm_id: 'x' } } })).status).toBe(404);
  });

  test('PATCH checks type and quote request rules against the result', async () => {
    const toQuote = await api(t, 'patch', `/v1/lead_activities/${activity.id}`, { key: r.users.companyAdmin.key, body: { lead_activity: { type: 'LeadActivity::QuoteRequest' } } });
    expect(toQuote.status).toBe(422);
    expect(detailsOf(toQuote)).toEqual([{ field: 'data.products', code: 'blank' }]);
    const bad = await api(t, 'patch', `/v1/lead_activities/${activity.id}`, { key: r.users.companyAdmin.key, body: { lead_activity: { type: 'Fax' } } });
    expect(detailsOf(bad)).toEqual([{ field: 'type', code: 'invalid' }]);
  });

  test('PATCH may move the activity to another lead the caller sees, not to one it does not', async () => {
    const other = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
    const own = await api(t, 'post', '/v1/lead_activities', { key: r.users.locationUser.key, body: { lead_activity: { lead_id: north.id } } });
    const hidden = await api(t, 'patch', `/v1/lead_activities/${own.body.id}`, { key: r.users.locationUser.key, body: { lead_activity: { lead_id: south.id } } });
    expect(hidden.status).toBe(422);
    expect(detailsOf(hidden)).toEqual([{ field: 'lead_id', code: 'invalid' }]);
    const moved = await api(t, 'patch', `/v1/lead_activities/${own.body.id}`, { key: r.users.locationUser.key, body: { lead_activity: { lead_id: other.id } } });
    expect(moved.status).toBe(200);
    expect(moved.body.lead_id).toBe(other.id);
    expect(moved.body.lead.id).toBe(other.id);
  });

  test('PUT replaces: unsent data, source and crm attributes become null; lead and type stay', async () => {
    const res = await api(t, 'put', `/v1/lead_activities/${activity.id}`, { key: r.users.companyAdmin.key, body: { lead_activity: { crm_id: 'ONLY' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      lead_id: north.id,
      type: 'LeadActivity::OutboundEmail',
      data: null,
      source_type: null,
      source_id: null,
      crm_id: 'ONLY',
      crm_provider: null,
      crm_data_cache: null,
    });
    const quote = north.lead_activities[0];
    const invalid = await api(t, 'put', `/v1/lead_activities/${quote.id}`, { key: r.users.companyAdmin.key, body: { lead_activity: { crm_id: 'x' } } });
    expect(invalid.status).toBe(422);
    expect(detailsOf(invalid)).toEqual([{ field: 'data.products', code: 'blank' }]);
  });

  test('DELETE: admins only (403 otherwise), 404 outside scope', async () => {
    const target = await api(t, 'post', '/v1/lead_activities', { key: r.users.locationUser.key, body: { lead_activity: { lead_id: north.id } } });
    for (const user of [r.users.locationUser, r.users.territoryManager, r.users.storeManager, r.users.retailerManager]) {
      const res = await api(t, 'delete', `/v1/lead_activities/${target.body.id}`, { key: user.key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect((await api(t, 'delete', `/v1/lead_activities/${target.body.id}`, { key: r.users.salesAssociate.key })).status).toBe(404);
    const done = await api(t, 'delete', `/v1/lead_activities/${target.body.id}`, { key: r.users.retailerAdmin.key });
    expect(done.status).toBe(204);
    expect(await t.em().count(LeadActivity, { id: target.body.id })).toBe(0);
    expect((await api(t, 'delete', `/v1/lead_activities/${target.body.id}`, { key: r.users.companyAdmin.key })).status).toBe(404);
  });

  test("an owner's admin lists the activities of its own leads, written with the lead, by the owner each activity keeps", async () => {
    // Created by the store manager: the retailer admin sees it as its owner's admin, not as its creator.
    const lead = await createLead(t, r.users.storeManager.key, quoteRequest());
    const list = (key: string) => api(t, 'get', `/v1/lead_activities?opts[where][lead_id]=${lead.id}`, { key });
    const mine = await list(r.users.retailerAdmin.key);
    expect(mine.status).toBe(200);
    expect(mine.body.lead_activities.map((a: any) => a.id).sort()).toEqual(lead.lead_activities.map((a: any) => a.id).sort());
    expect(mine.body.meta.total).toBe(lead.lead_activities.length);
    expect((await list(r.users.companyAdmin.key)).body.meta.total).toBe(0);
  });

  test('the platform operator gets 403', async () => {
    const key = r.users.operator.key;
    for (const res of [
      await api(t, 'get', '/v1/lead_activities', { key }),
      await api(t, 'get', `/v1/lead_activities/${activity.id}`, { key }),
      await api(t, 'post', '/v1/lead_activities', { key, body: { lead_activity: { lead_id: north.id } } }),
      await api(t, 'patch', `/v1/lead_activities/${activity.id}`, { key, body: { lead_activity: { crm_id: 'x' } } }),
      await api(t, 'delete', `/v1/lead_activities/${activity.id}`, { key }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
  });
});

describe('GET /v1/lead_activities', () => {
  test('lists only activities of visible leads; filters on lead_id, type, crm fields', async () => {
    const mine = await api(t, 'get', '/v1/lead_activities?opts[per_page]=500', { key: r.users.salesAssociate.key });
    expect(mine.status).toBe(200);
    expect(mine.body.lead_activities.length).toBeGreaterThan(0);
    expect(mine.body.lead_activities.every((a: any) => a.lead_id === south.id)).toBe(true);

    await api(t, 'post', '/v1/lead_activities', { key: r.users.companyAdmin.key, body: { lead_activity: { lead_id: south.id, type: 'LeadActivity::Purchase', crm_provider: 'hubspot', crm_id: 'HS-9' } } });
    const get = async (qs: string) => (await api(t, 'get', `/v1/lead_activities?${qs}`, { key: r.users.companyAdmin.key })).body;
    const bySouth = await get(`opts[where][lead_id]=${south.id}`);
    expect(bySouth.lead_activities.every((a: any) => a.lead_id === south.id)).toBe(true);
    expect(bySouth.meta.total).toBe(bySouth.lead_activities.length);
    expect((await get('opts[where][type]=LeadActivity::Purchase')).lead_activities.map((a: any) => a.crm_id)).toEqual(['HS-9']);
    expect((await get('opts[where][crm_provider]=hubspot&include=')).lead_activities[0].lead.id).toBe(south.id);
    expect((await get('q=HS-9&include=none')).lead_activities.map((a: any) => Object.keys(a).includes('lead'))).toEqual([false]);
    const facets = await get(`opts[where][lead_id]=${south.id}&opts[aggs][]=type`);
    expect(facets.meta.aggs.type.buckets).toEqual(expect.arrayContaining([{ key: 'LeadActivity::Purchase', doc_count: 1 }]));
  });

  test('the statement count does not grow with the page', async () => {
    const count = async (perPage: number) => {
      t.resetStatements();
      const res = await api(t, 'get', `/v1/lead_activities?opts[per_page]=${perPage}&include=lead`, { key: r.users.companyAdmin.key });
      expect(res.body.lead_activities).toHaveLength(perPage);
      return t.statements.length;
    };
    expect(await count(8)).toBe(await count(2));
    // The key, then one statement: the page, its total, the activities and their leads.
    expect(await count(8)).toBe(2);
  });
});
