import { createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { world, type World } from '../support/network';
import { RecordingGeocoder } from '../support/geocoder';
import { Role } from '../../src/modules/user/role';
import { Location } from '../../src/modules/contact/location.entity';
import { CompanyStoreType } from '../../src/modules/company-store-type/company-store-type.entity';

const geocoder = new RecordingGeocoder();
let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await createTestApp({}, { geocoder });
  w = await world(t.em());
});
afterAll(() => t.close());

/** The data of a successful call. */
async function ok(key: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(t, key, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** The first error of a failed call: code and details. */
async function fails(key: string | null, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(t, key, query, variables);
  expect(res.body.errors).toBeDefined();
  const [error] = res.body.errors;
  return { code: error.extensions.code as string, details: (error.extensions.details ?? []) as Array<{ field: string; code: string }>, message: error.message };
}

const fieldCodes = (details: Array<{ field: string; code: string }>) => details.map((d) => `${d.field}:${d.code}`).sort();

describe('companies and retailers: the platform operator manages them', () => {
  test('create, update, list, and delete halted while the company works with retailers', async () => {
    const op = w.keys.platform_operator;
    const { createCompany } = await ok(op, 'mutation($i: CompanyInput!) { createCompany(input: $i) { id name } }', { i: { name: '  Zenith ' } });
    expect(createCompany.name).toBe('Zenith');
    const { updateCompany } = await ok(op, 'mutation($id: ID!) { updateCompany(id: $id, input: { name: "Zenith Co" }) { name } }', { id: createCompany.id });
    expect(updateCompany.name).toBe('Zenith Co');
    const { companies } = await ok(op, '{ companies(q: "zenith") { nodes { id } meta { total } } }');
    expect(companies.nodes).toEqual([{ id: createCompany.id }]);
    expect((await fails(op, 'mutation { createCompany(input: { name: " " }) { id } }')).details).toEqual([
      expect.objectContaining({ field: 'name', code: 'blank' }),
    ]);
    const halted = await fails(op, 'mutation($id: ID!) { deleteCompany(id: $id) }', { id: w.B.id });
    expect(halted).toMatchObject({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ field: 'base', code: 'restrict_dependent_destroy' })] });
    expect(await ok(op, 'mutation($id: ID!) { deleteCompany(id: $id) }', { id: createCompany.id })).toEqual({ deleteCompany: createCompany.id });
    expect((await fails(op, 'query($id: ID!) { company(id: $id) { id } }', { id: createCompany.id })).code).toBe('NOT_FOUND');
  });

  test('retailers likewise; deleting one halted while companies work with it', async () => {
    const op = w.keys.platform_operator;
    const { createRetailer } = await ok(op, 'mutation { createRetailer(input: { name: "Lakeside" }) { id name } }');
    expect(createRetailer.name).toBe('Lakeside');
    expect((await fails(op, 'mutation($id: ID!) { deleteRetailer(id: $id) }', { id: w.R.id })).details[0].code).toBe('restrict_dependent_destroy');
    expect(await ok(op, 'mutation($id: ID!) { deleteRetailer(id: $id) }', { id: createRetailer.id })).toEqual({ deleteRetailer: createRetailer.id });
  });

  test('others read what they work with and may not write: FORBIDDEN when visible, NOT_FOUND when not', async () => {
    const { companies } = await ok(w.keys.retailer_admin, '{ companies { nodes { id } } }');
    expect(companies.nodes).toEqual([{ id: w.A.id }]);
    const { retailers } = await ok(w.keys.company_admin, '{ retailers { nodes { id } } }');
    expect(retailers.nodes.map((r: any) => r.id).sort()).toEqual([w.R.id, w.R2.id].sort());
    expect((await fails(w.keys.company_admin, 'mutation { createCompany(input: { name: "x" }) { id } }')).code).toBe('FORBIDDEN');
    expect((await fails(w.keys.company_admin, 'mutation($id: ID!) { updateCompany(id: $id, input: { name: "x" }) { id } }', { id: w.A.id })).code).toBe('FORBIDDEN');
    expect((await fails(w.keys.company_admin, 'mutation($id: ID!) { updateCompany(id: $id, input: { name: "x" }) { id } }', { id: w.B.id })).code).toBe('NOT_FOUND');
    expect((await fails(w.keys.retailer_admin, 'mutation($id: ID!) { updateRetailer(id: $id, input: { name: "x" }) { id } }', { id: w.R.id })).code).toBe('FORBIDDEN');
    expect((await fails(null, '{ companies { nodes { id } } }')).code).toBe('UNAUTHENTICATED');
  });
});

