import { buildSchema as buildSdlSchema, parse } from 'graphql';
import { ConfigError, parseConfig } from '../../src/config';
import { LIMITS, LimitViolation, checkJson, checkListArgs, isStorableText } from '../../src/limits';
import { countTokens, operationCost } from '../../src/graphql/cost';

describe('checkJson', () => {
  test('walks without recursion: 100,000 levels are refused, not a stack overflow', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(() => checkJson(v)).toThrow(new LimitViolation(`is nested deeper than ${LIMITS.maxJsonDepth} levels`));
  });

  test('depth and size at the bound pass; one more is refused', () => {
    let v: unknown = 'x';
    for (let i = 0; i < LIMITS.maxJsonDepth; i++) v = { a: v }; // 20 objects, one in another
    expect(() => checkJson(v)).not.toThrow();
    expect(() => checkJson({ b: v })).toThrow(LimitViolation);
    expect(() => checkJson(Array.from({ length: LIMITS.maxJsonNodes - 1 }, () => 1))).not.toThrow();
    expect(() => checkJson(Array.from({ length: LIMITS.maxJsonNodes }, () => 1))).toThrow(`holds more than ${LIMITS.maxJsonNodes} values`);
  });

  test('lone surrogates in keys or values are refused; pairs pass', () => {
    expect(() => checkJson({ a: ['\ud800'] })).toThrow('lone surrogate');
    expect(() => checkJson({ ['\udc00']: 1 })).toThrow('lone surrogate');
    expect(() => checkJson({ a: '😀 \ud83d\ude00' })).not.toThrow();
    expect([isStorableText('a\ud800'), isStorableText('\udc00a'), isStorableText('\ud83d\ude00'), isStorableText('plain')]).toEqual([false, false, true, true]);
  });
});

describe('checkListArgs', () => {
  test('aggs, q and where bounds', () => {
    expect(() => checkListArgs({ aggs: Array.from({ length: LIMITS.maxAggs }, (_, i) => `f${i}`) })).not.toThrow();
    expect(() => checkListArgs({ aggs: Array.from({ length: LIMITS.maxAggs + 1 }, (_, i) => `f${i}`) })).toThrow('at most 20 fields');
    expect(() => checkListArgs({ q: Array.from({ length: 32 }, () => 'w').join(' ') })).not.toThrow();
    expect(() => checkListArgs({ q: Array.from({ length: 33 }, () => 'w').join(' ') })).toThrow('at most 32 words');
    let where: unknown = { status: 'New' };
    for (let i = 0; i < LIMITS.maxWhereDepth; i++) where = { _or: [where] };
    expect(() => checkListArgs({ where })).not.toThrow();
    expect(() => checkListArgs({ where: { _not: where } })).toThrow('at most 10 deep');
    expect(() => checkListArgs({ aggs: { status: { where: { _not: where } } } })).toThrow('opts[aggs][where]');
  });
  test('patterns: 256 characters, 16 wildcards, escaped ones not counted, in every nesting and in aggs', () => {
    expect(() => checkListArgs({ where: { name: { ilike: 'x'.repeat(256) } } })).not.toThrow();
    expect(() => checkListArgs({ where: { name: { prefix: 'x'.repeat(257) } } })).toThrow('prefix patterns must be at most 256 characters');
    expect(() => checkListArgs({ where: { name: { like: '%_'.repeat(8) } } })).not.toThrow();
    expect(() => checkListArgs({ where: { name: { like: `${'%_'.repeat(8)}%` } } })).toThrow('like patterns must have at most 16 wildcards');
    expect(() => checkListArgs({ where: { name: { like: `${'\\%'.repeat(30)}\\_` } } })).not.toThrow();
    expect(() => checkListArgs({ where: { name: { prefix: '%'.repeat(30) } } })).not.toThrow();
    expect(() => checkListArgs({ where: { _or: { 0: { _not: { email: { ilike: '_'.repeat(17) } } } } } })).toThrow('ilike patterns');
    expect(() => checkListArgs({ aggs: { status: { where: { city: { like: 'x'.repeat(300) } } } } })).toThrow('opts[aggs][where]: like patterns');
  });
});

test('countTokens stops counting past the limit and leaves syntax errors to the parser', () => {
  expect(countTokens('{ a { b } }', 100)).toBe(6);
  expect(countTokens('{ ' + 'a '.repeat(10_000) + '}', 50)).toBe(51);
  expect(countTokens('{ a(x: "unterminated) }', 100)).toBeNull();
});

test('the cost multiplies by page size, or by the list factor for lists without one', () => {
  const schema = buildSdlSchema(`
    type Query { items(perPage: Int): ItemPage }
    type ItemPage { nodes: [Item!]! meta: Meta }
    type Meta { total: Int }
    type Item { id: ID children: [Item!]! parent: Item }
  `);
  const cost = (q: string, variables = {}) => operationCost(schema, parse(q), variables, undefined, 10);
  expect(cost('{ items { nodes { id } } }')).toBe(1 + 50 * 1);
  expect(cost('{ items(perPage: 9999) { nodes { id } meta { total } } }')).toBe(1 + 500 * 2);
  expect(cost('query($p: Int) { items(perPage: $p) { nodes { id } } }', { p: 2 })).toBe(1 + 2 * 1);
  expect(cost('{ items(perPage: 1) { nodes { children { parent { children { id } } } } } }')).toBe(1 + 1 * (1 + 10 * (1 + 1 + 10)));
});

test('GraphQL limits come from the environment', () => {
  expect(parseConfig({}).graphql).toEqual({
    maxDocumentBytes: 32768,
    maxTokens: 3000,
    maxDepth: 10,
    maxAliases: 100,
    maxDirectives: 20,
    maxSelections: 5000,
    maxFieldPairs: 200,
    maxCost: 50000,
    listFactor: 10,
    introspection: true,
    suggestions: true,
  });
  expect(parseConfig({ GRAPHQL_MAX_DEPTH: '4', GRAPHQL_INTROSPECTION: 'false' }).graphql).toMatchObject({ maxDepth: 4, introspection: false });
  expect(() => parseConfig({ GRAPHQL_MAX_COST: 'lots' })).toThrow(ConfigError);
  expect(() => parseConfig({ GRAPHQL_MAX_COST: 'lots' })).toThrow(/GRAPHQL_MAX_COST/);
  expect(parseConfig({ GRAPHQL_MAX_SELECTIONS: '20000' }).graphql.maxSelections).toBe(20000);
  expect(parseConfig({ GRAPHQL_MAX_FIELD_PAIRS: '0' }).graphql.maxFieldPairs).toBe(0);
  expect(() => parseConfig({ GRAPHQL_MAX_FIELD_PAIRS: '-1' })).toThrow(/GRAPHQL_MAX_FIELD_PAIRS/);
  expect(() => parseConfig({ GRAPHQL_MAX_SELECTIONS: '10' })).toThrow(/GRAPHQL_MAX_SELECTIONS/);
});
