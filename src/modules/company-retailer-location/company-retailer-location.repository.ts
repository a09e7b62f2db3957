import type { RowReader } from '../../search/list';
import {
  BASE_COLUMNS,
  embedColumn,
  jsonColumns,
  jsonList,
  jsonRow,
  newInstanceOf,
  ref,
  rowEmbeds,
  selectColumns,
  withDates,
  type BaseRow,
  type ColumnMap,
} from '../../db/columns';
import { EMAIL, LOCATION, PHONE_NUMBER, withFormat, type EmailRow, type LocationRow, type PhoneNumberRow } from '../contact/contact.columns';
import { CompanyRetailerLocation } from './company-retailer-location.entity';
import type { StoredSpan } from './hour-exception.entity';

/**
 * The CRL's SQL (writes keep MikroORM's unit of work). The list's read model: a page of company
 * retailer locations as plain rows in the shape of the `CompanyRetailerLocation` type, with what a list
 * answer embeds (the effective name and territory, address, email, phone number, hours, delivery
 * areas) read by the same statement as JSON columns, so a page costs one statement instead of one per
 * association and no managed entities are hydrated. Company, company retailer, retailer location,
 * territory and store type still go through the caller's visibility (the field resolvers' loaders).
 * Each row shape is one column map (src/db/columns.ts; the contact rows' in contact.columns.ts).
 */
export interface CrlRow extends BaseRow {
  name: string | null;
  sendingLeads: boolean;
  receivingLeads: boolean;
  deliveryRadius: number | null;
  website: string | null;
  recordCalls: boolean;
  maskEmails: boolean;
  placeId: string | null;
  timezone: string | null;
  companyId: string;
  companyRetailerId: string;
  retailerLocationId: string | null;
  companyStoreTypeId: string | null;
  /** The references as the entity holds them, so the field resolvers read a row as they read an entity. */
  company: { id: string };
  companyRetailer: { id: string };
  retailerLocation: { id: string } | null;
  territory: { id: string } | null;
  companyStoreType: { id: string } | null;
}

/** What a CRL row carries read with it (the field resolvers' answers for a row of the list). */
export interface CrlEmbeds {
  name: string | null;
  territoryId: string | null;
  physicalAddress: LocationRow | null;
  generalEmail: EmailRow | null;
  generalPhoneNumber: PhoneNumberRow | null;
  hours: HourRow[];
  hourExceptions: HourExceptionRow[];
  deliveryAreas: DeliveryAreaRow[];
}

export interface HourRow extends BaseRow {
  day: string;
  open: boolean;
  openAtHour: number | null;
  openAtMinute: number | null;
  closeAtHour: number | null;
  closeAtMinute: number | null;
}

/** A dated exception as the `HourException` type reads it (`hours`: the stored spans). */
export interface HourExceptionRow extends BaseRow {
  startsOn: string;
  endsOn: string;
  closed: boolean;
  hours: StoredSpan[];
  label: string | null;
}

export interface DeliveryAreaRow extends BaseRow {
  postalCode: string;
  country: string;
}

const embedded = rowEmbeds<CrlEmbeds>('CRL associations read with the row');

/** The associations read with this CRL's row by its list page, when it is such a row. */
export const crlEmbeds = embedded.of;

type StoredCrl = Omit<CrlRow, 'company' | 'companyRetailer' | 'retailerLocation' | 'territory' | 'companyStoreType'> & { ownTerritoryId: string | null };

const CRL: ColumnMap<StoredCrl> = {
  ...BASE_COLUMNS,
  name: 'name',
  sendingLeads: 'sending_leads',
  receivingLeads: 'receiving_leads',
  deliveryRadius: 'delivery_radius',
  website: 'website',
  recordCalls: 'record_calls',
  maskEmails: 'mask_emails',
  placeId: 'place_id',
  timezone: 'timezone',
  companyId: 'company_id',
  companyRetailerId: 'company_retailer_id',
  retailerLocationId: 'retailer_location_id',
  companyStoreTypeId: 'company_store_type_id',
  ownTerritoryId: 'territory_id',
};