describe('retailer locations', () => {
  const CREATE = `mutation($i: RetailerLocationInput!) {
    createRetailerLocation(input: $i) {
      id name timezone website placeId retailer { id }
      physicalAddress { city latitude longitude }
      generalEmail { email } generalPhoneNumber { phoneNumber formatted }
      hours { day open openAtHour closeAtHour }
    }
  }`;

  test('the operator creates a store with explicit coordinates, which win over geocoding', async () => {
    geocoder.calls.length = 0;
    const { createRetailerLocation: rl } = await ok(w.keys.platform_operator, CREATE, {
      i: {
        retailerId: w.R2.id,
        name: 'Summit Lodge',
        timezone: 'America/Denver',
        website: 'https://summit.test',
        placeId: 'ChIJ-summit',
        physicalAddress: { streetLineOne: '1 Peak Rd', city: 'Boulder', province: 'CO', country: 'US', latitude: 40.015, longitude: -105.27 },
        generalEmail: { email: 'lodge@summit.test' },
        generalPhoneNumber: { phoneNumber: '303-441-3388', countryCode: 'US' },
        hours: [
          { day: 'saturday', open: true, openAtHour: 8, openAtMinute: 0, closeAtHour: 16, closeAtMinute: 0 },
          { day: 'monday', open: false },
        ],
      },
    });
    expect(rl).toMatchObject({
      name: 'Summit Lodge',
      timezone: 'America/Denver',
      retailer: { id: w.R2.id },
      physicalAddress: { city: 'Boulder', latitude: 40.015, longitude: -105.27 },
      generalEmail: { email: 'lodge@summit.test' },
      generalPhoneNumber: { phoneNumber: '+13034413388', formatted: '+1 303 441 3388' },
      hours: [
        { day: 'monday', open: false, openAtHour: null, closeAtHour: null },
        { day: 'saturday', open: true, openAtHour: 8, closeAtHour: 16 },
      ],
    });
    expect(geocoder.calls).toEqual([]);
    const UPDATE = 'mutation($id: ID!, $i: RetailerLocationInput!) { updateRetailerLocation(id: $id, input: $i) { physicalAddress { city latitude longitude } } }';
    const moved = await ok(w.keys.platform_operator, UPDATE, { id: rl.id, i: { physicalAddress: { city: 'Louisville' } } });
    expect(moved.updateRetailerLocation.physicalAddress).toEqual({ city: 'Louisville', latitude: 40.015, longitude: -105.27 });
    expect(geocoder.calls).toEqual([]);
    const cleared = await ok(w.keys.platform_operator, UPDATE, { id: rl.id, i: { physicalAddress: { latitude: null, longitude: null } } });
    expect(cleared.updateRetailerLocation.physicalAddress).toEqual({ city: 'Louisville', latitude: 45.52, longitude: -122.68 });
    expect(geocoder.calls).toHaveLength(1);
    const stored = await t.em().findOneOrFail(Location, { city: 'Louisville' });
    expect(stored.coordinatesSource).toBe('geocoder');
  });

  test('validation: IANA zone names, coordinates in pairs and in range, hours; BAD_USER_INPUT with details', async () => {
    const res = await fails(w.keys.platform_operator, CREATE, {
      i: {
        retailerId: w.R2.id,
        timezone: 'PST',
        physicalAddress: { latitude: 91 },
        generalEmail: { email: 'nope' },
        hours: [{ day: 'monday', open: true, openAtHour: 9 }],
      },
    });
    expect(res.code).toBe('BAD_USER_INPUT');
    expect(fieldCodes(res.details)).toEqual(
      [
        'name:blank',
        'timezone:invalid',
        'physical_address.longitude:blank',
        'general_email.email:invalid',
        'hours.open_at_minute:blank',
        'hours.close_at_hour:blank',
        'hours.close_at_minute:blank',
      ].sort(),
    );
    for (const zone of ['Europe/Paris', 'UTC', 'US/Eastern']) {
      const { createRetailerLocation } = await ok(w.keys.platform_operator, 'mutation($i: RetailerLocationInput!) { createRetailerLocation(input: $i) { timezone } }', {
        i: { retailerId: w.R2.id, name: `Zone ${zone}`, timezone: zone },
      });
      expect(createRetailerLocation.timezone).toBe(zone);
    }
    const range = await fails(w.keys.platform_operator, CREATE, { i: { retailerId: w.R2.id, name: 'x', physicalAddress: { latitude: 10, longitude: 190 } } });
    expect(fieldCodes(range.details)).toEqual(['physical_address.longitude:invalid']);
  });

  test('stores are visible to their retailer (a store manager: its own) and to the companies working with it', async () => {
    const em = t.em();
    const loner = await f.retailer(em, 'Loner');
    const lonely = await f.retailerLocation(em, loner, { name: 'Lonely Store' });
    const list = async (key: string) => (await ok(key, '{ retailerLocations(perPage: 500) { nodes { id } } }')).retailerLocations.nodes.map((n: any) => n.id);
    const forCompany = await list(w.keys.company_location_user);
    expect(forCompany).toEqual(expect.arrayContaining([w.rl1.id, w.crlOtherRetailer.retailerLocation!.id]));
    expect(forCompany).not.toContain(lonely.id);
    expect(await list(w.keys.retailer_store_manager)).toEqual([w.rl1.id]);
    const forRetailer = await list(w.keys.retailer_admin);
    expect(forRetailer).toContain(w.rl1.id);
    expect(forRetailer).not.toContain(w.crlOtherRetailer.retailerLocation!.id);
    expect(await list(w.keys.platform_operator)).toContain(lonely.id);
    const { retailerLocations } = await ok(w.keys.company_admin, '{ retailerLocations(q: "riverside downtown") { nodes { name retailer { name } } } }');
    expect(retailerLocations.nodes).toEqual([{ name: 'Riverside Downtown', retailer: { name: 'Riverside Outfitters' } }]);
  });

  test("a retailer admin manages its retailer's stores; others read or are refused", async () => {
    const admin = w.keys.retailer_admin;
    const { createRetailerLocation: rl } = await ok(admin, 'mutation { createRetailerLocation(input: { name: "Riverside East" }) { id retailer { id } } }');
    expect(rl.retailer.id).toBe(w.R.id);
    expect((await fails(admin, 'mutation($r: UUID!) { createRetailerLocation(input: { name: "x", retailerId: $r }) { id } }', { r: w.R2.id })).code).toBe('FORBIDDEN');
    const UPDATE = 'mutation($id: ID!) { updateRetailerLocation(id: $id, input: { website: "https://east.test" }) { website } }';
    expect(await ok(admin, UPDATE, { id: rl.id })).toEqual({ updateRetailerLocation: { website: 'https://east.test' } });
    expect((await fails(w.keys.retailer_store_manager, UPDATE, { id: w.rl1.id })).code).toBe('FORBIDDEN');
    expect((await fails(w.keys.retailer_store_manager, UPDATE, { id: rl.id })).code).toBe('NOT_FOUND');
    expect((await fails(w.keys.company_admin, UPDATE, { id: rl.id })).code).toBe('FORBIDDEN');
    const bAdmin = await f.userWithKey(t.em(), Role.CompanyAdmin, w.B);
    expect((await fails(bAdmin.key, UPDATE, { id: rl.id })).code).toBe('NOT_FOUND');
    const halted = await fails(admin, 'mutation($id: ID!) { deleteRetailerLocation(id: $id) }', { id: w.rl1.id });
    expect(halted.details[0].code).toBe('restrict_dependent_destroy');
    expect(await ok(admin, 'mutation($id: ID!) { deleteRetailerLocation(id: $id) }', { id: rl.id })).toEqual({ deleteRetailerLocation: rl.id });
  });
});

