import type { EntityClass, FilterQuery } from '@mikro-orm/postgresql';
import type { Context } from '../context';
import type { Caller } from '../auth/caller';
import type { ListArgs, Page, SearchMeta } from '../graphql/common';
import { notFound } from '../errors';
import { normalizePage } from './options';
import { compileScope } from './where';
import { ListOptions } from '../graphql/list-args';
import { camel } from '../rest/input';
import { query } from '../db/sql';
import { fromClause, type Aggs, type Order, type SearchDocument, type Where } from './types';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID_RE.test(id);

/** The fields of `doc` this caller may not read (`SearchField.readableBy`). */
export function hiddenFields(doc: SearchDocument, caller: Caller | null): string[] {
  return Object.entries(doc.fields)
    .filter(([, f]) => f.readableBy && !(caller && f.readableBy(caller)))
    .map(([name]) => name);
}

/**
 * `where`, `order` and `aggs` of a list request: the REST contract's `opts[...]` as sent (REST facade),
 * else GraphQL's typed arguments read for this caller; with the name to give each facet.
 */
function listOptions(ctx: Context, doc: SearchDocument, hidden: readonly string[], args: { where?: unknown; order?: unknown; aggs?: unknown }) {
  if (ctx.restListOptions) return { ...(ctx.restListOptions as { where: Where; order: Order; aggs: Aggs }), facetName: (field: string) => field };
  const options = new ListOptions(doc, hidden);
  return { ...options.read(args), facetName: camel };
}

/** The ids of a list page (search, scope included) and its `meta`. */
export async function searchPage(ctx: Context, doc: SearchDocument, scope: Where, args: ListArgs): Promise<{ ids: string[]; meta: SearchMeta }> {
  const { page, perPage } = normalizePage(args.page, args.perPage);
  const hidden = hiddenFields(doc, ctx.caller);
  const { where, order, aggs, facetName } = listOptions(ctx, doc, hidden, args);
  const result = await ctx.search.search(doc, { q: args.q, where, order, aggs, page, perPage, scope, hidden });
  const facets = Object.fromEntries(Object.entries(result.aggs).map(([field, agg]) => [facetName(field), agg]));
  return { ids: result.ids, meta: { total: result.total, page, perPage, totalPages: Math.ceil(result.total / perPage), aggs: facets } };
}

/**
 * A list page of any resource: search (scope included) for the ids, then load those entities in one
 * statement and keep the search order.
 */
export async function listPage<T extends { id: string }>(
  ctx: Context,
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
 * The record with this id when the caller's scope (the same `Where` that filters its lists) covers it;
 * otherwise 404, as for an id that does not exist or is not a UUID.
 */
export async function findInScope<T extends { id: string }>(
  ctx: Context,
  doc: SearchDocument,
  entity: EntityClass<T>,
  scope: Where,
  id: string,
  typeName: string,
): Promise<T> {
  if (!isUuid(id)) throw notFound(typeName, id);
  const cond = compileScope(doc, scope);
  const visible = await query(ctx.em, `select 1 from ${fromClause(doc, cond.sql)} where ${doc.alias}.id = ? and (${cond.sql}) limit 1`, [id, ...cond.bindings]);
  const record = visible.length ? await ctx.em.findOne(entity, { id } as unknown as FilterQuery<T>) : null;
  if (!record) throw notFound(typeName, id);
  return record as T;
}
