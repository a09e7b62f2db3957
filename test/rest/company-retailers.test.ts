import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { storeType } from '../support/locator-factories';
import { world, type World } from '../support/network';
import { RecordingGeocoder } from '../support/geocoder';
import { Role } from '../../src/modules/user/role';
import { CompanyRetailer } from '../../src/modules/company-retailer/company-retailer.entity';
import { Location } from '../../src/modules/contact/location.entity';

const geocoder = new RecordingGeocoder();
let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createTestApp({}, { geocoder });
  w = await world(t.em());
});
afterAll(() => t.close());

const ids = (res: { body: { company_retailers: Array<{ id: string }> } }) => res.body.company_retailers.map((c) => c.id).sort();

describe('serialization (SPEC 2.4)', () => {
  test('show embeds retailer, company, territory and the address, with the count of its locations', async () => {
    const em = t.em();
    const address = await f.location(em, { streetLineOne: '1 Main St', latitude: 45.5, longitude: -122.6 });
    const seller = await f.retailer(em, 'Canyon Cycles');
    const cr = await f.companyRetailer(em, w.A, seller, { name: 'Canyon', territory: w.south, physicalAddress: address, type: 'Dealer', isCc: true });
    await f.crl(em, cr);
    await f.crl(em, cr);
    const res = await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key: w.keys.company_admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: cr.id,
      name: 'Canyon',
      sending_leads: true,
      receiving_leads: true,
      is_cc: true,
      territory_id: w.south.id,
      retailer_locations_count: 2,
      type: 'Dealer',
      retailer: { id: seller.id, name: 'Canyon Cycles' },
      company: { id: w.A.id, name: 'Acme' },
      territory: { id: w.south.id, name: 'South' },
      physical_address: {
        id: address.id,
        address_name: null,
        street_line_one: '1 Main St',
        street_line_two: null,
        postal_code: '97205',
        city: 'Portland',
        province: 'OR',
        country: 'US',
        latitude: 45.5,
        longitude: -122.6,
      },
    });
  });

  test('absent associations are null with their key present', async () => {
    const res = await api(t, 'get', `/v1/company_retailers/${w.crA2.id}`, { key: w.keys.company_admin });
    expect(res.body).toMatchObject({ territory_id: null, territory: null, physical_address: null, retailer_locations_count: 1 });
  });

  test('include names the associations to serialize; unknown names are ignored', async () => {
    const only = await api(t, 'get', `/v1/company_retailers/${w.crA.id}?include=retailer,nonsense`, { key: w.keys.company_admin });
    expect(only.body.retailer).toEqual({ id: w.R.id, name: 'Riverside Outfitters' });
    expect(only.body).not.toHaveProperty('company');
    expect(only.body).not.toHaveProperty('territory');
    expect(only.body).not.toHaveProperty('physical_address');
    const list = await api(t, 'get', '/v1/company_retailers?include=territory', { key: w.keys.company_admin });
    const crA = list.body.company_retailers.find((c: any) => c.id === w.crA.id);
    expect(Object.keys(crA)).toContain('territory');
    expect(Object.keys(crA)).not.toContain('retailer');
    const all = await api(t, 'get', `/v1/company_retailers/${w.crA.id}?include=*`, { key: w.keys.company_admin });
    expect(all.body).toHaveProperty('company');
    expect(all.body).toHaveProperty('physical_address');
  });
});

