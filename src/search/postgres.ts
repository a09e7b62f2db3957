import type { EntityManager } from '@mikro-orm/postgresql';
import { badRequest } from '../errors';
import { compileWhere } from './where';
import { normalizeAggs, normalizeOrder } from './options';
import type { AggResult, SearchBackend, SearchDocument, SearchRequest, SearchResult, Sql } from './types';

type Execute = (sql: string, bindings: unknown[]) => Promise<any[]>;

/**
 * The default backend: every search is SQL over the resource's own tables, so it is always in step
 * with writes. A list costs three statements at most (page, count, facets), whatever the page size.
 */
export class PostgresSearchBackend implements SearchBackend {
  constructor(private readonly em: () => EntityManager) {}

  async search(doc: SearchDocument, req: SearchRequest): Promise<SearchResult> {
    const execute: Execute = (sql, bindings) => this.em().getConnection().execute(sql, bindings as any[]);
    const base = [compileWhere(doc, req.scope), textQuery(doc, req.q)];
    const filter = and([...base, compileWhere(doc, req.where)]);
    const order = orderBy(doc, req);
    const offset = (req.page - 1) * req.perPage;

    const [rows, [{ total }], aggs] = await Promise.all([
      execute(
        `select ${doc.alias}.id from ${doc.from} where ${filter.sql} order by ${order.sql} limit ? offset ?`,
        [...filter.bindings, ...order.bindings, req.perPage, offset],
      ),
      execute(`select count(*)::int as total from ${doc.from} where ${filter.sql}`, filter.bindings),
      facets(execute, doc, req, base),
    ]);
    return { ids: rows.map((r) => r.id), total, aggs };
  }
}

function and(parts: Sql[]): Sql {
  return { sql: parts.map((p) => `(${p.sql})`).join(' and '), bindings: parts.flatMap((p) => p.bindings) };
}

/** Words of `q`, lower-cased; `*` and blank mean no text condition. */
export function queryWords(q: string | null | undefined): string[] {
  if (!q || q.trim() === '*') return [];
  return q
    .toLowerCase()
    .split(/[\s,;]+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}@.+_-]+$/gu, ''))
    .filter(Boolean);
}

function textExpression(doc: SearchDocument): string | null {
  const fields = Object.values(doc.fields).filter((f) => f.text);
  if (!fields.length) return null;
  const parts = fields.map((f) => (f.array ? `array_to_string(${f.sql}, ' ')` : `${f.sql}::text`));
  return `leadnet_search_text(concat_ws(' ', ${parts.join(', ')}))`;
}

/** Every word must start a word of the document's text fields (case- and accent-insensitive). */
function textQuery(doc: SearchDocument, q: string | null | undefined): Sql {
  const words = queryWords(q);
  if (!words.length) return { sql: 'true', bindings: [] };
  const text = textExpression(doc);
  if (!text) return { sql: 'false', bindings: [] };
  return {
    sql: words.map(() => `${text} ~ ('(^|[^[:alnum:]])' || leadnet_regex_escape(leadnet_search_text(?)))`).join(' and '),
    bindings: words,
  };
}

function orderBy(doc: SearchDocument, req: SearchRequest): Sql {
  const parts: string[] = [];
  for (const [field, direction] of normalizeOrder(req.order)) {
    const f = doc.fields[field];
    if (!f || f.array) throw badRequest(`Unknown order field: ${field}`);
    parts.push(`${f.sql} ${direction} nulls last`);
  }
  parts.push(`${doc.alias}.created_at desc`, `${doc.alias}.id asc`);
  return { sql: parts.join(', '), bindings: [] };
}

/** One statement for every requested facet; each facet ignores the `where` condition on its own field. */
async function facets(execute: Execute, doc: SearchDocument, req: SearchRequest, base: Sql[]): Promise<Record<string, AggResult>> {
  const aggs = normalizeAggs(req.aggs);
  if (!aggs.length) return {};
  const selects: Sql[] = aggs.map((agg, i) => {
    const f = doc.fields[agg.field];
    if (!f) return { sql: `select ${i} as n, null::text as key, 0::bigint as c, 0::bigint as s where false`, bindings: [] };
    const cond = and([...base, compileWhere(doc, req.where, agg.field), compileWhere(doc, agg.where)]);
    const key = f.array ? 'k' : f.sql;
    const from = f.array ? `${doc.from} cross join lateral unnest(${f.sql}) as k` : doc.from;
    const sort = agg.orderByKey ? `k ${agg.direction}, c desc` : `c ${agg.direction}, k asc`;
    return {
      sql: `select ${i} as n, key, c, s from (
              select k::text as key, c, row_number() over (order by ${sort}) as r, sum(c) over () as s
                from (select ${key} as k, count(*) as c from ${from} where ${cond.sql} group by 1) g
               where k is not null and c >= ?
            ) x where r <= ?`,
      bindings: [...cond.bindings, agg.minDocCount, agg.limit],
    };
  });
  const rows = await execute(
    selects.map((s) => `(${s.sql})`).join(' union all ') + ' order by n',
    selects.flatMap((s) => s.bindings),
  );
  const result: Record<string, AggResult> = {};
  aggs.forEach((agg, i) => {
    const mine = rows.filter((r) => Number(r.n) === i);
    const f = doc.fields[agg.field];
    const buckets = mine.map((r) => ({ key: bucketKey(f?.type, r.key), doc_count: Number(r.c) }));
    const all = mine.length ? Number(mine[0].s) : 0;
    result[agg.field] = {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: all - buckets.reduce((sum, b) => sum + b.doc_count, 0),
      buckets,
    };
  });
  return result;
}

function bucketKey(type: string | undefined, key: string): string | number | boolean {
  if (type === 'number') return Number(key);
  if (type === 'boolean') return key === 'true';
  if (type === 'date') return new Date(key).toISOString();
  return key;
}
