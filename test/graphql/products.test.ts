import { createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { buildBareSchema, policies } from '../../src/graphql/schema';
import { buildContext } from '../../src/context';
import { PostgresSearchBackend } from '../../src/search/postgres.queries';
import { NullGeocoder } from '../../src/geo/geocoder';
import { ProductService } from '../../src/modules/product/product.service';
import { modules } from '../../src/modules';

let t: TestApp;
let admin: string;
let operator: string;
beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  const acme = await f.company(em, 'Acme');
  await f.product(em, acme, { sku: 'G-1', name: 'Gadget' });
  admin = (await f.userWithKey(em, Role.CompanyAdmin, acme)).key;
  operator = (await f.userWithKey(em, Role.PlatformOperator, null)).key;
});
afterAll(() => t.close());

const LIST = 'query { products(perPage: 10) { nodes { id sku name companyId createdAt } meta { total page perPage totalPages aggs } } }';

test('lists products with nodes and meta', async () => {
  const res = await gql(t, admin, LIST);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.products.nodes).toEqual([expect.objectContaining({ sku: 'G-1', name: 'Gadget' })]);
  expect(res.body.data.products.meta).toEqual({ total: 1, page: 1, perPage: 10, totalPages: 1, aggs: {} });
});

test('a list page reads createdAt and updatedAt when the operation asks for them, through fragments and aliases too', async () => {
  const shown = await gql(t, admin, 'query { products(perPage: 1) { nodes { id } } }');
  const id = shown.body.data.products.nodes[0].id;
  const one = await gql(t, admin, 'query($id: ID!) { product(id: $id) { createdAt updatedAt } }', { id });
  const stamps = one.body.data.product;
  expect(stamps.createdAt).toEqual(expect.any(String));
  const asked = await gql(t, admin, 'query { products(perPage: 10) { nodes { ...P made: createdAt } } } fragment P on Product { sku updatedAt }');
  expect(asked.body.errors).toBeUndefined();
  expect(asked.body.data.products.nodes).toEqual([{ sku: 'G-1', updatedAt: stamps.updatedAt, made: stamps.createdAt }]);
  const plain = await gql(t, admin, 'query { products(perPage: 10) { nodes { sku name } } }');
  expect(plain.body.data.products.nodes).toEqual([{ sku: 'G-1', name: 'Gadget' }]);
});

test('no key is UNAUTHENTICATED; the platform operator is FORBIDDEN', async () => {
  const anonymous = await gql(t, null, LIST);
  expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  const op = await gql(t, operator, LIST);
  expect(op.body.errors[0].extensions.code).toBe('FORBIDDEN');
});

test('an unknown id is NOT_FOUND', async () => {
  const res = await gql(t, admin, 'query($id: ID!) { product(id: $id) { id } }', { id: '00000000-0000-4000-8000-000000000000' });
  expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
});

test('validation errors are BAD_USER_INPUT with per-field details', async () => {
  const res = await gql(t, admin, 'mutation($input: ProductInput!) { createProduct(input: $input) { id } }', { input: { name: 'No sku' } });
  expect(res.body.errors[0].extensions).toEqual({
    code: 'BAD_USER_INPUT',
    details: [{ field: 'sku', code: 'blank', message: "can't be blank", fullMessage: "Sku can't be blank" }],
  });
});

test('create, update and delete through mutations', async () => {
  const created = await gql(t, admin, 'mutation($input: ProductInput!) { createProduct(input: $input) { id sku } }', { input: { sku: 'G-2', name: 'Gizmo' } });
  const id = created.body.data.createProduct.id;
  const updated = await gql(t, admin, 'mutation($id: ID!) { updateProduct(id: $id, input: {name: "Gizmo 2"}) { name } }', { id });
  expect(updated.body.data.updateProduct.name).toBe('Gizmo 2');
  const deleted = await gql(t, admin, 'mutation($id: ID!) { deleteProduct(id: $id) }', { id });
  expect(deleted.body.data.deleteProduct).toBe(id);
});

test('every query and mutation has an explicit policy (anything else is denied)', () => {
  const schema = buildBareSchema(modules);
  const rules = policies(modules);
  for (const type of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.keys(type.getFields())) {
      expect([type.name, field, rules[type.name]?.[field] !== undefined]).toEqual([type.name, field, true]);
    }
  }
});

test('a refused update leaves nothing behind for a later write in the same context', async () => {
  const created = await gql(t, admin, 'mutation { createProduct(input: {sku: "G-3", name: "Kept"}) { id } }');
  const id = created.body.data.createProduct.id;
  const ctx = await buildContext({ orm: t.orm, config: t.config, search: new PostgresSearchBackend(() => t.orm.em as any), geocoder: new NullGeocoder() }, admin);
  const service = new ProductService(ctx);
  await expect(service.update(id, { name: 'Changed', sku: '' })).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  await service.update(id, { category: 'C' });
  const after = await gql(t, admin, 'query($id: ID!) { product(id: $id) { name sku category } }', { id });
  expect(after.body.data.product).toEqual({ name: 'Kept', sku: 'G-3', category: 'C' });
});
