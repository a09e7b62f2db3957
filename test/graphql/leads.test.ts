import { createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());

const LEAD_FIELDS = `
  id name status ownerType ownerId assigneeId createdById sourceType
  emails { id email }
  phoneNumbers { id phoneNumber countryCode formatted }
  location { id city latitude }
  assignee { id type name companyRetailerId retailerLocationId }
  leadActivities { id type data leadId }
`;

describe('leads over GraphQL', () => {
  test('createLead says whether it merged into an existing lead, and what it added', async () => {
    const create = (input: Record<string, unknown>) =>
      gql(t, r.users.companyAdmin.key, `mutation($input: LeadInput!) { createLead(input: $input) { id merge { emailsAdded phoneNumbersAdded nameFilled locationFilled assigneeChanged activitiesAdded } leadActivities { type data } } }`, { input });
    const first = await create({ name: 'Mia Merge', emails: [{ email: 'mia.merge@example.com' }] });
    expect(first.body.data.createLead.merge).toBeNull();

    const again = await create({ name: 'Mia M.', emails: [{ email: 'MIA.merge@example.com' }], phoneNumbers: [{ phoneNumber: '(503) 555-0144' }] });
    const merged = again.body.data.createLead;
    expect(merged.id).toBe(first.body.data.createLead.id);
    expect(merged.merge).toEqual({ emailsAdded: [], phoneNumbersAdded: ['+15035550144'], nameFilled: false, locationFilled: false, assigneeChanged: false, activitiesAdded: 0 });
    expect(merged.leadActivities[0]).toEqual({ type: 'LeadActivity::Note', data: expect.objectContaining({ notes: 'A new submission merged into this lead; it added phone number +15035550144.' }) });

    // Read later, the lead carries no merge: it describes one create's answer only.
    const read = await gql(t, r.users.companyAdmin.key, `query($id: ID!) { lead(id: $id) { merge { emailsAdded } } }`, { id: merged.id });
    expect(read.body.data.lead.merge).toBeNull();
  });

  test('createLead, updateLead with _destroy, replaceLead and deleteLead', async () => {
    const created = await gql(t, r.users.companyAdmin.key, `mutation($input: LeadInput!) { createLead(input: $input) { ${LEAD_FIELDS} } }`, {
      input: {
        name: 'Graph Q. Lead',
        emails: [{ email: 'graph@example.com' }, { email: 'second@example.com' }],
        phoneNumbers: [{ phoneNumber: '503-555-0150', countryCode: 'US' }],
        assigneeId: r.net.storeNorth.id,
        assigneeType: 'CompanyRetailerLocation',
        leadActivities: [{ type: 'LeadActivity::QuoteRequest', data: { products: [{ name: 'Anvil' }] } }],
      },
    });
    expect(created.body.errors).toBeUndefined();
    const lead = created.body.data.createLead;
    expect(lead).toMatchObject({
      name: 'Graph Q. Lead',
      ownerType: 'Company',
      ownerId: r.net.company.id,
      assigneeId: r.net.storeNorth.id,
      createdById: r.users.companyAdmin.user.id,
      phoneNumbers: [{ phoneNumber: '+15035550150', formatted: '+1 503 555 0150' }],
      assignee: { id: r.net.storeNorth.id, type: 'CompanyRetailerLocation' },
    });

    const updated = await gql(t, r.users.locationUser.key, `mutation($id: ID!, $input: LeadInput!) { updateLead(id: $id, input: $input) { ${LEAD_FIELDS} } }`, {
      id: lead.id,
      input: { status: 'Called', emails: [{ id: lead.emails[1].id, _destroy: true }] },
    });
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateLead.emails.map((e: any) => e.email)).toEqual(['graph@example.com']);
    expect(updated.body.data.updateLead.leadActivities[0]).toMatchObject({ type: 'LeadActivity::StatusChange', data: { from: 'New', to: 'Called' } });

    const replaced = await gql(t, r.users.companyAdmin.key, `mutation($id: ID!, $input: LeadInput!) { replaceLead(id: $id, input: $input) { ${LEAD_FIELDS} } }`, {
      id: lead.id,
      input: { name: 'Only Phone', phoneNumbers: [{ phoneNumber: '+15035550150' }] },
    });
    expect(replaced.body.data.replaceLead).toMatchObject({ name: 'Only Phone', emails: [], assignee: null, status: 'Called' });

    const denied = await gql(t, r.users.locationUser.key, 'mutation($id: ID!) { deleteLead(id: $id) }', { id: lead.id });
    expect(denied.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const deleted = await gql(t, r.users.companyAdmin.key, 'mutation($id: ID!) { deleteLead(id: $id) }', { id: lead.id });
    expect(deleted.body.data.deleteLead).toBe(lead.id);
  });

  test('validation errors carry the 422 details', async () => {
    const res = await gql(t, r.users.companyAdmin.key, 'mutation($input: LeadInput!) { createLead(input: $input) { id } }', {
      input: { name: ' ', emails: [{ email: 'a@example.com' }] },
    });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'name', code: 'blank' }] });
  });

  test("a dashboard reads a lead's whole timeline, newest first", async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
    for (const status of ['Contacted', 'Quoted', 'Won']) {
      await gql(t, r.users.companyAdmin.key, 'mutation($id: ID!, $s: String) { updateLead(id: $id, input: {status: $s}) { id } }', { id: lead.id, s: status });
    }
    const res = await gql(t, r.users.territoryManager.key, 'query($id: ID!) { leadTimeline(leadId: $id) { type data lead { id status } } }', { id: lead.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.leadTimeline.map((a: any) => a.data.to ?? a.type)).toEqual(['Won', 'Quoted', 'Contacted', 'LeadActivity::QuoteRequest']);
    expect(res.body.data.leadTimeline.every((a: any) => a.lead.id === lead.id && a.lead.status === 'Won')).toBe(true);
    const hidden = await gql(t, r.users.salesAssociate.key, 'query($id: ID!) { leadTimeline(leadId: $id) { id } }', { id: lead.id });
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('lists, lead activities and their mutations; the operator is refused', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeSouth.id }));
    const list = await gql(t, r.users.salesAssociate.key, '{ leads(perPage: 100) { nodes { id } meta { total } } leadActivities { nodes { leadId } } }');
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.leads.nodes.map((n: any) => n.id)).toContain(lead.id);
    expect(list.body.data.leads.meta.total).toBe(list.body.data.leads.nodes.length);

    const created = await gql(t, r.users.salesAssociate.key, 'mutation($input: LeadActivityInput!) { createLeadActivity(input: $input) { id type leadId } }', {
      input: { leadId: lead.id, type: 'LeadActivity::Voicemail', data: { seconds: 12 } },
    });
    const activityId = created.body.data.createLeadActivity.id;
    const crm = await gql(t, r.users.salesAssociate.key, 'mutation($id: ID!) { updateLeadActivity(id: $id, input: {crmId: "C-1", crmProvider: "pipedrive"}) { crmId crmProvider data } }', { id: activityId });
    expect(crm.body.data.updateLeadActivity).toEqual({ crmId: 'C-1', crmProvider: 'pipedrive', data: { seconds: 12 } });
    const replaced = await gql(t, r.users.salesAssociate.key, 'mutation($id: ID!) { replaceLeadActivity(id: $id, input: {crmId: "C-2"}) { crmId crmProvider data } }', { id: activityId });
    expect(replaced.body.data.replaceLeadActivity).toEqual({ crmId: 'C-2', crmProvider: null, data: null });
    const notAllowed = await gql(t, r.users.salesAssociate.key, 'mutation($id: ID!) { deleteLeadActivity(id: $id) }', { id: activityId });
    expect(notAllowed.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const shown = await gql(t, r.users.companyAdmin.key, 'query($id: ID!) { leadActivity(id: $id) { id lead { id } } }', { id: activityId });
    expect(shown.body.data.leadActivity.lead.id).toBe(lead.id);

    const operator = await gql(t, r.users.operator.key, '{ leads { nodes { id } } }');
    expect(operator.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('several mutations in one document each see the previous one\'s writes', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const res = await gql(
      t,
      r.users.companyAdmin.key,
      `mutation($id: ID!) {
        a: updateLead(id: $id, input: {emails: [{email: "added@example.com"}]}) { emails { email } }
        b: updateLead(id: $id, input: {status: "Next"}) { emails { email } leadActivities { type } }
      }`,
      { id: lead.id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.a.emails).toHaveLength(2);
    expect(res.body.data.b.emails).toHaveLength(2);
    expect(res.body.data.b.leadActivities[0].type).toBe('LeadActivity::StatusChange');
  });
});

