import type DataLoader from 'dataloader';
import type { Context } from '../context';
import type { Caller } from './caller';
import { forbidden } from '../errors';
import { isUuid } from '../search/list';
import { compileScope } from '../search/where';
import { query } from '../db/sql';
import { fromClause, type SearchDocument, type Where } from '../search/types';
import { Company } from '../modules/company/company.entity';
import { companyScope, companySearch } from '../modules/company/company.search';
import { companyOwnedScope } from '../modules/company/company-owned';
import { Retailer } from '../modules/retailer/retailer.entity';
import { retailerScope, retailerSearch } from '../modules/retailer/retailer.search';
import { RetailerLocation } from '../modules/retailer-location/retailer-location.entity';
import { retailerLocationScope, retailerLocationSearch } from '../modules/retailer-location/retailer-location.search';
import { Territory } from '../modules/territory/territory.entity';
import { territorySearch } from '../modules/territory/territory.service';
import { CompanyStoreType } from '../modules/company-store-type/company-store-type.entity';
import { companyStoreTypeSearch } from '../modules/company-store-type/company-store-type.service';
import { Collection } from '../modules/collection/collection.entity';
import { collectionSearch } from '../modules/collection/collection.service';
import { CompanyRetailer } from '../modules/company-retailer/company-retailer.entity';
import { companyRetailerScope, companyRetailerSearch } from '../modules/company-retailer/company-retailer.search';
import { CompanyRetailerLocation } from '../modules/company-retailer-location/company-retailer-location.entity';
import { crlScope } from '../modules/company-retailer-location/company-retailer-location.scope';
import { crlSearch } from '../modules/company-retailer-location/company-retailer-location.search';
import { Lead } from '../modules/lead/lead.entity';
import { leadScope, leadSearch } from '../modules/lead/lead.search';
import { Product } from '../modules/product/product.entity';
import { productScope, productSearch } from '../modules/product/product.search';

/**
 * PRODUCT.md section 3 and docs/roles.md, per object type: its search document and the `Where` of the
 * records a caller sees. Roots (lists, shows), nested fields, includes, the references of writes and
 * counts all ask this one table, so a record type is visible the same way wherever it is reached.
 */
const VISIBILITY = {
  Company: { entity: Company, doc: companySearch, scope: companyScope },
  Retailer: { entity: Retailer, doc: retailerSearch, scope: retailerScope },
  RetailerLocation: { entity: RetailerLocation, doc: retailerLocationSearch, scope: retailerLocationScope },
  Territory: { entity: Territory, doc: territorySearch, scope: companyOwnedScope },
  CompanyStoreType: { entity: CompanyStoreType, doc: companyStoreTypeSearch, scope: companyOwnedScope },
  Collection: { entity: Collection, doc: collectionSearch, scope: companyOwnedScope },
  CompanyRetailer: { entity: CompanyRetailer, doc: companyRetailerSearch, scope: companyRetailerScope },
  CompanyRetailerLocation: { entity: CompanyRetailerLocation, doc: crlSearch, scope: crlScope },
  Lead: { entity: Lead, doc: leadSearch, scope: leadScope },
  Product: { entity: Product, doc: productSearch, scope: productScope },
} satisfies Record<string, { entity: unknown; doc: SearchDocument; scope: (caller: Caller) => Where }>;

export type VisibleKind = keyof typeof VISIBILITY;
type EntityOf<K extends VisibleKind> = InstanceType<(typeof VISIBILITY)[K]['entity']>;

/**
 * STYLE.md 7: of these ids, the ones of `kind` the caller may see, in one statement whatever their
 * number. An id that does not exist, is not a UUID or lies outside the caller's scope is left out alike.
 */
export async function visibleIds(
  ctx: Context,
  kind: VisibleKind,
  ids: readonly (string | null | undefined)[],
  also?: Where,
): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  if (!wanted.length || !ctx.caller) return new Set();
  const { doc, scope } = VISIBILITY[kind];
  const cond = compileScope(doc, also ? { _and: [scope(ctx.caller), also] } : scope(ctx.caller));
  const rows = await query<{ id: string }>(
    ctx.em,
    `select ${doc.alias}.id from ${fromClause(doc, cond.sql)} where ${doc.alias}.id = any(?::uuid[]) and (${cond.sql})`,
    [wanted, ...cond.bindings],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The records of `kind` by id as the caller sees them, batched per request: a nested field or an
 * include resolving to a record the caller does not see gets null, exactly as for a missing one.
 */
export function visibleLoader<K extends VisibleKind>(ctx: Context, kind: K): DataLoader<string, EntityOf<K> | null> {
  const { entity } = VISIBILITY[kind];
  return ctx.loaders.visibleById(kind, entity as any, (ids) => visibleIds(ctx, kind, ids)) as DataLoader<string, EntityOf<K> | null>;
}

/**
 * One id a write accepts. `unseen` is what the contract answers for an id that does not exist, and so
 * for one the caller may not see (the two are indistinguishable): `forbidden` (403, e.g. a CRL's
 * `company_retailer_id`, SPEC 2.5) or `invalid` (422 on the field, e.g. `territory_id`).
 */
export interface Reference {
  field: string;
  kind: VisibleKind;
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
export async function checkReferences(ctx: Context, refs: Reference[]): Promise<Set<string>> {
  const named = refs.filter((r) => r.id !== null && r.id !== undefined);
  const group = (r: Reference) => `${r.kind}:${JSON.stringify(r.also ?? null)}`;
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
 * Per parent id, how many records of `kind` the caller sees whose document field `field` holds it
 * (e.g. CRLs by `company_retailer_id`): a count never includes a record the caller could not list.
 * Batched per request, one statement per batch.
 */
export function visibleCountLoader(ctx: Context, kind: VisibleKind, field: string): DataLoader<string, number> {
  return ctx.loaders.custom<string, number>(`visibleCount:${kind}.${field}`, async (ids) => {
    const { doc, scope } = VISIBILITY[kind];
    const by = doc.fields[field].sql;
    const cond = ctx.caller ? compileScope(doc, scope(ctx.caller)) : { sql: 'false', bindings: [] };
    const rows = await query<{ id: string; n: number }>(
      ctx.em,
      `select ${by} as id, count(*)::int as n from ${fromClause(doc, by, cond.sql)} where ${by} = any(?::uuid[]) and (${cond.sql}) group by 1`,
      [[...ids], ...cond.bindings],
    );
    const counts = new Map(rows.map((r) => [r.id, r.n]));
    return ids.map((id) => counts.get(id) ?? 0);
  });
}
