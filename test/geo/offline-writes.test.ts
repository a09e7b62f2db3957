import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { inMemoryCity } from './in-memory-cities';

/**
 * The configured offline geocoder on real writes: a lead's city without a postal code is placed from
 * `geo_city` by one statement, before the create's transaction and inside the update's (on its
 * connection: a write waits for no second one).
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'offline' });
  key = (await f.userWithKey(t.em(), Role.CompanyAdmin, await f.company(t.em()))).key;
});
afterAll(() => t.close());

const lookups = () => t.statements.filter((s) => s.includes('from "geo_city"'));

test('a lead created with a city and no postal code is placed by one lookup; an update moves it', async () => {
  t.resetStatements();
  const lead = await createLead(t, key, quoteRequest({ location: { city: 'Portland', province: 'ME', country: 'US' } }));
  const maine = inMemoryCity({ city: 'Portland', province: 'ME', country: 'US' })!;
  expect(lead.location).toMatchObject({ latitude: maine.latitude, longitude: maine.longitude });
  expect(lookups()).toHaveLength(1);

  t.resetStatements();
  const moved = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { location: { city: 'Montréal', province: 'Québec', country: 'Canada' } } } });
  expect(moved.status).toBe(200);
  const montreal = inMemoryCity({ city: 'Montréal', province: 'Québec', country: 'Canada' })!;
  expect(moved.body.location).toMatchObject({ city: 'Montréal', latitude: montreal.latitude, longitude: montreal.longitude });
  expect(lookups()).toHaveLength(1);

  const lost = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { location: { city: 'Xyzzyville' } } } });
  expect(lost.status).toBe(200);
  expect(lost.body.location).toMatchObject({ city: 'Xyzzyville', latitude: null, longitude: null });
});

test('a postal code is placed without the database', async () => {
  t.resetStatements();
  const lead = await createLead(t, key, quoteRequest({ location: { city: 'Portland', postal_code: '97205', country: 'US' } }));
  expect(lead.location).toMatchObject({ latitude: expect.closeTo(45.52, 1), longitude: expect.closeTo(-122.69, 1) });
  expect(lookups()).toHaveLength(0);
});