describe('visibility (PRODUCT.md section 3)', () => {
  test.each([
    [Role.CompanyAdmin, ['crA', 'crA2']],
    [Role.CompanyTerritoryManager, ['crA']],
    [Role.CompanyRetailerManager, ['crA']],
    [Role.CompanyLocationUser, ['crA']],
    [Role.CompanySalesAssociate, ['crA']],
    [Role.RetailerAdmin, ['crA']],
    [Role.RetailerStoreManager, ['crA']],
  ] as const)('%s lists exactly %j of the network', async (role, expected) => {
    const res = await api(t, 'get', `/v1/company_retailers?opts[where][company_id][]=${w.A.id}&opts[where][company_id][]=${w.B.id}`, {
      key: w.keys[role],
    });
    expect(res.status).toBe(200);
    const names = expected.map((n) => (w as any)[n].id).sort();
    expect(ids(res).filter((id) => [w.crA.id, w.crA2.id, w.crB.id].includes(id))).toEqual(names);
  });

  test('a territory manager sees a company retailer through a store whose territory falls back to it', async () => {
    const em = t.em();
    const seller = await f.retailer(em);
    const cr = await f.companyRetailer(em, w.A, seller, { territory: w.south });
    await f.crl(em, cr);
    const southManager = await f.userWithKey(em, Role.CompanyTerritoryManager, w.A, { territory: w.south });
    expect((await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key: southManager.key })).status).toBe(200);
    expect((await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key: w.keys.company_territory_manager })).status).toBe(404);
  });

  test('a retailer manager sees its assigned company retailers even without stores; a retailer admin its retailer’s', async () => {
    const em = t.em();
    const seller = await f.retailer(em);
    const bare = await f.companyRetailer(em, w.A, seller);
    const manager = await f.userWithKey(em, Role.CompanyRetailerManager, w.A, { companyRetailers: [bare] });
    const admin = await f.userWithKey(em, Role.RetailerAdmin, seller);
    expect((await api(t, 'get', `/v1/company_retailers/${bare.id}`, { key: manager.key })).status).toBe(200);
    expect((await api(t, 'get', `/v1/company_retailers/${bare.id}`, { key: admin.key })).status).toBe(200);
    expect((await api(t, 'get', `/v1/company_retailers/${bare.id}`, { key: w.keys.company_location_user })).status).toBe(404);
  });

  test("another tenant's territory, retailer and company under a company retailer the caller sees stay null, listed as shown", async () => {
    const em = t.em();
    // Rows written around the application (its writes refuse both): a company retailer of A whose
    // territory is company B's, and a store of retailer R3 under a company retailer of B with R4.
    const foreign = await f.territory(em, w.B, 'Bolt Hidden');
    const crForeignTerritory = await f.companyRetailer(em, w.A, await f.retailer(em), { territory: foreign });
    const [r3, r4] = [await f.retailer(em, 'Hidden Three'), await f.retailer(em, 'Hidden Four')];
    const store = await f.retailerLocation(em, r3);
    const crOther = await f.companyRetailer(em, w.B, r4, { name: 'Shared store', territory: foreign, physicalAddress: await f.location(em) });
    await f.crl(em, crOther, { retailerLocation: store });
    const manager = await f.userWithKey(em, Role.RetailerStoreManager, r3, { retailerLocations: [store] });
    const read = async (key: string, id: string) => {
      const list = await api(t, 'get', `/v1/company_retailers?include=*&opts[where][id]=${id}`, { key });
      const show = await api(t, 'get', `/v1/company_retailers/${id}`, { key });
      expect([list.status, show.status]).toEqual([200, 200]);
      expect(list.body.company_retailers).toEqual([show.body]);
      expect(JSON.stringify(list.body)).not.toMatch(/Bolt|Hidden/);
      return show.body;
    };
    expect(await read(w.keys.company_admin, crForeignTerritory.id)).toMatchObject({ company: { id: w.A.id }, territory: null });
    expect(await read(manager.key, crOther.id)).toMatchObject({
      company: null,
      retailer: null,
      territory: null,
      physical_address: { city: 'Portland' },
      retailer_locations_count: 1,
    });
    const { body } = await gql(t, manager.key, '{ companyRetailers { nodes { id company { name } retailer { name } territory { name } retailerLocationsCount } } }');
    expect(body.data.companyRetailers.nodes).toEqual([{ id: crOther.id, company: null, retailer: null, territory: null, retailerLocationsCount: 1 }]);
  });

  test('out of scope, unknown and malformed ids are all 404 naming the type', async () => {
    const out = await api(t, 'get', `/v1/company_retailers/${w.crB.id}`, { key: w.keys.company_admin });
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ status: 404, error: 'Not Found', message: `Couldn't find CompanyRetailer with 'id'=${w.crB.id}` });
    expect((await api(t, 'get', '/v1/company_retailers/not-a-uuid', { key: w.keys.company_admin })).status).toBe(404);
  });

  test('the platform operator and unknown keys are refused', async () => {
    expect((await api(t, 'get', '/v1/company_retailers', { key: w.keys.platform_operator })).status).toBe(403);
    expect((await api(t, 'get', '/v1/company_retailers', { key: 'lnk_nope_nope_nope_nope_nope' })).status).toBe(401);
  });
});

