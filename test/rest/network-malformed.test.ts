import { api, createTestApp, type TestApp } from '../support/app';
import { world, type World } from '../support/network';

/** No input, however malformed, produces a 5xx or a half-written record. */
let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createTestApp();
  w = await world(t.em());
});
afterAll(() => t.close());

const NUL = 'a\u0000b';
const LONG = 'x'.repeat(10_000);

function crlBodies(w: World): unknown[] {
  const root = { company_retailer_id: w.crA.id };
  return [
    null,
    [],
    'text',
    { company_retailer_location: 'x' },
    { company_retailer_location: [] },
    { company_retailer_location: null },
    { company_retailer_location: { ...root, name: NUL, website: LONG, place_id: { a: 1 } } },
    { company_retailer_location: { ...root, delivery_radius: 'far', timezone: NUL, sending_leads: 'yes' } },
    { company_retailer_location: { ...root, retailer_location_id: 'nope', territory_id: 5, company_store_type_id: [] } },
    { company_retailer_location: root, physical_address: 'street', general_email: [1], general_phone_number: 5 },
    { company_retailer_location: root, physical_address: { city: NUL, country: LONG }, general_email: { email: NUL }, general_phone_number: { phone_number: NUL, country_code: NUL } },
    { company_retailer_location: root, general_phone_number: { phone_number: LONG, country_code: 'ZZ' }, general_email: { id: 'x', _destroy: 'true' } },
    { company_retailer_location: root, retailer_location_hours: 'all week' },
    { company_retailer_location: root, retailer_location_hours: [null] },
    { company_retailer_location: root, retailer_location_hours: [{ day: {}, open: 'yes' }] },
    { company_retailer_location: root, retailer_location_hours: [{ id: 'x' }, { id: w.crA.id, _destroy: true }] },
    { company_retailer_location: root, retailer_location_hours: [{ day: NUL, open: true, open_at_hour: 2147483648 }] },
    { company_retailer_location: root, delivery_areas: [{ postal_code: NUL }, { id: 'x' }, { postal_code: LONG }] },
    { company_retailer_location: root, hour_exceptions: 'christmas' },
    { company_retailer_location: root, hour_exceptions: [null] },
    { company_retailer_location: root, hour_exceptions: [{ starts_on: NUL, label: NUL }, { starts_on: LONG, ends_on: {} }] },
    { company_retailer_location: root, hour_exceptions: [{ starts_on: '2026-12-25', label: NUL }] },
    { company_retailer_location: root, hour_exceptions: [{ starts_on: '2026-12-24', closed: false, hours: [null, { open_at_hour: 2147483648 }] }] },
    { company_retailer_location: root, hour_exceptions: [{ starts_on: '9999-99-99' }, { id: 'x', _destroy: true }, { starts_on: '2026-12-25', ends_on: '2126-12-25' }] },
    { company_retailer_location: root, delivery_areas: 'x', unknown_top_level: { a: 1 } },
    { company_retailer_location: { ...root, company_id: 'not-a-uuid' } },
  ];
}

function crBodies(w: World): unknown[] {
  return [
    { company_retailer: { retailer_id: w.R2.id, name: NUL } },
    { company_retailer: { retailer_id: w.R2.id, physical_address: { city: NUL, street_line_one: LONG, addressable_id: 5 } } },
    { company_retailer: { retailer_id: [w.R2.id], territory_id: {} } },
    { company_retailer: { retailer_id: w.R2.id, sending_leads: null, receiving_leads: 'no' } },
    { company_retailer: { retailer_id: w.R2.id, physical_address: [] } },
  ];
}

test('CRL create and update', async () => {
  for (const body of crlBodies(w)) {
    for (const [method, path] of [
      ['post', '/v1/company_retailer_locations'],
      ['patch', `/v1/company_retailer_locations/${w.crlIn.id}`],
    ] as const) {
      const res = await api(t, method, path, { key: w.keys.company_admin, body: body as object });
      // A bare string goes out as a form body, which is not JSON (415); everything else is refused as input (422).
      expect({ body, status: res.status }).toEqual({ body, status: typeof body === 'string' ? 415 : 422 });
    }
  }
});

test('company retailer create, update and replace', async () => {
  for (const body of crBodies(w)) {
    for (const [method, path] of [
      ['post', '/v1/company_retailers'],
      ['patch', `/v1/company_retailers/${w.crA.id}`],
      ['put', `/v1/company_retailers/${w.crA.id}`],
    ] as const) {
      const res = await api(t, method, path, { key: w.keys.company_admin, body: body as object });
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
    }
  }
});

test('raw bodies: numbers beyond double, invalid JSON', async () => {
  const big = await api(t, 'patch', `/v1/company_retailer_locations/${w.crlIn.id}`, {
    key: w.keys.company_admin,
    raw: '{"company_retailer_location":{"delivery_radius":1e400}}',
  });
  expect(big.status).toBe(422);
  const broken = await api(t, 'post', '/v1/company_retailers', { key: w.keys.company_admin, raw: '{"company_retailer":' });
  expect(broken.status).toBe(400);
  expect(broken.body.message).toMatch(/^Invalid JSON: /);
});

test('nothing was half-written', async () => {
  const res = await api(t, 'get', `/v1/company_retailer_locations/${w.crlIn.id}`, { key: w.keys.company_admin });
  expect(res.body).toMatchObject({ name: 'Riverside Downtown', website: null, delivery_areas: [], retailer_location_hours: [], physical_address: null });
  const crs = await api(t, 'get', '/v1/company_retailers', { key: w.keys.company_admin });
  expect(crs.body.company_retailers.map((c: any) => c.id).sort()).toEqual([w.crA.id, w.crA2.id].sort());
});
