import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { pgArray, query } from '../../db/sql';
import { formatPhone } from '../contact/phone';

/**
 * The lead read model: leads and what a lead embeds as plain rows in the shape of their GraphQL types,
 * one set-based statement per kind and page, never managed entities (writes keep MikroORM). Every
 * loader here is per request (`ctx.loaders`), so a page costs one statement per association.
 */
export interface LeadRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  name: string | null;
  status: string;
  ownerType: string;
  ownerId: string;
  assigneeId: string | null;
  createdById: string | null;
  sourceType: string | null;
  sourceId: string | null;
  locationId: string | null;
}

export interface EmailRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  email: string;
}

export interface PhoneNumberRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  phoneNumber: string;
  countryCode: string;
  formatted: string;
}

export interface LocationRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  addressName: string | null;
  streetLineOne: string | null;
  streetLineTwo: string | null;
  postalCode: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface LeadActivityRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  leadId: string;
  type: string;
  data: Record<string, unknown> | null;
  sourceType: string | null;
  sourceId: string | null;
  crmId: string | null;
  crmProvider: string | null;
  crmDataCache: Record<string, unknown> | null;
}

export interface LeadAssigneeRow {
  id: string;
  type: string;
  name: string | null;
  companyRetailerId: string;
  retailerLocationId: string | null;
}

export const ASSIGNEE_TYPE = 'CompanyRetailerLocation';

/** The columns of a `LeadRow`, over `leads l`. */
export const LEAD_COLUMNS = `l.id, l.created_at as "createdAt", l.updated_at as "updatedAt", l.name, l.status,
  case when l.owner_company_id is not null then 'Company' else 'Retailer' end as "ownerType",
  coalesce(l.owner_company_id, l.owner_retailer_id) as "ownerId", l.assignee_id as "assigneeId",
  l.created_by_id as "createdById", l.source_type as "sourceType", l.source_id as "sourceId", l.location_id as "locationId"`;

/** The columns `toAssignee` reads, over a CRL `<crl>` and its retailer location `<rl>`. */
export const assigneeColumns = (crl: string, rl: string) =>
  `${crl}.id, ${crl}.name, ${crl}.company_retailer_id as "companyRetailerId", ${crl}.retailer_location_id as "retailerLocationId", ${rl}.name as "storeName"`;

const BASE = `x.id, x.created_at as "createdAt", x.updated_at as "updatedAt"`;

const SQL = {
  leads: `select ${LEAD_COLUMNS} from "leads" l where l.id = any(?::uuid[])`,
  emails: `select x.lead_id as "parentId", ${BASE}, x.email from "emails" x
            where x.lead_id = any(?::uuid[]) order by x.created_at asc, x.seq asc`,
  phoneNumbers: `select x.lead_id as "parentId", ${BASE}, x.phone_number as "phoneNumber", x.country_code as "countryCode", x.formatted_international as formatted
                   from "phone_numbers" x where x.lead_id = any(?::uuid[]) order by x.created_at asc, x.seq asc`,
  locations: `select ${BASE}, x.address_name as "addressName", x.street_line_one as "streetLineOne", x.street_line_two as "streetLineTwo",
                     x.postal_code as "postalCode", x.city, x.province, x.country, x.latitude, x.longitude
                from "locations" x where x.id = any(?::uuid[])`,
  activities: `select ${BASE}, x.lead_id as "leadId", x.type, x.data, x.source_type as "sourceType", x.source_id as "sourceId",
                      x.crm_id as "crmId", x.crm_provider as "crmProvider", x.crm_data_cache as "crmDataCache"
                 from "lead_activities" x where x.lead_id = any(?::uuid[]) order by x.created_at desc, x.seq desc`,
  assignees: `select ${assigneeColumns('x', 'rl')}
                from "company_retailer_locations" x left join "retailer_locations" rl on rl.id = x.retailer_location_id
               where x.id = any(?::uuid[])`,
};

/**
 * Timestamps arrive as text (MikroORM's pg type parsers, shared by this connection) and become Dates
 * as MikroORM's own hydration makes them (`new Date(text)`).
 */
export function withDates<T>(row: T): T {
  const r = row as any;
  if (typeof r.createdAt === 'string') r.createdAt = new Date(r.createdAt);
  if (typeof r.updatedAt === 'string') r.updatedAt = new Date(r.updatedAt);
  return row;
}

async function byId<T extends { id: string }>(em: EntityManager, sql: string, ids: readonly string[]): Promise<Array<T | null>> {
  const rows = (await query<T>(em, sql, [pgArray(ids)])).map(withDates);
  const map = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => map.get(id) ?? null);
}

async function byParent<T>(em: EntityManager, sql: string, ids: readonly string[], parent: (row: any) => string): Promise<T[][]> {
  const rows = await query<any>(em, sql, [pgArray(ids)]);
  const groups = new Map<string, T[]>(ids.map((id) => [id, []]));
  for (const row of rows) {
    withDates(row);
    const key = parent(row);
    if ('parentId' in row) delete row.parentId;
    groups.get(key)?.push(row);
  }
  return ids.map((id) => groups.get(id)!);
}

/** Per-request loaders of the lead read model. */
export const leadReads = (ctx: Context) => ({
  lead: ctx.loaders.custom<string, LeadRow | null>('lead.rows', (ids) => byId<LeadRow>(ctx.em, SQL.leads, ids)),
  emails: ctx.loaders.custom<string, EmailRow[]>('lead.emails', (ids) => byParent<EmailRow>(ctx.em, SQL.emails, ids, (r) => r.parentId)),
  phoneNumbers: ctx.loaders.custom<string, PhoneNumberRow[]>('lead.phoneNumbers', async (ids) => {
    const groups = await byParent<PhoneNumberRow>(ctx.em, SQL.phoneNumbers, ids, (r) => r.parentId);
    // Stored on write; a number written around the application (a bulk load) is formatted here.
    for (const group of groups) for (const p of group) p.formatted ??= formatPhone(p.phoneNumber, p.countryCode);
    return groups;
  }),
  location: ctx.loaders.custom<string, LocationRow | null>('lead.locations', (ids) => byId<LocationRow>(ctx.em, SQL.locations, ids)),
  activities: ctx.loaders.custom<string, LeadActivityRow[]>('lead.activities', (ids) =>
    byParent<LeadActivityRow>(ctx.em, SQL.activities, ids, (r) => r.leadId),
  ),
  assignee: ctx.loaders.custom<string, LeadAssigneeRow | null>('lead.assignees', async (ids) => {
    const rows = await byId<{ id: string; name: string | null; companyRetailerId: string; retailerLocationId: string | null; storeName: string | null }>(
      ctx.em,
      SQL.assignees,
      ids,
    );
    return rows.map((crl) => crl && toAssignee(crl));
  }),
});

/** A lead's assignee: the CRL's own name, else its retailer location's. */
export function toAssignee(crl: { id: string; name: string | null; companyRetailerId: string; retailerLocationId: string | null; storeName: string | null }): LeadAssigneeRow {
  const own = crl.name?.trim() ? crl.name : null;
  return {
    id: crl.id,
    type: ASSIGNEE_TYPE,
    name: own ?? (crl.retailerLocationId ? crl.storeName : null) ?? null,
    companyRetailerId: crl.companyRetailerId,
    retailerLocationId: crl.retailerLocationId,
  };
}
