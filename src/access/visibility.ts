import type DataLoader from 'dataloader';
import type { EntityClass, EntityManager } from '@mikro-orm/postgresql';
import type { Loaders } from '../db/loaders';
import type { Caller } from '../auth/caller';
import { AppError, forbidden } from '../errors';
import { isUuid } from '../search/list';
import { compileScope } from '../search/where';
import { countsInScope, idsInScope } from '../search/postgres.queries';
import { fromClause, type SearchDocument, type Sql, type Where } from '../search/types';

/** What visibility reads of its request (src/context.ts's `Context` has it). */
export interface AccessContext {
  em: EntityManager;
  caller: Caller | null;
  loaders: Loaders;
}

/**
 * One visible object type (PRODUCT.md section 3, docs/roles.md): its GraphQL type's name, its entity,
 * its search document and the `Where` of the records a caller sees (its policy's `scope`, the one entry
 * point both SQL and the search engine read). Roots (lists, shows), nested fields, includes, the
 * references of writes and counts all ask it, so a record type is visible the same way wherever it is
 * reached. Each resource declares its own beside its search document (`<resource>.search.ts`).
 */
export interface VisibleType<T = unknown> {
  type: string;
  entity: EntityClass<T>;
  doc: SearchDocument;
  scope: (caller: Caller) => Where;
}

/** `type` made visible through `policy`'s scope. */
export function visibleType<T>(type: string, entity: EntityClass<T>, doc: SearchDocument, policy: { scope?: (caller: Caller) => Where }): VisibleType<T> {
  if (!policy.scope) throw new Error(`${type}: a visible type needs its policy's scope`);
  return { type, entity, doc, scope: policy.scope };
}

/**
 * STYLE.md 7: of these ids, the ones of `kind` the caller may see, in one statement whatever their
 * number. An id that does not exist, is not a UUID or lies outside the caller's scope is left out alike.
 */
export async function visibleIds(
  ctx: AccessContext,
  entry: VisibleType,
  ids: readonly (string | null | undefined)[],
  also?: Where,
): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  if (!wanted.length || !ctx.caller) return new Set();
  const { doc, scope } = entry;
  const cond = compileScope(doc, also ? { _and: [scope(ctx.caller), also] } : scope(ctx.caller));
  return new Set(await idsInScope(ctx.em, doc, cond, wanted));
}

/**
 * Whether the caller sees each id of `kind`, batched per request (one `visibleIds` statement per
 * batch). A statement that has evaluated the same scope itself (`visibleSql`) primes it, so the
 * records it embeds are not asked about again.
 */
export function seenLoader(ctx: AccessContext, entry: VisibleType): DataLoader<string, boolean> {
  return ctx.loaders.isVisible(entry.type, (ids) => visibleIds(ctx, entry, ids));
}

/**
 * The records of `kind` by id as the caller sees them, batched per request: a nested field or an
 * include resolving to a record the caller does not see gets null, exactly as for a missing one.
 * Visibility is asked of `seenLoader`, so ids a page statement has already judged cost no statement.
 */
export function visibleLoader<T>(ctx: AccessContext, entry: VisibleType<T>): DataLoader<string, T | null> {
  const seen = seenLoader(ctx, entry);
  return ctx.loaders.visibleById(entry.type, entry.entity as any, async (ids) => {
    const flags = await seen.loadMany(ids);
    return new Set(ids.filter((_, i) => flags[i] === true));
  }) as DataLoader<string, T | null>;
}

/**
 * Whether the caller sees the record of the entry whose id is `idSql` (a column of an outer
 * statement), as SQL: the scope `visibleIds` applies, for a page statement to evaluate per row and
 * prime `seenLoader` with.
 */
export function visibleSql(caller: Caller, entry: VisibleType, idSql: string): Sql {
  const { doc, scope } = entry;
  const cond = compileScope(doc, scope(caller));
  return {
    sql: `exists (select 1 from ${fromClause(doc, cond.sql)} where ${doc.alias}.id = ${idSql} and (${cond.sql}))`,
    bindings: cond.bindings,
  };
}

/**
 * One id a write accepts. `unseen` is what the contract answers for an id that does not exist, and so
 * for one the caller may not see (the two are indistinguishable): `forbidden` (403, e.g. a CRL's
 * `company_retailer_id`, SPEC 2.5) or `invalid` (422 on the field, e.g. `territory_id`).
 */
