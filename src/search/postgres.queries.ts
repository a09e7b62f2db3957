import type { EntityManager } from '@mikro-orm/postgresql';
import { BudgetedCache, stringBytes } from '../memory';
import { AppError, badRequest } from '../errors';
import { pgArray, query, type Execute } from '../db/sql';
import { and as andCondition, compileWhere, conditionToSql, type Condition, not as notCondition, or as orCondition, parseScope, parseWhere, usableField } from './where';
import { bucketKey, normalizeAggs, normalizeOrder, type AggRequest } from './options';
import { queryWords, relevance, textCondition } from './text';
import { fromClause, type AggResult, type SearchBackend, type SearchDocument, type SearchRequest, type SearchResult, type Sql, type Where } from './types';

function and(parts: Sql[]): Sql {
  const kept = parts.filter((p) => p.sql !== 'true');
  if (!kept.length) return { sql: 'true', bindings: [] };
  return { sql: kept.map((p) => `(${p.sql})`).join(' and '), bindings: kept.flatMap((p) => p.bindings) };
}

/**
 * The default backend: every search is SQL over the resource's own tables, so it is always in step
 * with writes, and the caller's scope is part of each statement. A list costs one statement (page and
 * count), two with `aggs` (one statement for every facet), whatever the page size.
 */
export class PostgresSearchBackend implements SearchBackend {
  constructor(private readonly em: () => EntityManager) {}

  async search(doc: SearchDocument, req: SearchRequest): Promise<SearchResult> {
    const kept = req.q || req.where || req.aggs || req.keyset ? null : keptPlan(doc, req);
    const plan = kept?.plan ?? planSearch(doc, req);
    const execute: Execute = (sql, bindings) => query(this.em(), sql, bindings, { prepare: plan.prepare });
    if (req.keyset) {
      // Cursors need each row's sort values: the page is its own statement.
      const [rows, [{ total }]] = await Promise.all([execute(plan.page.sql, plan.page.bindings), execute(plan.count.sql, plan.count.bindings)]);
      const list = req.keyset.backward ? rows.reverse() : rows;
      return { ids: list.map((r) => r.id), total, aggs: {}, sortValues: list.map((r) => plan.terms.map((_, i) => r[`o${i}`])) };
    }
    // The page, its total and, when asked, its rows in one statement (one round trip, one connection);
    // facets beside it.
    const facets = plan.facets ? execute(plan.facets.sql, plan.facets.bindings) : Promise.resolve([]);
    if (req.rowColumns && plan.pageOf) {
      // The rows read by the page's own range, in its order, each with the total (one row of nulls but the
      // total when the page is empty).
      const page = kept ? kept.direct(req.rowColumns) : directStatement(plan, req.rowColumns);
      const [found, aggs] = await Promise.all([execute(page.sql, page.bindings), facets]);
      const rows = found[0].id === null ? [] : found;
      return { ids: rows.map((r) => r.id), total: found[0][TOTAL], aggs: facetResults(doc, plan.aggs, aggs), rows };
    }
    const rows = req.rows?.(PAGE_IDS);
    const statement = kept ? kept.statement(req.rows) : pageStatement(plan, rows);
    const [[result], aggs] = await Promise.all([execute(statement, [...plan.page.bindings, ...plan.count.bindings, ...(rows?.bindings ?? [])]), facets]);
    return { ids: result.ids, total: result.total, aggs: facetResults(doc, plan.aggs, aggs), ...(rows ? { rows: result.rows } : {}) };
  }
}

/**
 * The rows of `rows` (a statement over the ids `(select ids from page_ids)::uuid[]`) for these ids, in a
 * statement of their own, each as its JSON object (`row_to_json`).
 */
export async function rowsOfIds(em: EntityManager, rows: Sql, ids: readonly string[]): Promise<Array<Record<string, any>>> {
  const raw = await query<{ r: Record<string, any> }>(em, `with page_ids as (select ?::uuid[] as ids) select row_to_json(r) as r from (${rows.sql}) r`, [
    pgArray(ids),
    ...rows.bindings,
  ]);
  return raw.map((x) => x.r);
}

