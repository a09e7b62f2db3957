import { createHash } from 'node:crypto';
import request from 'supertest';
import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import type { Company } from '../../src/modules/company/company.entity';
import type { Product } from '../../src/modules/product/product.entity';
import { Collection } from '../../src/modules/collection/collection.entity';

let t: TestApp;
let acme: Company;
let other: Company;
let anvil: Product;
let foreign: Product;
const keys: Partial<Record<Role | 'otherAdmin', string>> = {};

beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  acme = await f.company(em, 'Acme');
  other = await f.company(em, 'Other');
  const seller = await f.retailer(em);
  anvil = await f.product(em, acme, { sku: 'ANV-1', name: 'Anvil', category: 'Tools' });
  foreign = await f.product(em, other, { sku: 'OTH-1', name: 'Other thing' });
  for (const role of [Role.CompanyAdmin, Role.CompanyTerritoryManager, Role.CompanyRetailerManager, Role.CompanyLocationUser, Role.CompanySalesAssociate]) {
    keys[role] = (await f.userWithKey(em, role, acme)).key;
  }
  for (const role of [Role.RetailerAdmin, Role.RetailerStoreManager]) keys[role] = (await f.userWithKey(em, role, seller)).key;
  keys[Role.PlatformOperator] = (await f.userWithKey(em, Role.PlatformOperator, null)).key;
  keys.otherAdmin = (await f.userWithKey(em, Role.CompanyAdmin, other)).key;
});
afterAll(() => t.close());

const admin = () => keys[Role.CompanyAdmin]!;
const serialized = (p: Product) => ({
  id: p.id,
  sku: p.sku,
  name: p.name,
  category: p.category ?? null,
  url: p.url ?? null,
  collection_id: null,
  external_id: p.externalId ?? null,
  company_id: p.company.id,
});

