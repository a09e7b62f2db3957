import request from 'supertest';
import fc from 'fast-check';
import { getNamedType, isInputObjectType, isObjectType, type GraphQLInputType } from 'graphql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { LIMITS, MAX_BOOST, MAX_DELIVERY_RADIUS_MILES, numericBound } from '../../src/limits';
import { buildSchema } from '../../src/graphql/schema';
import { modules } from '../../src/modules';

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

/**
 * Numbers the database computes with (issue 20): every Int and Float a client sends has a bound the whole
 * pipeline carries, NaN and Infinity included (a JSON or GraphQL `1e400` is Infinity), and out of it is
 * 422 on the field (GraphQL: BAD_USER_INPUT with the field in `details`), 400 on a list argument.
 */
describe('numeric inputs', () => {
  const crlPath = () => `/v1/company_retailer_locations/${r.net.storeNorth.id}`;
  const placedCrl = async () => {
    const res = await api(t, 'post', '/v1/company_retailer_locations', {
      key,
      body: { company_retailer_location: { company_retailer_id: r.net.companyRetailer.id, name: `Placed ${Math.random()}`, physical_address: { city: 'Portland', province: 'OR', country: 'US', postal_code: '97205' } } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const rawCrl = (method: 'post' | 'patch', path: string, json: string) =>
    request(t.app)[method](path).set('Content-Type', 'application/json').set('X-Api-Key', key).send(json);

  test('every Int and Float input of the schema has a bound', () => {
    const schema = buildSchema(modules);
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      const numeric = (inputType: GraphQLInputType) => ['Int', 'Float'].includes(getNamedType(inputType).name);
      if (isInputObjectType(type)) for (const f of Object.values(type.getFields())) if (numeric(f.type) && !numericBound(`${type.name}.${f.name}`)) missing.push(`${type.name}.${f.name}`);
      if (isObjectType(type)) for (const f of Object.values(type.getFields())) for (const a of f.args) if (numeric(a.type) && !numericBound(`${type.name}.${f.name}(${a.name})`)) missing.push(`${type.name}.${f.name}(${a.name})`);
    }
    expect(missing).toEqual([]);
  });

  // [JSON text, the number it parses to]
  const HOSTILE: Array<[string, number]> = [
    ['1e305', 1e305],
    ['1.7976931348623157e308', Number.MAX_VALUE],
    ['1e400', Infinity],
    ['-1e400', -Infinity],
    ['-1e305', -1e305],
    ['2147483648', 2 ** 31],
    ['9007199254740993', 2 ** 53],
    ['18446744073709551616', 2 ** 64],
  ];

  test.each(HOSTILE)('CRL delivery_radius %s over REST (create with an address, update, and an address added later): 422 on the field, never 500', async (text) => {
    const created = await rawCrl(
      'post',
      '/v1/company_retailer_locations',
      `{"company_retailer_location": {"company_retailer_id": "${r.net.companyRetailer.id}", "name": "Far", "delivery_radius": ${text}, "physical_address": {"city": "Portland", "province": "OR", "country": "US", "postal_code": "97205"}}}`,
    );
    expect({ status: created.status, details: details(created) }).toEqual({ status: 422, details: [{ field: 'delivery_radius', code: 'invalid' }] });
    const id = await placedCrl();
    const updated = await rawCrl('patch', `/v1/company_retailer_locations/${id}`, `{"company_retailer_location": {"delivery_radius": ${text}}}`);
    expect({ status: updated.status, details: details(updated) }).toEqual({ status: 422, details: [{ field: 'delivery_radius', code: 'invalid' }] });
    const unplaced = await rawCrl('patch', crlPath(), `{"company_retailer_location": {"delivery_radius": ${text}}}`);
    expect(unplaced.status).toBe(422);
    const g = await gql(t, key, `mutation { updateCompanyRetailerLocation(id: "${id}", input: {deliveryRadius: ${text}}) { id } }`);
    expect({ code: gqlCode(g), details: g.body.errors[0].extensions.details?.map((d: any) => d.field) }).toEqual({ code: 'BAD_USER_INPUT', details: ['delivery_radius'] });
  });

  test('a delivery_radius at the bound is stored, and routing computes with it (the routing trigger, a lead routed by it)', async () => {
    const id = await placedCrl();
    const res = await api(t, 'patch', `/v1/company_retailer_locations/${id}`, { key, body: { company_retailer_location: { delivery_radius: MAX_DELIVERY_RADIUS_MILES } } });
    expect(res.status).toBe(200);
    expect(res.body.delivery_radius).toBe(MAX_DELIVERY_RADIUS_MILES);
    const over = await api(t, 'patch', `/v1/company_retailer_locations/${id}`, { key, body: { company_retailer_location: { delivery_radius: MAX_DELIVERY_RADIUS_MILES + 1 } } });
    expect(over.body.details).toEqual([expect.objectContaining({ field: 'delivery_radius', message: `must be between 0 and ${MAX_DELIVERY_RADIUS_MILES}` })]);
  });

  test('a radius near the largest double already stored (another writer, an older version) routes leads and takes an address without a 500', async () => {
    const id = await placedCrl();
    await t.em().getConnection().execute(`update company_retailer_locations set delivery_radius = 1.7e308 where id = ?`, [id]);
    const enabled = await gql(t, key, 'mutation { updateRoutingSettings(input: {enabled: true, strategies: [DeliveryRadius]}) { enabled } }');
    expect(enabled.body.errors).toBeUndefined();
    const dry = await gql(t, key, '{ routeAddress(address: {latitude: 45.52, longitude: -122.68}) { assigneeId rule } }');
    expect(dry.body.errors).toBeUndefined();
    expect(dry.body.data.routeAddress.rule).toBe('DeliveryRadius');
    const moved = await api(t, 'patch', `/v1/company_retailer_locations/${id}`, { key, body: { company_retailer_location: { physical_address: { city: 'Seattle', province: 'WA', country: 'US', postal_code: '98101' } } } });
    expect(moved.status).toBe(200);
    const lead = await createLead(t, key, quoteRequest({ location: { city: 'Portland', province: 'OR', country: 'US', postal_code: '97205' } }));
    expect(lead.assignee?.id).toBeDefined();
    await gql(t, key, 'mutation { updateRoutingSettings(input: {enabled: false}) { enabled } }');
  });

  test('hours beyond a smallint are 422 on the field, on a closed day too', async () => {
    const res = await rawCrl(
      'patch',
      crlPath(),
      `{"retailer_location_hours": [{"day": "monday", "open": false, "open_at_hour": 40000, "open_at_minute": 0, "close_at_hour": 0, "close_at_minute": 0}]}`,
    );
    expect({ status: res.status, details: details(res) }).toEqual({ status: 422, details: [{ field: 'retailer_location_hours.open_at_hour', code: 'invalid' }] });
  });

  test.each(HOSTILE)('store type boost %s over GraphQL is BAD_USER_INPUT naming boost', async (text, value) => {
    const res = await gql(t, key, `mutation { createCompanyStoreType(input: {name: "Tier ${Math.random()}", boost: ${text}}) { id boost } }`);
    if (value >= 0 && value <= MAX_BOOST) return expect(res.body.errors).toBeUndefined();
    expect({ code: gqlCode(res), details: res.body.errors[0].extensions.details?.map((d: any) => d.field) }).toEqual({ code: 'BAD_USER_INPUT', details: ['boost'] });
  });

  test.each(HOSTILE)('routeAddress latitude %s is BAD_USER_INPUT naming address.latitude, not an unplaced address', async (text) => {
    const res = await gql(t, key, `{ routeAddress(address: {latitude: ${text}, longitude: 1}) { reason } }`);
    expect({ code: gqlCode(res), details: res.body.errors?.[0].extensions.details?.map((d: any) => d.field) }).toEqual({ code: 'BAD_USER_INPUT', details: ['address.latitude'] });
  });

  // Magnitudes PostgreSQL's float math underflows on (a product that rounds to zero from non-zero factors
  // is an error there): taken as 0, never stored or sent as they are.
  const TINY = ['5e-324', '8.4e-323', '1e-200', '-2.2250738585072014e-308'];

  test.each(TINY)('a coordinate, a delivery radius or a distance of %s is taken as 0: stores, routing, leads and the store locator answer', async (text) => {
    const positive = text.replace(/^-/, '');
    const placed = await gql(t, key, `{ routeAddress(address: {latitude: ${text}, longitude: ${text}}) { reason } }`);
    expect(placed.body.errors).toBeUndefined();
    // A store at these coordinates (explicit, so never geocoded), and a CRL of it with this delivery radius.
    const operator = await f.userWithKey(t.em(), Role.PlatformOperator, null);
    const store = await gql(
      t,
      operator.key,
      `mutation { createRetailerLocation(input: {retailerId: "${r.net.retailer.id}", name: "Null Island ${Math.random()}", physicalAddress: {city: "Null Island", latitude: ${text}, longitude: ${text}}}) { id physicalAddress { latitude longitude } } }`,
    );
    expect(store.body.errors).toBeUndefined();
    expect(store.body.data.createRetailerLocation.physicalAddress).toEqual({ latitude: 0, longitude: 0 });
    const crl = await rawCrl(
      'post',
      '/v1/company_retailer_locations',
      `{"company_retailer_location": {"company_retailer_id": "${r.net.companyRetailer.id}", "retailer_location_id": "${store.body.data.createRetailerLocation.id}", "delivery_radius": ${positive}}}`,
    );
    expect([crl.status, crl.body.delivery_radius, crl.body.details]).toEqual([201, 0, undefined]);
    // The nearest rule's distance must be greater than 0: as 0 it is refused on its field.
    const nearest = await gql(t, key, `mutation { updateRoutingSettings(input: {nearestMaxDistanceMiles: ${positive}}) { enabled } }`);
    expect(nearest.body.errors[0].extensions.details.map((d: any) => d.field)).toEqual(['nearest_max_distance_miles']);
    const enabled = await gql(t, key, 'mutation { updateRoutingSettings(input: {enabled: true, strategies: [DeliveryRadius, Nearest], nearestMaxDistanceMiles: 50}) { enabled } }');
    expect(enabled.body.errors).toBeUndefined();
    for (const at of [text, '0']) expect((await gql(t, key, `{ routeAddress(address: {latitude: ${at}, longitude: ${at}}) { reason } }`)).body.errors).toBeUndefined();
    expect((await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ location: { city: 'Portland', province: 'OR', country: 'US' } }) })).status).toBe(201);
    await gql(t, key, 'mutation { updateRoutingSettings(input: {enabled: false}) { enabled } }');
    const decimal = `0.${'0'.repeat(330)}84`;
    for (const query of [`latitude=${decimal}&longitude=${decimal}`, `latitude=0&longitude=0&radius=${decimal}mi`, `top_left_latitude=${decimal}&top_left_longitude=-${decimal}&bottom_right_latitude=-${decimal}&bottom_right_longitude=${decimal}`]) {
      const found = await api(t, 'get', `/v1/store_locator?cc_id=${r.net.company.id}&${query}`);
      expect([query.slice(0, 40), found.status]).toEqual([query.slice(0, 40), 200]);
    }
  });

  test('a GraphQL Float literal of 1e400 (Infinity) in a where is 400, and in routing settings 422', async () => {
    const where = await gql(t, key, '{ companyRetailerLocations(where: {deliveryRadius: {gt: 1e400}}) { meta { total } } }');
    expect({ code: gqlCode(where), message: where.body.errors[0].message }).toEqual({ code: 'BAD_REQUEST', message: 'where.delivery_radius.gt must be a finite number' });
    const settings = await gql(t, key, 'mutation { updateRoutingSettings(input: {nearestMaxDistanceMiles: 1e400}) { enabled } }');
    expect(settings.body.errors[0].extensions.details).toEqual([expect.objectContaining({ field: 'nearest_max_distance_miles' })]);
  });

  test('numbers in JSON values (activity data) that overflow a double are 422, not stored as null', async () => {
    const body = JSON.stringify(quoteRequest()).replace('"quantity":1', '"quantity":1e400');
    const res = await api(t, 'post', '/v1/leads', { key, raw: body });
    expect({ status: res.status, details: details(res) }).toEqual({ status: 422, details: [{ field: 'lead_activities.data', code: 'invalid' }] });
    const fine = await api(t, 'post', '/v1/leads', { key, raw: JSON.stringify(quoteRequest()).replace('"quantity":1', '"quantity":1e305') });
    expect(fine.status).toBe(201);
  });

  test('opts[aggs][...][min_doc_count] beyond a 32-bit integer is 400, not a 500', async () => {
    for (const v of ['1e305', '2147483648', '18446744073709551616']) {
      const res = await api(t, 'get', `/v1/leads?opts[aggs][status][min_doc_count]=${v}`, { key });
      expect({ v, body: res.body }).toEqual({ v, body: { status: 400, error: 'Bad Request', message: 'opts[aggs][status][min_doc_count] must be an integer between 0 and 2147483647' } });
    }
    expect((await api(t, 'get', '/v1/leads?opts[aggs][status][min_doc_count]=2147483647', { key })).status).toBe(200);
  });

  test('property: any double as delivery_radius is stored when within 0..bound (below 1e-9 as 0), else 422 on the field; never a 5xx', async () => {
    const id = await placedCrl();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.double({ noNaN: true }), fc.double({ min: -10, max: 2 * MAX_DELIVERY_RADIUS_MILES, noNaN: true }), fc.constantFrom(0, -0, MAX_DELIVERY_RADIUS_MILES, 5e-324)),
        async (value) => {
          const text = value === Infinity ? '1e400' : value === -Infinity ? '-1e400' : JSON.stringify(value);
          const res = await rawCrl('patch', `/v1/company_retailer_locations/${id}`, `{"company_retailer_location": {"delivery_radius": ${text}}}`);
          if (value >= 0 && value <= MAX_DELIVERY_RADIUS_MILES) {
            expect({ value, status: res.status }).toEqual({ value, status: 200 });
            expect(res.body.delivery_radius).toBe(value < 1e-9 ? 0 : value);
          } else {
            expect({ value, status: res.status, details: details(res) }).toEqual({ value, status: 422, details: [{ field: 'delivery_radius', code: 'invalid' }] });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