describe("a company's territories, store types and collections", () => {
  test('a company admin manages its own; names are unique per company', async () => {
    const admin = w.keys.company_admin;
    const { createTerritory } = await ok(admin, 'mutation { createTerritory(input: { name: "East" }) { id name companyId company { name } } }');
    expect(createTerritory).toMatchObject({ name: 'East', companyId: w.A.id, company: { name: 'Acme' } });
    expect((await fails(admin, 'mutation { createTerritory(input: { name: "North" }) { id } }')).details).toEqual([expect.objectContaining({ field: 'name', code: 'taken' })]);
    expect((await fails(admin, 'mutation($c: UUID!) { createTerritory(input: { name: "X", companyId: $c }) { id } }', { c: w.B.id })).code).toBe('FORBIDDEN');
    const { updateTerritory } = await ok(admin, 'mutation($id: ID!) { updateTerritory(id: $id, input: { name: "Far East" }) { name } }', { id: createTerritory.id });
    expect(updateTerritory.name).toBe('Far East');
    const { territories } = await ok(admin, '{ territories(order: [NAME_ASC]) { nodes { name } meta { total } } }');
    expect(territories.nodes.map((n: any) => n.name)).toEqual(['Far East', 'North', 'South']);
    expect(await ok(admin, 'mutation($id: ID!) { deleteTerritory(id: $id) }', { id: createTerritory.id })).toEqual({ deleteTerritory: createTerritory.id });

    const { createCompanyStoreType: type } = await ok(admin, 'mutation { createCompanyStoreType(input: { name: "Flagship", boost: 2 }) { id name boost } }');
    expect(type).toMatchObject({ name: 'Flagship', boost: 2 });
    expect((await fails(admin, 'mutation { createCompanyStoreType(input: { name: "Outlet", boost: -1 }) { id } }')).details).toEqual([
      expect.objectContaining({ field: 'boost', code: 'invalid' }),
    ]);
    const { createCompanyStoreType: plain } = await ok(admin, 'mutation { createCompanyStoreType(input: { name: "Dealer" }) { boost } }');
    expect(plain.boost).toBe(0);
    // A store type's company id (a getter over its company) reads the same on a written record and a listed one.
    expect((await ok(admin, 'mutation { createCompanyStoreType(input: { name: "Kiosk" }) { companyId } }')).createCompanyStoreType).toEqual({ companyId: w.A.id });
    const { companyStoreTypes } = await ok(admin, '{ companyStoreTypes { nodes { name companyId } } }');
    expect(companyStoreTypes.nodes).toEqual(expect.arrayContaining([{ name: 'Flagship', companyId: w.A.id }, { name: 'Kiosk', companyId: w.A.id }]));
    const { createCollection } = await ok(admin, 'mutation { createCollection(input: { name: "Summer" }) { id name } }');
    expect(createCollection.name).toBe('Summer');
  });

  test('the operator names the company; other roles read their company’s or nothing', async () => {
    const op = w.keys.platform_operator;
    expect((await fails(op, 'mutation { createCollection(input: { name: "Winter" }) { id } }')).details).toEqual([expect.objectContaining({ field: 'company_id', code: 'blank' })]);
    const { createCollection } = await ok(op, 'mutation($c: UUID!) { createCollection(input: { name: "Winter", companyId: $c }) { companyId } }', { c: w.B.id });
    expect(createCollection.companyId).toBe(w.B.id);
    const manager = w.keys.company_territory_manager;
    expect((await ok(manager, '{ territories { meta { total } } }')).territories.meta.total).toBe(2);
    expect((await fails(manager, 'mutation { createTerritory(input: { name: "Mine" }) { id } }')).code).toBe('FORBIDDEN');
    expect((await fails(manager, 'mutation($id: ID!) { updateTerritory(id: $id, input: { name: "x" }) { id } }', { id: w.north.id })).code).toBe('FORBIDDEN');
    expect((await ok(w.keys.retailer_admin, '{ territories { meta { total } } }')).territories.meta.total).toBe(0);
    expect((await fails(w.keys.retailer_admin, 'query($id: ID!) { territory(id: $id) { id } }', { id: w.north.id })).code).toBe('NOT_FOUND');
  });
});

