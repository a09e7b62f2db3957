import express from 'express';
import request from 'supertest';
import { api, createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';
import { storeLocatorRouter } from '../../src/modules/store-locator/store-locator.router';
import { restErrorHandler } from '../../src/rest/router';
import { createSearchBackend } from '../../src/search/factory';
import { NullGeocoder } from '../../src/geo/geocoder';
import type { Product } from '../../src/modules/product/product.entity';

let t: TestApp;
let world: Awaited<ReturnType<typeof build>>;

async function build() {
  const em = t.em();
  const net = await lf.locatorNetwork(em, 'Acme Lighting');
  const flagship = await lf.storeType(em, net.company, 'Flagship', 1);
  const collection = await lf.collection(em, net.company, 'Lamps');
  const lamp = await lf.catalogProduct(em, net.company, {
    sku: 'LAMP-1', name: 'Desk lamp', category: 'Lamps', url: 'https://acme.example.test/lamp', externalId: 'ext-lamp', collection, images: 2,
  });
  const shade = await lf.catalogProduct(em, net.company, { sku: 'SHADE-1', name: 'Shade' });
  // A fully described store whose address, email, phone and hours live on its retailer location.
  const full = await lf.store(em, net.companyRetailer, {
    name: '  ',
    locationName: 'Pearl District',
    latitude: 45.5261,
    longitude: -122.6822,
    streetLineOne: '1000 NW Glisan St',
    city: 'Portland',
    province: 'OR',
    postalCode: '97209',
    country: 'US',
    storeType: flagship,
    website: 'https://pearl.example.test',
    email: 'pearl@example.test',
    phone: { number: '+15035550123' },
    hours: [
      { day: 'monday', openAtHour: 9, openAtMinute: 30, closeAtHour: 18, closeAtMinute: 0 },
      { day: 'friday', openAtHour: 18, openAtMinute: 0, closeAtHour: 2, closeAtMinute: 0 },
      { day: 'sunday', open: false },
    ],
    stock: [
      { product: lamp, stocked: true, available: true },
      { product: shade, stocked: false, available: true },
    ],
  });
  // A store without a retailer location: everything on the CRL.
  const own = await lf.store(em, net.companyRetailer, {
    onRetailerLocation: false,
    name: 'Outlet',
    latitude: 45.5,
    longitude: -122.65,
    email: 'outlet@example.test',
    timezone: 'America/Chicago',
    hours: [{ day: 'tuesday', openAtHour: 10, closeAtHour: 16 }],
  });
  const hidden = await lf.store(em, net.companyRetailer, { sendingLeads: false, latitude: 45.52, longitude: -122.68 });
  const other = await lf.locatorNetwork(em, 'Other');
  const otherStore = await lf.store(em, other.companyRetailer, { latitude: 45.52, longitude: -122.68 });
  return { net, flagship, lamp, shade, collection, full, own, hidden, other, otherStore };
}

beforeAll(async () => {
  t = await createTestApp();
  world = await build();
});
afterAll(() => t.close());

const search = (query: string, headers: Record<string, string> = {}) => api(t, 'get', `/v1/store_locator?${query}`, { headers });
const near = (extra = '') => `cc_id=${world.net.company.id}&latitude=45.52&longitude=-122.68${extra}`;

describe('company identification', () => {
  test('cc_id or X-Cc-Id names the company; no API key is needed', async () => {
    const byParam = await search(near());
    expect(byParam.status).toBe(200);
    expect(byParam.body.results.map((r: any) => r.id).sort()).toEqual([world.full.id, world.own.id].sort());
    const byHeader = await search('latitude=45.52&longitude=-122.68', { 'X-Cc-Id': world.net.company.id });
    expect(byHeader.body.results.map((r: any) => r.id).sort()).toEqual([world.full.id, world.own.id].sort());
  });

  test('the header wins over the parameter', async () => {
    const res = await search(near(), { 'X-Cc-Id': world.other.company.id });
    expect(res.body.results.map((r: any) => r.id)).toEqual([world.otherStore.id]);
    const unknownHeader = await search(near(), { 'X-Cc-Id': '00000000-0000-4000-8000-000000000000' });
    expect(unknownHeader.status).toBe(404);
  });

  test.each([
    ['neither', 'latitude=1&longitude=1'],
    ['unknown', 'cc_id=00000000-0000-4000-8000-000000000000&latitude=1&longitude=1'],
    ['malformed', 'cc_id=acme&latitude=1&longitude=1'],
  ])('%s company: 404 with the SPEC 7 body', async (_label, query) => {
    const res = await search(query);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, error: 'Not Found', message: expect.stringMatching(/^Couldn't find Company with(out an)? 'id'/) });
  });

  test.each([
    ['repeated', `cc_id=${'00000000-0000-4000-8000-000000000000'}&cc_id=x&latitude=1&longitude=1`],
    ['nested', 'cc_id[a]=b&latitude=1&longitude=1'],
  ])('%s cc_id: 400, the store locator body (issue 40)', async (_label, query) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid search parameters' });
  });
});

describe('invalid search parameters', () => {
  test.each([
    ['no point and no box', ''],
    ['latitude only', '&latitude=45'],
    ['longitude only', '&longitude=-122'],
    ['three box corners', '&top_left_latitude=46&top_left_longitude=-123&bottom_right_latitude=45'],
    ['one box corner', '&bottom_right_longitude=-122'],
    ['a latitude and a box', '&latitude=45&top_left_latitude=46&top_left_longitude=-123&bottom_right_latitude=45&bottom_right_longitude=-122'],
    ['unknown unit', '&latitude=45&longitude=-122&radius=10parsecs'],
    ['negative radius', '&latitude=45&longitude=-122&radius=-5mi'],
    ['radius without number', '&latitude=45&longitude=-122&radius=mi'],
    ['radius with exponent', '&latitude=45&longitude=-122&radius=1e3m'],
    ['radius unit in the wrong case', '&latitude=45&longitude=-122&radius=5MI'],
    ['radius twice', '&latitude=45&longitude=-122&radius=5mi&radius=6mi'],
    ['radius with junk', '&latitude=45&longitude=-122&radius=5mi;drop'],
  ])('%s: 400 {"error":"Invalid search parameters"}', async (_label, extra) => {
    const res = await search(`cc_id=${world.net.company.id}${extra}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid search parameters' });
  });
});

describe('malformed parameters are a 400 or an ordinary answer, never a 5xx', () => {
  const long = 'x'.repeat(5000);
  const id = () => world.net.company.id;
  test.each<[string, () => string, 200 | 400]>([
    ['latitude not a number', () => 'latitude=abc&longitude=1', 400],
    ['latitude out of range', () => 'latitude=91&longitude=1', 400],
    ['longitude out of range', () => 'latitude=1&longitude=-180.5', 400],
    ['latitude NaN', () => 'latitude=NaN&longitude=1', 400],
    ['latitude Infinity', () => 'latitude=Infinity&longitude=1', 400],
    ['latitude huge', () => `latitude=1${'0'.repeat(400)}&longitude=1`, 400],
    ['latitude as array', () => 'latitude[]=1&longitude=1', 400],
    ['latitude as object', () => 'latitude[a]=1&longitude=1', 400],
    ['latitude hex', () => 'latitude=0x10&longitude=1', 400],
    ['box upside down', () => 'top_left_latitude=44&top_left_longitude=-123&bottom_right_latitude=46&bottom_right_longitude=-122', 400],
    ['box latitude out of range', () => 'top_left_latitude=100&top_left_longitude=-123&bottom_right_latitude=46&bottom_right_longitude=-122', 400],
    ['per_page zero', () => 'latitude=1&longitude=1&per_page=0', 400],
    ['per_page negative', () => 'latitude=1&longitude=1&per_page=-3', 400],
    ['per_page fraction', () => 'latitude=1&longitude=1&per_page=1.5', 400],
    ['per_page text', () => 'latitude=1&longitude=1&per_page=all', 400],
    ['per_page enormous', () => 'latitude=1&longitude=1&per_page=99999999999999999999', 400],
    ['per_page above 500 is lowered', () => 'latitude=1&longitude=1&per_page=100000', 200],
    ['page zero', () => 'latitude=1&longitude=1&page=0', 400],
    ['page text', () => 'latitude=1&longitude=1&page=two', 400],
    ['page as array', () => 'latitude=1&longitude=1&page[]=2', 400],
    ['page far past the end', () => 'latitude=1&longitude=1&page=1000000000', 200],
    ['radius NUL', () => 'latitude=1&longitude=1&radius=%00', 400],
    ['radius enormous', () => `latitude=1&longitude=1&radius=${'9'.repeat(400)}km`, 200],
    ['city NUL', () => 'latitude=1&longitude=1&city=%00', 200],
    ['city with quotes', () => `latitude=1&longitude=1&city=${encodeURIComponent(`O'Hare" or 1=1 --`)}`, 200],
    ['city array literal', () => `latitude=1&longitude=1&city=${encodeURIComponent('{"Portland"}')}`, 200],
    ['city backslashes', () => `latitude=1&longitude=1&city=${encodeURIComponent('\\"}\\')}`, 200],
    ['city nested object', () => 'latitude=1&longitude=1&city[a][b]=c', 400],
    ['store_type very long', () => `latitude=1&longitude=1&store_type=${long}`, 200],
    ['province unicode', () => `latitude=1&longitude=1&province=${encodeURIComponent('Québec 🍁')}`, 200],
    ['bad percent-encoding', () => 'latitude=1&longitude=1&country=%E0%A4%A', 200],
    ['product ids not UUIDs', () => 'latitude=1&longitude=1&stocked_product_ids=1&stocked_product_ids=%27', 200],
    ['product ids nested', () => 'latitude=1&longitude=1&stocked_product_ids[a][b]=1', 400],
    ['product ids as object', () => 'latitude=1&longitude=1&stocked_product_ids[a]=1', 400],
    ['collection ids NUL', () => 'latitude=1&longitude=1&available_product_collection_ids=%00', 200],
    ['SKUs with array syntax', () => `latitude=1&longitude=1&stocked_product_skus=${encodeURIComponent('{a,b}')}`, 200],
    ['external ids empty', () => 'latitude=1&longitude=1&stocked_product_external_ids=', 200],
    ['unknown parameters', () => 'latitude=1&longitude=1&sort=drop&opts[where][x]=1', 200],
    ['many repeated values', () => `latitude=1&longitude=1&${Array.from({ length: 300 }, (_, i) => `stocked_product_skus=S${i}`).join('&')}`, 200],
  ])('%s', async (_label, query, status) => {
    const res = await search(`cc_id=${id()}&${query()}`);
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body).toEqual({ error: 'Invalid search parameters' });
    else expect(res.body).toEqual({ results: expect.any(Array), meta: expect.objectContaining({ total: expect.any(Number) }) });
  });

  test('malformed filter values match nothing rather than everything', async () => {
    for (const q of ['city=%00', 'stocked_product_ids=nope', 'available_product_collection_ids=%00', 'stocked_product_skus=%00']) {
      const res = await search(near(`&${q}`));
      expect([q, res.body.meta.total]).toEqual([q, 0]);
    }
  });

  test('per_page above 500 is lowered to 500', async () => {
    const res = await search(near('&per_page=100000'));
    expect(res.body.meta.per_page).toBe(500);
  });
});

describe('results', () => {
  test('SPEC 2.7 shape, read through to the retailer location', async () => {
    const res = await search(near('&radius=1km'));
    const result = res.body.results.find((r: any) => r.id === world.full.id);
    expect(Object.keys(result).sort()).toEqual(
      [
        'id', 'name', 'full_name', 'retailer_name', 'store_type', 'website', 'place_id', 'address', 'email', 'phone_number', 'retailer_location_hours', 'retailer_location_products',
        // PRODUCT.md 11 additions
        'distance', 'open_now', 'local_weekday', 'directions_url', 'hours_today', 'hour_exceptions',
      ].sort(),
    );
    expect(result).toMatchObject({
      id: world.full.id,
      name: 'Pearl District',
      full_name: `${world.net.retailer.name} - Pearl District`,
      retailer_name: world.net.retailer.name,
      store_type: 'Flagship',
      website: 'https://pearl.example.test',
      place_id: null,
      address: {
        id: expect.any(String),
        address_name: null,
        street_line_one: '1000 NW Glisan St',
        street_line_two: null,
        postal_code: '97209',
        city: 'Portland',
        province: 'OR',
        country: 'US',
        latitude: 45.5261,
        longitude: -122.6822,
        string: '1000 NW Glisan St, Portland, OR 97209, US',
      },
      email: { id: expect.any(String), email: 'pearl@example.test' },
      phone_number: { id: expect.any(String), phone_number: '+15035550123', country_code: 'US', formatted: '+1 503 555 0123' },
    });
    expect(result.retailer_location_hours.map((h: any) => h.day)).toEqual(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
    for (const h of result.retailer_location_hours) {
      expect(Object.keys(h).sort()).toEqual(
        ['day', 'open', 'open_at_hour', 'open_at_minute', 'close_at_hour', 'close_at_minute', 'utc_offset_minute', 'open_at', 'timezone'].sort(),
      );
      expect(h.timezone).toBe('America/Los_Angeles'); // from the coordinates: neither CRL nor location has one
    }
    expect(result.retailer_location_hours[0]).toMatchObject({ open: true, open_at_hour: 9, open_at_minute: 30, close_at_hour: 18, close_at_minute: 0 });
    expect(result.retailer_location_hours[1]).toMatchObject({ open: false, open_at_hour: null, close_at_hour: null, open_at: null });
    expect(result.retailer_location_products).toEqual([
      {
        product_id: world.lamp.id, sku: 'LAMP-1', name: 'Desk lamp', category: 'Lamps', url: 'https://acme.example.test/lamp', external_id: 'ext-lamp',
        collection_id: world.collection.id, stocked: true, available: true,
        images: [
          { id: expect.any(String), url: 'https://img.example.test/LAMP-1/0.jpg', thumbnail_url: 'https://img.example.test/LAMP-1/0-thumb.jpg' },
          { id: expect.any(String), url: 'https://img.example.test/LAMP-1/1.jpg', thumbnail_url: 'https://img.example.test/LAMP-1/1-thumb.jpg' },
        ],
      },
      {
        product_id: world.shade.id, sku: 'SHADE-1', name: 'Shade', category: null, url: null, external_id: null,
        collection_id: null, stocked: false, available: true, images: [],
      },
    ]);
  });

  test('a store without a retailer location shows its own name, contact and zone', async () => {
    const res = await search(near('&radius=10km'));
    const result = res.body.results.find((r: any) => r.id === world.own.id);
    expect(result).toMatchObject({
      name: 'Outlet',
      full_name: `${world.net.retailer.name} - Outlet`,
      store_type: null,
      email: { email: 'outlet@example.test' },
      phone_number: null,
    });
    expect(result.retailer_location_hours.every((h: any) => h.timezone === 'America/Chicago')).toBe(true);
    expect(result.retailer_location_hours[1]).toMatchObject({ day: 'tuesday', open: true, open_at_hour: 10, close_at_hour: 16 });
  });

  test('repeated and [] forms of product filters', async () => {
    const lamp = world.lamp.id;
    const forms = [
      `stocked_product_ids=${lamp}`,
      `stocked_product_ids=${lamp}&stocked_product_ids=${world.shade.id}`,
      `stocked_product_ids[]=${lamp}`,
      `stocked_product_ids[]=${lamp}&stocked_product_ids[]=${world.shade.id}`,
      `${Array.from({ length: 30 }, () => `stocked_product_ids[]=${world.shade.id}`).join('&')}&stocked_product_ids[]=${lamp}`,
    ];
    for (const form of forms) {
      const res = await search(near(`&${form}`));
      expect([form, res.body.results.map((r: any) => r.id)]).toEqual([form, [world.full.id]]);
    }
    const none = await search(near(`&stocked_product_ids[]=${world.shade.id}`));
    expect(none.body.results).toEqual([]);
  });

  test('statements per search do not grow with the page: 5 and 15 results cost the same', async () => {
    const em = t.em();
    const net = await lf.locatorNetwork(em, 'Busy brand');
    const type = await lf.storeType(em, net.company, 'Dealer', 1);
    const products: Product[] = [];
    for (let i = 0; i < 3; i++) products.push(await lf.catalogProduct(em, net.company, { images: 2 }));
    for (let i = 0; i < 15; i++) {
      await lf.store(em, net.companyRetailer, {
        latitude: 40 + i * 0.01,
        longitude: -100,
        storeType: i % 2 ? type : null,
        email: `s${i}@example.test`,
        phone: { number: '+15035550100' },
        hours: [{ day: 'monday' }, { day: 'tuesday' }, { day: 'saturday', openAtHour: 20, closeAtHour: 1 }],
        stock: products.map((product, j) => ({ product, stocked: j !== 1, available: j !== 0 })),
      });
    }
    const count = async (perPage: number) => {
      t.resetStatements();
      const res = await search(`cc_id=${net.company.id}&latitude=40&longitude=-100&per_page=${perPage}`);
      expect(res.body.results).toHaveLength(perPage);
      expect(res.body.results.every((r: any) => r.retailer_location_products.length === 3 && r.retailer_location_hours.length === 7)).toBe(true);
      return t.statements.length;
    };
    const five = await count(5);
    const fifteen = await count(15);
    expect(fifteen).toBe(five);
    expect(five).toBe(3); // company, search (page + total + facets), the results (stores with hours and products)
    t.resetStatements();
    await search(`cc_id=${net.company.id}&top_left_latitude=41&top_left_longitude=-101&bottom_right_latitude=39&bottom_right_longitude=-99`);
    expect(t.statements).toHaveLength(3);
  });
});

describe('GET /store_locator/{id}', () => {
  test('any caller, no company: the result under company_retailer_location', async () => {
    const res = await api(t, 'get', `/v1/store_locator/${world.full.id}`);
    expect(res.status).toBe(200);
    const { distance, ...listed } = (await search(near('&radius=1km'))).body.results.find((r: any) => r.id === world.full.id);
    expect(distance).toEqual(expect.any(Number)); // a search result's addition: there is no search point here
    expect(res.body).toEqual({ company_retailer_location: listed });
  });

  test('a store the search does not list (lead flags off) is still shown by id', async () => {
    const res = await api(t, 'get', `/v1/store_locator/${world.hidden.id}`);
    expect(res.status).toBe(200);
    expect(res.body.company_retailer_location.id).toBe(world.hidden.id);
  });

  test.each([
    ['unknown', '00000000-0000-4000-8000-000000000000'],
    ['not a UUID', 'pearl-district'],
    ['SQL', encodeURIComponent("1' or '1'='1")],
  ])('%s id: 404', async (_label, id) => {
    const res = await api(t, 'get', `/v1/store_locator/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, error: 'Not Found', message: `Couldn't find CompanyRetailerLocation with 'id'=${decodeURIComponent(id)}` });
  });
});

