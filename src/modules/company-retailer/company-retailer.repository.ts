import type DataLoader from 'dataloader';
import type { Caller } from '../../auth/caller';
import type { Context } from '../../context';
import type { RowReader } from '../../search/list';
import type { Sql } from '../../search/types';
import { query } from '../../db/sql';
import { asInstanceOf, BASE_COLUMNS, embedColumn, jsonRow, newInstanceOf, ref, rowEmbeds, selectColumns, withDates, type BaseRow, type ColumnMap } from '../../db/columns';
import { seenLoader, visibleCountLoader, visibleCountSql, visibleLoader, visibleSql, type VisibleType } from '../../access/visibility';
import { companyVisible } from '../company/company.search';
import { crlVisible } from '../company-retailer-location/company-retailer-location.search';
import { retailerVisible } from '../retailer/retailer.search';
import { territoryVisible } from '../territory/territory.search';
import { LOCATION, type LocationRow } from '../contact/contact.columns';
import { CompanyRetailer } from './company-retailer.entity';
import { keptLocationsCount } from './company-retailer.search';
import { seesEveryStore } from '../company-retailer-location/company-retailer-location.policy';

/**
 * The company retailer's SQL (writes keep MikroORM's unit of work). The list's read model: a page of
 * company retailers as plain rows in the shape of the `CompanyRetailer` type, read by the search's own
 * statement with its address (a JSON column) and what the visible types (src/access/visibility.ts)
 * answers about what it embeds: its company, retailer and territory when the caller sees them
 * (`visibleSql`, the scope the loaders apply) and how many locations under it the caller sees
 * (`locationsCountSql`: the kept count for a company admin, else `visibleCountSql`). Those answers prime the request's visibility loaders, so the field resolvers read
 * the embedded records through them as everywhere else, at no further statement. No managed entities.
 * Each row shape is one column map (src/db/columns.ts).
 */
export interface CompanyRetailerRow extends BaseRow {
  name: string | null;
  sendingLeads: boolean;
  receivingLeads: boolean;
  isCc: boolean;
  type: string | null;
  companyId: string;
  retailerId: string;
  territoryId: string | null;
  /** The references as the entity holds them, so the field resolvers read a row as they read an entity. */
  company: { id: string };
  retailer: { id: string };
  territory: { id: string } | null;
  physicalAddress: { id: string } | null;
}

/** What a company retailer row carries read with it. */
export interface CompanyRetailerEmbeds {
  physicalAddress: LocationRow | null;
  /** The company, retailer and territory as the caller sees them (null: none, or not seen), and the count. */
  company: object | null;
  retailer: object | null;
  territory: object | null;
  retailerLocationsCount: number;
}

const embedded_ = rowEmbeds<CompanyRetailerEmbeds>('company retailer associations read with the row');

/** The associations read with this company retailer's row by its list page, when it is such a row. */
export const companyRetailerEmbeds = embedded_.of;

type StoredCompanyRetailer = Omit<CompanyRetailerRow, 'company' | 'retailer' | 'territory' | 'physicalAddress'>;

const COMPANY_RETAILER: ColumnMap<StoredCompanyRetailer> = {
  ...BASE_COLUMNS,
  name: 'name',
  sendingLeads: 'sending_leads',
  receivingLeads: 'receiving_leads',
  isCc: 'is_cc',
  type: 'type',
  companyId: 'company_id',
  retailerId: 'retailer_id',
  territoryId: 'territory_id',
};

/** The keys of a list row, in the order `rowBuilder` assigns them (one hidden class for every row). */
const ROW_KEYS = [...Object.keys(COMPANY_RETAILER), 'company', 'retailer', 'territory', 'physicalAddress'];

/** The outer row's alias, distinct from every search document's. */
const T = 'page_cr';

/** A company, retailer or territory as its GraphQL type reads it (territory: with its company's id). */
interface NamedRow extends BaseRow {
  name: string;
  companyId?: string;
}
const NAMED: ColumnMap<Omit<NamedRow, 'companyId'>> = { ...BASE_COLUMNS, name: 'name' };
const TERRITORY: ColumnMap<NamedRow> = { ...NAMED, companyId: 'company_id' };

/** The record `visible` lets the caller see, as JSON, else null: the visibility table decides, as the loaders would. */
const ifVisible = (visible: Sql, record: string): Sql => ({ sql: `case when ${visible.sql} then ${record} end`, bindings: visible.bindings });

/**
 * The company retailer list's rows (src/search/list.ts `RowReader`) for this request: read by the
 * search's own statement when its backend reads the tables, each with its address, how many locations
 * under it the caller sees, and its company, retailer and territory when (and only when) the visibility
 * table lets the caller see them. Each row primes the request's loaders with what it read.
 */
