import type { EntityClass, EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import { AppError, notFound } from '../errors';
import { checkListArgs } from '../limits';
import { normalizePage } from './options';
import { compileScope } from './where';
import { ListOptions } from './list-args';
import { camel } from './names';
import { inScope, rowsOfIds } from './postgres.queries';
import type { AggResult, Aggs, Order, SearchBackend, SearchDocument, Sql, Where } from './types';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID_RE.test(id);

/** What a list reads of its request (src/context.ts's `Context` has it): the unit of work, the caller, the search backend. */
export interface SearchContext {
  em: EntityManager;
  caller: Caller | null;
  search: SearchBackend;
}

/**
 * The list arguments every list field takes (PRODUCT.md section 6): `where`, `order` and `aggs` are
 * each resource's typed inputs (src/search/list-args.ts); `opts` holds the same three in the REST
 * contract's shape (the form the REST facade's list operations pass), instead of them.
 */
export interface ListArgs {
  q?: string | null;
  where?: unknown;
  order?: unknown;
  page?: number | null;
  perPage?: number | null;
  aggs?: unknown;
  opts?: { where?: unknown; order?: unknown; aggs?: unknown } | null;
}

/** A page's place in its list (GraphQL's `SearchMeta`, src/graphql/common.ts). */
export interface PageMeta {
  total: number;
  page: number;
  perPage: number;
  totalPages: number;
  aggs: Record<string, AggResult>;
}

export interface Page<T> {
  nodes: T[];
  meta: PageMeta;
}

/** Per document, its fields that only some callers may read. */
const restricted = new WeakMap<SearchDocument, Array<[string, (caller: Caller) => boolean]>>();

/** The fields of `doc` this caller may not read (`SearchField.readableBy`). */
export function hiddenFields(doc: SearchDocument, caller: Caller | null): string[] {
  let fields = restricted.get(doc);
  if (!fields) {
    fields = Object.entries(doc.fields).flatMap(([name, f]) => (f.readableBy ? [[name, f.readableBy] as [string, (caller: Caller) => boolean]] : []));
    restricted.set(doc, fields);
  }
  return fields.filter(([, readable]) => !(caller && readable(caller))).map(([name]) => name);
}

/**
 * The one list-options type both roads read: `where`, `order` and `aggs` in the tree the search backends
 * take (PRODUCT.md 6, the documents' snake_case names), with the name each facet answers under.
 */
export interface ListQueryOptions {
  where: Where | null;
  order: Order | null;
  aggs: Aggs | null;
  facetName: (field: string) => string;
}

const asAsked = (field: string) => field;

/**
 * A list request's options for this caller: `opts` (the contract's shape, as the REST facade's list
 * operations pass it; facets keep the names asked) or the typed `where`, `order` and `aggs` (camelCase
 * names, each field checked against what the caller may read). Not both.
 */
export function listQueryOptions(doc: SearchDocument, hidden: readonly string[], args: ListArgs): ListQueryOptions {
  const opts = args.opts;
  if (opts) {
    if (args.where != null || args.order != null || args.aggs != null) {
      throw new AppError('BAD_USER_INPUT', 'Give the list options either as opts or as where, order and aggs, not both.');
    }
    const options = { where: (opts.where ?? null) as Where | null, order: (opts.order ?? null) as Order | null, aggs: (opts.aggs ?? null) as Aggs | null };
    checkListArgs(options);
    return { ...options, facetName: asAsked };
  }
  // No options (a plain page, the REST list's usual request): nothing to read.
  if (args.where == null && args.order == null && args.aggs == null) return NO_OPTIONS;
  return { ...new ListOptions(doc, hidden).read(args), facetName: camel };
}

const NO_OPTIONS: ListQueryOptions = { where: null, order: null, aggs: null, facetName: camel };

/** The ids of a list page (search, scope included) and its `meta`; with `rows`, the rows when the backend read them. */
export async function searchPage(
  ctx: SearchContext,
  doc: SearchDocument,
  scope: Where,
  args: ListArgs,
  rows?: RowReader<unknown>,
): Promise<{ ids: string[]; meta: PageMeta; rows?: Record<string, any>[] }> {
  const { page, perPage } = normalizePage(args.page, args.perPage);
  const hidden = hiddenFields(doc, ctx.caller);
  const { where, order, aggs, facetName } = listQueryOptions(doc, hidden, args);
  const result = await ctx.search.search(doc, { q: args.q, where, order, aggs, page, perPage, scope, hidden, rows: rows?.sql, rowColumns: rows?.columns?.(doc.alias) });
  const facets = Object.fromEntries(Object.entries(result.aggs).map(([field, agg]) => [facetName(field), agg]));
  return { ids: result.ids, rows: result.rows, meta: { total: result.total, page, perPage, totalPages: Math.ceil(result.total / perPage), aggs: facets } };
}

/**
 * A list page of any resource: search (scope included) for the ids, then load those entities in one
 * statement and keep the search order.
 */
export async function listPage<T extends { id: string }>(
  ctx: SearchContext,
  doc: SearchDocument,
  entity: EntityClass<T>,
  scope: Where,
  args: ListArgs,
): Promise<Page<T>> {
  const { ids, meta } = await searchPage(ctx, doc, scope, args);
  const rows = ids.length ? await ctx.em.find(entity, { id: { $in: ids } } as unknown as FilterQuery<T>) : [];
  const byId = new Map((rows as T[]).map((r) => [r.id, r]));
  return { nodes: ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined), meta };
}

