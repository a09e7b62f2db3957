// Lead routing's abuse cases (docs/routing.md), each over HTTP or GraphQL as a client meets it.
import request from 'supertest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { locatorNetwork, north, store, type StoreSpec } from '../support/locator-factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import type { AddressQuery } from '../../src/geo/geocoder';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { MAX_DELIVERY_AREAS } from '../../src/modules/company-retailer-location/delivery-areas';

const MILE = 1609.344;
const ORIGIN = { latitude: 45, longitude: -100 };
/** The fake geocoder places a city named `lat,lng` there, and any other address at ORIGIN. */
const placeOf = (city: string | null | undefined) => {
  const m = /^(-?[\d.]+),(-?[\d.]+)$/.exec(city ?? '');
  return m ? { latitude: Number(m[1]), longitude: Number(m[2]) } : ORIGIN;
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  withGeocoder({ geocode: async (address: AddressQuery) => placeOf(address.city) });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

const em = (): EntityManager => t.em();

async function brand() {
  const net = await locatorNetwork(em());
  const admin = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
  return { ...net, admin: admin.key };
}
type Brand = Awaited<ReturnType<typeof brand>>;

async function storeAt(b: Brand, point: { latitude: number; longitude: number }, extra: StoreSpec & { radius?: number } = {}) {
  const m = em();
  const crl = await store(m, b.companyRetailer, { ...point, ...extra });
  if (extra.radius !== undefined) {
    const row = await m.findOneOrFail(CompanyRetailerLocation, crl.id);
    row.deliveryRadius = extra.radius;
    await m.flush();
  }
  return crl;
}

async function enable(b: Brand, input: Record<string, unknown> = {}) {
  const res = await gql(t, b.admin, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', { input: { enabled: true, ...input } });
  expect(res.body.errors).toBeUndefined();
}

const at = (city = 'Springfield', extra: Record<string, unknown> = {}) => ({ city, postal_code: '97205', country: 'US', ...extra });
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

async function assignments(key: string, leadId: string) {
  const res = await api(t, 'get', `/v1/lead_activities?opts[where][lead_id]=${leadId}&opts[where][type]=LeadActivity::Assignment&include=`, { key });
  expect(res.status).toBe(200);
  return res.body.lead_activities;
}

describe("another tenant's ids in a routing write", () => {
  test("a company admin can neither read nor change another company's routing, nor dry-run on it", async () => {
    const mine = await brand();
    const theirs = await brand();
    await enable(theirs, { strategies: ['Nearest'], nearestMaxDistanceMiles: 50 });
    const write = await gql(t, mine.admin, 'mutation($c: ID) { updateRoutingSettings(companyId: $c, input: {enabled: false}) { enabled } }', { c: theirs.company.id });
    expect(code(write)).toBe('NOT_FOUND');
    expect(code(await gql(t, mine.admin, '{ routingSettings(companyId: "' + theirs.company.id + '") { enabled } }'))).toBe('NOT_FOUND');
    expect(code(await gql(t, mine.admin, '{ routeAddress(companyId: "' + theirs.company.id + '", address: {latitude: 45, longitude: -100}) { assigneeId } }'))).toBe('NOT_FOUND');
    const still = await gql(t, theirs.admin, '{ routingSettings { enabled strategies nearestMaxDistanceMiles } }');
    expect(still.body.data.routingSettings).toEqual({ enabled: true, strategies: ['Nearest'], nearestMaxDistanceMiles: 50 });
  });

  test("another company's territory in a dry run finds none of its stores; in a store write it is 422 and routing is unchanged", async () => {
    const mine = await brand();
    const theirs = await brand();
    const theirTerritory = await f.territory(em(), theirs.company, 'Theirs');
    await storeAt(theirs, ORIGIN, { territory: theirTerritory } as any);
    const own = await storeAt(mine, north(ORIGIN, 2 * MILE));
    await enable(mine, { strategies: ['Nearest'], nearestMaxDistanceMiles: 100, nearestInTerritory: true });
    const dry = await gql(t, mine.admin, '{ routeAddress(address: {latitude: 45, longitude: -100}, territoryId: "' + theirTerritory.id + '") { assigneeId } }');
    expect(dry.body.data.routeAddress.assigneeId).toBeNull();
    const patch = await api(t, 'patch', `/v1/company_retailer_locations/${own.id}`, { key: mine.admin, body: { company_retailer_location: { territory_id: theirTerritory.id } } });
    expect({ status: patch.status, fields: patch.body.details?.map((d: any) => d.field) }).toEqual({ status: 422, fields: ['territory_id'] });
    const [entry] = await em().getConnection().execute('select territory_id from routing_entries where crl_id = ?', [own.id]);
    expect(entry.territory_id).toBeNull();
  });

  test("a lead cannot be assigned to another company's store, routed or explicit", async () => {
    const mine = await brand();
    const theirs = await brand();
    const theirStore = await storeAt(theirs, ORIGIN, { radius: 100 });
    await enable(mine);
    const explicit = await api(t, 'post', '/v1/leads', { key: mine.admin, body: quoteRequest({ assignee_id: theirStore.id, location: at() }) });
    expect(explicit.status).toBe(403);
    const routed = await createLead(t, mine.admin, quoteRequest({ location: at() }));
    expect(routed.assignee).toBeNull();
  });
});

describe('huge or degenerate geometry', () => {
  test(`delivery areas are bounded per store (${MAX_DELIVERY_AREAS}), however many writes add them`, async () => {
    const b = await brand();
    const crl = await storeAt(b, ORIGIN);
    const areas = (from: number) => Array.from({ length: 100 }, (_, i) => ({ postal_code: String(10000 + from + i), country: 'US' }));
    for (let n = 0; n < MAX_DELIVERY_AREAS; n += 100) {
      const res = await api(t, 'patch', `/v1/company_retailer_locations/${crl.id}`, { key: b.admin, body: { delivery_areas: areas(n) } });
      expect(res.status).toBe(200);
    }
    const over = await api(t, 'patch', `/v1/company_retailer_locations/${crl.id}`, { key: b.admin, body: { delivery_areas: areas(MAX_DELIVERY_AREAS) } });
    expect({ status: over.status, details: over.body.details }).toEqual({
      status: 422,
      details: [expect.objectContaining({ field: 'delivery_areas', code: 'invalid', message: `must have at most ${MAX_DELIVERY_AREAS} items per location` })],
    });
    expect(await em().count('DeliveryArea', { companyRetailerLocation: crl.id })).toBe(MAX_DELIVERY_AREAS);
    await enable(b, { strategies: ['DeliveryArea'] });
    const lead = await createLead(t, b.admin, quoteRequest({ location: at('Springfield', { postal_code: '10999' }) }));
    expect(lead.assignee.id).toBe(crl.id);
  });

  test('a lead at the very point of a store is routed at distance 0; a radius of 0 (or -0) covers nothing, not even its own point', async () => {
    const b = await brand();
    const zero = await api(t, 'post', '/v1/company_retailer_locations', {
      key: b.admin,
      body: { company_retailer_location: { company_retailer_id: b.companyRetailer.id, name: 'Zero', delivery_radius: -0, physical_address: at('45,-100') } },
    });
    expect(zero.status).toBe(201);
    expect(zero.body.delivery_radius).toBe(0);
    await enable(b, { strategies: ['DeliveryRadius'] });
    expect((await createLead(t, b.admin, quoteRequest({ location: at('45,-100') }))).assignee).toBeNull();
    const covering = await storeAt(b, ORIGIN, { radius: 1 });
    const lead = await createLead(t, b.admin, quoteRequest({ location: at('45,-100') }));
    expect(lead.assignee.id).toBe(covering.id);
    expect((await assignments(b.admin, lead.id))[0].data).toMatchObject({ rule: 'delivery_radius', distance_miles: 0 });
  });

  test('across the antimeridian and at a pole, stores a few miles away are the nearest', async () => {
    const b = await brand();
    const east = await storeAt(b, { latitude: 45, longitude: 179.95 }, { radius: 10 });
    await storeAt(b, { latitude: 45, longitude: 179.5 }, { radius: 100 });
    const pole = await storeAt(b, { latitude: 90, longitude: 0 }, { radius: 10 });
    await enable(b, { strategies: ['DeliveryRadius'] });
    const west = await createLead(t, b.admin, quoteRequest({ location: at('45,-179.95') }));
    expect(west.assignee.id).toBe(east.id);
    expect((await assignments(b.admin, west.id))[0].data.distance_miles).toBeLessThan(5);
    const arctic = await createLead(t, b.admin, quoteRequest({ location: at('89.99,-120') }));
    expect(arctic.assignee.id).toBe(pole.id);
    const dry = await gql(t, b.admin, '{ routeAddress(address: {latitude: -90, longitude: 180}) { assigneeId reason } }');
    expect(dry.body.data.routeAddress.assigneeId).toBeNull();
  });
});

describe('the receiving flag by role', () => {
  test('only the roles SPEC 2.5 lets write receiving_leads, on stores they see, take a store out of routing', async () => {
    const b = await brand();
    const crl = await storeAt(b, ORIGIN, { radius: 10 });
    const other = await storeAt(b, north(ORIGIN, 5 * MILE), { radius: 10 });
    await enable(b, { strategies: ['DeliveryRadius'] });
    const flip = (key: string, id = crl.id) => api(t, 'patch', `/v1/company_retailer_locations/${id}`, { key, body: { company_retailer_location: { receiving_leads: false } } });
    const routedTo = async () => (await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee?.id;

    const sales = await f.userWithKey(em(), Role.CompanySalesAssociate, b.company, { companyRetailerLocations: [crl] });
    expect((await flip(sales.key)).status).toBe(403);
    // A company admin sees the store but may not write the flag (SPEC 2.5): dropped, the store keeps receiving.
    expect((await flip(b.admin)).body.receiving_leads).toBe(true);
    const otherManager = await f.userWithKey(em(), Role.RetailerStoreManager, b.retailer, { retailerLocations: [other.retailerLocation!] });
    expect((await flip(otherManager.key)).status).toBe(404);
    const otherRetailer = await f.userWithKey(em(), Role.RetailerAdmin, await f.retailer(em()));
    expect((await flip(otherRetailer.key)).status).toBe(404);
    expect(await routedTo()).toBe(crl.id);

    const manager = await f.userWithKey(em(), Role.RetailerStoreManager, b.retailer, { retailerLocations: [crl.retailerLocation!] });
    expect((await flip(manager.key)).body.receiving_leads).toBe(false);
    expect(await routedTo()).toBe(other.id);
  });
});

describe("the retailer's own switch", () => {
  test("a retailer admin turning off its company retailer's receiving_leads takes all its stores out of routing, by every rule", async () => {
    const b = await brand();
    const near = await storeAt(b, ORIGIN, { radius: 10 });
    const otherDealer = await f.companyRetailer(em(), b.company, await f.retailer(em()));
    const far = await store(em(), otherDealer, { ...north(ORIGIN, 30 * MILE) });
    await enable(b, { strategies: ['DeliveryArea', 'DeliveryRadius', 'Nearest'], nearestMaxDistanceMiles: 100 });
    const area = await api(t, 'patch', `/v1/company_retailer_locations/${near.id}`, { key: b.admin, body: { delivery_areas: [{ postal_code: '97205', country: 'US' }] } });
    expect(area.status).toBe(200);
    const routedTo = async (postal: string) => (await createLead(t, b.admin, quoteRequest({ location: at('Springfield', { postal_code: postal }) }))).assignee?.id;
    expect(await routedTo('97205')).toBe(near.id);

    const dealer = await f.userWithKey(em(), Role.RetailerAdmin, b.retailer);
    const off = await api(t, 'patch', `/v1/company_retailers/${b.companyRetailer.id}`, { key: dealer.key, body: { company_retailer: { receiving_leads: false } } });
    expect(off.body.receiving_leads).toBe(false);
    expect(await routedTo('97205')).toBe(far.id); // not by its delivery area
    expect(await routedTo('11111')).toBe(far.id); // not by its radius nor as the nearest
    const dry = await gql(t, b.admin, '{ routeAddress(address: {postalCode: "97205", country: "US", latitude: 45, longitude: -100}) { assigneeId } }');
    expect(dry.body.data.routeAddress.assigneeId).toBe(far.id);

    await api(t, 'patch', `/v1/company_retailers/${b.companyRetailer.id}`, { key: dealer.key, body: { company_retailer: { receiving_leads: true } } });
    expect(await routedTo('97205')).toBe(near.id);
  });
});

describe('replays', () => {
  test('replaying a routed create merges into the lead: same store, one Assignment, round robin not advanced', async () => {
    const b = await brand();
    await storeAt(b, ORIGIN, { radius: 10 });
    await storeAt(b, ORIGIN, { radius: 10 });
    await enable(b, { roundRobin: true, strategies: ['DeliveryRadius'] });
    const body = quoteRequest({ location: at() });
    const first = await createLead(t, b.admin, body);
    const turns = async () =>
      em().getConnection().execute(
        'select rr.crl_id, rr.last_assigned_at::text as at from routing_round_robin rr join company_retailer_locations crl on crl.id = rr.crl_id where crl.company_id = ? order by 1',
        [b.company.id],
      );
    const before = await turns();
    expect(before).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      const again = await createLead(t, b.admin, body);
      expect(again.id).toBe(first.id);
      expect(again.assignee.id).toBe(first.assignee.id);
    }
    expect(await assignments(b.admin, first.id)).toHaveLength(1);
    expect(await turns()).toEqual(before);
  });

  test('replaying a settings write changes nothing more than the first', async () => {
    const b = await brand();
    for (let i = 0; i < 2; i++) await enable(b, { strategies: ['DeliveryArea', 'Nearest'], nearestMaxDistanceMiles: 20 });
    const read = await gql(t, b.admin, '{ routingSettings { enabled strategies nearestMaxDistanceMiles roundRobin } }');
    expect(read.body.data.routingSettings).toEqual({ enabled: true, strategies: ['DeliveryArea', 'Nearest'], nearestMaxDistanceMiles: 20, roundRobin: false });
  });
});

describe('a failure half-way through routing a lead', () => {
  test('leaves no lead, no activity and no round-robin turn: the create is one transaction', async () => {
    const b = await brand();
    await storeAt(b, ORIGIN, { radius: 10 });
    await enable(b, { roundRobin: true, strategies: ['DeliveryRadius'] });
    const sql = em().getConnection();
    // The routing decision has been taken and its round-robin turn written when its Assignment activity fails.
    await sql.execute(`create or replace function leadnet_test_fail_routing() returns trigger language plpgsql as $$
      begin if NEW.type = 'LeadActivity::Assignment' and NEW.data ? 'rule' then raise exception 'injected failure'; end if; return NEW; end $$`);
    await sql.execute('create trigger leadnet_test_fail_routing before insert on lead_activities for each row execute function leadnet_test_fail_routing()');
    const body = quoteRequest({ location: at() });
    const email = body.lead.emails[0].email;
    try {
      // A real fault, not the client's: the contract's 500 body (OpenAPI documents no 500, so no `api()`).
      const res = await request(t.app).post('/v1/leads').set('X-Api-Key', b.admin).send(body);
      expect(res.status).toBe(500);
      expect(JSON.stringify(res.body)).not.toMatch(/injected|lead_activities|insert/);
    } finally {
      await sql.execute('drop trigger leadnet_test_fail_routing on lead_activities');
    }
    expect(await sql.execute('select 1 from emails where email = ?', [email])).toEqual([]);
    expect(await sql.execute('select 1 from routing_round_robin rr join company_retailer_locations crl on crl.id = rr.crl_id where crl.company_id = ?', [b.company.id])).toEqual([]);
    const retried = await createLead(t, b.admin, body);
    expect(retried.assignee).not.toBeNull();
    expect(await assignments(b.admin, retried.id)).toHaveLength(1);
  });
});