describe('product images', () => {
  test('a company admin adds images to its products, listed by position', async () => {
    const em = t.em();
    const product = await f.product(em, w.A);
    const foreign = await f.product(em, w.B);
    const admin = w.keys.company_admin;
    const CREATE = 'mutation($i: ProductImageInput!) { createProductImage(input: $i) { id url thumbnailUrl position productId } }';
    const second = await ok(admin, CREATE, { i: { productId: product.id, url: 'https://img.test/2.jpg', position: 2 } });
    const first = await ok(admin, CREATE, { i: { productId: product.id, url: 'https://img.test/1.jpg', thumbnailUrl: 'https://img.test/1-t.jpg', position: 1 } });
    expect(first.createProductImage).toMatchObject({ url: 'https://img.test/1.jpg', thumbnailUrl: 'https://img.test/1-t.jpg', productId: product.id });
    const { product: read } = await ok(admin, 'query($id: ID!) { product(id: $id) { images { url } } }', { id: product.id });
    expect(read.images.map((i: any) => i.url)).toEqual(['https://img.test/1.jpg', 'https://img.test/2.jpg']);
    const bad = await fails(admin, CREATE, { i: { productId: product.id, url: 'ftp://img.test/x', position: -1 } });
    expect(fieldCodes(bad.details)).toEqual(['position:invalid', 'url:invalid']);
    expect((await fails(admin, CREATE, { i: { productId: foreign.id, url: 'https://img.test/x.jpg' } })).code).toBe('FORBIDDEN');
    expect((await fails(w.keys.company_territory_manager, CREATE, { i: { productId: product.id, url: 'https://img.test/x.jpg' } })).code).toBe('FORBIDDEN');
    const { productImages } = await ok(w.keys.platform_operator, 'query($p: ID!) { productImages(productId: $p) { id } }', { p: product.id });
    expect(productImages).toHaveLength(2);
    const UPDATE = 'mutation($id: ID!) { updateProductImage(id: $id, input: { position: 5 }) { position } }';
    expect(await ok(admin, UPDATE, { id: second.createProductImage.id })).toEqual({ updateProductImage: { position: 5 } });
    const bAdmin = await f.userWithKey(t.em(), Role.CompanyAdmin, w.B);
    expect((await fails(bAdmin.key, UPDATE, { id: second.createProductImage.id })).code).toBe('NOT_FOUND');
    expect(await ok(admin, 'mutation($id: ID!) { deleteProductImage(id: $id) }', { id: second.createProductImage.id })).toEqual({
      deleteProductImage: second.createProductImage.id,
    });
  });
});