describe('list search', () => {
  test('q matches names of the retailer and territory; where filters on flags and address; aggs count', async () => {
    const em = t.em();
    const seller = await f.retailer(em, 'Glacier Goods');
    const address = await f.location(em, { city: 'Bend', province: 'OR' });
    const cr = await f.companyRetailer(em, w.A, seller, { name: 'Glacier', receivingLeads: false, physicalAddress: address });
    const key = w.keys.company_admin;
    expect(ids(await api(t, 'get', '/v1/company_retailers?q=glacier', { key }))).toEqual([cr.id]);
    expect(ids(await api(t, 'get', '/v1/company_retailers?q=riverside', { key }))).toEqual([w.crA.id]);
    expect(ids(await api(t, 'get', '/v1/company_retailers?q=north', { key }))).toEqual([w.crA.id]);
    expect(ids(await api(t, 'get', '/v1/company_retailers?opts[where][receiving_leads]=false', { key }))).toEqual([cr.id]);
    expect(ids(await api(t, 'get', '/v1/company_retailers?opts[where][city]=Bend', { key }))).toEqual([cr.id]);
    const aggs = await api(t, 'get', '/v1/company_retailers?opts[aggs][]=retailer_name&opts[where][company_id]=' + w.A.id, { key });
    const arrays = await api(t, 'get', `/v1/company_retailers?opts[aggs][]=store_type&opts[aggs][]=crl_territory_id&opts[order][retailer_locations_count]=desc&q=*`, { key });
    expect(arrays.status).toBe(200);
    // The fields over every store under a company retailer serve the scope only (issue 9): no facet.
    expect(arrays.body.meta.aggs.crl_territory_id.buckets).toEqual([]);
    expect(arrays.body.company_retailers[0].retailer_locations_count).toBeGreaterThanOrEqual(arrays.body.company_retailers[1].retailer_locations_count);
    // Counts over stores are the company admin's only: to a role that does not see every store, an unknown order field.
    const tm = await api(t, 'get', '/v1/company_retailers?opts[order][retailer_locations_count]=desc', { key: w.keys.company_territory_manager });
    expect(tm.status).toBe(400);
    expect(aggs.body.meta.aggs.retailer_name.buckets).toEqual(
      expect.arrayContaining([
        { key: 'Glacier Goods', doc_count: 1 },
        { key: 'Riverside Outfitters', doc_count: 1 },
      ]),
    );
  });
});

describe('where on the stores under a company retailer', () => {
  test("a store type's name or id, none, or not: read through the stores under it; the store-scope fields are no client's; another company's admin finds none", async () => {
    const em = t.em();
    const outlet = await storeType(em, w.A, `Outlet ${Math.random()}`);
    const typed = await f.companyRetailer(em, w.A, await f.retailer(em, 'Outlet Owner'));
    await f.crl(em, typed, { companyStoreType: outlet });
    await f.crl(em, typed); // a store of no type under the same company retailer
    const bare = await f.companyRetailer(em, w.A, await f.retailer(em, 'No Stores Yet'));
    const list = async (where: string, key = w.keys.company_admin) => {
      const res = await api(t, 'get', `/v1/company_retailers?opts[per_page]=500&${where}`, { key });
      expect(res.status).toBe(200);
      return ids(res);
    };
    expect(await list(`opts[where][store_type]=${encodeURIComponent(outlet.name)}`)).toEqual([typed.id]);
    expect(await list(`opts[where][company_store_type_id]=${outlet.id}`)).toEqual([typed.id]);
    expect(await list(`opts[where][store_type][prefix]=${encodeURIComponent(outlet.name.slice(0, 8))}`)).toEqual([typed.id]);
    const none = await list('opts[where][store_type]=null');
    expect([none.includes(bare.id), none.includes(typed.id)]).toEqual([true, false]);
    const others = await list(`opts[where][store_type][not]=${encodeURIComponent(outlet.name)}`);
    expect([others.includes(bare.id), others.includes(typed.id)]).toEqual([true, false]);
    // The fields over every store under it serve the caller's scope only: to a client's where they do not exist.
    expect(await list(`opts[where][crl_company_id]=${w.A.id}`)).toEqual([]);
    const otherAdmin = await f.userWithKey(em, Role.CompanyAdmin, w.B);
    expect(await list(`opts[where][company_store_type_id]=${outlet.id}`, otherAdmin.key)).toEqual([]);
    expect(await list(`opts[where][store_type]=null`, otherAdmin.key)).not.toContain(bare.id);
  });
});