/** Whether the record `id` of `doc` is in the compiled scope `cond`. */
export async function inScope(em: EntityManager, doc: SearchDocument, cond: Sql, id: string): Promise<boolean> {
  const visible = await query(em, `select 1 from ${fromClause(doc, cond.sql)} where ${doc.alias}.id = ? and (${cond.sql}) limit 1`, [id, ...cond.bindings]);
  return visible.length > 0;
}

/** Of `ids` (UUIDs), those of records of `doc` in the compiled scope `cond`, in one statement. */
export async function idsInScope(em: EntityManager, doc: SearchDocument, cond: Sql, ids: readonly string[]): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select ${doc.alias}.id from ${fromClause(doc, cond.sql)} where ${doc.alias}.id = any(?::uuid[]) and (${cond.sql})`,
    [ids, ...cond.bindings],
  );
  return rows.map((r) => r.id);
}

/**
 * Per parent id among `ids`, how many rows of `from` (a FROM clause) whose expression `by` holds it match
 * `cond`, in one statement; a parent without any is absent.
 */
export function countsInScope(em: EntityManager, by: string, from: string, cond: Sql, ids: readonly string[]): Promise<Array<{ id: string; n: number }>> {
  const { sql, bindings } = cond;
  return query<{ id: string; n: number }>(
    em,
    `select ${by} as id, count(*)::int as n from ${from} where ${by} = any(?::uuid[]) and (${sql}) group by 1`,
    [[...ids], ...bindings],
  );
}

/** The page's ids as a `uuid[]` expression, for the statement of `SearchRequest.rows`. */
export const PAGE_IDS = '(select ids from page_ids)::uuid[]';

/** The statement of a page, its total and, with `rows`, its rows. */
function pageStatement(plan: SearchPlan, rows: Sql | undefined): string {
  const head = `with page_ids as (select array(${plan.page.sql}) as ids, (${plan.count.sql}) as total)`;
  return rows
    ? `${head} select array_to_json(ids) as ids, total, (select coalesce(json_agg(r), '[]') from (${rows.sql}) r) as rows from page_ids`
    : `${head} select array_to_json(ids) as ids, total from page_ids`;
}

/** The total's column in a statement of `directStatement`, beside the rows' own. */
const TOTAL = 'leadnet_total';

/** The page's rows (`columns`) read by its own range scan, each beside the total. */
function directStatement(plan: SearchPlan, columns: string): Sql {
  const page = plan.pageOf!(columns);
  return {
    sql: `select c.total as ${TOTAL}, r.* from (${plan.count.sql}) c left join lateral (${page.sql}) r on true`,
    bindings: [...plan.count.bindings, ...page.bindings],
  };
}

/** A plan kept for its request, and its statements per row reader. */
interface KeptPlan {
  plan: SearchPlan;
  statement: (rows: SearchRequest['rows']) => string;
  direct: (columns: string) => Sql;
}

/**
 * The plans of plain pages (no `q`, `where`, `aggs` or cursor: a list's usual request, whose statements
 * are prepared), by everything they are made of: the document, the caller's scope and hidden fields, the
 * order and the page. A plan is a pure function of these, so a kept one is the plan; the bound keeps
 * the texts of callers with long scopes (thousands of stores) from holding much memory.
 */
const plainPlans = new BudgetedCache<string, KeptPlan>('search_plans', {
  // The key holds the scope's values, which the plan's bindings repeat; its statements take a few KB each.
  sizeOf: (_plan, key) => 4 * stringBytes(key) + PLAN_TEXT_BYTES,
});
/** Statement texts of a kept plan, with and without row readers, as one UTF-16 estimate. */
const PLAN_TEXT_BYTES = 16 * 1024;
/** A value as the key of its plan: `undefined` kept apart from an absent key and from null (JSON drops it). */
const keyValue = (_key: string, value: unknown) => (value === undefined ? '\u0000undefined' : value);
/** Each document's number in the keys of `plainPlans` (two documents may share a name: tests make their own). */
const documentNumbers = new WeakMap<SearchDocument, number>();
let nextDocumentNumber = 0;

function keptPlan(doc: SearchDocument, req: SearchRequest): KeptPlan {
  let number = documentNumbers.get(doc);
  if (number === undefined) documentNumbers.set(doc, (number = nextDocumentNumber++));
  const key = `${number}:${JSON.stringify([req.scope, req.hidden ?? [], req.order ?? null, req.page, req.perPage], keyValue)}`;
  let kept = plainPlans.get(key);
  if (!kept) {
    const plan = planSearch(doc, req);
    // Per row reader (a list's own, or one made for a request, which goes with it).
    const texts = new WeakMap<NonNullable<SearchRequest['rows']>, string>();
    const withoutRows = pageStatement(plan, undefined);
    const direct = new Map<string, Sql>();
    kept = {
      plan,
      statement: (rows) => {
        if (!rows) return withoutRows;
        let text = texts.get(rows);
        if (text === undefined) texts.set(rows, (text = pageStatement(plan, rows(PAGE_IDS))));
        return text;
      },
      direct: (columns) => {
        let statement = direct.get(columns);
        if (!statement) direct.set(columns, (statement = directStatement(plan, columns)));
        return statement;
      },
    };
    plainPlans.set(key, kept);
  }
  return kept;
}

export interface SearchPlan {
  page: Sql;
  count: Sql;
  facets: Sql | null;
  aggs: AggRequest[];
  /** The list order's terms, the id last. */
  terms: OrderTerm[];
  /**
   * A page in one range (one part, no cursor) within the first `DIRECT_ROWS` rows of its list: its
   * statement with `columns` (over the document's root alias) in place of the ids, so the range's own scan
   * reads the rows. Null for any other page.
   */
  pageOf: ((columns: string) => Sql) | null;
  /**
   * Whether the statements may be prepared (`src/db/sql.ts`): only without `q`, `where` and `aggs`. A
   * generic plan cannot fold `q`'s pattern into the constant the trigram index needs (a 50 ms `q` took
   * 185 ms once PostgreSQL switched to one), nor weigh how many rows a filter's values select.
   */
  prepare: boolean;
}

/**
 * The statements of one search; every 400 (where, order, aggs) is raised here, before any SQL runs.
 *
 * A scope that is a disjunction (`_or`, e.g. a lead's "assigned to a store I see, or mine") is split
 * into disjoint parts, branch i and none of the branches before it, each an index range of its own:
 * the page is the union of each part's first `offset + perPage` rows in list order (a range scan plus
 * LIMIT each), the total the sum of the parts' counts (index-only counts), a facet the sum of the
 * parts' buckets. The results are exactly those of the whole disjunction. Without `q`, a branch over a
 * few values of one field is split the same way, a part per value (`scopeParts`).
 */
export function planSearch(doc: SearchDocument, req: SearchRequest): SearchPlan {
  const words = queryWords(req.q);
  const text = textCondition(doc, words);
  const access = { hidden: req.hidden };
  const whereCondition = parseWhere(doc, req.where, undefined, access);
  const where = conditionToSql(doc, whereCondition);
  // Split by value only without `q`: each part would search the text again.
  const scopes = scopeParts(doc, req.scope, words.length === 0);
  const parts = scopes.map((scope) => [conditionToSql(doc, scope), text]);
  const filters = parts.map((base) => and([...base, where]));
  const terms = orderBy(doc, req, words);
  const aggs = normalizeAggs(req.aggs);
  const offset = (req.page - 1) * req.perPage;
  // Keyset paging reads the list from the cursor on (backward: the list reversed, from the cursor back).
  const keyset = req.keyset;
  const order = keyset?.backward ? terms.map((t) => ({ ...t, direction: REVERSED[t.direction] })) : terms;
  const seek = keyset?.after ? keysetCondition(terms, keyset.after, keyset.backward) : null;
  const pageFilters = seek ? filters.map((f) => and([f, seek])) : filters;
  const orderSql = order.map((o) => `${o.sql} ${o.direction}`).join(', ');
  const orderBindings = order.flatMap((o) => o.bindings);
  const columns = order.map((o, i) => `${o.sql} as o${i}`).join(', ');
  // Each part joins only what its own SQL reads (a part that does not read the joined table stays an
  // index range over the root table, its count index-only).
  const from = (f: Sql) => fromClause(doc, f.sql, orderSql);
  let page: Sql;
  let pageOf: SearchPlan['pageOf'] = null;
  if (pageFilters.length === 1) {
    const [filter] = pageFilters;
    page = {
      sql: `select ${doc.alias}.id${keyset ? `, ${columns}` : ''} from ${from(filter)} where ${filter.sql} order by ${orderSql} limit ? offset ?`,
      bindings: [...(keyset ? orderBindings : []), ...filter.bindings, ...orderBindings, req.perPage, offset],
    };
    if (!keyset && offset + req.perPage <= DIRECT_ROWS) {
      pageOf = (rowColumns) => ({
        sql: `select ${rowColumns} from ${fromClause(doc, filter.sql, orderSql, rowColumns)} where ${filter.sql} order by ${orderSql} limit ? offset ?`,
        bindings: [...filter.bindings, ...orderBindings, req.perPage, offset],
      });
    }
  } else {
    const outerOrder = order.map((o, i) => `o${i} ${o.direction}`).join(', ');
    const selects = pageFilters.map((f) => ({
      sql: `(select ${doc.alias}.id, ${columns} from ${from(f)} where ${f.sql} order by ${outerOrder} limit ?)`,
      bindings: [...orderBindings, ...f.bindings, offset + req.perPage],
    }));
    page = {
      sql: `select id${keyset ? `, ${order.map((_, i) => `o${i}`).join(', ')}` : ''} from (${selects.map((s) => s.sql).join(' union all ')}) as parts order by ${outerOrder} limit ? offset ?`,
      bindings: [...selects.flatMap((s) => s.bindings), req.perPage, offset],
    };
  }
  const unfiltered = text.sql === 'true' && where.sql === 'true';
  const days = text.sql === 'true' ? dayRange(doc, whereCondition) : null;
  const counts = filters.map(
    (f, i) =>
      (unfiltered && keptCount(doc, scopes[i])) ||
      (days && keptDaysCount(doc, scopes[i], days, f)) || { sql: `(select count(*) from ${fromClause(doc, f.sql)} where ${f.sql})`, bindings: f.bindings },
  );
  return {
    page,
    count: { sql: `select (${counts.map((c) => c.sql).join(' + ')})::int as total`, bindings: counts.flatMap((c) => c.bindings) },
    facets: aggs.length ? facetsStatement(doc, req, parts, aggs) : null,
    aggs,
    terms,
    pageOf,
    prepare: unfiltered && !aggs.length,
  };
}

/**
 * How deep into its list a page may end and still read its rows in its own range scan (`SearchPlan.pageOf`):
 * that scan reads the rows it skips too, where the ids of a deeper page are an index-only range and its
 * rows 50 lookups by id.
 */
export const DIRECT_ROWS = 1000;

const REVERSED: Record<string, string> = {
  asc: 'desc',
  desc: 'asc',
  'asc nulls last': 'desc nulls first',
  'desc nulls last': 'asc nulls first',
};

/**
 * The rows strictly after (`backward`: before) the row whose sort values are `values`, in the list
 * order `terms` (client fields sort nulls last; the default terms and relevance are never null):
 * `t0 after v0, or t0 = v0 and t1 after v1, or ...`. When the first term is never null it also bounds
 * the range (`t0 <= v0`), so the index that serves the list order seeks to the cursor instead of
 * reading every row before it.
 */
function keysetCondition(terms: OrderTerm[], values: unknown[], backward: boolean): Sql {
  if (values.length !== terms.length) throw new AppError('BAD_USER_INPUT', 'The cursor does not fit this list: ask for the first page again');
  const branches: Sql[] = [];
  terms.forEach((t, i) => {
    const v = values[i];
    const asc = t.direction.startsWith('asc');
    const nullable = t.direction.includes('nulls');
    const greater = asc !== backward ? '>' : '<';
    let step: Sql | null;
    if (!backward) step = v === null ? null : { sql: `((${t.sql}) ${greater} ?${nullable ? ` or (${t.sql}) is null` : ''})`, bindings: [...t.bindings, v, ...(nullable ? t.bindings : [])] };
    else step = v === null ? { sql: `(${t.sql}) is not null`, bindings: t.bindings } : { sql: `(${t.sql}) ${greater} ?`, bindings: [...t.bindings, v] };
    if (!step) return;
    const equal = terms.slice(0, i).map((e, j) => ({ sql: `(${e.sql}) is not distinct from ?`, bindings: [...e.bindings, values[j]] }));
    branches.push(and([...equal, step]));
  });
  const any: Sql = branches.length
    ? { sql: branches.map((b) => `(${b.sql})`).join(' or '), bindings: branches.flatMap((b) => b.bindings) }
    : { sql: 'false', bindings: [] };
  const [first] = terms;
  if (first.direction.includes('nulls') || values[0] === null) return any;
  const bound = first.direction.startsWith('asc') !== backward ? '>=' : '<=';
  return and([{ sql: `(${first.sql}) ${bound} ?`, bindings: [...first.bindings, values[0]] }, any]);
}

type Terms = Extract<Condition, { kind: 'terms' }>;

/**
 * The scope as disjoint parts: one part, or for `_or` branch i and not any branch before it (leaving out
 * the branches it excludes by itself: `neverEquals`). With `byValue`, a branch whose one list of values
 * is a field in a few values (a retailer manager's company retailers) is a part per value: each an index
 * range in list order, where the list would be every row of the branch sorted.
 */
function scopeParts(doc: SearchDocument, scope: Where, byValue: boolean): Condition[] {
  const cond = parseScope(doc, scope);
  const branches = cond.kind === 'or' ? cond.parts : [cond];
  return branches.flatMap((branch, i) => {
    const before = branches.slice(0, i).filter((earlier) => !excludes(doc, branch, earlier));
    const parts = byValue ? splitByValue(doc, branch) : [branch];
    return before.length ? parts.map((part) => andCondition([part, notCondition(orCondition(before))])) : parts;
  });
}

/** At most this many parts per branch (each reads up to `offset + perPage` rows of the page). */
const MAX_VALUE_PARTS = 16;

/**
 * A branch that is a field equal to one of 2 to MAX_VALUE_PARTS values (alone or with other conditions,
 * none with a list of its own) as one branch per value, which no row matches twice; else the branch.
 */
function splitByValue(doc: SearchDocument, branch: Condition): Condition[] {
  const conditions = branch.kind === 'and' ? branch.parts : [branch];
  const lists = conditions.filter((c): c is Terms => c.kind === 'terms' && c.values.length > 1);
  if (lists.length !== 1 || doc.fields[lists[0].field].array) return [branch];
  const [list] = lists;
  const values = [...new Set(list.values)];
  if (values.length > MAX_VALUE_PARTS) return [branch];
  return values.map((value) => andCondition(conditions.map((c) => (c === list ? { ...list, values: [value] } : c))));
}

/** Whether no row matches both `a` and `b`: `a` is a field equal to one value that another field never holds, and `b` that field equal to it. */
function excludes(doc: SearchDocument, a: Condition, b: Condition): boolean {
  if (a.kind !== 'terms' || b.kind !== 'terms' || a.values.length !== 1) return false;
  return doc.fields[a.field].neverEquals === b.field && b.values.every((v) => v === a.values[0]);
}

/** A scope part whose rows `doc.counts` counts: its row name, and the values of its key (and of the pair's first field). */
interface CountedPart {
  field: string;
  within?: Terms['values'];
  values: Terms['values'];
}

/**
 * A scope part that is a counted field equal to some values, or both fields of a counted pair equal to
 * some values each, among `fields`; or null.
 */
function countedPart(part: Condition, fields: ReadonlyArray<string | readonly [string, string]>): CountedPart | null {
  if (part.kind === 'terms') return fields.includes(part.field) ? { field: part.field, values: part.values } : null;
  if (part.kind !== 'and' || part.parts.length !== 2 || !part.parts.every((p): p is Terms => p.kind === 'terms')) return null;
  const [x, y] = part.parts as Terms[];
  for (const [a, b] of [[x, y], [y, x]]) {
    if (fields.some((f) => typeof f !== 'string' && f[0] === a.field && f[1] === b.field)) return { field: `${a.field},${b.field}`, within: a.values, values: b.values };
  }
  return null;
}

/** The sum of the kept counts of a counted scope part in `table`, over its rows that `extra` (SQL over `c`) selects. */
function keptSum(table: string, part: CountedPart, extra: Sql[] = []): Sql {
  const uuids = (values: Terms['values']) => pgArray(values.map(String));
  const where = and([
    { sql: 'c.field = ?', bindings: [part.field] },
    ...(part.within ? [{ sql: 'c.within_key = any(?::uuid[])', bindings: [uuids(part.within)] }] : []),
    { sql: 'c.key = any(?::uuid[])', bindings: [uuids(part.values)] },
    ...extra,
  ]);
  return { sql: `(select coalesce(sum(c.n), 0) from ${table} c where ${where.sql})`, bindings: where.bindings };
}

/** The count of a scope part that is counted (`countedPart`), from `doc.counts`. */
function keptCount(doc: SearchDocument, part: Condition): Sql | null {
  if (!doc.counts) return null;
  const counted = countedPart(part, doc.counts.fields);
  return counted && keptSum(doc.counts.table, counted);
}

const DAY_MS = 86_400_000;
const LAST_DAY = Date.parse('9999-12-31T00:00:00Z');

/**
 * The whole UTC days of a `where` that is only a range of `doc.counts.byDay`'s field: from `first`
 * (inclusive) to `end` (exclusive), as epoch milliseconds of midnights, null for an open side. Null
 * when the where is anything else or covers no whole day.
 */
function dayRange(doc: SearchDocument, where: Condition): { first: number | null; end: number | null } | null {
  const field = doc.counts?.byDay?.field;
  const ranges = where.kind === 'and' ? where.parts : [where];
  if (!field || !ranges.every((r) => r.kind === 'range' && r.field === field)) return null;
  let first: number | null = null;
  let end: number | null = null;
  for (const r of ranges as Array<Extract<Condition, { kind: 'range' }>>) {
    const ms = Date.parse(String(r.value));
    const midnight = Math.floor(ms / DAY_MS) * DAY_MS;
    if (r.op === 'gt' || r.op === 'gte') {
      // The first day wholly inside: the bound's own day only when it starts exactly at its midnight.
      const day = r.op === 'gte' && ms === midnight ? midnight : midnight + DAY_MS;
      first = first === null ? day : Math.max(first, day);
    } else {
      // The day of the bound itself is never whole (`lte` midnight takes one instant of it).
      end = end === null ? midnight : Math.min(end, midnight);
    }
  }
  // A range from the last day of year 9999 on has no whole day a date can name.
  if (first !== null && first > LAST_DAY) return null;
  return first !== null && end !== null && first >= end ? null : { first, end };
}

/**
 * The total of a scope part that is a counted field equal to some values, under a `where` that is a
 * range of `created_at` (`dayRange`): the kept counts of the days the range covers whole, plus the
 * matching rows before and after them (at most a day's rows on each side), counted.
 */
function keptDaysCount(doc: SearchDocument, part: Condition, days: { first: number | null; end: number | null }, filter: Sql): Sql | null {
  const byDay = doc.counts?.byDay;
  const counted = byDay && countedPart(part, byDay.fields);
  if (!byDay || !counted) return null;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const column = doc.fields[byDay.field].sql;
  const sum = keptSum(byDay.table, counted, [
    ...(days.first !== null ? [{ sql: 'c.day >= ?::date', bindings: [date(days.first)] }] : []),
    ...(days.end !== null ? [{ sql: 'c.day < ?::date', bindings: [date(days.end)] }] : []),
  ]);
  const edge = (op: string, ms: number): Sql => ({
    sql: `(select count(*) from ${fromClause(doc, filter.sql)} where ${filter.sql} and ${column} ${op} ?::timestamptz)`,
    bindings: [...filter.bindings, new Date(ms).toISOString()],
  });
  const parts = [sum, ...(days.first !== null ? [edge('<', days.first)] : []), ...(days.end !== null ? [edge('>=', days.end)] : [])];
  return { sql: `(${parts.map((p) => p.sql).join(' + ')})`, bindings: parts.flatMap((p) => p.bindings) };
}

interface OrderTerm {
  sql: string;
  direction: string;
  bindings: unknown[];
}

/** `order` (PRODUCT.md section 6), then relevance when `q` is given, then `created_at desc, id`. */
function orderBy(doc: SearchDocument, req: SearchRequest, words: string[]): OrderTerm[] {
  const parts: OrderTerm[] = [];
  const pairs = normalizeOrder(req.order);
  for (const [field, direction] of pairs) {
    if (field === '_score') {
      const score = relevance(doc, words);
      if (score) parts.push({ sql: score.sql, direction, bindings: score.bindings });
      continue;
    }
    const f = usableField(doc, field, { hidden: req.hidden });
    if (!f || f.array) throw badRequest(`Unknown order field: ${field}`);
    parts.push({ sql: f.sql, direction: `${direction} nulls last`, bindings: [] });
  }
  const score = pairs.length ? null : relevance(doc, words);
  if (score) parts.push({ sql: score.sql, direction: 'desc', bindings: score.bindings });
  parts.push({ sql: `${doc.alias}.created_at`, direction: 'desc', bindings: [] }, { sql: `${doc.alias}.id`, direction: 'asc', bindings: [] });
  return parts;
}

/**
 * One statement for every requested facet. Each facet applies the scope, `q`, every top-level `where`
 * condition except the one on its own field, and its own `where`; over a split scope it counts each
 * part and adds them up.
 */
function facetsStatement(doc: SearchDocument, req: SearchRequest, parts: Sql[][], aggs: AggRequest[]): Sql {
  const access = { hidden: req.hidden };
  const selects: Sql[] = aggs.map((agg, i) => {
    const f = usableField(doc, agg.field, access);
    if (!f) return { sql: `select ${i} as n, null::jsonb as key, 0::bigint as c, 0::numeric as s where false`, bindings: [] };
    const own = [compileWhere(doc, req.where, agg.field, access), compileWhere(doc, agg.where, undefined, access)];
    // An array field counts a record once per distinct value, as Elasticsearch does.
    const key = f.array ? 'u.k' : f.sql;
    const keys = parts.map((base) => {
      const cond = and([...base, ...own]);
      const root = fromClause(doc, f.sql, cond.sql);
      const from = f.array ? `${root} cross join lateral (select distinct x from unnest(${f.sql}) as x) as u(k)` : root;
      return { sql: `select ${key} as k from ${from} where ${cond.sql}`, bindings: cond.bindings };
    });
    const sort = agg.orderByKey ? `k ${agg.direction}, c desc` : `c ${agg.direction}, k asc`;
    return {
      sql: `select ${i} as n, to_jsonb(k) as key, c, s from (
              select k, c, row_number() over (order by ${sort}) as r, sum(c) over () as s
                from (select k, count(*) as c from (${keys.map((k) => k.sql).join(' union all ')}) as keys group by 1) g
               where k is not null and c >= ?
            ) x where r <= ?`,
      bindings: [...keys.flatMap((k) => k.bindings), agg.minDocCount, agg.limit],
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