describe('stock', () => {
  test('set per store and product (created, then changed), read on the store, deleted', async () => {
    const product = await f.product(t.em(), w.A);
    const admin = w.keys.company_admin;
    const SET = 'mutation($i: StockInput!) { setStock(input: $i) { id stocked available productId companyRetailerLocationId } }';
    const created = await ok(admin, SET, { i: { companyRetailerLocationId: w.crlIn.id, productId: product.id, stocked: true } });
    expect(created.setStock).toMatchObject({ stocked: true, available: false, productId: product.id, companyRetailerLocationId: w.crlIn.id });
    const changed = await ok(admin, SET, { i: { companyRetailerLocationId: w.crlIn.id, productId: product.id, available: true } });
    expect(changed.setStock).toEqual({ ...created.setStock, available: true });
    const { companyRetailerLocation } = await ok(w.keys.company_location_user, 'query($id: ID!) { companyRetailerLocation(id: $id) { stocks { productId stocked available } } }', {
      id: w.crlIn.id,
    });
    expect(companyRetailerLocation.stocks).toEqual([{ productId: product.id, stocked: true, available: true }]);
    expect((await ok(w.keys.platform_operator, 'query($c: ID!) { stocks(companyRetailerLocationId: $c) { id } }', { c: w.crlIn.id })).stocks).toHaveLength(1);
    const foreign = await f.product(t.em(), w.B);
    expect((await fails(admin, SET, { i: { companyRetailerLocationId: w.crlIn.id, productId: foreign.id } })).details).toEqual([
      expect.objectContaining({ field: 'product_id', code: 'invalid' }),
    ]);
    expect((await fails(admin, SET, { i: { companyRetailerLocationId: w.crlB.id, productId: product.id } })).code).toBe('FORBIDDEN');
    expect((await fails(w.keys.company_territory_manager, SET, { i: { companyRetailerLocationId: w.crlIn.id, productId: product.id } })).code).toBe('FORBIDDEN');
    expect((await fails(w.keys.company_location_user, 'mutation($id: ID!) { deleteStock(id: $id) }', { id: created.setStock.id })).code).toBe('FORBIDDEN');
    // A level is seen through its store: another store's user, another company's admin and a store manager of another store do not see it.
    const otherStore = await f.userWithKey(t.em(), Role.CompanyLocationUser, w.A, { companyRetailerLocations: [w.crlSameCr] });
    const otherCompany = await f.userWithKey(t.em(), Role.CompanyAdmin, w.B);
    for (const key of [otherStore.key, otherCompany.key]) {
      expect((await fails(key, 'mutation($id: ID!) { deleteStock(id: $id) }', { id: created.setStock.id })).code).toBe('NOT_FOUND');
      expect((await fails(key, 'query($c: ID!) { stocks(companyRetailerLocationId: $c) { id } }', { c: w.crlIn.id })).code).toBe('NOT_FOUND');
    }
    expect((await ok(w.keys.retailer_store_manager, 'query($c: ID!) { stocks(companyRetailerLocationId: $c) { id } }', { c: w.crlIn.id })).stocks).toHaveLength(1);
    expect((await fails(w.keys.company_location_user, 'query($c: ID!) { stocks(companyRetailerLocationId: $c) { id } }', { c: w.crlSameCr.id })).code).toBe('NOT_FOUND');
    expect(await ok(admin, 'mutation($id: ID!) { deleteStock(id: $id) }', { id: created.setStock.id })).toEqual({ deleteStock: created.setStock.id });
  });
});

