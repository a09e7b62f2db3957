import request from 'supertest';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { LIMITS } from '../../src/limits';

/** Issue 9 items 5 and 6: every client number and collection is bounded; no input gives a 5xx. */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
let key: string;
let lead: any;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  key = r.users.companyAdmin.key;
  lead = await createLead(t, key);
});
afterAll(() => t.close());

const LIST_ROUTES = ['/v1/leads', '/v1/lead_activities', '/v1/company_retailers', '/v1/company_retailer_locations', '/v1/products'];
const LONE = '\ud800';
const details = (res: { body: any }) => res.body.details?.map((d: any) => ({ field: d.field, code: d.code }));
const gqlCode = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

function nested(depth: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** `{"a":{"a":...1...}}` as text: JSON.stringify (and so supertest's `send`) cannot write it that deep. */
const deepJson = (depth: number, key = 'a') => `{"${key}":`.repeat(depth) + '1' + '}'.repeat(depth);

/** A GraphQL request whose body is sent as written. */
function gqlRaw(key: string, body: string) {
  return request(t.app).post('/graphql').set('Content-Type', 'application/json').set('X-Api-Key', key).send(body);
}

describe('page overflow', () => {
  test.each(LIST_ROUTES)('%s: opts[page] between 2^31 and 2^53 is 400; 2^31 - 1 is an empty page', async (route) => {
    for (const page of ['2147483648', String(2 ** 40), String(2 ** 53 - 1), String(2 ** 53 + 2)]) {
      const res = await api(t, 'get', `${route}?opts[page]=${page}`, { key });
      expect({ page, status: res.status, body: res.body }).toEqual({
        page,
        status: 400,
        body: { status: 400, error: 'Bad Request', message: 'opts[page] must be an integer between 1 and 2147483647' },
      });
    }
    const last = await api(t, 'get', `${route}?opts[page]=2147483647`, { key });
    expect(last.status).toBe(200);
  });

  test('GraphQL: a page beyond Int is a coded error, as a literal or a variable', async () => {
    expect(gqlCode(await gql(t, key, '{ leads(page: 3000000000) { meta { total } } }'))).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(gqlCode(await gql(t, key, 'query($p: Int) { leads(page: $p) { meta { total } } }', { p: 2 ** 40 }))).toBe('BAD_USER_INPUT');
  });
});

describe('aggs flood', () => {
  test('600 opts[aggs][] over REST are 400', async () => {
    const qs = Array.from({ length: 600 }, (_, i) => `opts[aggs][]=f${i}`).join('&');
    const res = await api(t, 'get', `/v1/leads?${qs}`, { key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, error: 'Bad Request', message: `opts[aggs] must name at most ${LIMITS.maxAggs} fields` });
  });

  test('2,000 aggs entries over GraphQL are BAD_REQUEST', async () => {
    const aggs = Array.from({ length: 2000 }, () => ({ field: 'STATUS' }));
    const res = await gql(t, key, 'query($aggs: [LeadFacetInput!]) { leads(aggs: $aggs) { meta { total } } }', { aggs });
    expect(gqlCode(res)).toBe('BAD_REQUEST');
  });
});

describe('where', () => {
  test('nested 20,000 deep over GraphQL is refused while coerced (BAD_USER_INPUT)', async () => {
    const where = deepJson(20_000, '_not');
    const res = await gqlRaw(key, `{"query": "query($w: LeadWhere) { leads(where: $w) { meta { total } } }", "variables": {"w": ${where}}}`);
    expect(res.status).toBe(400);
    expect(gqlCode(res)).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].message).toBe('`variables` is nested deeper than 64 levels');
  });

  test('_or, _and and _not nested beyond the bound are 400 over REST', async () => {
    const path = Array.from({ length: LIMITS.maxWhereDepth + 1 }, () => '[_not]').join('');
    const res = await api(t, 'get', `/v1/leads?opts[where]${path}[status]=New`, { key });
    expect(res.body).toEqual({ status: 400, error: 'Bad Request', message: `opts[where] must nest _or, _and and _not at most ${LIMITS.maxWhereDepth} deep` });
    const ok = await api(t, 'get', `/v1/leads?opts[where]${path.slice('[_not]'.length)}[status]=New`, { key });
    expect(ok.status).toBe(200);
  });

  test('too wide is 400', async () => {
    const where = { _or: Array.from({ length: LIMITS.maxWhereNodes }, (_, i) => ({ name: { eq: `n${i}` } })) };
    const res = await gql(t, key, 'query($w: LeadWhere) { leads(where: $w) { meta { total } } }', { w: where });
    expect(gqlCode(res)).toBe('BAD_REQUEST');
  });
});