const HOUR: ColumnMap<HourRow> = {
  ...BASE_COLUMNS,
  day: 'day',
  open: 'open',
  openAtHour: 'open_at_hour',
  openAtMinute: 'open_at_minute',
  closeAtHour: 'close_at_hour',
  closeAtMinute: 'close_at_minute',
};
const HOUR_EXCEPTION: ColumnMap<HourExceptionRow> = {
  ...BASE_COLUMNS,
  startsOn: 'starts_on',
  endsOn: 'ends_on',
  closed: 'closed',
  hours: 'hours',
  label: 'label',
};
const DELIVERY_AREA: ColumnMap<DeliveryAreaRow> = { ...BASE_COLUMNS, postalCode: 'postal_code', country: 'country' };

/** The linked retailer location's contact object when there is one, else the CRL's own (`c`, `rl`). */
const contact = (column: string) => `case when rl.id is not null then rl.${column} else c.${column} end`;

const WEEKDAY_ORDER = `array_position(array['monday','tuesday','wednesday','thursday','friday','saturday','sunday']::text[], x.day::text)`;

/** A column map without the timestamps (an embedded row whose `createdAt` and `updatedAt` no one asked for). */
function stampless<R>(map: ColumnMap<R>): ColumnMap<R> {
  const { createdAt: _c, updatedAt: _u, ...rest } = map as ColumnMap<R & BaseRow>;
  return rest as unknown as ColumnMap<R>;
}

/**
 * What a CRL row of the list embeds, each a column of the page statement over the CRL `c`, `cr` and `rl`;
 * `stamps`: with the embedded rows' timestamps; `exceptions`: with the dated exceptions (up to 366 a store,
 * read only when the operation asks for them; else an empty list no one reads).
 */
function embedSql(stamps: boolean, withExceptions: boolean): Record<keyof CrlEmbeds, string> {
  const map = <R>(m: ColumnMap<R>) => (stamps ? m : stampless(m));
  /** The weekly hours `where` selects, Monday first (each side of the choice an index lookup of its own). */
  const hours = (where: string) => jsonList(jsonColumns(map(HOUR), 'x'), `hours x where ${where}`, WEEKDAY_ORDER);
  /** The dated exceptions `where` selects, by date (owned like the weekly hours). */
  const exceptions = (where: string) => jsonList(jsonColumns(map(HOUR_EXCEPTION), 'x'), `hour_exceptions x where ${where}`, 'x.starts_on asc');
  return {
    name: `case when c.name is not null and c.name <> '' then c.name else rl.name end`,
    territoryId: 'coalesce(c.territory_id, cr.territory_id)',
    physicalAddress: jsonRow(map(LOCATION), `locations x where x.id = ${contact('physical_address_id')}`),
    generalEmail: jsonRow(map(EMAIL), `emails x where x.id = ${contact('general_email_id')}`),
    generalPhoneNumber: jsonRow(map(PHONE_NUMBER), `phone_numbers x where x.id = ${contact('general_phone_number_id')}`),
    hours: `case when rl.id is not null then ${hours('x.retailer_location_id = rl.id')} else ${hours('x.company_retailer_location_id = c.id')} end`,
    hourExceptions: withExceptions
      ? `case when rl.id is not null then ${exceptions('x.retailer_location_id = rl.id')} else ${exceptions('x.company_retailer_location_id = c.id')} end`
      : `'[]'::json`,
    deliveryAreas: jsonList(jsonColumns(map(DELIVERY_AREA), 'x'), 'delivery_areas x where x.company_retailer_location_id = c.id', 'x.postal_code asc, x.country asc, x.id asc'),
  };
}

