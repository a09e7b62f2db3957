import { query, type Execute } from '../../db/sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HourExceptionRow, HourRow } from '../store-locator/store-locator.hours';

/*
 * The store pages' SQL (docs/store-pages.md): slugs and redirects, one page's content, the directory and
 * the sitemap, all over `store_pages`, `store_page_slugs` and `company_page_slugs`
 * (Migration20261207000200_store_pages), each a fixed number of statements whatever the page size.
 */

/** Statements sent on the pool, prepared like the store locator's. */
export function storePagesExecute(em: EntityManager): Execute {
  return (sql, bindings) => query(em, sql, bindings);
}

/** Most products a store page lists (stocked or available, by name). */
export const PAGE_PRODUCTS = 50;
/** Most dated exceptions a store page lists (those ending today or later, earliest first). */
export const PAGE_EXCEPTIONS = 20;

/** A requested path resolved: the company (by any of its slugs) and, when asked, the store (by any of its slugs). */
export interface ResolvedPath {
  company_id: string;
  company_name: string;
  /** The company's current slug (a redirect target when the path used an older one). */
  company_slug: string;
  crl_id: string | null;
  city_slug: string | null;
  store_slug: string | null;
  listed: boolean | null;
  updated_at: Date | string | null;
}

const RESOLVE_SQL = `
  select cs.company_id, c.name as company_name, cur.slug as company_slug,
         p.crl_id, p.city_slug, p.store_slug, p.listed, p.updated_at
    from company_page_slugs cs
    join companies c on c.id = cs.company_id
    join company_page_slugs cur on cur.company_id = cs.company_id and cur.current
    left join store_page_slugs s on s.company_id = cs.company_id and s.city_slug = ? and s.store_slug = ?
    left join store_pages p on p.crl_id = s.crl_id
   where cs.slug = ?`;

/** The company of `companySlug` and the store of its `citySlug`/`storeSlug` (null columns when none). */
export async function resolvePath(execute: Execute, companySlug: string, citySlug: string, storeSlug: string): Promise<ResolvedPath | undefined> {
  const [row] = await execute(RESOLVE_SQL, [citySlug, storeSlug, companySlug]);
  return row as ResolvedPath | undefined;
}

/** What a store page shows, read in one statement. */
export interface StorePageRow {
  id: string;
  company_id: string;
  company_name: string;
  company_slug: string;
  city_slug: string;
  store_slug: string;
  updated_at: Date | string;
  name: string | null;
  retailer_name: string | null;
  store_type: string | null;
  website: string | null;
  crl_timezone: string | null;
  rl_timezone: string | null;
  street_line_one: string | null;
  street_line_two: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  latitude: number | string | null;
  longitude: number | string | null;
  place_id: string | null;
  email: string | null;
  phone_number: string | null;
  country_code: string | null;
  formatted_international: string | null;
  hours: HourRow[];
  exceptions: HourExceptionRow[];
  products: Array<{ id: string; name: string; sku: string; stocked: boolean; available: boolean }>;
  /** A working site key of the company allowing the service's own origin (the page's contact form), or null. */
  site_key: string | null;
}

const through = (column: string) => `case when crl.retailer_location_id is null then crl.${column} else rl.${column} end`;
/**
 * The rows of an hours-like table (`hours`, `hour_exceptions`) a store reads, one of two index lookups: its
 * retailer location's when linked, else its own (a single condition with a CASE would read the whole table).
 */
const owned = (select: (where: string) => string) =>
  `case when crl.retailer_location_id is null then (${select('company_retailer_location_id = crl.id')}) else (${select('retailer_location_id = crl.retailer_location_id')}) end`;

const PAGE_SQL = `
  select crl.id, crl.company_id, c.name as company_name, cs.slug as company_slug, p.city_slug, p.store_slug, p.updated_at,
         coalesce(nullif(btrim(crl.name), ''), rl.name) as name,
         coalesce(nullif(btrim(cr.name), ''), r.name) as retailer_name,
         st.name as store_type,
         coalesce(nullif(btrim(crl.website), ''), rl.website) as website,
         coalesce(nullif(btrim(crl.place_id), ''), rl.place_id) as place_id,
         crl.timezone as crl_timezone, rl.timezone as rl_timezone,
         l.street_line_one, l.street_line_two, l.postal_code, l.city, l.province, l.country, l.latitude, l.longitude,
         e.email, ph.phone_number, ph.country_code, ph.formatted_international,
         ${owned(
           (where) => `select coalesce(json_agg(json_build_object('day', h.day, 'open', h.open, 'open_at_hour', h.open_at_hour, 'open_at_minute', h.open_at_minute,
                   'close_at_hour', h.close_at_hour, 'close_at_minute', h.close_at_minute)), '[]') from hours h where h.${where}`,
         )} as hours,
         ${owned(
           (where) => `select coalesce(json_agg(json_build_object('starts_on', x.starts_on, 'ends_on', x.ends_on, 'closed', x.closed, 'hours', x.hours, 'label', x.label)
                   order by x.starts_on), '[]')
              from (select * from hour_exceptions x where x.${where} and x.ends_on >= ?::date order by x.starts_on limit ${PAGE_EXCEPTIONS}) x`,
         )} as exceptions,
         (select coalesce(json_agg(json_build_object('id', q.id, 'name', q.name, 'sku', q.sku, 'stocked', q.stocked, 'available', q.available)
                   order by q.name collate "C", q.sku collate "C"), '[]')
            from (select pr.id, pr.name, pr.sku, s.stocked, s.available
                    from stocks s join products pr on pr.id = s.product_id and pr.company_id = crl.company_id
                   where s.company_retailer_location_id = crl.id and (s.stocked or s.available)
                   order by pr.name collate "C", pr.sku collate "C" limit ${PAGE_PRODUCTS}) q) as products,
         (select k.key from site_keys k
           where k.company_id = crl.company_id and k.revoked_at is null and ?::text = any(k.allowed_origins)
           order by k.created_at desc limit 1) as site_key
    from store_pages p
    join company_retailer_locations crl on crl.id = p.crl_id
    join companies c on c.id = crl.company_id
    join company_page_slugs cs on cs.company_id = c.id and cs.current
    join company_retailers cr on cr.id = crl.company_retailer_id
    join retailers r on r.id = cr.retailer_id
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    left join locations l on l.id = ${through('physical_address_id')}
    left join emails e on e.id = ${through('general_email_id')}
    left join phone_numbers ph on ph.id = ${through('general_phone_number_id')}
    left join company_store_types st on st.id = crl.company_store_type_id
   where p.crl_id = ?::uuid and p.listed`;

