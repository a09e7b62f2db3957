import type { RowReader } from '../../search/list';
import {
  asInstanceOf,
  BASE_COLUMNS,
  embedColumn,
  jsonColumns,
  jsonList,
  jsonRow,
  ref,
  rowEmbeds,
  selectColumns,
  takeEmbeds,
  withDates,
  type BaseRow,
  type ColumnMap,
} from '../../db/columns';
import { EMAIL, LOCATION, PHONE_NUMBER, withFormat, type EmailRow, type LocationRow, type PhoneNumberRow } from '../contact/contact.columns';
import { CompanyRetailerLocation } from './company-retailer-location.entity';

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
const DELIVERY_AREA: ColumnMap<DeliveryAreaRow> = { ...BASE_COLUMNS, postalCode: 'postal_code', country: 'country' };

/** The linked retailer location's contact object when there is one, else the CRL's own (`c`, `rl`). */
const contact = (column: string) => `case when rl.id is not null then rl.${column} else c.${column} end`;

const WEEKDAY_ORDER = `array_position(array['monday','tuesday','wednesday','thursday','friday','saturday','sunday']::text[], x.day::text)`;

/** The weekly hours `where` selects, Monday first (each side of the choice an index lookup of its own). */
const hours = (where: string) => jsonList(jsonColumns(HOUR, 'x'), `hours x where ${where}`, WEEKDAY_ORDER);

/** What a CRL row of the list embeds, each a column of the page statement over the CRL `c`, `cr` and `rl`. */
const EMBED_SQL: Record<keyof CrlEmbeds, string> = {
  name: `case when c.name is not null and c.name <> '' then c.name else rl.name end`,
  territoryId: 'coalesce(c.territory_id, cr.territory_id)',
  physicalAddress: jsonRow(LOCATION, `locations x where x.id = ${contact('physical_address_id')}`),
  generalEmail: jsonRow(EMAIL, `emails x where x.id = ${contact('general_email_id')}`),
  generalPhoneNumber: jsonRow(PHONE_NUMBER, `phone_numbers x where x.id = ${contact('general_phone_number_id')}`),
  hours: `case when rl.id is not null then ${hours('x.retailer_location_id = rl.id')} else ${hours('x.company_retailer_location_id = c.id')} end`,
  deliveryAreas: jsonList(jsonColumns(DELIVERY_AREA, 'x'), 'delivery_areas x where x.company_retailer_location_id = c.id', 'x.postal_code asc, x.country asc, x.id asc'),
};

/** The page statement over the CRLs whose ids are the `uuid[]` SQL expression `ids`. */
const pageSql = (ids: string) => `
  select ${[selectColumns(CRL, 'c'), ...Object.entries(EMBED_SQL).map(([name, sql]) => embedColumn(name, sql))].join(',\n         ')}
    from company_retailer_locations c
    join company_retailers cr on cr.id = c.company_retailer_id
    left join retailer_locations rl on rl.id = c.retailer_location_id
   where c.id = any(${ids})`;

/** A page statement's row as a CRL row with its embeds, in the CRL entity's prototype. */
function toCrlRow(r: Record<string, any>): CrlRow {
  const read = takeEmbeds(r);
  const embeds: CrlEmbeds = {
    name: read.name ?? null,
    territoryId: read.territoryId ?? null,
    physicalAddress: read.physicalAddress && withDates(read.physicalAddress),
    generalEmail: read.generalEmail && withDates(read.generalEmail),
    generalPhoneNumber: withFormat(read.generalPhoneNumber && withDates(read.generalPhoneNumber)),
    hours: read.hours.map(withDates),
    deliveryAreas: read.deliveryAreas.map(withDates),
  };
  const { ownTerritoryId, ...columns } = withDates(r as StoredCrl);
  const row: CrlRow = {
    ...columns,
    company: { id: columns.companyId },
    companyRetailer: { id: columns.companyRetailerId },
    retailerLocation: ref(columns.retailerLocationId),
    territory: ref(ownTerritoryId),
    companyStoreType: ref(columns.companyStoreTypeId),
  };
  // The entity's prototype: its getter fields resolve on the row without a conversion each.
  return asInstanceOf(CompanyRetailerLocation, embedded.attach(row, embeds)) as unknown as CrlRow;
}

/**
 * The CRL list's rows (src/search/list.ts `RowReader`): read by the search's own statement when its
 * backend reads the tables, so a page costs one statement.
 */
export const crlRows: RowReader<CrlRow> = {
  sql: (ids) => ({ sql: pageSql(ids), bindings: [] }),
  row: toCrlRow,
};
