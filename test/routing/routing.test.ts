import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { locatorNetwork, north, store, storeType, type StoreSpec } from '../support/locator-factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import type { AddressQuery } from '../../src/geo/geocoder';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { DeliveryArea } from '../../src/modules/company-retailer-location/delivery-area.entity';
import type { Territory } from '../../src/modules/territory/territory.entity';

const MILE = 1609.344;
/** Every address the fake geocoder places is here, unless its city is `Nowhere`. */
const ORIGIN = { latitude: 45, longitude: -100 };

let t: TestApp;
const geocoded: AddressQuery[] = [];
beforeAll(async () => {
  t = await createTestApp();
  withGeocoder({
    async geocode(address: AddressQuery) {
      geocoded.push(address);
      return address.city === 'Nowhere' ? null : ORIGIN;
    },
  });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

const em = (): EntityManager => t.em();

/** A company with one retailer relationship and its admin. */
async function brand() {
  const net = await locatorNetwork(em());
  const admin = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
  return { ...net, admin: admin.key };
}

type Brand = Awaited<ReturnType<typeof brand>>;

/** A store `miles` north of the origin, with an optional delivery radius, areas and territory. */
async function storeAt(
  b: Brand,
  miles: number,
  extra: StoreSpec & { radius?: number; areas?: Array<{ postalCode: string; country?: string | null }>; territory?: Territory } = {},
): Promise<CompanyRetailerLocation> {
  const m = em();
  const crl = await store(m, b.companyRetailer, { ...north(ORIGIN, miles * MILE), ...extra });
  const row = await m.findOneOrFail(CompanyRetailerLocation, crl.id);
  if (extra.radius !== undefined) row.deliveryRadius = extra.radius;
  if (extra.territory) row.territory = extra.territory;
  for (const a of extra.areas ?? []) m.create(DeliveryArea, { companyRetailerLocation: row, postalCode: a.postalCode, country: a.country ?? null });
  await m.flush();
  return crl;
}

const SETTINGS = 'companyId enabled strategies nearestMaxDistanceMiles nearestInTerritory roundRobin';

async function routing(key: string, input: Record<string, unknown>, companyId?: string) {
  const res = await gql(t, key, `mutation($input: RoutingSettingsInput!, $companyId: ID) { updateRoutingSettings(input: $input, companyId: $companyId) { ${SETTINGS} } }`, {
    input,
    companyId,
  });
  return res.body;
}

async function enable(b: Brand, input: Record<string, unknown> = {}) {
  const body = await routing(b.admin, { enabled: true, ...input });
  expect(body.errors).toBeUndefined();
  return body.data.updateRoutingSettings;
}

const at = (extra: Record<string, unknown> = {}) => ({ street_line_one: '1 Main St', city: 'Springfield', postal_code: '97205', country: 'US', ...extra });

/** The routing `Assignment` activity of a lead created over REST. */
async function assignment(key: string, leadId: string) {
  const res = await api(t, 'get', `/v1/lead_activities?opts[where][lead_id]=${leadId}&opts[where][type]=LeadActivity::Assignment&include=`, { key });
  expect(res.status).toBe(200);
  return res.body.lead_activities;
}

describe('lead routing (REST create)', () => {
  test('off unless the company turns it on', async () => {
    const b = await brand();
    await storeAt(b, 1, { radius: 10, areas: [{ postalCode: '97205' }] });
    const lead = await createLead(t, b.admin, quoteRequest({ location: at() }));
    expect(lead.assignee).toBeNull();
    const settings = await gql(t, b.admin, `{ routingSettings { ${SETTINGS} } }`);
    expect(settings.body.data.routingSettings).toMatchObject({ enabled: false, strategies: ['DeliveryArea', 'DeliveryRadius'] });
  });

  test('1. a store whose delivery areas list the postal code and country wins over nearer ones', async () => {
    const b = await brand();
    const listed = await storeAt(b, 30, { areas: [{ postalCode: '97205', country: 'US' }] });
    await storeAt(b, 1, { radius: 10 });
    await enable(b);
    const lead = await createLead(t, b.admin, quoteRequest({ location: at() }));
    expect(lead.assignee).toMatchObject({ id: listed.id });
    const [activity] = await assignment(b.admin, lead.id);
    expect(activity.data).toEqual({ from_id: null, to_id: listed.id, rule: 'delivery_area', distance_miles: 30 });
  });

  test('1. postal codes match without spaces or case; countries by code or name; another country does not match', async () => {
    const b = await brand();
    const canadian = await storeAt(b, 5, { areas: [{ postalCode: 'V6B 1A1', country: 'Canada' }] });
    const other = await storeAt(b, 2, { areas: [{ postalCode: 'V6B1A1', country: 'FR' }] });
    await enable(b);
    const lead = await createLead(t, b.admin, quoteRequest({ location: at({ postal_code: 'v6b1a1', country: 'CA' }) }));
    expect(lead.assignee.id).toBe(canadian.id);
    expect(lead.assignee.id).not.toBe(other.id);
  });

  test('2. else the nearest store whose delivery radius covers the location', async () => {
    const b = await brand();
    await storeAt(b, 3, { radius: 2 }); // nearer, but its radius stops short
    const covering = await storeAt(b, 8, { radius: 10 });
    await storeAt(b, 9, { radius: 50 });
    await storeAt(b, 12, { areas: [{ postalCode: '11111' }] });
    await enable(b);
    const lead = await createLead(t, b.admin, quoteRequest({ location: at() }));
    expect(lead.assignee.id).toBe(covering.id);
    const [activity] = await assignment(b.admin, lead.id);
    expect(activity.data).toMatchObject({ rule: 'delivery_radius', distance_miles: 8 });
  });

  test('3. nearest within the maximum distance only when enabled; 4. else unassigned', async () => {
    const b = await brand();
    const near = await storeAt(b, 15);
    await enable(b);
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee).toBeNull();
    await enable(b, { strategies: ['DeliveryArea', 'DeliveryRadius', 'Nearest'], nearestMaxDistanceMiles: 20 });
    const lead = await createLead(t, b.admin, quoteRequest({ location: at() }));
    expect(lead.assignee.id).toBe(near.id);
    expect((await assignment(b.admin, lead.id))[0].data).toMatchObject({ rule: 'nearest', distance_miles: 15 });
    await enable(b, { nearestMaxDistanceMiles: 10 });
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee).toBeNull();
  });

  test("3. with the territory restriction, nearest stays in the creator's territory", async () => {
    const b = await brand();
    const west = await f.territory(em(), b.company, 'West');
    const east = await f.territory(em(), b.company, 'East');
    await storeAt(b, 5, { territory: east });
    const inWest = await storeAt(b, 12, { territory: west });
    const manager = await f.userWithKey(em(), Role.CompanyTerritoryManager, b.company, { territory: west });
    await enable(b, { strategies: ['Nearest'], nearestMaxDistanceMiles: 50, nearestInTerritory: true });
    const lead = await createLead(t, manager.key, quoteRequest({ location: at() }));
    expect(lead.assignee.id).toBe(inWest.id);
  });

  test('stores not receiving leads are never chosen', async () => {
    const b = await brand();
    await storeAt(b, 1, { radius: 10, receivingLeads: false, areas: [{ postalCode: '97205' }] });
    const receiving = await storeAt(b, 4, { radius: 10 });
    await enable(b);
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(receiving.id);
    // The routing read model follows a later change of the flag.
    const m = em();
    (await m.findOneOrFail(CompanyRetailerLocation, receiving.id)).receivingLeads = false;
    await m.flush();
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee).toBeNull();
  });

  test('never overrides an explicit assignee', async () => {
    const b = await brand();
    await storeAt(b, 1, { radius: 10, areas: [{ postalCode: '97205' }] });
    const chosen = await storeAt(b, 40);
    await enable(b);
    const lead = await createLead(t, b.admin, quoteRequest({ location: at(), assignee_id: chosen.id, assignee_type: 'CompanyRetailerLocation' }));
    expect(lead.assignee.id).toBe(chosen.id);
    expect(await assignment(b.admin, lead.id)).toEqual([]);
  });

  test("never assigns outside the company, even to another company's nearer, listing store", async () => {
    const b = await brand();
    const other = await brand();
    await storeAt(other, 0.5, { radius: 100, areas: [{ postalCode: '97205' }] });
    await enable(other, { strategies: ['Nearest', 'DeliveryArea'], nearestMaxDistanceMiles: 100 });
    await enable(b, { strategies: ['DeliveryArea', 'DeliveryRadius', 'Nearest'], nearestMaxDistanceMiles: 100 });
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee).toBeNull();
    const own = await storeAt(b, 60);
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(own.id);
  });

  test('a lead without a location falls to the rules that need none', async () => {
    const b = await brand();
    await storeAt(b, 1, { radius: 100 });
    const listed = await storeAt(b, 30, { areas: [{ postalCode: '97205' }] });
    await enable(b, { strategies: ['DeliveryRadius', 'Nearest', 'DeliveryArea'], nearestMaxDistanceMiles: 100 });
    expect((await createLead(t, b.admin, quoteRequest())).assignee).toBeNull();
    // Not placed by the geocoder: only the postal code routes it, with no distance.
    const lead = await createLead(t, b.admin, quoteRequest({ location: at({ city: 'Nowhere' }) }));
    expect(lead.location.latitude).toBeNull();
    expect(lead.assignee.id).toBe(listed.id);
    expect((await assignment(b.admin, lead.id))[0].data).toMatchObject({ rule: 'delivery_area', distance_miles: null });
  });

  test('the strategy order decides which rule goes first', async () => {
    const b = await brand();
    await storeAt(b, 30, { areas: [{ postalCode: '97205' }] });
    const radius = await storeAt(b, 2, { radius: 5 });
    await enable(b, { strategies: ['DeliveryRadius', 'DeliveryArea'] });
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(radius.id);
  });

  test('ties: distance, then store-type boost, then id; round robin takes turns among equals', async () => {
    const b = await brand();
    const flagship = await storeType(em(), b.company, 'Flagship', 2);
    const low = await storeAt(b, 3, { radius: 10 });
    const boosted = await storeAt(b, 3, { radius: 10, storeType: flagship });
    await enable(b);
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(boosted.id);
    const m = em();
    (await m.findOneOrFail(CompanyRetailerLocation, boosted.id)).companyStoreType = null;
    await m.flush();
    const lowestId = [low.id, boosted.id].sort()[0];
    for (let i = 0; i < 2; i++) expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(lowestId);
    await enable(b, { roundRobin: true });
    const turns = [];
    for (let i = 0; i < 4; i++) turns.push((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id);
    expect(new Set(turns)).toEqual(new Set([low.id, boosted.id]));
    expect(turns[0]).not.toBe(turns[1]);
    expect(turns[2]).toBe(turns[0]);
    expect(turns[3]).toBe(turns[1]);
  });

  test('a duplicate merged into an unassigned lead routes it; a retailer-owned lead is never routed', async () => {
    const b = await brand();
    const store1 = await storeAt(b, 2, { radius: 10 });
    const first = await createLead(t, b.admin, quoteRequest({ location: at() }));
    expect(first.assignee).toBeNull();
    await enable(b);
    const again = await createLead(t, b.admin, { lead: { ...quoteRequest().lead, emails: first.emails.map((e: any) => ({ email: e.email })) } });
    expect(again.id).toBe(first.id);
    expect(again.assignee.id).toBe(store1.id);
    const dealer = await f.userWithKey(em(), Role.RetailerAdmin, b.retailer);
    expect((await createLead(t, dealer.key, quoteRequest({ location: at() }))).assignee).toBeNull();
  });
});

