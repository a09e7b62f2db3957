// The translation of search requests to Elasticsearch and OpenSearch request bodies, checked on the
// bodies themselves (`elasticsearch.test.ts` runs the conformance suite against a live engine when there
// is one: test/support/search-engine.ts).
import { conditionToQuery, likeToWildcard, searchBody, searchResult } from '../../src/search/elasticsearch/query';
import { indexDefinition } from '../../src/search/elasticsearch/mapping';
import { parseWhere } from '../../src/search/where';
import { productSearch } from '../../src/modules/product/product.search';
import type { SearchDocument, SearchRequest } from '../../src/search/types';

const doc: SearchDocument = {
  name: 'things',
  from: 'things t',
  alias: 't',
  fields: {
    id: { sql: 't.id', type: 'uuid' },
    name: { sql: 't.name', type: 'string', text: true },
    city: { sql: 't.city', type: 'string' },
    price: { sql: 't.price', type: 'number' },
    active: { sql: 't.active', type: 'boolean' },
    at: { sql: 't.at', type: 'date' },
    tags: { sql: 't.tags', type: 'string', array: true },
    company_id: { sql: 't.company_id', type: 'uuid' },
  },
};
const UUID = '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5';

const dsl = (where: unknown) => conditionToQuery(parseWhere(doc, where));
const body = (req: Partial<SearchRequest>) => searchBody(doc, { page: 1, perPage: 50, scope: {}, ...req }).body;