describe('company retailers and CRLs in GraphQL', () => {
  test('the same rules as REST: writable attributes, FORBIDDEN for sales associates, NOT_FOUND out of scope', async () => {
    const UPDATE = 'mutation($id: ID!, $i: CompanyRetailerLocationInput!) { updateCompanyRetailerLocation(id: $id, input: $i) { name receivingLeads recordCalls } }';
    const local = await world(t.em());
    const res = await ok(local.keys.company_location_user, UPDATE, { id: local.crlIn.id, i: { name: 'No', receivingLeads: false, recordCalls: true } });
    expect(res.updateCompanyRetailerLocation).toEqual({ name: 'Riverside Downtown', receivingLeads: false, recordCalls: true });
    expect((await fails(local.keys.company_sales_associate, UPDATE, { id: local.crlIn.id, i: {} })).code).toBe('FORBIDDEN');
    expect((await fails(local.keys.company_location_user, UPDATE, { id: local.crlSameCr.id, i: {} })).code).toBe('NOT_FOUND');
    expect((await fails(local.keys.platform_operator, '{ companyRetailers { nodes { id } } }')).code).toBe('FORBIDDEN');
  });

  test('a page of company retailers with what they embed costs the same for 5 and 50 rows, for an admin of either side', async () => {
    const em = t.em();
    const acme = await f.company(em, 'Embeds');
    const wide = await f.retailer(em, 'Embeds Retail');
    for (let i = 0; i < 50; i++) {
      const owner = i % 2 ? acme : await f.company(em);
      const seller = i % 2 ? await f.retailer(em) : wide;
      const cr = await f.companyRetailer(em, owner, seller, { territory: await f.territory(em, owner), physicalAddress: await f.location(em) });
      await f.crl(em, cr);
    }
    const companyAdmin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const retailerAdmin = await f.userWithKey(em, Role.RetailerAdmin, wide);
    const QUERY = `query($n: Int) { companyRetailers(perPage: $n) { nodes {
      company { name } retailer { name } territory { name } physicalAddress { city } retailerLocationsCount
    } } }`;
    const count = async (key: string, n: number, territory: 'seen' | 'unseen') => {
      t.resetStatements();
      const { companyRetailers } = await ok(key, QUERY, { n });
      expect(companyRetailers.nodes).toHaveLength(Math.min(n, 25));
      for (const node of companyRetailers.nodes) {
        expect(node).toMatchObject({ company: { name: expect.any(String) }, retailer: { name: expect.any(String) }, physicalAddress: { city: 'Portland' }, retailerLocationsCount: 1 });
        expect(node.territory === null).toBe(territory === 'unseen');
      }
      return t.statements.length;
    };
    expect(await count(companyAdmin.key, 5, 'seen')).toBe(await count(companyAdmin.key, 25, 'seen'));
    expect(await count(retailerAdmin.key, 5, 'unseen')).toBe(await count(retailerAdmin.key, 25, 'unseen'));
  });

  test('a dashboard page of CRLs with their associations costs the same for 5 and 50 rows', async () => {
    const em = t.em();
    const acme = await f.company(em, 'Dash');
    const seller = await f.retailer(em);
    const type = em.create(CompanyStoreType, { company: acme, name: 'Dealer' });
    const cr = await f.companyRetailer(em, acme, seller, { territory: await f.territory(em, acme, 'All') });
    for (let i = 0; i < 50; i++) await f.crl(em, cr, { companyStoreType: type });
    const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const QUERY = `query($n: Int) { companyRetailerLocations(perPage: $n) { nodes {
      name territory { name } company { name } companyStoreType { name boost } stocks { id }
      companyRetailer { name retailerLocationsCount retailer { name } territory { name } }
      retailerLocation { name retailer { name } hours { day } physicalAddress { city } }
    } } }`;
    const count = async (n: number) => {
      t.resetStatements();
      const data = await ok(admin.key, QUERY, { n });
      expect(data.companyRetailerLocations.nodes).toHaveLength(n);
      expect(data.companyRetailerLocations.nodes[0]).toMatchObject({ companyStoreType: { name: 'Dealer' }, companyRetailer: { retailerLocationsCount: 50 } });
      return t.statements.length;
    };
    expect(await count(5)).toBe(await count(50));
  });
});