describe('lead routing (GraphQL)', () => {
  test('createLead is routed and the Assignment activity says why', async () => {
    const b = await brand();
    const listed = await storeAt(b, 7, { areas: [{ postalCode: '97205' }] });
    await enable(b);
    const res = await gql(t, b.admin, `mutation($input: LeadInput!) { createLead(input: $input) { id assigneeId leadActivities { type data } } }`, {
      input: { name: 'G', emails: [{ email: `g${Date.now()}@example.com` }], location: { city: 'Springfield', postalCode: '97205', country: 'US' } },
    });
    expect(res.body.errors).toBeUndefined();
    const lead = res.body.data.createLead;
    expect(lead.assigneeId).toBe(listed.id);
    expect(lead.leadActivities).toContainEqual({
      type: 'LeadActivity::Assignment',
      data: { from_id: null, to_id: listed.id, rule: 'delivery_area', distance_miles: 7 },
    });
  });

  test('GraphQL explicit assignee and cross-company stores', async () => {
    const b = await brand();
    const other = await brand();
    await storeAt(other, 1, { radius: 10 });
    const own = await storeAt(b, 5, { radius: 1 });
    await enable(b);
    const q = `mutation($input: LeadInput!) { createLead(input: $input) { assigneeId } }`;
    const lead = (i: number, extra = {}) => ({ name: 'G', emails: [{ email: `x${i}.${Date.now()}@example.com` }], location: { city: 'Springfield' }, ...extra });
    expect((await gql(t, b.admin, q, { input: lead(1) })).body.data.createLead.assigneeId).toBeNull();
    const explicit = await gql(t, b.admin, q, { input: lead(2, { assigneeId: own.id, assigneeType: 'CompanyRetailerLocation' }) });
    expect(explicit.body.data.createLead.assigneeId).toBe(own.id);
  });

  test('dry run: the store an address would go to, and why, even while routing is off', async () => {
    const b = await brand();
    const covering = await storeAt(b, 4, { radius: 10 });
    const q = `query($address: RoutingAddressInput!, $companyId: ID) { routeAddress(address: $address, companyId: $companyId) {
      routingEnabled assigneeId rule distanceMiles reason latitude longitude } }`;
    const off = await gql(t, b.admin, q, { address: { city: 'Springfield' } });
    expect(off.body.data.routeAddress).toMatchObject({ routingEnabled: false, assigneeId: covering.id, rule: 'DeliveryRadius', distanceMiles: 4, latitude: 45 });
    expect(off.body.data.routeAddress.reason).toMatch(/delivery radius.*Routing is off/);
    const placed = await gql(t, b.admin, q, { address: { latitude: north(ORIGIN, 30 * MILE).latitude, longitude: ORIGIN.longitude } });
    expect(placed.body.data.routeAddress).toMatchObject({ assigneeId: null, rule: null });
    expect(placed.body.data.routeAddress.reason).toMatch(/No rule matched/);
    const nowhere = await gql(t, b.admin, q, { address: { city: 'Nowhere' } });
    expect(nowhere.body.data.routeAddress.reason).toMatch(/could not be placed/);

    const operator = await f.userWithKey(em(), Role.PlatformOperator, null);
    expect((await gql(t, operator.key, q, { address: { city: 'Springfield' }, companyId: b.company.id })).body.data.routeAddress.assigneeId).toBe(covering.id);
    const blank = await gql(t, operator.key, q, { address: { city: 'Springfield' } });
    expect(blank.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  test('settings and dry run: admins of the company and the operator only', async () => {
    const b = await brand();
    const other = await brand();
    const territory = await f.territory(em(), b.company);
    const manager = await f.userWithKey(em(), Role.CompanyTerritoryManager, b.company, { territory });
    const dealer = await f.userWithKey(em(), Role.RetailerAdmin, b.retailer);
    const code = (body: any) => body.errors?.[0]?.extensions?.code;
    expect(code(await routing(manager.key, { enabled: true }))).toBe('FORBIDDEN');
    expect(code(await routing(dealer.key, { enabled: true }, b.company.id))).toBe('FORBIDDEN');
    expect(code(await routing(other.admin, { enabled: true }, b.company.id))).toBe('NOT_FOUND');
    expect(code(await routing(b.admin, { enabled: true }, 'not-a-uuid'))).toBe('NOT_FOUND');
    const dry = await gql(t, other.admin, `query($c: ID) { routeAddress(address: {city: "X"}, companyId: $c) { assigneeId } }`, { c: b.company.id });
    expect(code(dry.body)).toBe('NOT_FOUND');
    const operator = await f.userWithKey(em(), Role.PlatformOperator, null);
    const set = await routing(operator.key, { enabled: true, roundRobin: true }, b.company.id);
    expect(set.data.updateRoutingSettings).toMatchObject({ companyId: b.company.id, enabled: true, roundRobin: true });
    const read = await gql(t, b.admin, `{ routingSettings { ${SETTINGS} updatedAt } }`);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.routingSettings).toMatchObject({ enabled: true, roundRobin: true });
    expect(Math.abs(Date.now() - Date.parse(read.body.data.routingSettings.updatedAt))).toBeLessThan(3_600_000);
  });

  test('settings are validated', async () => {
    const b = await brand();
    const field = (body: any) => body.errors?.[0]?.extensions?.details?.[0]?.field;
    expect(field(await routing(b.admin, { strategies: ['Nearest'] }))).toBe('nearest_max_distance_miles');
    expect(field(await routing(b.admin, { strategies: ['Nearest'], nearestMaxDistanceMiles: -1 }))).toBe('nearest_max_distance_miles');
    expect(field(await routing(b.admin, { strategies: ['DeliveryArea', 'DeliveryArea'] }))).toBe('strategies');
    expect(field(await routing(b.admin, { strategies: [] }))).toBe('strategies');
    const bad = await routing(b.admin, { strategies: ['Elsewhere'] });
    expect(bad.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
    const ok = await routing(b.admin, { strategies: ['Nearest', 'DeliveryArea'], nearestMaxDistanceMiles: 25 });
    expect(ok.data.updateRoutingSettings).toMatchObject({ strategies: ['Nearest', 'DeliveryArea'], nearestMaxDistanceMiles: 25, enabled: false });
  });
});

describe('the routing read model', () => {
  test('follows a store moving and its retailer changing territory', async () => {
    const b = await brand();
    const west = await f.territory(em(), b.company, 'West');
    const moving = await storeAt(b, 40, { onRetailerLocation: false });
    const staying = await storeAt(b, 20, { territory: west });
    await enable(b, { strategies: ['Nearest'], nearestMaxDistanceMiles: 100, nearestInTerritory: true });
    const manager = await f.userWithKey(em(), Role.CompanyTerritoryManager, b.company, { territory: west });
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(staying.id);
    const m = em();
    const crl = await m.findOneOrFail(CompanyRetailerLocation, moving.id, { populate: ['physicalAddress', 'companyRetailer'] });
    crl.physicalAddress!.latitude = north(ORIGIN, 2 * MILE).latitude;
    await m.flush();
    expect((await createLead(t, b.admin, quoteRequest({ location: at() }))).assignee.id).toBe(moving.id);
    // In the territory through its company retailer only once the retailer is in it.
    expect((await createLead(t, manager.key, quoteRequest({ location: at() }))).assignee.id).toBe(staying.id);
    crl.companyRetailer.territory = west;
    await m.flush();
    expect((await createLead(t, manager.key, quoteRequest({ location: at() }))).assignee.id).toBe(moving.id);
  });
});