describe('create', () => {
  test('a company admin joins its company to a retailer; the address is geocoded', async () => {
    const em = t.em();
    const seller = await f.retailer(em, 'Harbor House');
    geocoder.calls.length = 0;
    const res = await api(t, 'post', '/v1/company_retailers', {
      key: w.keys.company_admin,
      body: {
        company_retailer: {
          retailer_id: seller.id,
          name: 'Harbor',
          territory_id: w.north.id,
          sending_leads: false,
          physical_address: { street_line_one: '9 Dock Rd', city: 'Astoria', province: 'OR', country: 'US', addressable_id: 'x', addressable_scope: 'y' },
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Harbor',
      sending_leads: false,
      receiving_leads: true,
      territory_id: w.north.id,
      retailer_locations_count: 0,
      retailer: { id: seller.id, name: 'Harbor House' },
      company: { id: w.A.id },
      physical_address: { street_line_one: '9 Dock Rd', city: 'Astoria', latitude: 45.52, longitude: -122.68 },
    });
    expect(geocoder.calls).toEqual([{ streetLineOne: '9 Dock Rd', postalCode: null, city: 'Astoria', province: 'OR', country: 'US' }]);
  });

  test('the company-retailer pair is unique: 422 taken', async () => {
    const res = await api(t, 'post', '/v1/company_retailers', { key: w.keys.company_admin, body: { company_retailer: { retailer_id: w.R.id } } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: 'retailer_id', code: 'taken', message: 'has already been taken', full_message: 'Retailer has already been taken' }]);
  });

  test('validation: missing root, blank or unknown retailer, a territory of another company', async () => {
    const key = w.keys.company_admin;
    const missing = await api(t, 'post', '/v1/company_retailers', { key, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.details[0]).toMatchObject({ field: 'company_retailer', code: 'missing' });
    const blank = await api(t, 'post', '/v1/company_retailers', { key, body: { company_retailer: { name: 'x' } } });
    expect(blank.body.details).toEqual([expect.objectContaining({ field: 'retailer_id', code: 'blank' })]);
    const unknown = await api(t, 'post', '/v1/company_retailers', { key, body: { company_retailer: { retailer_id: '00000000-0000-4000-8000-000000000000' } } });
    expect(unknown.body.details).toEqual([expect.objectContaining({ field: 'retailer_id', code: 'invalid' })]);
    const malformed = await api(t, 'post', '/v1/company_retailers', { key, body: { company_retailer: { retailer_id: 'abc', sending_leads: 'maybe' } } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.details.map((d: any) => d.field).sort()).toEqual(['retailer_id', 'sending_leads']);
    const seller = await f.retailer(t.em());
    const otherTerritory = await f.territory(t.em(), w.B, 'Far');
    const wrong = await api(t, 'post', '/v1/company_retailers', { key, body: { company_retailer: { retailer_id: seller.id, territory_id: otherTerritory.id } } });
    expect(wrong.body.details).toEqual([expect.objectContaining({ field: 'territory_id', code: 'invalid' })]);
    expect(await t.em().count(CompanyRetailer, { retailer: seller.id })).toBe(0);
  });

  test("another company's id is 403, and only company admins create", async () => {
    const seller = await f.retailer(t.em());
    const other = await api(t, 'post', '/v1/company_retailers', {
      key: w.keys.company_admin,
      body: { company_retailer: { retailer_id: seller.id, company_id: w.B.id } },
    });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: 'Unauthorized', status: 403 });
    for (const role of [Role.CompanyTerritoryManager, Role.CompanyRetailerManager, Role.RetailerAdmin, Role.RetailerStoreManager]) {
      const res = await api(t, 'post', '/v1/company_retailers', { key: w.keys[role], body: { company_retailer: { retailer_id: seller.id } } });
      expect(res.status).toBe(403);
    }
  });
});

describe('update: writable attributes per role (PRODUCT.md section 4)', () => {
  const everything = (w: World, territoryId: string) => ({
    company_retailer: {
      name: 'Renamed',
      territory_id: territoryId,
      sending_leads: false,
      receiving_leads: false,
      retailer_id: w.R2.id,
      physical_address: { city: 'Salem' },
    },
  });

  test.each([
    [Role.CompanyAdmin, { name: 'Renamed', territory: 'south', sending_leads: false, receiving_leads: false, city: 'Salem' }],
    [Role.CompanyTerritoryManager, { name: 'Renamed', territory: 'north', sending_leads: false, receiving_leads: false, city: 'Salem' }],
    [Role.CompanyRetailerManager, { name: 'Renamed', territory: 'north', sending_leads: false, receiving_leads: false, city: 'Salem' }],
    [Role.RetailerAdmin, { name: 'Renamed', territory: 'north', sending_leads: true, receiving_leads: false, city: 'Salem' }],
  ] as const)('%s writes exactly its attributes', async (role, expected) => {
    const em = t.em();
    const local = await world(em);
    const body = everything(local, local.south.id);
    if (role === Role.CompanyAdmin) delete (body.company_retailer as any).retailer_id;
    const res = await api(t, 'patch', `/v1/company_retailers/${local.crA.id}`, { key: local.keys[role], body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: expected.name,
      territory_id: local[expected.territory].id,
      sending_leads: expected.sending_leads,
      receiving_leads: expected.receiving_leads,
      retailer: { id: local.R.id },
      physical_address: { city: expected.city },
    });
  });

  test.each([Role.CompanyLocationUser, Role.CompanySalesAssociate, Role.RetailerStoreManager])('%s may not update: 403', async (role) => {
    const res = await api(t, 'patch', `/v1/company_retailers/${w.crA.id}`, { key: w.keys[role], body: { company_retailer: { name: 'x' } } });
    expect(res.status).toBe(403);
  });

  test('out of scope is 404 before anything else', async () => {
    const res = await api(t, 'patch', `/v1/company_retailers/${w.crB.id}`, { key: w.keys.company_admin, body: { company_retailer: { name: 'x' } } });
    expect(res.status).toBe(404);
  });

  test('the retailer cannot change while stores exist under it; with none it can, uniquely', async () => {
    const em = t.em();
    const local = await world(em);
    const key = local.keys.company_admin;
    const busy = await api(t, 'patch', `/v1/company_retailers/${local.crA.id}`, { key, body: { company_retailer: { retailer_id: local.R2.id } } });
    expect(busy.body.details).toEqual([expect.objectContaining({ field: 'retailer_id', code: 'invalid' })]);
    const seller = await f.retailer(em, 'Fresh');
    const bare = await f.companyRetailer(em, local.A, await f.retailer(em));
    const taken = await api(t, 'patch', `/v1/company_retailers/${bare.id}`, { key, body: { company_retailer: { retailer_id: local.R2.id } } });
    expect(taken.body.details).toEqual([expect.objectContaining({ field: 'retailer_id', code: 'taken' })]);
    const moved = await api(t, 'patch', `/v1/company_retailers/${bare.id}`, { key, body: { company_retailer: { retailer_id: seller.id } } });
    expect(moved.body.retailer).toEqual({ id: seller.id, name: 'Fresh' });
  });

  test('the nested address is created, changed in place, re-geocoded, and removed with null', async () => {
    const em = t.em();
    const local = await world(em);
    const key = local.keys.company_admin;
    const path = `/v1/company_retailers/${local.crA2.id}`;
    const created = await api(t, 'patch', path, { key, body: { company_retailer: { physical_address: { city: 'Nowhere', country: 'US' } } } });
    expect(created.body.physical_address).toMatchObject({ city: 'Nowhere', latitude: null, longitude: null });
    const changed = await api(t, 'patch', path, { key, body: { company_retailer: { physical_address: { city: 'Eugene' } } } });
    expect(changed.body.physical_address).toMatchObject({ id: created.body.physical_address.id, city: 'Eugene', country: 'US', latitude: 45.52 });
    const tooLong = await api(t, 'patch', path, { key, body: { company_retailer: { physical_address: { city: 'x'.repeat(256) } } } });
    expect(tooLong.body.details).toEqual([expect.objectContaining({ field: 'physical_address.city', code: 'too_long' })]);
    const removed = await api(t, 'patch', path, { key, body: { company_retailer: { physical_address: null } } });
    expect(removed.body.physical_address).toBeNull();
    expect(await t.em().count(Location, { id: created.body.physical_address.id })).toBe(0);
  });

  test('PUT replaces: writable attributes left out return to their defaults', async () => {
    const em = t.em();
    const local = await world(em);
    const path = `/v1/company_retailers/${local.crA.id}`;
    await api(t, 'patch', path, {
      key: local.keys.company_admin,
      body: { company_retailer: { name: 'Kept?', sending_leads: false, physical_address: { city: 'Bend' } } },
    });
    const replaced = await api(t, 'put', path, { key: local.keys.company_admin, body: { company_retailer: { receiving_leads: false } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: null, sending_leads: true, receiving_leads: false, territory_id: null, physical_address: null, retailer: { id: local.R.id } });
    // A retailer admin's PUT resets only what it may write.
    await api(t, 'patch', path, { key: local.keys.company_admin, body: { company_retailer: { sending_leads: false, territory_id: local.north.id } } });
    const byRetailer = await api(t, 'put', path, { key: local.keys.retailer_admin, body: { company_retailer: { name: 'Theirs' } } });
    expect(byRetailer.body).toMatchObject({ name: 'Theirs', sending_leads: false, receiving_leads: true, territory_id: local.north.id });
  });
});

describe('strict parameters', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ STRICT_PARAMS: 'true' });
  });
  afterAll(() => strict.close());

  test('attributes the role may not write, and unknown ones, are 422 unpermitted naming each', async () => {
    const local = await world(strict.em());
    const res = await api(strict, 'patch', `/v1/company_retailers/${local.crA.id}`, {
      key: local.keys.retailer_admin,
      body: { company_retailer: { name: 'ok', territory_id: local.south.id, sending_leads: false } },
    });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: any) => [d.field, d.code])).toEqual([
      ['territory_id', 'unpermitted'],
      ['sending_leads', 'unpermitted'],
    ]);
    const unknown = await api(strict, 'patch', `/v1/company_retailers/${local.crA.id}`, {
      key: local.keys.company_admin,
      body: { company_retailer: { colour: 'red' } },
    });
    expect(unknown.body.details).toEqual([expect.objectContaining({ field: 'colour', code: 'unpermitted' })]);
    const unchanged = await api(strict, 'get', `/v1/company_retailers/${local.crA.id}`, { key: local.keys.company_admin });
    expect(unchanged.body.name).not.toBe('ok');
  });
});