describe('authentication (SPEC 5)', () => {
  test('a missing key is 401', async () => {
    const res = await api(t, 'get', '/v1/products');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
  });

  test.each([
    ['unknown', 'lnk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['malformed', 'not a key!'],
    ['empty after the colon', 'partner:'],
  ])('an %s key is 401 with the same body', async (_name, key) => {
    const res = await api(t, 'get', '/v1/products', { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
  });

  test('both header forms work: the key is what follows the last colon', async () => {
    for (const header of [admin(), `partner:${admin()}`, `a:b:${admin()}`]) {
      const res = await api(t, 'get', '/v1/products', { key: header });
      expect(res.status).toBe(200);
    }
  });

  test('a revoked key is 401', async () => {
    const em = t.em();
    const { user, key } = await f.userWithKey(em, Role.CompanyAdmin, acme);
    await em.getConnection().execute('update api_keys set revoked_at = now() where user_id = ?', [user.id]);
    expect((await api(t, 'get', '/v1/products', { key })).status).toBe(401);
  });

  test('only the hash of a key is stored', async () => {
    const rows = await t.em().getConnection().execute('select * from api_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(admin());
    expect(rows.every((r: any) => /^[0-9a-f]{64}$/.test(r.key_hash))).toBe(true);
  });

  test('the platform operator has no access to /v1 resources (403)', async () => {
    const res = await api(t, 'get', '/v1/products', { key: keys[Role.PlatformOperator] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Unauthorized', status: 403 });
  });
});

describe('errors (SPEC 7)', () => {
  test('malformed JSON is 400 with the parser detail', async () => {
    const res = await api(t, 'post', '/v1/products', { key: admin(), raw: '{"product": {"sku": ' });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message).toMatch(/^Invalid JSON: .+/);
  });

  test('an unknown id is 404 naming the type and id', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const res = await api(t, 'get', `/v1/products/${id}`, { key: admin() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, error: 'Not Found', message: `Couldn't find Product with 'id'=${id}` });
  });

  test('a non-UUID id is 404', async () => {
    const res = await api(t, 'get', '/v1/products/not-a-uuid', { key: admin() });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Couldn't find Product with 'id'=not-a-uuid");
  });

  test('an unknown route is a JSON 404', async () => {
    const res = await request(t.app).get('/v1/nothing-here').set('X-Api-Key', admin());
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, error: 'Not Found' });
  });

  test('a missing root key is 422 missing, with all five envelope fields', async () => {
    for (const body of [{}, { sku: 'X' }, { product: null }, { product: 'x' }, []]) {
      const res = await api(t, 'post', '/v1/products', { key: admin(), body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        status: 422,
        error: 'Unprocessable Entity',
        message: expect.any(String),
        errors: { product: [expect.any(String)] },
        details: [{ field: 'product', code: 'missing', message: expect.any(String), full_message: expect.stringMatching(/^Product /) }],
      });
    }
  });

  test('the root is required on update as well', async () => {
    const res = await api(t, 'patch', `/v1/products/${anvil.id}`, { key: admin(), body: { name: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toMatchObject({ field: 'product', code: 'missing' });
  });
});

describe('visibility (PRODUCT.md 3)', () => {
  test('company users see only their company products', async () => {
    for (const role of [Role.CompanyAdmin, Role.CompanySalesAssociate, Role.CompanyTerritoryManager]) {
      const res = await api(t, 'get', '/v1/products', { key: keys[role] });
      expect(res.status).toBe(200);
      expect(res.body.products.map((p: any) => p.id)).toContain(anvil.id);
      expect(res.body.products.map((p: any) => p.id)).not.toContain(foreign.id);
    }
  });

  test('retailer users see all products', async () => {
    for (const role of [Role.RetailerAdmin, Role.RetailerStoreManager]) {
      const res = await api(t, 'get', '/v1/products?opts[per_page]=500', { key: keys[role] });
      const ids = res.body.products.map((p: any) => p.id);
      expect(ids).toEqual(expect.arrayContaining([anvil.id, foreign.id]));
    }
  });

  test('show serializes SPEC 2.6 fields; another company product is 404', async () => {
    const res = await api(t, 'get', `/v1/products/${anvil.id}`, { key: keys[Role.CompanyLocationUser] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(serialized(anvil));
    const hidden = await api(t, 'get', `/v1/products/${foreign.id}`, { key: admin() });
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe(`Couldn't find Product with 'id'=${foreign.id}`);
  });

  test('a list row is the show body exactly (SPEC 2.6 fields, no timestamps), and never another company product', async () => {
    const res = await api(t, 'get', `/v1/products?opts[where][id][]=${anvil.id}&opts[where][id][]=${foreign.id}`, { key: admin() });
    expect(res.status).toBe(200);
    expect(res.body.products).toEqual([serialized(anvil)]);
  });
});

describe('writes (PRODUCT.md 4)', () => {
  test('a company admin creates a product; company_id defaults to its company', async () => {
    const res = await api(t, 'post', '/v1/products', {
      key: admin(),
      body: { product: { sku: 'NEW-1', name: 'New', category: 'Misc', url: 'https://x.test/p', external_id: 'E1' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sku: 'NEW-1', name: 'New', category: 'Misc', url: 'https://x.test/p', external_id: 'E1', company_id: acme.id, collection_id: null });
    const shown = await api(t, 'get', `/v1/products/${res.body.id}`, { key: admin() });
    expect(shown.body).toEqual(res.body);
  });

  test('sku and name are required (422 blank, one detail each)', async () => {
    const res = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { category: 'x', name: '  ' } } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      { field: 'sku', code: 'blank', message: "can't be blank", full_message: "Sku can't be blank" },
      { field: 'name', code: 'blank', message: "can't be blank", full_message: "Name can't be blank" },
    ]);
    expect(res.body.errors).toEqual({ sku: ["can't be blank"], name: ["can't be blank"] });
  });

  test('a duplicate sku in the company is 422 taken; the same sku in another company is fine', async () => {
    const dup = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'ANV-1', name: 'Again' } } });
    expect(dup.status).toBe(422);
    expect(dup.body.details).toEqual([{ field: 'sku', code: 'taken', message: 'has already been taken', full_message: 'Sku has already been taken' }]);
    const elsewhere = await api(t, 'post', '/v1/products', { key: keys.otherAdmin, body: { product: { sku: 'ANV-1', name: 'Theirs' } } });
    expect(elsewhere.status).toBe(201);
  });

  test('concurrent creates of one SKU give one 201 and 422s, never a 500', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'RACE-1', name: 'Race' } } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(9);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.details[0]).toMatchObject({ field: 'sku', code: 'taken' });
    const [{ count }] = await t.em().getConnection().execute("select count(*)::int as count from products where sku = 'RACE-1'");
    expect(count).toBe(1);
  });

  test("another company's company_id is 403; a malformed one is 422 invalid", async () => {
    const res = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'Z', name: 'Z', company_id: other.id } } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Unauthorized', status: 403 });
    const bad = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'Z', name: 'Z', company_id: 'nope' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'company_id', code: 'invalid' })]);
  });

  test('values of the wrong type are 422 invalid on the attribute, not a 500', async () => {
    const res = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: { a: 1 }, name: ['x'] } } });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: any) => [d.field, d.code])).toEqual(expect.arrayContaining([['sku', 'invalid']]));
  });

  test('a collection of another company is 422 invalid', async () => {
    const em = t.em();
    const theirs = em.create(Collection, { company: other, name: 'Theirs' });
    await em.flush();
    const res = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'C1', name: 'C', collection_id: theirs.id } } });
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toMatchObject({ field: 'collection_id', code: 'invalid' });
    const mine = em.create(Collection, { company: acme, name: 'Mine' });
    await em.flush();
    const ok = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'C2', name: 'C', collection_id: mine.id } } });
    expect(ok.status).toBe(201);
    expect(ok.body.collection_id).toBe(mine.id);
  });

  test('unknown attributes are dropped, or 422 unpermitted with STRICT_PARAMS', async () => {
    const lax = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'U1', name: 'U', id: 'x', color: 'red' } } });
    expect(lax.status).toBe(201);
    const strict = await createTestApp({ STRICT_PARAMS: 'true' });
    try {
      const em = strict.em();
      const c = await f.company(em);
      const { key } = await f.userWithKey(em, Role.CompanyAdmin, c);
      const res = await api(strict, 'post', '/v1/products', { key, body: { product: { sku: 'U1', name: 'U', color: 'red', size: 3 } } });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([
        { field: 'color', code: 'unpermitted', message: 'is not permitted', full_message: 'Color is not permitted' },
        { field: 'size', code: 'unpermitted', message: 'is not permitted', full_message: 'Size is not permitted' },
      ]);
    } finally {
      await strict.close();
    }
  });

  test('update changes only what is sent; blank is 422 and writes nothing', async () => {
    const created = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'UP-1', name: 'Before', category: 'C' } } });
    const res = await api(t, 'patch', `/v1/products/${created.body.id}`, { key: admin(), body: { product: { name: 'After' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sku: 'UP-1', name: 'After', category: 'C' });
    const blank = await api(t, 'patch', `/v1/products/${created.body.id}`, { key: admin(), body: { product: { name: '', category: 'D' } } });
    expect(blank.status).toBe(422);
    const after = await api(t, 'get', `/v1/products/${created.body.id}`, { key: admin() });
    expect(after.body).toMatchObject({ name: 'After', category: 'C' });
  });

  test('update to a taken sku is 422 taken', async () => {
    const created = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'UP-2', name: 'x' } } });
    const res = await api(t, 'patch', `/v1/products/${created.body.id}`, { key: admin(), body: { product: { sku: 'ANV-1' } } });
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toMatchObject({ field: 'sku', code: 'taken' });
  });

  test('delete is 204, then 404', async () => {
    const created = await api(t, 'post', '/v1/products', { key: admin(), body: { product: { sku: 'DEL-1', name: 'x' } } });
    const del = await api(t, 'delete', `/v1/products/${created.body.id}`, { key: admin() });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(t, 'get', `/v1/products/${created.body.id}`, { key: admin() })).status).toBe(404);
    expect((await api(t, 'delete', `/v1/products/${created.body.id}`, { key: admin() })).status).toBe(404);
  });

  const nonAdmins = [Role.CompanyTerritoryManager, Role.CompanyRetailerManager, Role.CompanyLocationUser, Role.CompanySalesAssociate, Role.RetailerAdmin, Role.RetailerStoreManager];

  test.each(nonAdmins)('%s may not create, update or delete a visible product (403)', async (role) => {
    const key = keys[role]!;
    const create = await api(t, 'post', '/v1/products', { key, body: { product: { sku: `F-${role}`, name: 'x' } } });
    expect(create.status).toBe(403);
    const update = await api(t, 'patch', `/v1/products/${anvil.id}`, { key, body: { product: { name: 'hacked' } } });
    expect(update.status).toBe(403);
    expect(update.body).toEqual({ error: 'Unauthorized', status: 403 });
    const del = await api(t, 'delete', `/v1/products/${anvil.id}`, { key });
    expect(del.status).toBe(403);
    const still = await api(t, 'get', `/v1/products/${anvil.id}`, { key: admin() });
    expect(still.body.name).toBe('Anvil');
  });

  test('writes to a product outside the scope are 404, not 403', async () => {
    expect((await api(t, 'patch', `/v1/products/${foreign.id}`, { key: admin(), body: { product: { name: 'x' } } })).status).toBe(404);
    expect((await api(t, 'delete', `/v1/products/${foreign.id}`, { key: keys[Role.CompanySalesAssociate] })).status).toBe(404);
  });
});