describe('typed list arguments', () => {
  test('typed where, order and aggs filter, sort and count; facets come typed', async () => {
    const key = r.users.companyAdmin.key;
    const since = new Date(Date.now() - 60_000).toISOString();
    await createLead(t, key, quoteRequest({ name: 'Cameron Case', source_type: 'CaseTest' }));
    await createLead(t, key, quoteRequest({ name: 'Sasha Snake', source_type: 'CaseTest' }));
    const list = (args: string, variables?: Record<string, unknown>) =>
      gql(t, key, `query${args.includes('$w') ? '($w: LeadWhere)' : ''} { leads(${args}) { meta { total aggs facets { field sumOtherDocCount buckets { key docCount } } } nodes { name } } }`, variables);

    const page = await list(`where: {createdAt: {gte: "${since}"}, sourceType: {eq: "CaseTest"}}, order: [NAME_DESC], aggs: [{field: SOURCE_TYPE}, {field: STATUS, limit: 1, order: KEY_ASC}]`);
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.leads.nodes.map((n: any) => n.name)).toEqual(['Sasha Snake', 'Cameron Case']);
    expect(page.body.data.leads.meta.aggs.sourceType.buckets).toEqual([{ key: 'CaseTest', doc_count: 2 }]);
    expect(page.body.data.leads.meta.facets[0]).toEqual({ field: 'sourceType', sumOtherDocCount: 0, buckets: [{ key: 'CaseTest', docCount: 2 }] });
    expect(page.body.data.leads.meta.facets[1].field).toBe('status');
    expect(page.body.data.leads.meta.facets[1].buckets).toHaveLength(1);

    const viaVariables = await list('where: $w, order: [NAME_ASC]', { w: { createdAt: { gte: since }, sourceType: { in: ['CaseTest'] } } });
    expect(viaVariables.body.data.leads.nodes.map((n: any) => n.name)).toEqual(['Cameron Case', 'Sasha Snake']);

    const nested = await list(`where: {_or: [{name: {eq: "Cameron Case"}}, {_not: {sourceType: {eq: "CaseTest"}}}], sourceType: {eq: "CaseTest"}}`);
    expect(nested.body.data.leads.nodes.map((n: any) => n.name)).toEqual(['Cameron Case']);

    const operators = await list(`where: {sourceType: {eq: "CaseTest"}, name: {prefix: "Sas", notIn: ["Cameron Case"]}, emails: {exists: true}, createdAt: {lt: "9999-01-01"}}`);
    expect(operators.body.data.leads.nodes.map((n: any) => n.name)).toEqual(['Sasha Snake']);
    // Quote requests without a location: `eq: null` matches the missing city, `not: null` a present one.
    const missing = await list(`where: {sourceType: {eq: "CaseTest"}, city: {eq: null}}`);
    expect(missing.body.data.leads.meta.total).toBe(2);
    const present = await list(`where: {sourceType: {eq: "CaseTest"}, city: {not: null}}`);
    expect(present.body.data.leads.meta.total).toBe(0);
  });

  test('a field, operator or order the type does not have is an error, never an empty page', async () => {
    const key = r.users.companyAdmin.key;
    for (const args of ['where: {createdAtt: {gte: "2026-01-01"}}', 'where: {name: {gtt: "a"}}', 'where: {status: "New"}', 'order: [CREATED_ATT_DESC]', 'aggs: [{field: COLOUR}]']) {
      const res = await gql(t, key, `{ leads(${args}) { meta { total } } }`);
      expect([args, res.body.errors?.[0]?.extensions?.code]).toEqual([args, 'GRAPHQL_VALIDATION_FAILED']);
    }
    const variables = await gql(t, key, 'query($w: LeadWhere) { leads(where: $w) { meta { total } } }', { w: { createdAtt: { gte: '2026-01-01' } } });
    expect(variables.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    // A field some roles may not read: a retailer user is told so, as for a field that does not exist.
    for (const args of ['where: {territoryName: {eq: "North"}}', 'order: [STORE_TYPE_ASC]', 'aggs: [{field: TERRITORY_NAME}]']) {
      const company = await gql(t, key, `{ companyRetailerLocations(${args}) { meta { total } } }`);
      expect([args, company.body.errors]).toEqual([args, undefined]);
      const retailer = await gql(t, r.users.retailerAdmin.key, `{ companyRetailerLocations(${args}) { meta { total } } }`);
      expect([args, retailer.body.errors?.[0]?.extensions?.code]).toEqual([args, 'BAD_USER_INPUT']);
      expect(retailer.body.errors[0].message).toMatch(/^company_retailer_locations cannot (filter|order|aggregate) on "\w+"\. Fields: /);
      expect(retailer.body.errors[0].message.split('Fields:')[1]).not.toMatch(/territoryName|storeType/);
    }
    const date = await gql(t, key, '{ leads(where: {createdAt: {gte: "last tuesday"}}) { meta { total } } }');
    expect(date.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(date.body.errors[0].message).toBe('where.createdAt.gte: "last tuesday" is not an ISO 8601 date or date-time');
  });
});