describe('destroy', () => {
  test('halted with 422 while it has company retailer locations', async () => {
    const res = await api(t, 'delete', `/v1/company_retailers/${w.crA2.id}`, { key: w.keys.company_admin });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      status: 422,
      error: 'Unprocessable Entity',
      message: 'Failed to destroy the record',
      errors: { base: ['Failed to destroy the record'] },
      details: [{ field: 'base', code: 'restrict_dependent_destroy', message: 'Failed to destroy the record', full_message: 'Failed to destroy the record' }],
    });
    expect(await t.em().count(CompanyRetailer, { id: w.crA2.id })).toBe(1);
  });

  test('204 without locations, and its address goes with it', async () => {
    const em = t.em();
    const address = await f.location(em);
    const cr = await f.companyRetailer(em, w.A, await f.retailer(em), { physicalAddress: address });
    const res = await api(t, 'delete', `/v1/company_retailers/${cr.id}`, { key: w.keys.company_admin });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key: w.keys.company_admin })).status).toBe(404);
    expect(await t.em().count(Location, { id: address.id })).toBe(0);
  });

  test('only a company admin destroys; out of scope is 404', async () => {
    expect((await api(t, 'delete', `/v1/company_retailers/${w.crA.id}`, { key: w.keys.retailer_admin })).status).toBe(403);
    expect((await api(t, 'delete', `/v1/company_retailers/${w.crB.id}`, { key: w.keys.company_admin })).status).toBe(404);
  });
});