describe('list (SPEC 2.8, 4.1)', () => {
  test('meta per SPEC 2.8 with opts[page] and opts[per_page]', async () => {
    const em = t.em();
    const c = await f.company(em);
    const { key } = await f.userWithKey(em, Role.CompanyAdmin, c);
    for (let i = 0; i < 7; i++) await f.product(em, c);
    const res = await api(t, 'get', '/v1/products?opts[page]=2&opts[per_page]=3', { key });
    expect(res.status).toBe(200);
    expect(res.body.products).toHaveLength(3);
    expect(res.body.meta).toEqual({ total: 7, page: 2, per_page: 3, total_pages: 3, aggs: {} });
    const past = await api(t, 'get', '/v1/products?opts[page]=9&opts[per_page]=3', { key });
    expect(past.body).toEqual({ products: [], meta: { total: 7, page: 9, per_page: 3, total_pages: 3, aggs: {} } });
  });

  test.each(['opts[page]=0', 'opts[page]=x', 'opts[per_page]=0', 'opts[per_page]=-1'])('%s is 400', async (qs) => {
    const res = await api(t, 'get', `/v1/products?${qs}`, { key: admin() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, error: 'Bad Request' });
  });

  test('per_page defaults to 50 and is capped at 500', async () => {
    expect((await api(t, 'get', '/v1/products', { key: admin() })).body.meta.per_page).toBe(50);
    expect((await api(t, 'get', '/v1/products?opts[per_page]=10000', { key: admin() })).body.meta.per_page).toBe(500);
  });

  test('the number of SQL statements does not grow with the page size', async () => {
    const em = t.em();
    const c = await f.company(em);
    const { key } = await f.userWithKey(em, Role.CompanyAdmin, c);
    for (let i = 0; i < 40; i++) await f.product(em, c);
    const count = async (perPage: number) => {
      t.resetStatements();
      const res = await api(t, 'get', `/v1/products?opts[per_page]=${perPage}`, { key });
      expect(res.body.products).toHaveLength(perPage);
      return t.statements.length;
    };
    const small = await count(2);
    const large = await count(40);
    expect(large).toBe(small);
    // The key check, then the page, its total and its rows in one statement.
    expect(small).toBe(2);
    // The page's own range scan reads its rows (no list of ids read first, then its rows by id).
    expect(t.statements[1]).toContain('left join lateral (select p.id as "id", p.sku as "sku"');
    expect(t.statements[1]).not.toContain('page_ids');
  });
});