export interface Reference {
  field: string;
  kind: VisibleType;
  id: string | null | undefined;
  unseen: 'forbidden' | 'invalid';
  /** A further condition over the kind's search fields for the id to be usable here (e.g. `{ company_id }`). */
  also?: Where;
}

/**
 * The reference check of every write: the ids it names must be records the caller may see (one
 * statement per kind). An unseen `forbidden` reference is a 403 here; the fields of unseen `invalid`
 * ones are returned for the service to report as 422 with the message it gives a missing record.
 * Ids left null or undefined are not references.
 */
export async function checkReferences(ctx: AccessContext, refs: Reference[]): Promise<Set<string>> {
  const named = refs.filter((r) => r.id !== null && r.id !== undefined);
  const group = (r: Reference) => `${r.kind.type}:${JSON.stringify(r.also ?? null)}`;
  const groups = new Map<string, Reference[]>();
  for (const r of named) groups.set(group(r), [...(groups.get(group(r)) ?? []), r]);
  const seen = new Map<string, Set<string>>();
  await Promise.all(
    [...groups].map(async ([key, list]) => seen.set(key, await visibleIds(ctx, list[0].kind, list.map((r) => r.id), list[0].also))),
  );
  const unseen = named.filter((r) => !(isUuid(r.id) && seen.get(group(r))!.has(r.id!.toLowerCase())));
  if (unseen.some((r) => r.unseen === 'forbidden')) throw forbidden();
  return new Set(unseen.map((r) => r.field));
}

/**
 * What a count reads: the document's own table alone when the grouping field and the scope read nothing
 * else (a company admin's CRLs by company retailer: an index-only scan of
 * `crl_company_retailer_company_index` instead of every CRL row joined to its company, retailer,
 * territory and address), else the document's whole from clause.
 */
export function countFrom(doc: SearchDocument, ...sql: string[]): string {
  const own = /^\s*(\w+)\s+(\w+)\b/.exec(doc.from);
  const aliases = sql.flatMap((s) => [...s.matchAll(/\b([a-z_][a-z0-9_]*)\.[a-z_"]/gi)].map((m) => m[1]));
  if (own && own[2] === doc.alias && aliases.every((a) => a === doc.alias)) return `${own[1]} ${own[2]}`;
  return fromClause(doc, ...sql);
}

/**
 * Per parent id, how many records of `kind` the caller sees whose document field `field` holds it
 * (e.g. CRLs by `company_retailer_id`): a count never includes a record the caller could not list.
 * Batched per request, one statement per batch.
 */
export function visibleCountLoader(ctx: AccessContext, entry: VisibleType, field: string): DataLoader<string, number> {
  return ctx.loaders.custom<string, number>(`visibleCount:${entry.type}.${field}`, async (ids) => {
    const by = entry.doc.fields[field].sql;
    const cond = countScope(entry, ctx.caller);
    const rows = await countsInScope(ctx.em, by, countFrom(entry.doc, by, cond.sql), cond, ids);
    const counts = new Map(rows.map((r) => [r.id, r.n]));
    return ids.map((id) => counts.get(id) ?? 0);
  });
}

/**
 * `visibleCountLoader`'s count for the one parent `parentSql` (a column of an outer statement), as
 * SQL: the same scope and from clause, for a page statement to evaluate per row and prime the loader
 * with.
 */
export function visibleCountSql(caller: Caller, entry: VisibleType, field: string, parentSql: string): Sql {
  const by = entry.doc.fields[field].sql;
  const { sql, bindings } = countScope(entry, caller);
  return { sql: `(select count(*)::int from ${countFrom(entry.doc, by, sql)} where ${by} = ${parentSql} and (${sql}))`, bindings };
}

/** The entry's scope for `caller` compiled over its document; nothing without a caller. */
function countScope(entry: VisibleType, caller: Caller | null | undefined): Sql {
  return caller ? compileScope(entry.doc, entry.scope(caller)) : { sql: 'false', bindings: [] };
}

/** For a parent record a write points at: out of the caller's reach is FORBIDDEN, not NOT_FOUND. */
export function notFoundAsForbidden(e: unknown): never {
  throw e instanceof AppError && e.code === 'NOT_FOUND' ? forbidden() : e;
}
