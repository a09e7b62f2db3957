import type { estypes } from '@elastic/elasticsearch';
import { badRequest } from '../../errors';
import { bucketKey, normalizeAggs, normalizeOrder, type AggRequest } from '../options';
import { isFuzzyCandidate, queryWords, FUZZY_MIN_LENGTH } from '../text';
import { and, parseScope, parseWhere, usableField, type Condition } from '../where';
import type { AggResult, SearchDocument, SearchRequest, SearchResult } from '../types';
import { CREATED_AT_FIELD, ID_FIELD, MAX_PREFIX_LENGTH, PREFIX_FIELD, TEXT_FIELD } from './mapping';

type Query = estypes.QueryDslQueryContainer;

const MATCH_ALL: Query = { match_all: {} };
const MATCH_NONE: Query = { match_none: {} };

/** A parsed `where` as query DSL (filter context): the same meaning as `conditionToSql`. */
export function conditionToQuery(cond: Condition): Query {
  switch (cond.kind) {
    case 'const':
      return cond.value ? MATCH_ALL : MATCH_NONE;
    case 'and':
      return { bool: { filter: cond.parts.map(conditionToQuery) } };
    case 'or':
      return { bool: { should: cond.parts.map(conditionToQuery), minimum_should_match: 1 } };
    case 'not':
      return { bool: { must_not: [conditionToQuery(cond.part)] } };
    case 'missing':
      // A null value and an empty array are both "no value" to Elasticsearch, as to `where`.
      return { bool: { must_not: [{ exists: { field: cond.field } }] } };
    case 'terms':
      return cond.values.length === 1 ? { term: { [cond.field]: { value: cond.values[0] } } } : { terms: { [cond.field]: cond.values } };
    case 'range':
      return { range: { [cond.field]: { [cond.op]: cond.value } } };
    case 'pattern':
      if (cond.op === 'prefix') return { prefix: { [cond.field]: { value: cond.value } } };
      return { wildcard: { [cond.field]: { value: likeToWildcard(cond.value), ...(cond.op === 'ilike' ? { case_insensitive: true } : {}) } } };
  }
}

/** SQL LIKE (`%`, `_`, backslash escapes) -> Elasticsearch wildcard (`*`, `?`, backslash escapes). */
export function likeToWildcard(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i];
      out += next === '*' || next === '?' || next === '\\' ? `\\${next}` : next;
    } else if (c === '%') out += '*';
    else if (c === '_') out += '?';
    else if (c === '*' || c === '?' || c === '\\') out += `\\${c}`;
    else out += c;
  }
  return out;
}

/**
 * One word of `q`: it must start a word of the text, with one typo allowed on words of letters from
 * FUZZY_MIN_LENGTH letters on (`AUTO:4,...`); words with digits match as typed. Constant scores mirror PostgreSQL's `relevance`: +2 when it starts a
 * word exactly, +4 more when it is a whole word, so exact matches rank above fuzzy ones.
 */
function wordClauses(word: string): { must: Query; should: Query[] } {
  const fuzzy: Query = {
    constant_score: {
      filter: {
        match: {
          [PREFIX_FIELD]: { query: word, operator: 'and', fuzziness: isFuzzyCandidate(word) ? `AUTO:${FUZZY_MIN_LENGTH},1000` : 0, prefix_length: 0, max_expansions: 200 },
        },
      },
      boost: 1,
    },
  };
  const whole: Query = { match: { [TEXT_FIELD]: { query: word, operator: 'and' } } };
  return {
    must: word.length > MAX_PREFIX_LENGTH ? { bool: { should: [fuzzy, { constant_score: { filter: whole, boost: 1 } }], minimum_should_match: 1 } } : fuzzy,
    should: [
      { constant_score: { filter: { match: { [PREFIX_FIELD]: { query: word, operator: 'and' } } }, boost: 2 } },
      { constant_score: { filter: whole, boost: 4 } },
    ],
  };
}

function sortOf(doc: SearchDocument, req: SearchRequest, hasText: boolean): estypes.SortCombinations[] {
  const sort: estypes.SortCombinations[] = [];
  const pairs = normalizeOrder(req.order);
  for (const [field, direction] of pairs) {
    if (field === '_score') {
      if (hasText) sort.push({ _score: { order: direction } });
      continue;
    }
    const f = usableField(doc, field, { hidden: req.hidden });
    if (!f || f.array) throw badRequest(`Unknown order field: ${field}`);
    sort.push({ [field]: { order: direction, missing: '_last' } });
  }
  if (!pairs.length && hasText) sort.push({ _score: { order: 'desc' } });
  sort.push({ [CREATED_AT_FIELD]: { order: 'desc' } }, { [ID_FIELD]: { order: 'asc' } });
  return sort;
}