export function companyRetailerRows(ctx: Context): RowReader<CompanyRetailerRow> {
  const caller = ctx.caller!;
  const embeds: [string, Sql][] = [
    ['company', ifVisible(visibleSql(caller, companyVisible, `${T}.company_id`), jsonRow(NAMED, `companies x where x.id = ${T}.company_id`))],
    ['retailer', ifVisible(visibleSql(caller, retailerVisible, `${T}.retailer_id`), jsonRow(NAMED, `retailers x where x.id = ${T}.retailer_id`))],
    ['territory', ifVisible(visibleSql(caller, territoryVisible, `${T}.territory_id`), jsonRow(TERRITORY, `territories x where x.id = ${T}.territory_id`))],
    ['retailerLocationsCount', locationsCountSql(caller, `${T}.id`, `${T}.company_id`)],
    ['physicalAddress', { sql: jsonRow(LOCATION, `locations x where x.id = ${T}.physical_address_id`), bindings: [] }],
    ['physicalAddressId', { sql: `${T}.physical_address_id`, bindings: [] }],
  ];
  const columns = [selectColumns(COMPANY_RETAILER, T), ...embeds.map(([name, e]) => embedColumn(name, e.sql))];
  const toRow = rowBuilder(ctx);
  return {
    sql: (ids) => ({
      sql: `select ${columns.join(',\n         ')} from company_retailers ${T} where ${T}.id = any(${ids})`,
      bindings: embeds.flatMap(([, e]) => e.bindings),
    }),
    row: toRow,
  };
}

/**
 * How a page statement's row becomes a company retailer row with its address, in the entity's prototype;
 * what it read of its company, retailer, territory and locations primes the request's loaders (a record
 * the caller does not see is primed as not seen, so its field is null as through the loaders). The
 * loaders are looked up once per page, and a company, retailer or territory several rows share is built
 * once.
 */
function rowBuilder(ctx: Context): (r: Record<string, any>) => CompanyRetailerRow {
  const primers = {
    company: primer(ctx, companyVisible),
    retailer: primer(ctx, retailerVisible),
    territory: primer(ctx, territoryVisible),
  };
  const counts = locationsCountLoader(ctx);
  return (r) => {
    const territory = r.embed_territory;
    const embeds: CompanyRetailerEmbeds = {
      physicalAddress: r.embed_physicalAddress && withDates(r.embed_physicalAddress),
      company: primers.company(r.companyId, r.embed_company),
      retailer: primers.retailer(r.retailerId, r.embed_retailer),
      territory: r.territoryId ? primers.territory(r.territoryId, territory && { ...territory, company: { id: territory.companyId } }) : null,
      retailerLocationsCount: r.embed_retailerLocationsCount,
    };
    counts.prime(r.id, embeds.retailerLocationsCount);
    // Built field by field in the entity's prototype (its getter fields resolve on the row as they are).
    const row = newInstanceOf(CompanyRetailer, ROW_KEYS) as unknown as CompanyRetailerRow;
    row.id = r.id;
    row.createdAt = new Date(r.createdAt);
    row.updatedAt = new Date(r.updatedAt);
    row.name = r.name;
    row.sendingLeads = r.sendingLeads;
    row.receivingLeads = r.receivingLeads;
    row.isCc = r.isCc;
    row.type = r.type;
    row.companyId = r.companyId;
    row.retailerId = r.retailerId;
    row.territoryId = r.territoryId;
    row.company = { id: r.companyId };
    row.retailer = { id: r.retailerId };
    row.territory = ref(r.territoryId);
    row.physicalAddress = ref(r.embed_physicalAddressId);
    return embedded_.attach(row, embeds);
  };
}

/**
 * Primes whether the caller sees an id of `kind` and, when it does, the record as the visible loader
 * would answer it; returns that record (null when not seen). Each id is built once per page.
 */
function primer(ctx: Context, kind: VisibleType<object>): (id: string, record: Record<string, any> | null) => object | null {
  const seen = seenLoader(ctx, kind);
  const visible = visibleLoader(ctx, kind);
  const type = kind.entity as { prototype: object };
  const built = new Map<string, object | null>();
  return (id, record) => {
    let answer = built.get(id);
    if (answer === undefined) {
      answer = record ? asInstanceOf(type, withDates(record)) : null;
      built.set(id, answer);
      seen.prime(id, answer !== null);
      visible.prime(id, answer);
    }
    return answer;
  };
}

/**
 * How many CRLs under the company retailer `idSql` (with its company `companyIdSql`, columns of an outer
 * statement) the caller sees, as SQL. A company admin sees every CRL under a company retailer of its
 * company and none under another's: the kept count, read in at most 16 index entries whatever the
 * number of stores. Any other role sees some of them: its scoped count (`visibleCountSql`).
 */
export function locationsCountSql(caller: Caller, idSql: string, companyIdSql: string): Sql {
  if (!seesEveryStore(caller)) return visibleCountSql(caller, crlVisible, 'company_retailer_id', idSql);
  return { sql: `case when ${companyIdSql} = ?::uuid then ${keptLocationsCount(idSql)} else 0 end`, bindings: [caller.companyId ?? null] };
}

/**
 * `locationsCountSql` per company retailer id, batched per request (one statement per batch): what
 * `retailerLocationsCount` resolves through, primed by the list page's statement.
 */
export function locationsCountLoader(ctx: Context): DataLoader<string, number> {
  const caller = ctx.caller;
  if (!caller || !seesEveryStore(caller)) return visibleCountLoader(ctx, crlVisible, 'company_retailer_id');
  return ctx.loaders.custom<string, number>('keptCount:CompanyRetailerLocation.company_retailer_id', async (ids) => {
    const count = locationsCountSql(caller, 'cr.id', 'cr.company_id');
    const rows = await query<{ id: string; n: number }>(
      ctx.em,
      `select cr.id, ${count.sql} as n from company_retailers cr where cr.id = any(?::uuid[])`,
      [...count.bindings, [...ids]],
    );
    const counts = new Map(rows.map((r) => [r.id, r.n]));
    return ids.map((id) => counts.get(id) ?? 0);
  });
}