describe('hours on a fixed clock', () => {
  // Friday 2026-03-06 23:30 in Portland (PST): the next Sunday is the first day of PDT.
  const now = new Date('2026-03-07T07:30:00Z');
  const app = () => {
    const a = express();
    a.set('query parser', 'extended');
    const deps = { orm: t.orm, config: t.config, search: createSearchBackend(t.config, t.orm), geocoder: new NullGeocoder() };
    a.use('/v1', storeLocatorRouter(deps, { now: () => now }), restErrorHandler);
    return a;
  };

  test('offset now, and the next opening of each day with the offset then in force', async () => {
    const res = await request(app()).get(`/v1/store_locator/${world.full.id}`);
    const hours = res.body.company_retailer_location.retailer_location_hours;
    expect(hours.map((h: any) => [h.day, h.utc_offset_minute, h.open_at])).toEqual([
      ['monday', -480, '2026-03-09T09:30:00-07:00'],
      ['tuesday', -480, null],
      ['wednesday', -480, null],
      ['thursday', -480, null],
      // Friday's 18:00-02:00 shift is under way; its next opening is a week on.
      ['friday', -480, '2026-03-13T18:00:00-07:00'],
      ['saturday', -480, null],
      ['sunday', -480, null],
    ]);
    expect(hours[4]).toMatchObject({ open_at_hour: 18, close_at_hour: 2 });
  });
});

describe('browsers', () => {
  test('any origin may read it, and ask first with X-Cc-Id', async () => {
    const res = await search(near(), { Origin: 'https://shop.example.test' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const preflight = await request(t.app)
      .options('/v1/store_locator')
      .set('Origin', 'https://shop.example.test')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'x-cc-id');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/X-Cc-Id/i);
    const show = await request(t.app).get(`/v1/store_locator/${world.full.id}`).set('Origin', 'https://shop.example.test');
    expect(show.headers['access-control-allow-origin']).toBe('*');
  });

  test('other /v1 routes are not opened to browsers', async () => {
    const res = await request(t.app).get('/v1/products').set('Origin', 'https://shop.example.test');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