test('a q of 50,000 words is 400 over REST and BAD_REQUEST over GraphQL', async () => {
  const q = Array.from({ length: 50_000 }, (_, i) => `w${i % 10}`).join(' ');
  const res = await api(t, 'post', '/v1/leads', { key, body: {} }); // warm-up: a plain 422
  expect(res.status).toBe(422);
  const rest = await api(t, 'get', `/v1/leads?q=${encodeURIComponent(q.slice(0, 6000))}`, { key });
  expect(rest.body).toEqual({ status: 400, error: 'Bad Request', message: `q must be at most ${LIMITS.maxQueryLength} characters` });
  const words = await api(t, 'get', `/v1/leads?q=${encodeURIComponent(q.slice(0, 200))}`, { key });
  expect(words.body).toEqual({ status: 400, error: 'Bad Request', message: `q must have at most ${LIMITS.maxQueryWords} words` });
  expect(gqlCode(await gql(t, key, 'query($q: String) { leads(q: $q) { meta { total } } }', { q }))).toBe('BAD_REQUEST');
});

describe('lone surrogates (PostgreSQL cannot store them) are 422 on the field', () => {
  test('in a lead name, activity data, crm_data_cache (a key) and a status', async () => {
    const name = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ name: `Ada ${LONE}` }) });
    expect({ status: name.status, details: details(name) }).toEqual({ status: 422, details: [{ field: 'name', code: 'invalid' }] });

    const data = await api(t, 'post', '/v1/leads', {
      key,
      body: quoteRequest({ lead_activities: [{ type: 'LeadActivity::Note', data: { note: `x${LONE}` } }] }),
    });
    expect({ status: data.status, details: details(data) }).toEqual({ status: 422, details: [{ field: 'lead_activities.data', code: 'invalid' }] });

    const cache = await api(t, 'post', '/v1/lead_activities', { key, body: { lead_activity: { lead_id: lead.id, crm_data_cache: { [`k${LONE}`]: 1 } } } });
    expect({ status: cache.status, details: details(cache) }).toEqual({ status: 422, details: [{ field: 'crm_data_cache', code: 'invalid' }] });

    const status = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { status: `Called${'\udc00'}` } } });
    expect({ status: status.status, details: details(status) }).toEqual({ status: 422, details: [{ field: 'status', code: 'invalid' }] });
  });

  test('over GraphQL: BAD_USER_INPUT', async () => {
    const res = await gql(t, key, 'mutation($input: LeadInput!) { createLead(input: $input) { id } }', {
      input: { name: 'Ada', emails: [{ email: 'ada.surrogate@example.com' }], leadActivities: [{ data: { note: LONE } }] },
    });
    expect(gqlCode(res)).toBe('BAD_USER_INPUT');
    const text = await gql(t, key, 'mutation($id: ID!, $input: LeadInput!) { updateLead(id: $id, input: $input) { id } }', { id: lead.id, input: { status: LONE } });
    expect(gqlCode(text)).toBe('BAD_USER_INPUT');
    expect(text.body.errors[0].extensions.details).toEqual([expect.objectContaining({ field: 'status', code: 'invalid' })]);
  });

  test('well-formed pairs (emoji) are stored', async () => {
    const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ name: 'Ada \ud83d\ude00' }) });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Ada 😀');
  });
});

describe('JSON inputs', () => {
  test('activity data nested 5,000 levels is 422 over REST and BAD_USER_INPUT over GraphQL', async () => {
    const data = deepJson(5000);
    const res = await api(t, 'post', '/v1/lead_activities', { key, raw: `{"lead_activity": {"lead_id": "${lead.id}", "data": ${data}}}` });
    expect({ status: res.status, details: details(res) }).toEqual({ status: 422, details: [{ field: 'data', code: 'invalid' }] });
    const body = JSON.stringify(quoteRequest({ lead_activities: [{ type: 'LeadActivity::Note', data: '@DATA@' }] })).replace('"@DATA@"', data);
    const viaLead = await api(t, 'post', '/v1/leads', { key, raw: body });
    expect({ status: viaLead.status, details: details(viaLead) }).toEqual({ status: 422, details: [{ field: 'lead_activities.data', code: 'invalid' }] });
    const g = await gqlRaw(
      key,
      `{"query": "mutation($input: LeadActivityInput!) { createLeadActivity(input: $input) { id } }", "variables": {"input": {"leadId": "${lead.id}", "data": ${data}}}}`,
    );
    expect(gqlCode(g)).toBe('BAD_USER_INPUT');
  });

  test('JSON at the depth bound is kept as sent', async () => {
    const res = await api(t, 'post', '/v1/lead_activities', { key, body: { lead_activity: { lead_id: lead.id, data: nested(LIMITS.maxJsonDepth - 1) } } });
    expect(res.status).toBe(201);
  });
});

test('nested items beyond the bound are 422 on the list', async () => {
  const emails = Array.from({ length: LIMITS.maxInputObjects + 1 }, (_, i) => ({ email: `many${i}@example.com` }));
  const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ emails }) });
  expect({ status: res.status, details: details(res) }).toEqual({ status: 422, details: [{ field: 'emails', code: 'invalid' }] });
  const areas = Array.from({ length: LIMITS.maxInputObjects + 1 }, (_, i) => ({ postal_code: String(10000 + i), country: 'US' }));
  const crl = await api(t, 'patch', `/v1/company_retailer_locations/${r.net.storeNorth.id}`, { key, body: { delivery_areas: areas } });
  expect({ status: crl.status, details: details(crl) }).toEqual({ status: 422, details: [{ field: 'delivery_areas', code: 'invalid' }] });
});