/**
 * How a list reads its page as plain rows (a read model): one statement over the page's ids, and what
 * each of its rows (as JSON) becomes. The search's own statement reads them when its backend reads
 * the tables, so a page costs one statement.
 */
export interface RowReader<T> {
  /** The rows whose ids are the `uuid[]` SQL expression `ids`, in any order, one JSON object each. */
  sql: (ids: string) => Sql;
  /**
   * When every field of a row is a column (or an expression) of the document's root row: the same rows'
   * select list over the root alias, which the page's own range scan may read instead
   * (`SearchRequest.rowColumns`). Its values arrive as node-postgres reads them, not as JSON: `row` takes
   * both (timestamps as text either way; an int8 or a numeric would be a string here).
   */
  columns?: (alias: string) => string;
  row: (raw: Record<string, any>) => T;
}

/** The ids of a statement of `RowReader.sql` read alone (a search backend that does not read the tables). */
const GIVEN_IDS = '(select ids from page_ids)::uuid[]';

/** The rows of `ids` by `reader`, in a statement of their own. */
export async function readRows<T>(ctx: SearchContext, reader: RowReader<T>, ids: readonly string[]): Promise<T[]> {
  return (await rowsOfIds(ctx.em, reader.sql(GIVEN_IDS), ids)).map((r) => reader.row(r));
}

/**
 * A list page read as plain rows, not managed entities: search (scope included) for the ids, and the
 * rows in the same statement (`RowReader`) or, given a function, read by it in one more, in the search
 * order. No entity hydration per row.
 */
export async function listPageRows<T extends { id: string }>(
  ctx: SearchContext,
  doc: SearchDocument,
  scope: Where,
  args: ListArgs,
  read: RowReader<T> | ((ids: string[]) => Promise<T[]>),
): Promise<Page<T>> {
  const reader = typeof read === 'function' ? null : read;
  const { ids, meta, rows: raw } = await searchPage(ctx, doc, scope, args, reader ?? undefined);
  let rows: T[];
  if (reader) rows = raw ? raw.map(reader.row) : ids.length ? await readRows(ctx, reader, ids) : [];
  else rows = ids.length ? await (read as (ids: string[]) => Promise<T[]>)(ids) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { nodes: ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined), meta };
}

/**
 * The record with this id when the caller's scope (the same `Where` that filters its lists) covers it;
 * otherwise 404, as for an id that does not exist or is not a UUID.
 */
export async function findInScope<T extends { id: string }>(
  ctx: SearchContext,
  doc: SearchDocument,
  entity: EntityClass<T>,
  scope: Where,
  id: string,
  typeName: string,
): Promise<T> {
  if (!isUuid(id)) throw notFound(typeName, id);
  const cond = compileScope(doc, scope);
  const record = (await inScope(ctx.em, doc, cond, id)) ? await ctx.em.findOne(entity, { id } as unknown as FilterQuery<T>) : null;
  if (!record) throw notFound(typeName, id);
  return record as T;
}
