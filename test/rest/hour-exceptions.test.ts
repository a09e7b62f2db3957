/**
 * Holiday and special hours over HTTP (docs/store-locator.md "Holiday and special hours"): REST create,
 * update and show of a company retailer location's `hour_exceptions`, 422s on bad or overlapping ones,
 * GraphQL reads, and the store locator's `open_now`, `hours_today` and `hour_exceptions` on a fixed clock.
 */
import express from 'express';
import request from 'supertest';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { assertMatchesOpenApi } from '../support/openapi';
import { world, type World } from '../support/network';
import * as lf from '../support/locator-factories';
import { storeLocatorRouter } from '../../src/modules/store-locator/store-locator.router';
import { restErrorHandler } from '../../src/rest/router';
import { createSearchBackend } from '../../src/search/factory';
import { OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { HourException } from '../../src/modules/company-retailer-location/hour-exception.entity';

let t: TestApp;
let w: World;
let s: Awaited<ReturnType<typeof stores>>;

const everyDay = (open: number, close: number) =>
  (['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const).map((day) => ({ day, openAtHour: open, closeAtHour: close }));

async function stores() {
  const em = t.em();
  const net = await lf.locatorNetwork(em, 'Holiday Outdoors');
  // Open 09:00-18:00 every day in Paris; closed on Christmas Day, short hours on Christmas Eve (on its retailer location).
  const paris = await lf.store(em, net.companyRetailer, { latitude: 48.8566, longitude: 2.3522, city: 'Paris', country: 'FR', postalCode: '75001', timezone: 'Europe/Paris', hours: everyDay(9, 18) });
  // The same hours and no exception.
  const lyon = await lf.store(em, net.companyRetailer, { latitude: 48.86, longitude: 2.36, city: 'Paris', country: 'FR', postalCode: '75002', timezone: 'Europe/Paris', hours: everyDay(9, 18) });
  // No weekly hours at all; open on a Sunday market day (its hours on the CRL itself).
  const market = await lf.store(em, net.companyRetailer, {
    latitude: 48.87, longitude: 2.34, city: 'Paris', country: 'FR', postalCode: '75009', timezone: 'Europe/Paris', onRetailerLocation: false,
  });
  const paris_rl = (await em.findOneOrFail('CompanyRetailerLocation', paris.id, { populate: ['retailerLocation'] } as any)) as any;
  em.create(HourException, { retailerLocation: paris_rl.retailerLocation, startsOn: '2026-12-25', endsOn: '2026-12-25', closed: true, label: 'Public holiday' });
  em.create(HourException, {
    retailerLocation: paris_rl.retailerLocation, startsOn: '2026-12-24', endsOn: '2026-12-24', closed: false, label: 'Christmas Eve',
    hours: [{ open_at_hour: 10, open_at_minute: 0, close_at_hour: 14, close_at_minute: 0 }],
  });
  em.create(HourException, {
    companyRetailerLocation: market, startsOn: '2026-12-20', endsOn: '2026-12-20', closed: false, label: 'Christmas market',
    hours: [{ open_at_hour: 8, open_at_minute: 0, close_at_hour: 13, close_at_minute: 0 }],
  });
  await em.flush();
  return { net, paris, lyon, market };
}

beforeAll(async () => {
  t = await createTestApp();
  w = await world(t.em());
  s = await stores();
});
afterAll(() => t.close());

const PATH = '/v1/company_retailer_locations';
const closedDay = (starts_on: string, label: string, ends_on = starts_on) => ({ starts_on, ends_on, closed: true, label });

describe('REST and GraphQL', () => {
  let id: string;

  test('create with exceptions: by date, ends inclusive, `ends_on` defaults to `starts_on`', async () => {
    const res = await api(t, 'post', PATH, {
      key: w.keys.company_admin,
      body: {
        company_retailer_location: { company_retailer_id: w.crA.id, name: 'Pop-up', timezone: 'Europe/Paris' },
        hour_exceptions: [
          { starts_on: '2026-12-25', label: 'Public holiday' },
          { starts_on: '2026-12-24', closed: false, hours: [{ open_at_hour: 10, open_at_minute: 0, close_at_hour: 14, close_at_minute: 0 }], label: 'Christmas Eve' },
          closedDay('2027-08-01', 'Summer break', '2027-08-15'),
        ],
      },
    });
    expect(res.status).toBe(201);
    id = res.body.id;
    expect(res.body.hour_exceptions).toEqual([
      { id: expect.any(String), starts_on: '2026-12-24', ends_on: '2026-12-24', closed: false, hours: [{ open_at_hour: 10, open_at_minute: 0, close_at_hour: 14, close_at_minute: 0 }], label: 'Christmas Eve' },
      { id: expect.any(String), starts_on: '2026-12-25', ends_on: '2026-12-25', closed: true, hours: [], label: 'Public holiday' },
      { id: expect.any(String), starts_on: '2027-08-01', ends_on: '2027-08-15', closed: true, hours: [], label: 'Summer break' },
    ]);
    const shown = await api(t, 'get', `${PATH}/${id}`, { key: w.keys.company_admin });
    expect(shown.body.hour_exceptions).toEqual(res.body.hour_exceptions);
    const without = await api(t, 'get', `${PATH}/${id}?include=general_email`, { key: w.keys.company_admin });
    expect(without.body).not.toHaveProperty('hour_exceptions');
    // The list leaves them out (a page of 500 stores with 366 each would read them all).
    const listed = await api(t, 'get', `${PATH}?opts[where][id]=${id}`, { key: w.keys.company_admin });
    expect(listed.body.company_retailer_locations.map((c: any) => [c.id, 'hour_exceptions' in c])).toEqual([[id, false]]);
  });

  test('422 with a field error: overlap (ends inclusive), bad dates, reversed or year-long ranges, missing spans', async () => {
    const bad = async (items: unknown[]) => {
      const res = await api(t, 'patch', `${PATH}/${id}`, { key: w.keys.company_admin, body: { hour_exceptions: items } });
      expect(res.status).toBe(422);
      return res.body.details.map((d: any) => `${d.field}:${d.code}`);
    };
    expect(await bad([closedDay('2027-08-15', 'Overlaps the last day')])).toEqual(['hour_exceptions.starts_on:overlap']);
    expect(await bad([closedDay('2026-12-20', 'Around', '2026-12-24')])).toEqual(['hour_exceptions.starts_on:overlap']);
    expect(await bad([closedDay('2026-02-30', 'Nope')])).toEqual(['hour_exceptions.starts_on:invalid', 'hour_exceptions.ends_on:invalid']);
    expect(await bad([closedDay('2028-01-10', 'Reversed', '2028-01-09')])).toEqual(['hour_exceptions.ends_on:invalid']);
    expect(await bad([closedDay('2028-01-01', 'Too long', '2029-01-01')])).toEqual(['hour_exceptions.ends_on:invalid']);
    expect(await bad([{ starts_on: '2028-01-01', closed: false }])).toEqual(['hour_exceptions.hours:blank']);
    expect(await bad([{ starts_on: '2028-01-01', closed: false, hours: [{ open_at_hour: 25, open_at_minute: 0, close_at_hour: 2, close_at_minute: 0 }] }])).toEqual([
      'hour_exceptions.hours.open_at_hour:invalid',
    ]);
    expect(await bad([{ starts_on: 12 }])).toEqual([expect.stringMatching(/^hour_exceptions/)]);
    expect(await bad([{ id: w.crlIn.id, _destroy: true }])).toEqual(['hour_exceptions.id:invalid']);
  });

  test('update by id and _destroy; a removed range is free again in the same request', async () => {
    const before = (await api(t, 'get', `${PATH}/${id}`, { key: w.keys.company_admin })).body.hour_exceptions;
    const summer = before.find((e: any) => e.label === 'Summer break');
    const eve = before.find((e: any) => e.label === 'Christmas Eve');
    const res = await api(t, 'patch', `${PATH}/${id}`, {
      key: w.keys.company_admin,
      body: { hour_exceptions: [{ id: summer.id, _destroy: true }, closedDay('2027-08-10', 'Short summer break', '2027-08-12'), { id: eve.id, label: 'Réveillon' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.hour_exceptions.map((e: any) => [e.starts_on, e.ends_on, e.label])).toEqual([
      ['2026-12-24', '2026-12-24', 'Réveillon'],
      ['2026-12-25', '2026-12-25', 'Public holiday'],
      ['2027-08-10', '2027-08-12', 'Short summer break'],
    ]);
  });

  test('two exceptions swapped in one request pass (the overlap rule is checked on the result)', async () => {
    const before = (await api(t, 'get', `${PATH}/${id}`, { key: w.keys.company_admin })).body.hour_exceptions;
    const [eve, day] = before;
    const res = await api(t, 'patch', `${PATH}/${id}`, {
      key: w.keys.company_admin,
      body: { hour_exceptions: [{ id: eve.id, starts_on: '2026-12-25', ends_on: '2026-12-25' }, { id: day.id, starts_on: '2026-12-24', ends_on: '2026-12-24' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.hour_exceptions.map((e: any) => [e.starts_on, e.label])).toEqual([['2026-12-24', 'Public holiday'], ['2026-12-25', 'Réveillon'], ['2027-08-10', 'Short summer break']]);
    await api(t, 'patch', `${PATH}/${id}`, {
      key: w.keys.company_admin,
      body: { hour_exceptions: [{ id: eve.id, starts_on: '2026-12-24', ends_on: '2026-12-24' }, { id: day.id, starts_on: '2026-12-25', ends_on: '2026-12-25' }] },
    });
  });

  test('concurrent writes of overlapping exceptions: one is stored, the other a 422, never a 5xx', async () => {
    const crl = await api(t, 'post', PATH, { key: w.keys.company_admin, body: { company_retailer_location: { company_retailer_id: w.crA.id, name: 'Race' } } });
    const write = (label: string) =>
      api(t, 'patch', `${PATH}/${crl.body.id}`, { key: w.keys.company_admin, body: { hour_exceptions: [closedDay('2026-11-11', label, '2026-11-12')] } });
    const results = await Promise.all([write('One'), write('Two'), write('Three')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.details).toEqual([expect.objectContaining({ field: 'hour_exceptions.starts_on', code: 'overlap' })]);
    expect(await t.em().count(HourException, { companyRetailerLocation: crl.body.id })).toBe(1);
  });

  test('GraphQL reads them on a show and on a list page; a linked store holds them on its retailer location', async () => {
    const fields = 'hourExceptions { id startsOn endsOn closed label hours { openAtHour openAtMinute closeAtHour closeAtMinute } }';
    const shown = await gql(t, w.keys.company_admin, `query($id: ID!) { companyRetailerLocation(id: $id) { id ${fields} } }`, { id });
    expect(shown.body.errors).toBeUndefined();
    expect(shown.body.data.companyRetailerLocation.hourExceptions[0]).toMatchObject({
      startsOn: '2026-12-24', closed: false, label: 'Réveillon', hours: [{ openAtHour: 10, openAtMinute: 0, closeAtHour: 14, closeAtMinute: 0 }],
    });
    const listed = await gql(t, w.keys.company_admin, `query { companyRetailerLocations(perPage: 100) { nodes { id ${fields} } } }`);
    expect(listed.body.errors).toBeUndefined();
    const node = listed.body.data.companyRetailerLocations.nodes.find((n: any) => n.id === id);
    expect(node.hourExceptions).toEqual(shown.body.data.companyRetailerLocation.hourExceptions);

    const written = await gql(
      t,
      w.keys.company_admin,
      `mutation($id: ID!) { updateCompanyRetailerLocation(id: $id, input: { hourExceptions: [{ startsOn: "2026-05-01", label: "Labour Day" }] }) { id ${fields} } }`,
      { id: w.crlIn.id },
    );
    expect(written.body.errors).toBeUndefined();
    const stored = await t.em().find(HourException, { retailerLocation: w.rl1.id });
    expect(stored.map((e) => [e.startsOn, e.label, e.companyRetailerLocation ?? null])).toEqual([['2026-05-01', 'Labour Day', null]]);
  });
});

describe('store locator on a fixed clock', () => {
  let now = new Date();
  const clocked = () => {
    const a = express();
    a.set('query parser', 'extended');
    const deps = { orm: t.orm, config: t.config, search: createSearchBackend(t.config, t.orm), geocoder: new OfflineGeocoder(t.orm) };
    a.use('/v1', storeLocatorRouter(deps, { now: () => now }), restErrorHandler);
    return a;
  };
  async function at(instant: string, path: string) {
    now = new Date(instant);
    const res = await request(clocked()).get(path).set('Accept', 'application/json');
    assertMatchesOpenApi('get', path, res.status, res.body);
    expect(res.status).toBe(200);
    return res;
  }
  const near = () => `/v1/store_locator?cc_id=${s.net.company.id}&latitude=48.8566&longitude=2.3522&radius=20mi`;
  const openOf = (res: { body: any }) => Object.fromEntries(res.body.results.map((r: any) => [r.id, r.open_now]));

  test('closed today by an exception although the weekly hours say open; the search and the filter agree', async () => {
    // Friday 2026-12-25 12:00 in Paris.
    const res = await at('2026-12-25T11:00:00Z', near());
    expect(openOf(res)).toEqual({ [s.paris.id]: false, [s.lyon.id]: true, [s.market.id]: false });
    const paris = res.body.results.find((r: any) => r.id === s.paris.id);
    expect(paris.hours_today).toEqual({ date: '2026-12-25', closed: true, hours: [], label: 'Public holiday', exception: true });
    // The weekly entries are the regular ones.
    expect(paris.retailer_location_hours.find((h: any) => h.day === 'friday')).toMatchObject({ open: true, open_at_hour: 9 });
    const lyon = res.body.results.find((r: any) => r.id === s.lyon.id);
    expect(lyon.hours_today).toEqual({ date: '2026-12-25', closed: false, hours: [{ open_at_hour: 9, open_at_minute: 0, close_at_hour: 18, close_at_minute: 0 }], label: null, exception: false });
    expect(lyon.hour_exceptions).toEqual([]);
    const open = await at('2026-12-25T11:00:00Z', `${near()}&open_now=true`);
    expect(open.body.results.map((r: any) => r.id)).toEqual([s.lyon.id]);
    expect(open.body.meta.total).toBe(1);
  });

  test("special hours replace the weekly ones for the store's local date; upcoming exceptions are listed", async () => {
    // Thursday 2026-12-24 15:00 in Paris: the weekly hours say open, Christmas Eve closed at 14:00.
    const shown = await at('2026-12-24T14:00:00Z', `/v1/store_locator/${s.paris.id}`);
    const store = shown.body.company_retailer_location;
    expect(store.open_now).toBe(false);
    expect(store.hours_today).toMatchObject({ date: '2026-12-24', closed: false, label: 'Christmas Eve', exception: true });
    expect(store.hour_exceptions.map((e: any) => e.starts_on)).toEqual(['2026-12-24', '2026-12-25']);
    expect((await at('2026-12-24T10:00:00Z', `/v1/store_locator/${s.paris.id}`)).body.company_retailer_location.open_now).toBe(true);
    // 2026-12-24T23:30Z is already Christmas Day in Paris.
    const late = await at('2026-12-24T23:30:00Z', `/v1/store_locator/${s.paris.id}`);
    expect(late.body.company_retailer_location.hours_today).toMatchObject({ date: '2026-12-25', label: 'Public holiday' });
  });

  test('a store without weekly hours is open, and found by open_now=true, on its special day only', async () => {
    // Sunday 2026-12-20 10:00 in Paris.
    const res = await at('2026-12-20T09:00:00Z', `${near()}&open_now=true`);
    expect(res.body.results.map((r: any) => r.id).sort()).toEqual([s.lyon.id, s.market.id, s.paris.id].sort());
    expect(res.body.results.find((r: any) => r.id === s.market.id).hours_today).toMatchObject({ closed: false, label: 'Christmas market' });
    const nextWeek = await at('2026-12-27T09:00:00Z', `${near()}&open_now=true`);
    expect(nextWeek.body.results.map((r: any) => r.id).sort()).toEqual([s.lyon.id, s.paris.id].sort());
  });
});