/** A sort clause in the other direction, missing values first where they were last. */
function reversed(clause: estypes.SortCombinations): estypes.SortCombinations {
  const [[field, options]] = Object.entries(clause as Record<string, { order: 'asc' | 'desc'; missing?: string }>);
  return { [field]: { ...options, order: options.order === 'asc' ? 'desc' : 'asc', ...(options.missing ? { missing: '_first' } : {}) } };
}

function aggName(i: number): string {
  return `agg_${i}`;
}

/**
 * The `_search` body of a request: scope and `q` in `query` (so facets count only what the caller may
 * see), `where` as `post_filter` (so each facet can leave out the condition on its own field), one
 * filter aggregation per facet, exact `track_total_hits`. Every 400 is raised here.
 */
export function searchBody(doc: SearchDocument, req: SearchRequest): { body: estypes.SearchRequest; aggs: AggRequest[] } {
  const words = queryWords(req.q);
  const access = { hidden: req.hidden };
  const scope = conditionToQuery(parseScope(doc, req.scope));
  const where = parseWhere(doc, req.where, undefined, access);
  const hasTextFields = Object.values(doc.fields).some((f) => f.text && !f.scopeOnly);
  const sort = sortOf(doc, req, words.length > 0);
  const aggs = normalizeAggs(req.aggs);

  const must: Query[] = [];
  const should: Query[] = [];
  if (words.length && !hasTextFields) must.push(MATCH_NONE);
  else
    for (const w of words) {
      const c = wordClauses(w);
      must.push(c.must);
      should.push(...c.should);
    }
  const query: Query = { bool: { filter: [scope], ...(must.length ? { must } : {}), ...(should.length ? { should } : {}) } };

  const aggregations: Record<string, estypes.AggregationsAggregationContainer> = {};
  aggs.forEach((agg, i) => {
    if (!usableField(doc, agg.field, access)) return;
    const filter = conditionToQuery(and([parseWhere(doc, req.where, agg.field, access), parseWhere(doc, agg.where, undefined, access)]));
    aggregations[aggName(i)] = {
      filter,
      aggs: {
        buckets: {
          terms: {
            field: agg.field,
            size: agg.limit,
            min_doc_count: agg.minDocCount,
            order: agg.orderByKey ? [{ _key: agg.direction }] : [{ _count: agg.direction }, { _key: 'asc' }],
          },
        },
      },
    };
  });

  // Keyset paging (cursors): `search_after` the cursor's sort values, backward over the reversed sort.
  const keyset = req.keyset;
  const body: estypes.SearchRequest = {
    query,
    ...(where.kind === 'const' && where.value ? {} : { post_filter: conditionToQuery(where) }),
    sort: keyset?.backward ? sort.map(reversed) : sort,
    ...(keyset?.after ? { search_after: keyset.after as estypes.SortResults } : {}),
    from: keyset ? 0 : (req.page - 1) * req.perPage,
    size: req.perPage,
    track_total_hits: true,
    _source: false,
    ...(Object.keys(aggregations).length ? { aggs: aggregations } : {}),
  };
  return { body, aggs };
}

interface TermsBucket {
  key: string | number | boolean;
  key_as_string?: string;
  doc_count: number;
}

/** A `_search` response -> ids in order, exact total, facets in PRODUCT.md section 6's shape. */
export function searchResult(doc: SearchDocument, aggs: AggRequest[], response: estypes.SearchResponse, keyset = false): SearchResult {
  const total = response.hits.total;
  const result: Record<string, AggResult> = {};
  aggs.forEach((agg, i) => {
    const type = usableField(doc, agg.field)?.type;
    const terms = (response.aggregations?.[aggName(i)] as any)?.buckets as { buckets: TermsBucket[]; sum_other_doc_count?: number } | undefined;
    result[agg.field] = {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: terms?.sum_other_doc_count ?? 0,
      buckets: (terms?.buckets ?? []).map((b) => ({ key: esBucketKey(type, b), doc_count: b.doc_count })),
    };
  });
  return {
    ids: response.hits.hits.map((h) => h._id!),
    total: typeof total === 'number' ? total : (total?.value ?? 0),
    aggs: result,
    ...(keyset ? { sortValues: response.hits.hits.map((h) => (h.sort ?? []) as unknown[]) } : {}),
  };
}

/** Elasticsearch keys dates as epoch milliseconds and booleans as 1/0; give them the field's type. */
function esBucketKey(type: string | undefined, b: TermsBucket): string | number | boolean {
  if (type === 'date') return new Date(Number(b.key)).toISOString();
  if (type === 'boolean') return b.key_as_string === 'true' || b.key === 1 || b.key === true;
  return bucketKey(type, b.key);
}
