import { Kind, type OperationDefinitionNode } from 'graphql';
import request from 'supertest';
import { createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { buildSchema } from '../../src/graphql/schema';
import { modules } from '../../src/modules';
import { compileOperation } from '../../src/graphql/jit';
import { OperationRegistry } from '../../src/rest/operations';

describe('REST list operations', () => {
  const schema = buildSchema(modules);
  const registry = new OperationRegistry(schema);
  const lists = registry.names().filter((name) => name.startsWith('List'));
  const operation = (name: string) =>
    registry.get(name).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name)!;

  test('each passes every list option as a variable: the document is the whole endpoint', () => {
    expect(lists.length).toBeGreaterThanOrEqual(5);
    for (const name of lists) {
      const op = operation(name);
      const variables = Object.fromEntries(op.variableDefinitions!.map((v) => [v.variable.name.value, (v.type as any).name?.value]));
      expect({ name, variables }).toMatchObject({ name, variables: { q: 'String', page: 'Int', perPage: 'Int', opts: 'ListQueryOptions' } });
      const field = op.selectionSet.selections[0] as any;
      expect({ name, args: field.arguments.map((a: any) => `${a.name.value}: $${a.value.name.value}`) }).toEqual({
        name,
        args: ['q: $q', 'page: $page', 'perPage: $perPage', 'opts: $opts'],
      });
    }
  });

  test('each compiles with graphql-jit (ListQueryOptions holds no input type that holds itself)', () => {
    for (const name of lists) expect({ name, compiled: typeof compileOperation(schema, registry.get(name), operation(name)) }).toEqual({ name, compiled: 'object' });
  });
});

describe('opts on a GraphQL list field', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    const em = t.em();
    const acme = await f.company(em, 'Acme');
    await f.product(em, acme, { sku: 'G-1', name: 'Gadget', category: 'Tools' });
    await f.product(em, acme, { sku: 'G-2', name: 'Gizmo', category: 'Toys' });
    admin = (await f.userWithKey(em, Role.CompanyAdmin, acme)).key;
  });
  afterAll(() => t.close());

  const LIST = 'query($opts: ListQueryOptions, $where: ProductWhere) { products(opts: $opts, where: $where) { nodes { sku } meta { total aggs } } }';

  test('reads the contract-shaped options as the REST list does, facets under the names asked', async () => {
    const opts = { where: { category: 'Tools', no_such_field: 'x' }, order: { sku: 'desc' }, aggs: ['external_id', 'category'] };
    const graphql = await gql(t, admin, LIST, { opts: { ...opts, where: { category: 'Tools' } } });
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data.products.nodes).toEqual([{ sku: 'G-1' }]);
    expect(Object.keys(graphql.body.data.products.meta.aggs)).toEqual(['external_id', 'category']);
    // An unknown field matches nothing, on both roads.
    const none = await gql(t, admin, LIST, { opts });
    expect(none.body.data.products.meta.total).toBe(0);
    const rest = await request(t.app)
      .get('/v1/products?opts[where][category]=Tools&opts[aggs][]=external_id&opts[aggs][]=category')
      .set('X-Api-Key', admin);
    expect(rest.status).toBe(200);
    expect({ products: rest.body.products.map((p: any) => ({ sku: p.sku })), aggs: rest.body.meta.aggs }).toEqual({
      products: graphql.body.data.products.nodes,
      aggs: graphql.body.data.products.meta.aggs,
    });
  });

  test('opts and the typed where, order or aggs together are BAD_USER_INPUT', async () => {
    const res = await gql(t, admin, LIST, { opts: { where: { category: 'Tools' } }, where: { category: { eq: 'Tools' } } });
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].message).toMatch(/either as opts or as where, order and aggs/);
  });

  test('opts meets the bounds of a REST list', async () => {
    const deep = Array.from({ length: 11 }).reduce<Record<string, unknown>>((w) => ({ _not: w }), { category: 'Tools' });
    const res = await gql(t, admin, LIST, { opts: { where: deep } });
    expect(res.body.errors[0].message).toMatch(/opts\[where\] must nest _or, _and and _not at most 10 deep/);
  });
});