describe('statements', () => {
  test('a list page with every association costs the same for 5 and 50 rows', async () => {
    const em = t.em();
    const acme = await f.company(em, 'Many');
    const territory = await f.territory(em, acme, 'Everywhere');
    for (let i = 0; i < 50; i++) {
      const cr = await f.companyRetailer(em, acme, await f.retailer(em), { territory, physicalAddress: await f.location(em) });
      if (i % 2) await f.crl(em, cr);
    }
    const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const count = async (perPage: number) => {
      t.resetStatements();
      const res = await api(t, 'get', `/v1/company_retailers?include=*&opts[per_page]=${perPage}`, { key: admin.key });
      expect(res.body.company_retailers).toHaveLength(perPage);
      expect(res.body.company_retailers[0]).toHaveProperty('physical_address.city', 'Portland');
      return t.statements.length;
    };
    expect(await count(5)).toBe(await count(50));
    // The key, then one statement: the page, its total, its rows and what they embed.
    expect(await count(50)).toBe(2);
  });

  test("a retailer admin's page (territories unseen, companies seen through the retailer) costs the same for 5 and 50 rows", async () => {
    const em = t.em();
    const wide = await f.retailer(em, 'Wide Reach');
    for (let i = 0; i < 50; i++) {
      const owner = await f.company(em);
      const cr = await f.companyRetailer(em, owner, wide, { territory: await f.territory(em, owner), physicalAddress: await f.location(em) });
      await f.crl(em, cr);
    }
    const admin = await f.userWithKey(em, Role.RetailerAdmin, wide);
    const count = async (perPage: number) => {
      t.resetStatements();
      const res = await api(t, 'get', `/v1/company_retailers?include=*&opts[per_page]=${perPage}`, { key: admin.key });
      expect(res.body.company_retailers).toHaveLength(perPage);
      for (const cr of res.body.company_retailers) {
        expect(cr).toMatchObject({ retailer: { name: 'Wide Reach' }, company: { id: expect.any(String) }, territory: null, retailer_locations_count: 1 });
        expect(cr.territory_id).toEqual(expect.any(String));
      }
      return t.statements.length;
    };
    expect(await count(5)).toBe(await count(50));
    expect(await count(50)).toBe(2);
  });
});
describe('retailer_locations_count: a kept count for the company admin, a scoped count for other roles', () => {
  const HEADER = 'external_id,retailer,name,street_line_one,city,province,postal_code,country,latitude,longitude,phone,email,website,store_type,territory,hours,sending_leads,receiving_leads,delivery_radius,delivery_areas\r\n';
  const row = (id: string, retailer: string, name = `Store ${id}`) => `${id},${retailer},${name},,Portland,OR,97205,US,45.5,-122.6,,,,,,,,,,\r\n`;
  const IMPORT = `mutation($companyId: ID!, $csv: String!) { importLocations(companyId: $companyId, csv: $csv) { created updated invalid } }`;

  test('stays exact after creates, deletes, moves, concurrent creates and imports, on every path that reads it', async () => {
    const em = t.em();
    const brand = await f.company(em);
    const [one, two] = [await f.companyRetailer(em, brand, await f.retailer(em, `Count One ${brand.id}`)), await f.companyRetailer(em, brand, await f.retailer(em, `Count Two ${brand.id}`))];
    const admin = await f.userWithKey(em, Role.CompanyAdmin, brand);
    const key = admin.key;
    /** Every CRL under each of the two, counted in the database. */
    const actual = async () => {
      const rows = await t.em().execute(`select company_retailer_id as id, count(*)::int as n from company_retailer_locations where company_retailer_id in (?, ?) group by 1`, [one.id, two.id]);
      const n = new Map(rows.map((r: any) => [r.id, r.n]));
      return { [one.id]: n.get(one.id) ?? 0, [two.id]: n.get(two.id) ?? 0 };
    };
    /** The count as the REST list and show, the GraphQL list, a CRL's nested company retailer (the loader) and the search's order and where read it. */
    const expectCounts = async () => {
      const want = await actual();
      const list = await api(t, 'get', '/v1/company_retailers?opts[per_page]=50', { key });
      expect(Object.fromEntries(list.body.company_retailers.map((c: any) => [c.id, c.retailer_locations_count]))).toEqual(want);
      for (const cr of [one, two]) {
        expect((await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key })).body.retailer_locations_count).toBe(want[cr.id]);
      }
      const listed = await gql(t, key, '{ companyRetailers(perPage: 50) { nodes { id retailerLocationsCount } } }');
      expect(Object.fromEntries(listed.body.data.companyRetailers.nodes.map((c: any) => [c.id, c.retailerLocationsCount]))).toEqual(want);
      const connection = await gql(t, key, '{ companyRetailersConnection(first: 10) { edges { node { id retailerLocationsCount } } } }');
      expect(Object.fromEntries(connection.body.data.companyRetailersConnection.edges.map((e: any) => [e.node.id, e.node.retailerLocationsCount]))).toEqual(want);
      const ordered = await api(t, 'get', '/v1/company_retailers?opts[order][retailer_locations_count]=desc', { key });
      expect(ordered.body.company_retailers.map((c: any) => c.retailer_locations_count)).toEqual(Object.values(want).sort((a, b) => b - a));
      const most = Math.max(...Object.values(want));
      const where = await api(t, 'get', `/v1/company_retailers?opts[where][retailer_locations_count][gte]=${most}`, { key });
      expect(where.body.company_retailers.map((c: any) => c.id).sort()).toEqual(Object.keys(want).filter((id) => want[id] === most).sort());
      return want;
    };
    await expectCounts();

    const create = async (cr: CompanyRetailer, name: string) => {
      const res = await api(t, 'post', '/v1/company_retailer_locations', { key, body: { company_retailer_location: { company_retailer_id: cr.id, name } } });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const a = await create(one, 'A');
    const b = await create(one, 'B');
    await create(two, 'C');
    expect(await expectCounts()).toEqual({ [one.id]: 2, [two.id]: 1 });

    // Moved to the other company retailer, then deleted; the nested field (its loader) of the moved store.
    expect((await api(t, 'patch', `/v1/company_retailer_locations/${a}`, { key, body: { company_retailer_location: { company_retailer_id: two.id } } })).status).toBe(200);
    const nested = await gql(t, key, `{ companyRetailerLocation(id: "${a}") { companyRetailer { id retailerLocationsCount } } }`);
    expect(nested.body.data.companyRetailerLocation.companyRetailer).toEqual({ id: two.id, retailerLocationsCount: 2 });
    expect(await expectCounts()).toEqual({ [one.id]: 1, [two.id]: 2 });
    expect((await api(t, 'delete', `/v1/company_retailer_locations/${b}`, { key })).status).toBe(204);
    expect(await expectCounts()).toEqual({ [one.id]: 0, [two.id]: 2 });

    // Concurrent creates under one company retailer each count.
    await Promise.all(Array.from({ length: 8 }, (_, i) => create(one, `Concurrent ${i}`)));
    expect(await expectCounts()).toEqual({ [one.id]: 8, [two.id]: 2 });

    // An import creates stores under both; a re-import updates one in place (an import moves no store) and adds one.
    const created = await gql(t, key, IMPORT, { companyId: brand.id, csv: HEADER + row('IMP-1', `Count One ${brand.id}`) + row('IMP-2', `Count One ${brand.id}`) + row('IMP-3', `Count Two ${brand.id}`) });
    expect(created.body.data.importLocations).toMatchObject({ created: 3, invalid: 0 });
    expect(await expectCounts()).toEqual({ [one.id]: 10, [two.id]: 3 });
    const again = await gql(t, key, IMPORT, {
      companyId: brand.id,
      csv: HEADER + row('IMP-1', `Count One ${brand.id}`, 'Renamed') + row('IMP-2', `Count One ${brand.id}`) + row('IMP-3', `Count Two ${brand.id}`) + row('IMP-4', `Count Two ${brand.id}`),
    });
    expect(again.body.data.importLocations).toMatchObject({ created: 1, updated: 1, invalid: 0 });
    expect(await expectCounts()).toEqual({ [one.id]: 10, [two.id]: 4 });

    // Through the stores' nested company retailer, the counts of a page cost the same for 2 and 14 stores.
    const nestedStatements = async (perPage: number) => {
      t.resetStatements();
      const res = await gql(t, key, `{ companyRetailerLocations(perPage: ${perPage}) { nodes { companyRetailer { id retailerLocationsCount } } } }`);
      expect(res.body.data.companyRetailerLocations.nodes).toHaveLength(perPage);
      for (const n of res.body.data.companyRetailerLocations.nodes) expect(n.companyRetailer.retailerLocationsCount).toBe(n.companyRetailer.id === one.id ? 10 : 4);
      return t.statements.length;
    };
    expect(await nestedStatements(2)).toBe(await nestedStatements(14));
  });

  test('a territory manager and a retailer admin, who see some of the stores, get their scoped count; the admin gets them all', async () => {
    const em = t.em();
    const brand = await f.company(em);
    const seller = await f.retailer(em);
    const other = await f.retailer(em);
    const cr = await f.companyRetailer(em, brand, seller);
    const north = await f.territory(em, brand, 'North');
    await f.crl(em, cr, { territory: north });
    await f.crl(em, cr);
    await f.crl(em, cr, { retailerLocation: null });
    await f.crl(em, cr, { retailerLocation: await f.retailerLocation(em, other) }); // another retailer's store under it
    const admin = await f.userWithKey(em, Role.CompanyAdmin, brand);
    const manager = await f.userWithKey(em, Role.CompanyTerritoryManager, brand, { territory: north });
    const retailerAdmin = await f.userWithKey(em, Role.RetailerAdmin, seller);
    const counts = async (key: string) => [
      (await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key })).body.retailer_locations_count,
      (await api(t, 'get', '/v1/company_retailers?opts[per_page]=50', { key })).body.company_retailers.find((c: any) => c.id === cr.id).retailer_locations_count,
      (await gql(t, key, `{ companyRetailer(id: "${cr.id}") { retailerLocationsCount } }`)).body.data.companyRetailer.retailerLocationsCount,
    ];
    expect(await counts(admin.key)).toEqual([4, 4, 4]);
    expect(await counts(manager.key)).toEqual([1, 1, 1]);
    expect(await counts(retailerAdmin.key)).toEqual([2, 2, 2]);
    // Another company's admin sees neither the company retailer nor its count.
    const stranger = await f.userWithKey(em, Role.CompanyAdmin, await f.company(em));
    expect((await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key: stranger.key })).status).toBe(404);
  });

  test('a company deleted in SQL (cascading to its company retailers and their stores) takes their kept counts with it', async () => {
    const em = t.em();
    const brand = await f.company(em);
    const cr = await f.companyRetailer(em, brand, await f.retailer(em));
    await f.crl(em, cr);
    await f.crl(em, cr, { retailerLocation: null });
    expect(await em.execute(`select sum(n)::int as n from company_retailer_location_counts where company_retailer_id = ?`, [cr.id])).toEqual([{ n: 2 }]);
    await em.execute(`delete from companies where id = ?`, [brand.id]);
    expect(await em.execute(`select * from company_retailer_location_counts where company_retailer_id = ?`, [cr.id])).toEqual([]);
  });
});