describe('where -> query DSL', () => {
  test.each<[string, unknown, unknown]>([
    ['nothing', {}, { match_all: {} }],
    ['a value', { city: 'Paris' }, { term: { city: { value: 'Paris' } } }],
    ['a list', { city: ['Paris', 'Rome'] }, { terms: { city: ['Paris', 'Rome'] } }],
    ['an empty list', { city: [] }, { match_none: {} }],
    ['null', { city: null }, { bool: { must_not: [{ exists: { field: 'city' } }] } }],
    [
      'null in a list',
      { city: ['Paris', null] },
      { bool: { should: [{ term: { city: { value: 'Paris' } } }, { bool: { must_not: [{ exists: { field: 'city' } }] } }], minimum_should_match: 1 } },
    ],
    ['not', { city: { not: 'Paris' } }, { bool: { must_not: [{ term: { city: { value: 'Paris' } } }] } }],
    ['not null', { city: { not: null } }, { bool: { must_not: [{ bool: { must_not: [{ exists: { field: 'city' } }] } }] } }],
    ['in', { city: { in: ['Paris'] } }, { term: { city: { value: 'Paris' } } }],
    ['all on an array', { tags: { all: ['a', 'b'] } }, { bool: { filter: [{ term: { tags: { value: 'a' } } }, { term: { tags: { value: 'b' } } }] } }],
    ['a range, coerced', { price: { gte: '10', lt: 20 } }, { bool: { filter: [{ range: { price: { gte: 10 } } }, { range: { price: { lt: 20 } } }] } }],
    ['a date, normalized to UTC', { at: { gt: '2026-01-01T01:00:00+01:00' } }, { range: { at: { gt: '2026-01-01T00:00:00.000Z' } } }],
    ['a boolean from a string', { active: 'false' }, { term: { active: { value: false } } }],
    ['a uuid, lower-cased', { company_id: UUID.toUpperCase() }, { term: { company_id: { value: UUID } } }],
    ['not a uuid', { company_id: 'nope' }, { match_none: {} }],
    ['exists', { at: { exists: true } }, { bool: { must_not: [{ bool: { must_not: [{ exists: { field: 'at' } }] } }] } }],
    ['prefix', { name: { prefix: 'An' } }, { prefix: { name: { value: 'An' } } }],
    ['like', { name: { like: '%a_b\\%' } }, { wildcard: { name: { value: '*a?b%' } } }],
    ['ilike', { name: { ilike: 'an*%' } }, { wildcard: { name: { value: 'an\\**', case_insensitive: true } } }],
    ['a pattern on a number', { price: { like: '1%' } }, { match_none: {} }],
    ['_or', { _or: [{ city: 'Paris' }, { price: 1 }] }, { bool: { should: [{ term: { city: { value: 'Paris' } } }, { term: { price: { value: 1 } } }], minimum_should_match: 1 } }],
    ['_or of nothing', { _or: [] }, { match_none: {} }],
    ['_and', { _and: [{ city: 'Paris' }, { price: 1 }] }, { bool: { filter: [{ term: { city: { value: 'Paris' } } }, { term: { price: { value: 1 } } }] } }],
    ['_not', { _not: { city: 'Paris' } }, { bool: { must_not: [{ term: { city: { value: 'Paris' } } }] } }],
    ['an unknown field', { nope: 1 }, { match_none: {} }],
    ['an unknown field in _or', { _or: [{ nope: 1 }, { city: 'Paris' }] }, { term: { city: { value: 'Paris' } } }],
  ])('%s', (_name, where, expected) => {
    expect(dsl(where)).toEqual(expected);
  });

  test('an unknown operator is a 400', () => {
    expect(() => dsl({ city: { near: 'x' } })).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  test.each([
    ['%', '*'],
    ['_', '?'],
    ['a*b?c', 'a\\*b\\?c'],
    ['50\\%', '50%'],
    ['a\\_b', 'a_b'],
    ['back\\\\slash', 'back\\\\slash'],
    ['C:\\x', 'C:x'],
  ])('LIKE %s is wildcard %s', (like, wildcard) => {
    expect(likeToWildcard(like)).toBe(wildcard);
  });
});

describe('search body', () => {
  test('scope and q in query, where in post_filter, exact totals, no source, page window', () => {
    const b = body({ scope: { company_id: UUID }, where: { city: 'Paris' }, page: 3, perPage: 20 });
    expect(b).toEqual({
      query: { bool: { filter: [{ term: { company_id: { value: UUID } } }] } },
      post_filter: { term: { city: { value: 'Paris' } } },
      sort: [{ leadnet_created_at: { order: 'desc' } }, { leadnet_id: { order: 'asc' } }],
      from: 40,
      size: 20,
      track_total_hits: true,
      _source: false,
    });
  });

  test('q: every word must match, fuzzy from four letters, exact prefixes and whole words score more', () => {
    const b = body({ q: 'Anvl de' });
    const words = ['anvl', 'de'];
    expect(b.query).toEqual({
      bool: {
        filter: [{ match_all: {} }],
        must: words.map((w) => ({
          constant_score: {
            filter: { match: { leadnet_q_prefix: { query: w, operator: 'and', fuzziness: 'AUTO:4,1000', prefix_length: 0, max_expansions: 200 } } },
            boost: 1,
          },
        })),
        should: words.flatMap((w) => [
          { constant_score: { filter: { match: { leadnet_q_prefix: { query: w, operator: 'and' } } }, boost: 2 } },
          { constant_score: { filter: { match: { leadnet_q: { query: w, operator: 'and' } } }, boost: 4 } },
        ]),
      },
    });
    expect(b.sort).toEqual([{ _score: { order: 'desc' } }, { leadnet_created_at: { order: 'desc' } }, { leadnet_id: { order: 'asc' } }]);
  });

  test('words with digits take no typo', () => {
    const must = (body({ q: 'shopper12 2026 anvil' }).query as any).bool.must;
    expect(must.map((m: any) => m.constant_score.filter.match.leadnet_q_prefix.fuzziness)).toEqual([0, 0, 'AUTO:4,1000']);
  });

  test('q of * or punctuation only is no text condition', () => {
    expect(body({ q: '*' }).query).toEqual({ bool: { filter: [{ match_all: {} }] } });
    expect(body({ q: ' -- ' }).query).toEqual({ bool: { filter: [{ match_all: {} }] } });
  });

  test('order: explicit keys replace relevance; missing values last; _score when asked', () => {
    expect(body({ q: 'x', order: [{ price: 'desc' }, { name: 'asc' }] }).sort).toEqual([
      { price: { order: 'desc', missing: '_last' } },
      { name: { order: 'asc', missing: '_last' } },
      { leadnet_created_at: { order: 'desc' } },
      { leadnet_id: { order: 'asc' } },
    ]);
    expect((body({ q: 'x', order: { _score: 'asc' } }).sort as any[])[0]).toEqual({ _score: { order: 'asc' } });
    expect((body({ order: 'city' }).sort as any[])[0]).toEqual({ city: { order: 'asc', missing: '_last' } });
  });

  test.each([['nope'], ['tags'], ['constructor']])('order on %s is a 400', (field) => {
    expect(() => body({ order: { [field]: 'asc' } })).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  test('aggs: a filter aggregation per facet, leaving out the where condition on its own field', () => {
    const b = body({
      where: { city: 'Paris', active: true, _or: [{ city: 'Rome' }, { price: 1 }] },
      aggs: { city: { limit: 5, where: { price: { gt: 0 } } }, active: { order: { _key: 'asc' }, min_doc_count: 2 }, nope: {} },
    });
    const or = { bool: { should: [{ term: { city: { value: 'Rome' } } }, { term: { price: { value: 1 } } }], minimum_should_match: 1 } };
    expect(b.aggs).toEqual({
      agg_0: {
        filter: { bool: { filter: [{ term: { active: { value: true } } }, or, { range: { price: { gt: 0 } } }] } },
        aggs: { buckets: { terms: { field: 'city', size: 5, min_doc_count: 1, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
      },
      agg_1: {
        filter: { bool: { filter: [{ term: { city: { value: 'Paris' } } }, or] } },
        aggs: { buckets: { terms: { field: 'active', size: 1000, min_doc_count: 2, order: [{ _key: 'asc' }] } } },
      },
    });
    expect(b.post_filter).toEqual({ bool: { filter: [{ term: { city: { value: 'Paris' } } }, { term: { active: { value: true } } }, or] } });
  });

  test('the response: ids in order, exact total, typed bucket keys', () => {
    const { aggs } = searchBody(doc, { page: 1, perPage: 2, scope: {}, aggs: ['city', 'active', 'at', 'price', 'nope'] });
    const response: any = {
      hits: { total: { value: 12345, relation: 'eq' }, hits: [{ _id: 'b' }, { _id: 'a' }] },
      aggregations: {
        agg_0: { doc_count: 3, buckets: { sum_other_doc_count: 4, buckets: [{ key: 'Paris', doc_count: 3 }] } },
        agg_1: { doc_count: 3, buckets: { sum_other_doc_count: 0, buckets: [{ key: 1, key_as_string: 'true', doc_count: 2 }, { key: 0, key_as_string: 'false', doc_count: 1 }] } },
        agg_2: { doc_count: 1, buckets: { sum_other_doc_count: 0, buckets: [{ key: 1767225600000, key_as_string: '2026-01-01T00:00:00.000Z', doc_count: 1 }] } },
        agg_3: { doc_count: 1, buckets: { sum_other_doc_count: 0, buckets: [{ key: 9.5, doc_count: 1 }] } },
      },
    };
    expect(searchResult(doc, aggs, response)).toEqual({
      ids: ['b', 'a'],
      total: 12345,
      aggs: {
        city: { doc_count_error_upper_bound: 0, sum_other_doc_count: 4, buckets: [{ key: 'Paris', doc_count: 3 }] },
        active: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: true, doc_count: 2 }, { key: false, doc_count: 1 }] },
        at: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: '2026-01-01T00:00:00.000Z', doc_count: 1 }] },
        price: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 9.5, doc_count: 1 }] },
        nope: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
      },
    });
  });
});

