import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import type { AddressQuery } from '../../src/geo/geocoder';

let t: TestApp;
let key: string;
const calls: AddressQuery[] = [];
let behaviour: 'place' | 'unknown' | 'throw' = 'place';
const fake = {
  async geocode(address: AddressQuery) {
    calls.push(address);
    if (behaviour === 'throw') throw new Error('geocoder down');
    if (behaviour === 'unknown') return null;
    return address.city === 'Portland' ? { latitude: 45.52, longitude: -122.68 } : { latitude: 44.94, longitude: -123.03 };
  },
};

beforeAll(async () => {
  t = await createTestApp();
  key = (await f.userWithKey(t.em(), Role.CompanyAdmin, await f.company(t.em()))).key;
  withGeocoder(fake);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});
beforeEach(() => {
  calls.length = 0;
  behaviour = 'place';
});

describe('lead locations are geocoded on write (PRODUCT.md section 8)', () => {
  test('create geocodes the address', async () => {
    const lead = await createLead(t, key, quoteRequest({ location: { street_line_one: '1 Main St', city: 'Portland', province: 'OR', country: 'US' } }));
    expect(lead.location).toMatchObject({ latitude: 45.52, longitude: -122.68 });
    expect(calls).toEqual([expect.objectContaining({ streetLineOne: '1 Main St', city: 'Portland', province: 'OR', country: 'US' })]);
  });

  test('an address change is geocoded again; a change of address_name alone is not', async () => {
    const lead = await createLead(t, key, quoteRequest({ location: { city: 'Portland' } }));
    calls.length = 0;
    const named = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { location: { address_name: 'Home' } } } });
    expect(named.body.location).toMatchObject({ address_name: 'Home', latitude: 45.52 });
    expect(calls).toHaveLength(0);
    const moved = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { location: { city: 'Salem' } } } });
    expect(moved.body.location).toMatchObject({ city: 'Salem', latitude: 44.94, longitude: -123.03 });
    expect(calls).toHaveLength(1);
    behaviour = 'unknown';
    const lost = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { location: { city: 'Atlantis' } } } });
    expect(lost.body.location).toMatchObject({ city: 'Atlantis', latitude: null, longitude: null });
  });

  test('a failing geocoder never fails the write', async () => {
    behaviour = 'throw';
    const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ location: { city: 'Portland' } }) });
    expect(res.status).toBe(201);
    expect(res.body.location).toMatchObject({ city: 'Portland', latitude: null, longitude: null });
    const update = await api(t, 'patch', `/v1/leads/${res.body.id}`, { key, body: { lead: { location: { city: 'Salem' } } } });
    expect(update.status).toBe(200);
    expect(update.body.location).toMatchObject({ city: 'Salem', latitude: null });
  });

  test('a location without address parts is not sent to the geocoder', async () => {
    const lead = await createLead(t, key, quoteRequest({ location: { address_name: 'Somewhere' } }));
    expect(lead.location).toMatchObject({ address_name: 'Somewhere', latitude: null });
    expect(calls).toHaveLength(0);
  });
});
