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

/**
 * Phone numbers with their international format: stored on write, made here for one written around
 * the application (a bulk load).
 */
function withFormats(phones: PhoneNumberRow[]): PhoneNumberRow[] {
  for (const p of phones) p.formatted ??= formatPhone(p.phoneNumber, p.countryCode);
  return phones;
}

/** Per-request loaders of the lead read model, made once per request. */
export function leadReads(ctx: Context) {
  let reads = READS.get(ctx);
  if (!reads) READS.set(ctx, (reads = makeLeadReads(ctx)));
  return reads;
}
const READS = new WeakMap<Context, ReturnType<typeof makeLeadReads>>();

const makeLeadReads = (ctx: Context) => ({
  lead: ctx.loaders.custom<string, LeadRow | null>('lead.rows', (ids) => byId<LeadRow>(ctx.em, SQL.leads, ids)),
  emails: ctx.loaders.custom<string, EmailRow[]>('lead.emails', (ids) => byParent<EmailRow>(ctx.em, SQL.emails, ids, (r) => r.parentId)),
  phoneNumbers: ctx.loaders.custom<string, PhoneNumberRow[]>('lead.phoneNumbers', async (ids) =>
    (await byParent<PhoneNumberRow>(ctx.em, SQL.phoneNumbers, ids, (r) => r.parentId)).map(withFormats),
  ),
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

/** The associations a lead list can read with its rows (`readLeadPage`). */
export interface LeadEmbeds {
  emails: EmailRow[];
  phoneNumbers: PhoneNumberRow[];
  location: LocationRow | null;
  assignee: LeadAssigneeRow | null;
  leadActivities: LeadActivityRow[];
}
export type LeadEmbed = keyof LeadEmbeds;
export const LEAD_EMBEDS: readonly LeadEmbed[] = ['emails', 'phoneNumbers', 'location', 'assignee', 'leadActivities'];

/** The associations read with a lead's row (`primeLeadRow`), kept on the row itself. */
const EMBEDDED = Symbol('lead associations read with the row');
type WithEmbeds = LeadRow & { [EMBEDDED]?: Partial<LeadEmbeds> };

/**
 * A lead's association: the one read with its row when its page read it (no promise, no loader),
 * else through the request's loader (one statement per association for every lead of the request).
 */
export function leadAssociation<K extends LeadEmbed>(ctx: Context, lead: LeadRow, name: K): LeadEmbeds[K] | Promise<LeadEmbeds[K]> {
  const embedded = (lead as WithEmbeds)[EMBEDDED];
  if (embedded && name in embedded) return embedded[name] as LeadEmbeds[K];
  const reads = leadReads(ctx);
  const load: { [E in LeadEmbed]: () => LeadEmbeds[E] | Promise<LeadEmbeds[E]> } = {
    emails: () => reads.emails.load(lead.id),
    phoneNumbers: () => reads.phoneNumbers.load(lead.id),
    location: () => (lead.locationId ? reads.location.load(lead.locationId) : null),
    assignee: () => (lead.assigneeId ? reads.assignee.load(lead.assigneeId) : null),
    leadActivities: () => reads.activities.load(lead.id),
  };
  return load[name]();
}

/** Each association's JSON object, over its row `x`: the shape of its row type above. */
const EMBED_JSON = {
  emails: `json_build_object('id', x.id, 'createdAt', x.created_at, 'updatedAt', x.updated_at, 'email', x.email)`,
  phoneNumbers: `json_build_object('id', x.id, 'createdAt', x.created_at, 'updatedAt', x.updated_at,
    'phoneNumber', x.phone_number, 'countryCode', x.country_code, 'formatted', x.formatted_international)`,
  location: `json_build_object('id', x.id, 'createdAt', x.created_at, 'updatedAt', x.updated_at, 'addressName', x.address_name,
    'streetLineOne', x.street_line_one, 'streetLineTwo', x.street_line_two, 'postalCode', x.postal_code, 'city', x.city,
    'province', x.province, 'country', x.country, 'latitude', x.latitude, 'longitude', x.longitude)`,
  leadActivities: `json_build_object('id', x.id, 'createdAt', x.created_at, 'updatedAt', x.updated_at,
    'leadId', x.lead_id, 'type', x.type, 'data', x.data, 'sourceType', x.source_type, 'sourceId', x.source_id,
    'crmId', x.crm_id, 'crmProvider', x.crm_provider, 'crmDataCache', x.crm_data_cache)`,
};
const jsonList = (json: string, from: string, order: string) => `(select coalesce(json_agg(${json} order by ${order}), '[]') from ${from})`;
const EMAIL_ORDER = 'x.created_at asc, x.seq asc';
const ACTIVITY_ORDER = 'x.created_at desc, x.seq desc';

/**
 * Each association as a JSON column of the lead row `l`: the same columns and order as the loaders'
 * statements above, so a page answered from them reads exactly as one answered by the loaders.
 */
const EMBED_SQL: Record<LeadEmbed, string> = {
  emails: jsonList(EMBED_JSON.emails, 'emails x where x.lead_id = l.id', EMAIL_ORDER),
  phoneNumbers: jsonList(EMBED_JSON.phoneNumbers, 'phone_numbers x where x.lead_id = l.id', EMAIL_ORDER),
  location: `(select ${EMBED_JSON.location} from locations x where x.id = l.location_id)`,
  assignee: `(select json_build_object('id', x.id, 'name', x.name, 'companyRetailerId', x.company_retailer_id,
              'retailerLocationId', x.retailer_location_id, 'storeName', rl.name)
              from company_retailer_locations x left join retailer_locations rl on rl.id = x.retailer_location_id where x.id = l.assignee_id)`,
  leadActivities: jsonList(EMBED_JSON.leadActivities, 'lead_activities x where x.lead_id = l.id', ACTIVITY_ORDER),
};

/**
 * The same columns over the rows a statement has just inserted (`insertLead`): the lead `l` and the
 * data-modifying CTEs `loc`, `em`, `ph` and `act`, whose rows the statement's own reads of the tables
 * do not see yet.
 */
export const INSERTED_EMBED_SQL: Record<LeadEmbed, string> = {
  emails: jsonList(EMBED_JSON.emails, 'em x', EMAIL_ORDER),
  phoneNumbers: jsonList(EMBED_JSON.phoneNumbers, 'ph x', EMAIL_ORDER),
  location: `(select ${EMBED_JSON.location} from loc x)`,
  assignee: EMBED_SQL.assignee,
  leadActivities: jsonList(EMBED_JSON.leadActivities, 'act x', ACTIVITY_ORDER),
};

/** The lead columns and the JSON columns of `embeds`, as `readLeadPage` and `primeLeadRow` name them. */
export function leadColumnsWith(embeds: readonly LeadEmbed[], sql: Record<LeadEmbed, string> = EMBED_SQL): string {
  return [LEAD_COLUMNS, ...embeds.map((e) => `${sql[e]} as "embed_${e}"`)].join(', ');
}

/**
 * A page of leads with the associations the operation selects, in one statement (each association a
 * JSON column), kept on each row for the field resolvers (`leadAssociation`): a page costs one
 * statement whatever it embeds, instead of one per association.
 */
export async function readLeadPage(ctx: Context, ids: readonly string[], embeds: ReadonlySet<string>): Promise<LeadRow[]> {
  if (!ids.length) return [];
  const wanted = LEAD_EMBEDS.filter((e) => embeds.has(e));
  const rows = await query<any>(ctx.em, `select ${leadColumnsWith(wanted)} from leads l where l.id = any(?::uuid[])`, [pgArray(ids)]);
  const byId = new Map(rows.map((row) => [row.id as string, primeLeadRow(ctx, row)]));
  return ids.map((id) => byId.get(id)).filter((r): r is LeadRow => r !== undefined);
}

/**
 * A row of `leadColumnsWith` as a LeadRow, primed into the request's lead loader, its JSON columns
 * kept on it for `leadAssociation`.
 */
export function primeLeadRow(ctx: Context, row: Record<string, any>): LeadRow {
  const embedded: Partial<LeadEmbeds> = {};
  for (const e of LEAD_EMBEDS) {
    const column = `embed_${e}`;
    if (!(column in row)) continue;
    const value = row[column];
    delete row[column];
    if (e === 'phoneNumbers') withFormats(value);
    if (e === 'assignee') embedded.assignee = value && toAssignee(value);
    else embedded[e] = Array.isArray(value) ? value.map(withDates) : value && withDates(value);
  }
  const lead = withDates(row as WithEmbeds);
  lead[EMBEDDED] = embedded;
  leadReads(ctx).lead.prime(lead.id, lead);
  return lead;
}

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