describe("the resource's routes, as express matches them", () => {
  // Paths outside the OpenAPI document's spelling: sent without the helper's OpenAPI check.
  const get = (path: string) => request(t.app).get(path).set('Accept', 'application/json').set('X-Api-Key', admin());
  test('the path in any case and with a trailing slash is the list; a longer name or another resource is not', async () => {
    const plain = await api(t, 'get', '/v1/products', { key: admin() });
    expect(plain.status).toBe(200);
    for (const path of ['/v1/Products', '/v1/PRODUCTS/', '/v1/products/']) {
      const res = await get(path);
      expect([path, res.status, res.body]).toEqual([path, 200, plain.body]);
    }
    const shown = await get(`/v1/PRODUCTS/${anvil.id}`);
    expect([shown.status, shown.body.id]).toEqual([200, anvil.id]);
    for (const path of ['/v1/productsx', '/v1/products_extra', '/v1/product', `/v1/products/${anvil.id}/extra`]) {
      const res = await get(path);
      expect([path, res.status, res.body.message]).toEqual([path, 404, `No route matches GET ${path}`]);
    }
  });
});

describe('JSON answers', () => {
  const get = (path: string) => request(t.app).get(path).set('Accept', 'application/json').set('X-Api-Key', admin());
  test('a list and a record carry their length and a weak ETag of the body; a matching If-None-Match is a 304 without a body', async () => {
    for (const path of ['/v1/products', `/v1/products/${anvil.id}`]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      const sha1 = createHash('sha1').update(res.text).digest('base64').slice(0, 27);
      expect(res.headers.etag).toBe(`W/"${Buffer.byteLength(res.text).toString(16)}-${sha1}"`);
      const again = await get(path).set('If-None-Match', `"other", ${res.headers.etag}`);
      expect([again.status, again.text, again.headers.etag, again.headers['content-type']]).toEqual([304, '', res.headers.etag, undefined]);
      const stale = await get(path).set('If-None-Match', 'W/"0-other"');
      expect([stale.status, stale.text]).toEqual([200, res.text]);
      const head = await request(t.app).head(path).set('X-Api-Key', admin());
      expect([head.status, head.headers['content-length'], head.headers.etag, head.text]).toEqual([200, res.headers['content-length'], res.headers.etag, undefined]);
    }
  });

  test('a write answers 201 or 200 with its record, never a 304', async () => {
    const created = await request(t.app).post('/v1/products').set('X-Api-Key', admin()).set('If-None-Match', '*').send({ product: { sku: 'JSON-1', name: 'Json' } });
    expect([created.status, created.body.sku, created.headers['content-type']]).toEqual([201, 'JSON-1', 'application/json; charset=utf-8']);
    const updated = await request(t.app).patch(`/v1/products/${created.body.id}`).set('X-Api-Key', admin()).set('If-None-Match', '*').send({ product: { name: 'Json 2' } });
    expect([updated.status, updated.body.name]).toEqual([200, 'Json 2']);
  });
});
