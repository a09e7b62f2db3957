import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest } from '../errors';
import { compileScope, compileWhere, usableField } from './where';
import { bucketKey, normalizeAggs, normalizeOrder, type AggRequest } from './options';
import { queryWords, relevance, textCondition } from './text';
import type { AggResult, SearchBackend, SearchDocument, SearchRequest, SearchResult, Sql } from './types';

type Execute = (sql: string, bindings: unknown[]) => Promise<any[]>;

function and(parts: Sql[]): Sql {
  const kept = parts.filter((p) => p.sql !== 'true');
  if (!kept.length) return { sql: 'true', bindings: [] };
  return { sql: kept.map((p) => `(${p.sql})`).join(' and '), bindings: kept.flatMap((p) => p.bindings) };
}

/**
 * The default backend: every search is SQL over the resource's own tables, so it is always in step
 * with writes, and the caller's scope is part of each statement. A list costs two statements (page,
 * count), three with `aggs` (one statement for every facet), whatever the page size.
 */
export class PostgresSearchBackend implements SearchBackend {
  constructor(private readonly em: () => EntityManager) {}

  async search(doc: SearchDocument, req: SearchRequest): Promise<SearchResult> {
    const plan = planSearch(doc, req);
    const execute: Execute = (sql, bindings) => this.em().getConnection().execute(sql, bindings as any[]);
    const [rows, [{ total }], aggs] = await Promise.all([
      execute(plan.page.sql, plan.page.bindings),
      execute(plan.count.sql, plan.count.bindings),
      plan.facets ? execute(plan.facets.sql, plan.facets.bindings) : Promise.resolve([]),
    ]);
    return { ids: rows.map((r) => r.id), total, aggs: facetResults(doc, plan.aggs, aggs) };
  }

  /** The tables are the index: nothing to do. */
  async index(): Promise<void> {}

  async remove(): Promise<void> {}
}

export interface SearchPlan {
  page: Sql;
  count: Sql;
  facets: Sql | null;
  aggs: AggRequest[];
}

/** The statements of one search; every 400 (where, order, aggs) is raised here, before any SQL runs. */
export function planSearch(doc: SearchDocument, req: SearchRequest): SearchPlan {
  const words = queryWords(req.q);
  const access = { hidden: req.hidden };
  const base = [compileScope(doc, req.scope), textCondition(doc, words)];
  const filter = and([...base, compileWhere(doc, req.where, undefined, access)]);
  const order = orderBy(doc, req, words);
  const aggs = normalizeAggs(req.aggs);
  const offset = (req.page - 1) * req.perPage;
  return {
    page: {
      sql: `select ${doc.alias}.id from ${doc.from} where ${filter.sql} order by ${order.sql} limit ? offset ?`,
      bindings: [...filter.bindings, ...order.bindings, req.perPage, offset],
    },
    count: { sql: `select count(*)::int as total from ${doc.from} where ${filter.sql}`, bindings: filter.bindings },
    facets: aggs.length ? facetsStatement(doc, req, base, aggs) : null,
    aggs,
  };
}

/** `order` (PRODUCT.md section 6), then relevance when `q` is given, then `created_at desc, id`. */
function orderBy(doc: SearchDocument, req: SearchRequest, words: string[]): Sql {
  const parts: Sql[] = [];
  const pairs = normalizeOrder(req.order);
  for (const [field, direction] of pairs) {
    if (field === '_score') {
      const score = relevance(doc, words);
      if (score) parts.push({ sql: `${score.sql} ${direction}`, bindings: score.bindings });
      continue;
    }
    const f = usableField(doc, field, { hidden: req.hidden });
    if (!f || f.array) throw badRequest(`Unknown order field: ${field}`);
    parts.push({ sql: `${f.sql} ${direction} nulls last`, bindings: [] });
  }
  const score = pairs.length ? null : relevance(doc, words);
  if (score) parts.push({ sql: `${score.sql} desc`, bindings: score.bindings });
  parts.push({ sql: `${doc.alias}.created_at desc`, bindings: [] }, { sql: `${doc.alias}.id asc`, bindings: [] });
  return { sql: parts.map((p) => p.sql).join(', '), bindings: parts.flatMap((p) => p.bindings) };
}

/**
 * One statement for every requested facet. Each facet applies the scope, `q`, every top-level `where`
 * condition except the one on its own field, and its own `where`.
 */
function facetsStatement(doc: SearchDocument, req: SearchRequest, base: Sql[], aggs: AggRequest[]): Sql {
  const access = { hidden: req.hidden };
  const selects: Sql[] = aggs.map((agg, i) => {
    const f = usableField(doc, agg.field, access);
    if (!f) return { sql: `select ${i} as n, null::jsonb as key, 0::bigint as c, 0::numeric as s where false`, bindings: [] };
    const cond = and([...base, compileWhere(doc, req.where, agg.field, access), compileWhere(doc, agg.where, undefined, access)]);
    // An array field counts a record once per distinct value, as Elasticsearch does.
    const from = f.array ? `${doc.from} cross join lateral (select distinct x from unnest(${f.sql}) as x) as u(k)` : doc.from;
    const key = f.array ? 'u.k' : f.sql;
    const sort = agg.orderByKey ? `k ${agg.direction}, c desc` : `c ${agg.direction}, k asc`;
    return {
      sql: `select ${i} as n, to_jsonb(k) as key, c, s from (
              select k, c, row_number() over (order by ${sort}) as r, sum(c) over () as s
                from (select ${key} as k, count(*) as c from ${from} where ${cond.sql} group by 1) g
               where k is not null and c >= ?
            ) x where r <= ?`,
      bindings: [...cond.bindings, agg.minDocCount, agg.limit],
    };
  });
  return {
    sql: selects.map((s) => `(${s.sql})`).join(' union all ') + ' order by n',
    bindings: selects.flatMap((s) => s.bindings),
  };
}

function facetResults(doc: SearchDocument, aggs: AggRequest[], rows: any[]): Record<string, AggResult> {
  const result: Record<string, AggResult> = {};
  aggs.forEach((agg, i) => {
    const mine = rows.filter((r) => Number(r.n) === i);
    const type = usableField(doc, agg.field)?.type;
    const buckets = mine.map((r) => ({ key: bucketKey(type, r.key), doc_count: Number(r.c) }));
    const all = mine.length ? Number(mine[0].s) : 0;
    result[agg.field] = {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: all - buckets.reduce((sum, b) => sum + b.doc_count, 0),
      buckets,
    };
  });
  return result;
}