/** The page statement over the CRLs whose ids are the `uuid[]` SQL expression `ids`. */
const pageSql = (ids: string, stamps: boolean, withExceptions: boolean) => `
  select ${[selectColumns(CRL, 'c'), ...Object.entries(embedSql(stamps, withExceptions)).map(([name, sql]) => embedColumn(name, sql))].join(',\n         ')}
    from company_retailer_locations c
    join company_retailers cr on cr.id = c.company_retailer_id
    left join retailer_locations rl on rl.id = c.retailer_location_id
   where c.id = any(${ids})`;

/** The keys of a list row, in the order `toCrlRow` assigns them (one hidden class for every row). */
const ROW_KEYS = [...Object.keys(CRL).filter((k) => k !== 'ownTerritoryId'), 'company', 'companyRetailer', 'retailerLocation', 'territory', 'companyStoreType'];

const date = (v: string | Date) => (typeof v === 'string' ? new Date(v) : v);

/**
 * A page statement's row as a CRL row with its embeds, in the CRL entity's prototype: the row is
 * built once, field by field, from the statement's JSON object (no copies, no deleted keys).
 */
function toCrlRow(r: Record<string, any>): CrlRow {
  const phone = r.embed_generalPhoneNumber as PhoneNumberRow | null;
  const embeds: CrlEmbeds = {
    name: r.embed_name ?? null,
    territoryId: r.embed_territoryId ?? null,
    physicalAddress: r.embed_physicalAddress && withDates(r.embed_physicalAddress),
    generalEmail: r.embed_generalEmail && withDates(r.embed_generalEmail),
    generalPhoneNumber: withFormat(phone && withDates(phone)),
    hours: (r.embed_hours as HourRow[]).map(withDates),
    hourExceptions: (r.embed_hourExceptions as HourExceptionRow[]).map(withDates),
    deliveryAreas: (r.embed_deliveryAreas as DeliveryAreaRow[]).map(withDates),
  };
  const row = newInstanceOf(CompanyRetailerLocation, ROW_KEYS) as unknown as CrlRow;
  row.id = r.id;
  row.createdAt = date(r.createdAt);
  row.updatedAt = date(r.updatedAt);
  row.name = r.name;
  row.sendingLeads = r.sendingLeads;
  row.receivingLeads = r.receivingLeads;
  row.deliveryRadius = r.deliveryRadius;
  row.website = r.website;
  row.recordCalls = r.recordCalls;
  row.maskEmails = r.maskEmails;
  row.placeId = r.placeId;
  row.timezone = r.timezone;
  row.companyId = r.companyId;
  row.companyRetailerId = r.companyRetailerId;
  row.retailerLocationId = r.retailerLocationId;
  row.companyStoreTypeId = r.companyStoreTypeId;
  row.company = { id: r.companyId };
  row.companyRetailer = { id: r.companyRetailerId };
  row.retailerLocation = ref(r.retailerLocationId);
  row.territory = ref(r.ownTerritoryId);
  row.companyStoreType = ref(r.companyStoreTypeId);
  return embedded.attach(row, embeds);
}

/** The CRL list's rows with and without the embedded rows' timestamps, with and without the dated exceptions. */
const reader = (stamps: boolean, withExceptions: boolean): RowReader<CrlRow> => ({
  sql: (ids: string) => ({ sql: pageSql(ids, stamps, withExceptions), bindings: [] }),
  row: toCrlRow,
});
const READERS = [reader(false, false), reader(false, true), reader(true, false), reader(true, true)];

/**
 * The CRL list's rows (src/search/list.ts `RowReader`): read by the search's own statement when its
 * backend reads the tables, so a page costs one statement. `stamps`: whether the operation asks for the
 * `createdAt` or `updatedAt` of an embedded row (address, email, phone number, hours, delivery areas);
 * without, the statement leaves them out (the REST answer has none: a third of the JSON read).
 */
export function crlRows(stamps = true, withExceptions = true): RowReader<CrlRow> {
  return READERS[(stamps ? 2 : 0) + (withExceptions ? 1 : 0)];
}
