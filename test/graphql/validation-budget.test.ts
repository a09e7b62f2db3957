import request from 'supertest';
import { parse, validate } from 'graphql';
import { createTestApp, gql, type TestApp } from '../support/app';
import { roles } from '../support/leads';
import { overlappingFieldPairs } from '../../src/graphql/cost';
import { buildSchema } from '../../src/graphql/schema';
import { modules } from '../../src/modules';

/** `{ leads(page: 1) leads(page: 2) ... }`: n fields of one response name, every two in conflict. */
const repeated = (n: number, selection = '') =>
  `{ ${Array.from({ length: n }, (_, i) => `leads(page: ${i + 1})${selection}`).join(' ')} }`;

describe('overlappingFieldPairs', () => {
  test('k fields of one response name are k(k-1)/2 pairs; aliases and distinct names are none', () => {
    expect(overlappingFieldPairs(parse(repeated(10)), 1e9)).toBe(45);
    expect(overlappingFieldPairs(parse(repeated(495)), 1e9)).toBe(122_265);
    expect(overlappingFieldPairs(parse('{ a: leads(page: 1) { meta { total } } b: leads(page: 2) { meta { total } } }'), 1e9)).toBe(0);
  });

  test('sub-selections of same-named fields are merged and counted again', () => {
    // 3 `leads` (3 pairs), their 3 `meta` merged (3 pairs), their 3 `total` (3 pairs).
    expect(overlappingFieldPairs(parse(repeated(3, ' { meta { total } }')), 1e9)).toBe(9);
  });

  test('fragments and inline fragments are merged into the set they are spread in; two fragments spread in one set are a pair', () => {
    const doc = parse(`
      query { leads { ...A ...B ... on LeadPage { meta { total } } } }
      fragment A on LeadPage { meta { total } }
      fragment B on LeadPage { meta { page } ...A }`);
    // In the set of `leads`: meta from A, B and the inline fragment (3 pairs; B's own spread of A is A
    // again), `total` twice under them (1 pair), the spreads A and B (1 pair). In B's own definition: its
    // meta and A's (1 pair).
    expect(overlappingFieldPairs(doc, 1e9)).toBe(6);
  });

  test('a fragment is counted where it is defined too, spread or not (validation checks it there)', () => {
    const unused = `fragment F on Query { ${Array.from({ length: 30 }, (_, i) => `leads(page: ${i + 1}) { meta { total } }`).join(' ')} }`;
    expect(overlappingFieldPairs(parse(`{ __typename } ${unused}`), 1e9)).toBe(3 * 435);
  });

  test('a document whose fragments expand past the visits allowed counts as Infinity', () => {
    const fragments = Array.from({ length: 12 }, (_, i) => `fragment L${i + 1} on Query { a: leads { ...L${i} } b: leads { ...L${i} } }`);
    const doc = parse(`{ ...L12 } fragment L0 on Query { __typename } ${fragments.join(' ')}`);
    expect(overlappingFieldPairs(doc, 1e9, 1_000)).toBe(Infinity);
  });

  test('a fragment cycle ends (validation refuses it) and counting stops just past the maximum', () => {
    expect(overlappingFieldPairs(parse('query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }'), 1e9)).toBe(0);
    const doc = parse(repeated(495, ' { meta { total } }'));
    expect(overlappingFieldPairs(doc, 1e9)).toBe(3 * 122_265);
    // Past the maximum at the top level: the sub-selections are not walked.
    expect(overlappingFieldPairs(doc, 200)).toBe(122_265);
  });

  test('at least as many pairs as graphql-js finds conflicts', () => {
    const schema = buildSchema(modules);
    for (const n of [2, 5, 12]) {
      const doc = parse(repeated(n, ' { meta { total } }'));
      const conflicts = validate(schema, doc).filter((e) => e.message.includes('conflict'));
      expect(conflicts.length).toBe((n * (n - 1)) / 2);
      expect(overlappingFieldPairs(doc, 1e9)).toBeGreaterThanOrEqual(conflicts.length);
    }
  });
});

describe('the same-name field pair budget over HTTP', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await roles(t.em())).users.salesAssociate.key;
  });
  afterAll(() => t.close());

  test('495 fields of one response name (8 KB, depth 1, no alias) are refused before validation runs', async () => {
    const res = await gql(t, key, repeated(495));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        message: 'Query same-name field pair count exceeds the limit of 200; see GRAPHQL_MAX_FIELD_PAIRS',
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'same-name field pair count', maximum: 200 },
      },
    ]);
  });

  test('the same through fragments spread in one selection set', async () => {
    const fragments = Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { leads(page: ${i + 1}) { meta { total } } }`);
    const res = await gql(t, key, `{ ${fragments.map((_, i) => `...F${i}`).join(' ')} } ${fragments.join(' ')}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.limit).toBe('same-name field pair count');
  });

  test('a few repeats still reach validation, which answers their conflict', async () => {
    const res = await gql(t, key, repeated(3, ' { meta { total } }'));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await request(t.app).get('/healthz')).status).toBe(200);
  });

  test('a document of repeated identical fields within the bound runs', async () => {
    const res = await gql(t, key, '{ leads { meta { total } } leads { meta { total } } }');
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });
});