describe('index definition', () => {
  test('an explicit, strict mapping derived from the document', () => {
    const { settings, mappings } = indexDefinition(productSearch);
    expect(mappings.dynamic).toBe('strict');
    expect(mappings.properties).toMatchObject({
      leadnet_id: { type: 'keyword' },
      leadnet_created_at: { type: 'date' },
      leadnet_q: { type: 'text', analyzer: 'leadnet_folded' },
      leadnet_q_prefix: { type: 'text', analyzer: 'leadnet_prefix', search_analyzer: 'leadnet_folded' },
      id: { type: 'keyword' },
      sku: { type: 'keyword' },
      company_id: { type: 'keyword' },
      created_at: { type: 'date' },
    });
    expect(Object.keys(mappings.properties!)).toHaveLength(4 + Object.keys(productSearch.fields).length);
    expect(settings.number_of_shards).toBe(1);
    expect(settings.analysis?.analyzer).toMatchObject({
      leadnet_folded: { tokenizer: 'leadnet_words', filter: ['lowercase', 'asciifolding'] },
      leadnet_prefix: { tokenizer: 'leadnet_words', filter: ['lowercase', 'asciifolding', 'leadnet_edge'] },
    });
  });

  test('numbers, booleans and arrays', () => {
    const { mappings } = indexDefinition(doc);
    expect(mappings.properties).toMatchObject({ price: { type: 'double' }, active: { type: 'boolean' }, tags: { type: 'keyword' } });
  });

  test('a field may not take a reserved name', () => {
    expect(() => indexDefinition({ ...doc, fields: { leadnet_q: { sql: 'x', type: 'string' } } })).toThrow(/reserved/);
  });
});

describe('fields the caller may not read', () => {
  const scoped: SearchDocument = { ...doc, fields: { ...doc.fields, crl_ids: { sql: 't.crl_ids', type: 'uuid', array: true, scopeOnly: true } } };
  const scopedBody = (req: Partial<SearchRequest>) => searchBody(scoped, { page: 1, perPage: 50, scope: {}, ...req }).body;

  test('a scope-only field filters in the scope, matches nothing in where, and has no facet', () => {
    const b = scopedBody({ scope: { crl_ids: UUID }, where: { crl_ids: UUID }, aggs: ['crl_ids'] });
    expect(b.query).toEqual({ bool: { filter: [{ term: { crl_ids: { value: UUID } } }] } });
    expect(b.post_filter).toEqual({ match_none: {} });
    expect(b.aggs).toBeUndefined();
    expect(() => scopedBody({ order: { crl_ids: 'asc' } })).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  test('a hidden field likewise, for this request only', () => {
    expect(body({ hidden: ['city'], where: { city: 'Paris' }, aggs: ['city'] })).toMatchObject({ post_filter: { match_none: {} } });
    expect(body({ hidden: ['city'], aggs: ['city'] }).aggs).toBeUndefined();
    expect(() => body({ hidden: ['price'], order: { price: 'asc' } })).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect(body({ where: { city: 'Paris' } }).post_filter).toEqual({ term: { city: { value: 'Paris' } } });
  });
});
