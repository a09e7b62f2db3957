import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import { fromClause, type Sql } from '../../search/types';
import { formatPhone } from '../contact/phone';
import { leadSearch } from '../lead/lead.search';

/*
 * The statements of the imports and the export (docs/import-export.md), all run in the import's
 * transaction: they write or read the network and the catalog as sets, not one resource at a time.
 */

/** Takes the transaction-scoped advisory lock `key` if free; false, at once, when another holds it. */
export async function tryImportLock(sql: EntityManager, key: string): Promise<boolean> {
  const [{ locked }] = await sql.execute('select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked', [key]);
  return locked;
}

/** Waits for the transaction-scoped advisory lock `key`. */
export async function waitForImportLock(sql: EntityManager, key: string): Promise<void> {
  await sql.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/** Whether the company exists. */
export async function companyExists(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute(`select 1 from companies where id = ?`, [id]);
  return rows.length > 0;
}

/** Store types or territories of the company: id by name in lower case. */
export async function idsByName(em: EntityManager, table: 'company_store_types' | 'territories', companyId: string): Promise<Map<string, string>> {
  return new Map<string, string>((await em.execute(`select id, name from ${table} where company_id = ?`, [companyId])).map((r: any) => [r.name.toLowerCase(), r.id]));
}

export interface Hour {
  day: string;
  open: boolean;
  open_at_hour: number | null;
  open_at_minute: number | null;
  close_at_hour: number | null;
  close_at_minute: number | null;
}

/** A dated exception as an import row gives it (the store's local dates, ends inclusive). */
export interface ImportedException {
  starts_on: string;
  ends_on: string;
  closed: boolean;
  hours: Array<{ open_at_hour: number; open_at_minute: number; close_at_hour: number; close_at_minute: number }>;
  label: string | null;
}

/** One store as the CSV row gives it, validated and normalized: what the database should hold. */
export interface Store {
  line: number;
  external_id: string;
  retailer: string;
  name: string;
  address: {
    street_line_one: string | null;
    street_line_two: string | null;
    city: string | null;
    province: string | null;
    postal_code: string | null;
    country: string | null;
    latitude: number | null;
    longitude: number | null;
    coordinates_source: 'explicit' | 'geocoder' | null;
  } | null;
  phone: { phone_number: string; country_code: string } | null;
  email: string | null;
  website: string | null;
  store_type_id: string | null;
  territory_id: string | null;
  hours: Hour[];
  sending_leads: boolean;
  receiving_leads: boolean;
  delivery_radius: number | null;
  delivery_areas: Array<{ postal_code: string; country: string | null }>;
  /** Its dated exceptions; null when the file has no `hour_exceptions` column (the stored ones are kept). */
  hour_exceptions: ImportedException[] | null;
}

/** What is stored for a CRL the import manages (its external id), in the shape of `Store` for comparison. */
const STORED_SQL = `
  select crl.external_id, crl.id as crl_id, crl.retailer_location_id as rl_id, coalesce(nullif(btrim(cr.name), ''), r.name) as retailer_name,
         rl.physical_address_id as location_id, rl.general_email_id as email_id, rl.general_phone_number_id as phone_id,
         json_build_object(
           'retailer', lower(coalesce(nullif(btrim(cr.name), ''), r.name)), 'name', rl.name,
           'address', case when l.id is null then null else json_build_object('street_line_one', l.street_line_one, 'street_line_two', l.street_line_two,
             'city', l.city, 'province', l.province, 'postal_code', l.postal_code, 'country', l.country, 'latitude', l.latitude,
             'longitude', l.longitude, 'coordinates_source', l.coordinates_source) end,
           'phone', case when p.id is null then null else json_build_object('phone_number', p.phone_number, 'country_code', p.country_code) end,
           'email', e.email, 'website', rl.website, 'store_type_id', crl.company_store_type_id, 'territory_id', crl.territory_id,
           'hours', (select coalesce(json_agg(json_build_object('day', h.day, 'open', h.open, 'open_at_hour', h.open_at_hour,
                      'open_at_minute', h.open_at_minute, 'close_at_hour', h.close_at_hour, 'close_at_minute', h.close_at_minute)
                      order by array_position(array['monday','tuesday','wednesday','thursday','friday','saturday','sunday']::text[], h.day::text)), '[]')
                     from hours h where h.retailer_location_id = rl.id),
           'hour_exceptions', (select coalesce(json_agg(json_build_object('starts_on', x.starts_on, 'ends_on', x.ends_on, 'closed', x.closed,
                                'hours', x.hours, 'label', x.label) order by x.starts_on), '[]')
                               from hour_exceptions x where x.retailer_location_id = rl.id),
           'sending_leads', crl.sending_leads, 'receiving_leads', crl.receiving_leads, 'delivery_radius', crl.delivery_radius,
           'delivery_areas', (select coalesce(json_agg(json_build_object('postal_code', d.postal_code, 'country', d.country)), '[]')
                               from delivery_areas d where d.company_retailer_location_id = crl.id)
         ) as stored
    from company_retailer_locations crl
    join company_retailers cr on cr.id = crl.company_retailer_id
    join retailers r on r.id = cr.retailer_id
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    left join locations l on l.id = rl.physical_address_id
    left join emails e on e.id = rl.general_email_id
    left join phone_numbers p on p.id = rl.general_phone_number_id
   where crl.company_id = ? and crl.external_id = any(?::text[])`;

/** A stored store of the import (`STORED_SQL`). */
export interface Stored {
  external_id: string;
  retailer_name: string;
  crl_id: string;
  rl_id: string | null;
  location_id: string | null;
  email_id: string | null;
  phone_id: string | null;
  stored: unknown;
}

/** The stored stores of the company with these external ids. */
export async function storedStores(sql: EntityManager, companyId: string, externalIds: string[]): Promise<Stored[]> {
  return sql.execute(STORED_SQL, [companyId, `{${externalIds.map((id) => `"${id.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`]);
}

/** A store to write, with the ids of its rows: kept ones for a changed store, new ones otherwise. */
export interface StoreWrite {
  s: Store;
  /** What is stored for a changed store: its address, email and phone rows go once replaced. */
  old: Stored | undefined;
  crl_id: string;
  rl_id: string;
  location_id: string | null;
  email_id: string | null;
  phone_id: string | null;
  retailer: { retailer_id: string; company_retailer_id: string };
}

/**
 * Writes the stores: fresh address, email and phone rows, the retailer locations and CRLs (inserted or
 * updated), their hours and delivery areas replaced, then a changed store's old address, email and
 * phone rows deleted.
 */
export async function writeStores(sql: EntityManager, companyId: string, rows: StoreWrite[]): Promise<void> {
  const json = (items: unknown[]) => JSON.stringify(items);
  await sql.execute(
    `insert into locations (id, street_line_one, street_line_two, city, province, postal_code, country, latitude, longitude, coordinates_source)
     select r.id, r.street_line_one, r.street_line_two, r.city, r.province, r.postal_code, r.country, r.latitude, r.longitude, r.coordinates_source
       from json_to_recordset(?::json) as r(id uuid, street_line_one text, street_line_two text, city text, province text, postal_code text,
                                            country text, latitude float8, longitude float8, coordinates_source text)`,
    [json(rows.filter((r) => r.location_id).map((r) => ({ id: r.location_id, ...r.s.address })))],
  );
  await sql.execute(`insert into emails (id, email) select r.id, r.email from json_to_recordset(?::json) as r(id uuid, email text)`, [
    json(rows.filter((r) => r.email_id).map((r) => ({ id: r.email_id, email: r.s.email }))),
  ]);
  await sql.execute(
    `insert into phone_numbers (id, phone_number, country_code, formatted_international)
     select r.id, r.phone_number, r.country_code, r.formatted from json_to_recordset(?::json) as r(id uuid, phone_number text, country_code text, formatted text)`,
    [json(rows.filter((r) => r.phone_id).map((r) => ({ id: r.phone_id, ...r.s.phone, formatted: formatPhone(r.s.phone!.phone_number, r.s.phone!.country_code) })))],
  );
  const rl = rows.map((r) => ({
    id: r.rl_id,
    retailer_id: r.retailer.retailer_id,
    name: r.s.name,
    website: r.s.website,
    physical_address_id: r.location_id,
    general_email_id: r.email_id,
    general_phone_number_id: r.phone_id,
  }));
  const RL_RECORD = `json_to_recordset(?::json) as r(id uuid, retailer_id uuid, name text, website text, physical_address_id uuid, general_email_id uuid, general_phone_number_id uuid)`;
  await sql.execute(
    `insert into retailer_locations (id, retailer_id, name, website, physical_address_id, general_email_id, general_phone_number_id)
     select r.id, r.retailer_id, r.name, r.website, r.physical_address_id, r.general_email_id, r.general_phone_number_id from ${RL_RECORD}
     on conflict (id) do update set name = excluded.name, website = excluded.website,
       physical_address_id = excluded.physical_address_id, general_email_id = excluded.general_email_id,
       general_phone_number_id = excluded.general_phone_number_id, updated_at = now()`,
    [json(rl)],
  );
  const crl = rows.map((r) => ({
    id: r.crl_id,
    company_retailer_id: r.retailer.company_retailer_id,
    retailer_location_id: r.rl_id,
    external_id: r.s.external_id,
    sending_leads: r.s.sending_leads,
    receiving_leads: r.s.receiving_leads,
    delivery_radius: r.s.delivery_radius,
    territory_id: r.s.territory_id,
    company_store_type_id: r.s.store_type_id,
  }));
  await sql.execute(
    `insert into company_retailer_locations (id, company_id, company_retailer_id, retailer_location_id, external_id, sending_leads, receiving_leads,
                                             delivery_radius, territory_id, company_store_type_id)
     select r.id, ?, r.company_retailer_id, r.retailer_location_id, r.external_id, r.sending_leads, r.receiving_leads, r.delivery_radius,
            r.territory_id, r.company_store_type_id
       from json_to_recordset(?::json) as r(id uuid, company_retailer_id uuid, retailer_location_id uuid, external_id text, sending_leads boolean,
                                            receiving_leads boolean, delivery_radius float8, territory_id uuid, company_store_type_id uuid)
     on conflict (id) do update set company_retailer_id = excluded.company_retailer_id, retailer_location_id = excluded.retailer_location_id,
       sending_leads = excluded.sending_leads, receiving_leads = excluded.receiving_leads, delivery_radius = excluded.delivery_radius,
       territory_id = excluded.territory_id, company_store_type_id = excluded.company_store_type_id, updated_at = now()`,
    [companyId, json(crl)],
  );
  const rlIds = `{${rows.map((r) => r.rl_id).join(',')}}`;
  const crlIds = `{${rows.map((r) => r.crl_id).join(',')}}`;
  await sql.execute(`delete from hours where retailer_location_id = any(?::uuid[])`, [rlIds]);
  await sql.execute(
    `insert into hours (retailer_location_id, day, open, open_at_hour, open_at_minute, close_at_hour, close_at_minute)
     select r.rl, r.day, r.open, r.open_at_hour, r.open_at_minute, r.close_at_hour, r.close_at_minute
       from json_to_recordset(?::json) as r(rl uuid, day text, open boolean, open_at_hour int, open_at_minute int, close_at_hour int, close_at_minute int)`,
    [json(rows.flatMap((r) => r.s.hours.map((h) => ({ rl: r.rl_id, ...h }))))],
  );
  const withExceptions = rows.filter((r) => r.s.hour_exceptions !== null);
  if (withExceptions.length) {
    await sql.execute(`delete from hour_exceptions where retailer_location_id = any(?::uuid[])`, [`{${withExceptions.map((r) => r.rl_id).join(',')}}`]);
    await sql.execute(
      `insert into hour_exceptions (retailer_location_id, starts_on, ends_on, closed, hours, label)
       select r.rl, r.starts_on, r.ends_on, r.closed, r.hours, r.label
         from json_to_recordset(?::json) as r(rl uuid, starts_on date, ends_on date, closed boolean, hours jsonb, label text)`,
      [json(withExceptions.flatMap((r) => r.s.hour_exceptions!.map((e) => ({ rl: r.rl_id, ...e }))))],
    );
  }
  await sql.execute(`delete from delivery_areas where company_retailer_location_id = any(?::uuid[])`, [crlIds]);
  await sql.execute(
    `insert into delivery_areas (company_retailer_location_id, postal_code, country)
     select r.crl, r.postal_code, r.country from json_to_recordset(?::json) as r(crl uuid, postal_code text, country text)`,
    [json(rows.flatMap((r) => r.s.delivery_areas.map((a) => ({ crl: r.crl_id, ...a }))))],
  );
  const replaced = (key: 'location_id' | 'email_id' | 'phone_id') => `{${rows.flatMap((r) => (r.old?.[key] ? [r.old[key]] : [])).join(',')}}`;
  await sql.execute(`delete from locations where id = any(?::uuid[])`, [replaced('location_id')]);
  await sql.execute(`delete from emails where id = any(?::uuid[])`, [replaced('email_id')]);
  await sql.execute(`delete from phone_numbers where id = any(?::uuid[])`, [replaced('phone_id')]);
}

/** The company's retailers (and their company-retailer links) by name in lower case. */
export async function companyRetailersByName(em: EntityManager, companyId: string): Promise<Map<string, { retailer_id: string; company_retailer_id: string }>> {
  return new Map<string, { retailer_id: string; company_retailer_id: string }>(
    (
      await em.execute(
        `select lower(coalesce(nullif(btrim(cr.name), ''), r.name)) as name, r.id as retailer_id, cr.id as company_retailer_id
           from company_retailers cr join retailers r on r.id = cr.retailer_id where cr.company_id = ?`,
        [companyId],
      )
    ).map((r: any) => [r.name, { retailer_id: r.retailer_id, company_retailer_id: r.company_retailer_id }]),
  );
}

/** New retailers, each with the company's link to it. */
export async function insertRetailers(em: EntityManager, companyId: string, retailers: Array<{ name: string; retailer_id: string; company_retailer_id: string }>): Promise<void> {
  const items = JSON.stringify(retailers);
  await em.execute(`insert into retailers (id, name) select r.retailer_id, r.name from json_to_recordset(?::json) as r(retailer_id uuid, name text)`, [items]);
  await em.execute(
      `insert into company_retailers (id, company_id, retailer_id) select r.company_retailer_id, ?, r.retailer_id
         from json_to_recordset(?::json) as r(retailer_id uuid, company_retailer_id uuid)`,
    [companyId, items],
  );
}

const COMPARED = `(p.name, p.category, p.url, p.external_id, p.collection_id) is not distinct from (r.name, r.category, r.url, r.external_id, r.collection_id)`;
const RECORDS = `json_to_recordset(?::json) as r(sku text, name text, category text, url text, external_id text, collection_id uuid)`;
/**
 * The row's product, one unique-index probe per row. A plain join lets the planner pick a hash join over
 * every product of the company when its statistics are older than the company's products (as in or
 * after a large import): each batch then reads all of them (1.47 s instead of 0.16 s per batch of 1,000
 * at 100,000 products). `limit 1` keeps the lateral subquery a parameterized index scan.
 */
const PRODUCT_BY_SKU = `select p.* from products p where p.company_id = ? and p.sku = r.sku limit 1`;

/** One product row of the import, as its statements read it (by JSON). */
export interface ProductRecord {
  sku: string;
  name: string;
  category: string | null;
  url: string | null;
  external_id: string | null;
  collection_id?: string | null;
  stock: Array<{ crl: string; stocked: boolean; available: boolean }> | null;
}

/** The company's collections: id by name in lower case. */
export async function collectionIdsByName(em: EntityManager, companyId: string): Promise<Map<string, string>> {
  return new Map<string, string>(
    (await em.execute(`select id, name from collections where company_id = ?`, [companyId])).map((r: any) => [r.name.toLowerCase(), r.id]),
  );
}

/** The company's CRLs with an external id: id by external id. */
export async function storeIdsByExternalId(em: EntityManager, companyId: string): Promise<Map<string, string>> {
  return new Map<string, string>(
    (await em.execute(`select external_id, id from company_retailer_locations where company_id = ? and external_id is not null`, [companyId])).map(
      (r: any) => [r.external_id, r.id],
    ),
  );
}

/** Per row, whether its product is new or changed, and the product's stock now. */
export async function compareProducts(em: EntityManager, companyId: string, rows: ProductRecord[]): Promise<Array<{ sku: string; new: boolean; changed: boolean; stock: Array<{ crl: string; stocked: boolean; available: boolean }> }>> {
  return em.execute(
    `select r.sku, p.id is null as new, p.id is not null and not ${COMPARED} as changed,
            (select coalesce(json_agg(json_build_object('crl', s.company_retailer_location_id, 'stocked', s.stocked, 'available', s.available)
                      order by s.company_retailer_location_id), '[]')
               from stocks s where s.product_id = p.id) as stock
       from ${RECORDS} left join lateral (${PRODUCT_BY_SKU}) p on true`,
    [JSON.stringify(rows), companyId],
  );
}

/** The rows' products, created or updated; a row that changes nothing is not rewritten. */
export async function upsertProducts(tx: EntityManager, companyId: string, rows: ProductRecord[]): Promise<void> {
  await tx.execute(
    `insert into products (company_id, sku, name, category, url, external_id, collection_id)
     select ?, r.sku, r.name, r.category, r.url, r.external_id, r.collection_id from ${RECORDS}
     on conflict (company_id, sku) do update set name = excluded.name, category = excluded.category, url = excluded.url,
       external_id = excluded.external_id, collection_id = excluded.collection_id, updated_at = now()
     where (products.name, products.category, products.url, products.external_id, products.collection_id)
           is distinct from (excluded.name, excluded.category, excluded.url, excluded.external_id, excluded.collection_id)`,
    [companyId, JSON.stringify(rows)],
  );
}

/** Each row's product stock becomes the row's: other stores' rows go, named stores' rows are set. */
export async function replaceStock(tx: EntityManager, companyId: string, stocked: ProductRecord[]): Promise<void> {
  await tx.execute(
      `with r as (select p.id, r.stock from json_to_recordset(?::json) as r(sku text, stock json) cross join lateral (${PRODUCT_BY_SKU}) p),
            gone as (delete from stocks s using r where s.product_id = r.id
                       and not exists (select 1 from json_to_recordset(r.stock) as x(crl uuid) where x.crl = s.company_retailer_location_id))
       insert into stocks (company_retailer_location_id, product_id, stocked, available)
       select x.crl, r.id, x.stocked, x.available from r, json_to_recordset(r.stock) as x(crl uuid, stocked boolean, available boolean)
       on conflict (company_retailer_location_id, product_id) do update set stocked = excluded.stocked, available = excluded.available, updated_at = now()
       where (stocks.stocked, stocks.available) is distinct from (excluded.stocked, excluded.available)`,
    [JSON.stringify(stocked.map((r) => ({ sku: r.sku, stock: r.stock }))), companyId],
  );
}

/** One lead of the export, as written (with the keyset cursor's timestamp as PostgreSQL wrote it). */
export interface ExportRow {
  id: string;
  name: string | null;
  status: string | null;
  owner_type: 'Company' | 'Retailer';
  owner_id: string;
  assignee_id: string | null;
  emails: string;
  phone_numbers: string;
  street_line_one: string | null;
  street_line_two: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  source_type: string | null;
  source_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  cursor_at: string;
}

/**
 * A page of `limit` leads in the compiled scope `cond`, oldest first, created at or after `since`, after
 * the keyset cursor `after`.
 */
export async function exportPage(
  em: EntityManager,
  cond: Sql,
  options: { since?: Date; after: { at: string; id: string } | null; limit: number },
): Promise<ExportRow[]> {
  const { after, limit } = options;
  return query<ExportRow>(
    em,
    `select l.id, l.name, l.status, case when l.owner_company_id is not null then 'Company' else 'Retailer' end as owner_type,
              coalesce(l.owner_company_id, l.owner_retailer_id) as owner_id, l.assignee_id,
              array_to_string(array(select e.email from emails e where e.lead_id = l.id order by e.created_at, e.seq), ';') as emails,
              array_to_string(array(select p.phone_number from phone_numbers p where p.lead_id = l.id order by p.created_at, p.seq), ';') as phone_numbers,
              loc.street_line_one, loc.street_line_two, loc.postal_code, loc.city, loc.province, loc.country, loc.latitude, loc.longitude,
              l.source_type, l.source_id, l.created_at, l.updated_at, l.created_at::text as cursor_at
         from ${fromClause(leadSearch)}
        where (${cond.sql}) and (?::timestamptz is null or l.created_at >= ?::timestamptz)
          and (?::timestamptz is null or (l.created_at, l.id) > (?::timestamptz, ?::uuid))
        order by l.created_at, l.id limit ${limit}`,
    [...cond.bindings, options.since ?? null, options.since ?? null, after?.at ?? null, after?.at ?? null, after?.id ?? null],
  );
}