/**
 * A listed store's page content: exceptions ending on `fromDate` (`YYYY-MM-DD`, a day before the store's
 * today at the latest) or later, the site key allowed on `origin`.
 */
export async function storePage(execute: Execute, crlId: string, fromDate: string, origin: string): Promise<StorePageRow | undefined> {
  const [row] = await execute(PAGE_SQL, [fromDate, fromDate, origin, crlId]);
  return row as StorePageRow | undefined;
}

/** A company by its current or an older slug. */
export interface CompanyRow {
  company_id: string;
  company_name: string;
  company_slug: string;
  stores: number;
  updated_at: Date | string | null;
}

const COMPANY_SQL = `
  select cs.company_id, c.name as company_name, cur.slug as company_slug,
         (select count(*)::int from store_pages p where p.company_id = cs.company_id and p.listed) as stores,
         (select max(p.updated_at) from store_pages p where p.company_id = cs.company_id and p.listed) as updated_at
    from company_page_slugs cs
    join companies c on c.id = cs.company_id
    join company_page_slugs cur on cur.company_id = cs.company_id and cur.current
   where cs.slug = ?`;

export async function companyBySlug(execute: Execute, slug: string): Promise<CompanyRow | undefined> {
  const [row] = await execute(COMPANY_SQL, [slug]);
  return row as CompanyRow | undefined;
}

/** One store of a directory page. */
export interface DirectoryRow {
  country: string | null;
  city: string | null;
  name: string | null;
  city_slug: string;
  store_slug: string;
}

const DIRECTORY_SQL = `
  select p.country, p.city, p.name, p.city_slug, p.store_slug
    from store_pages p
   where p.company_id = ?::uuid and p.listed
   order by p.country, p.city_slug, p.store_slug
   limit ?::int offset ?::int`;

/** A page of the company's listed stores, by country, city and name (the directory index's order). */
export async function directoryPage(execute: Execute, companyId: string, limit: number, offset: number): Promise<DirectoryRow[]> {
  return (await execute(DIRECTORY_SQL, [companyId, limit, offset])) as DirectoryRow[];
}

/** The sitemap index's numbers: listed stores and, per file of `perFile` stores, the latest change. */
const SITEMAP_FILES_SQL = `
  select (n / ?::int)::int as file, max(updated_at) as lastmod, count(*)::int as urls
    from (select updated_at, (row_number() over (order by crl_id) - 1) as n from store_pages where listed) p
   group by 1 order by 1`;

export async function sitemapFiles(execute: Execute, perFile: number): Promise<Array<{ file: number; lastmod: Date | string; urls: number }>> {
  return (await execute(SITEMAP_FILES_SQL, [perFile])) as Array<{ file: number; lastmod: Date | string; urls: number }>;
}

/** The first listed store's id of the file starting at `offset` (null past the end). */
const SITEMAP_START_SQL = `select crl_id from store_pages where listed order by crl_id offset ?::int limit 1`;

export async function sitemapStart(execute: Execute, offset: number): Promise<string | null> {
  const [row] = await execute(SITEMAP_START_SQL, [offset]);
  return (row?.crl_id as string | undefined) ?? null;
}

/** One URL of a sitemap file: its English path (slugs need no escaping) and W3C `lastmod`. */
export interface SitemapRow {
  crl_id: string;
  path: string;
  lastmod: string;
}

/** A keyset page of listed stores from `from` (inclusive) in id order, as paths with their company's slug. */
const SITEMAP_PAGE_SQL = `
  select p.crl_id, '/stores/' || cs.slug || '/' || p.city_slug || '/' || p.store_slug as path,
         to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as lastmod
    from (select crl_id, company_id, city_slug, store_slug, updated_at from store_pages where listed and crl_id >= ?::uuid order by crl_id limit ?::int) p
    join company_page_slugs cs on cs.company_id = p.company_id and cs.current
   order by p.crl_id`;

export async function sitemapPage(execute: Execute, from: string, limit: number): Promise<SitemapRow[]> {
  return (await execute(SITEMAP_PAGE_SQL, [from, limit])) as SitemapRow[];
}
