import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { pgArray, query } from '../../db/sql';
import { BASE_COLUMNS, embedColumn, jsonColumns, jsonList, jsonRow, selectColumns, takeEmbeds, withDates, type BaseRow, type ColumnMap } from '../../db/columns';
import { findInScope, type RowReader } from '../../search/list';
import { fromClause, type Where } from '../../search/types';
import { compileScope } from '../../search/where';
import { formatPhone } from '../contact/phone';
import { EMAIL, LOCATION, PHONE_NUMBER, withFormat, type EmailRow, type LocationRow, type PhoneNumberRow } from '../contact/contact.columns';
import { Lead } from './lead.entity';
import { assigneeSearch, leadSearch } from './lead.search';

/**
 * The lead's SQL. Reads: leads and what a lead embeds as plain rows in the shape of their GraphQL
 * types, one set-based statement per kind and page, never managed entities. Every loader here is per
 * request (`ctx.loaders`), so a page costs one statement per association. Writes: the create's one
 * statement (`insert`), the duplicate search and the assignee lookup; updates keep MikroORM's unit of
 * work. Each row shape is one column map below, from which every statement reads it.
 */
export interface LeadRow extends BaseRow {
  name: string | null;
  status: string;
  ownerType: string;
  ownerId: string;
  assigneeId: string | null;
  createdById: string | null;
  sourceType: string | null;
  sourceId: string | null;
  locationId: string | null;
  /** When the lead was escalated (no store left to hand it to), until its store changes; null otherwise. */
  escalatedAt: Date | null;
}

export interface LeadActivityRow extends BaseRow {
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

/** A lead's outcome (`lead_outcomes`, docs/lead-loop.md "Outcomes"), as `Lead.outcome` answers it. */
export interface LeadOutcomeRow {
  result: string;
  amountMinor: number | null;
  currency: string | null;
  lostReason: string | null;
  closedOn: string;
  recordedAt: Date;
  recordedById: string | null;
}

export { ASSIGNEE_TYPE } from './lead.policy';
import { ASSIGNEE_TYPE } from './lead.policy';

/** The lead's one column map: each `LeadRow` field over the `leads` row. */
const LEAD: ColumnMap<LeadRow> = {
  ...BASE_COLUMNS,
  name: 'name',
  status: 'status',
  ownerType: (t) => `case when ${t}.owner_company_id is not null then 'Company' else 'Retailer' end`,
  ownerId: (t) => `coalesce(${t}.owner_company_id, ${t}.owner_retailer_id)`,
  assigneeId: 'assignee_id',
  createdById: 'created_by_id',
  sourceType: 'source_type',
  sourceId: 'source_id',
  locationId: 'location_id',
  escalatedAt: 'escalated_at',
};
const ACTIVITY: ColumnMap<LeadActivityRow> = {
  ...BASE_COLUMNS,
  leadId: 'lead_id',
  type: 'type',
  data: 'data',
  sourceType: 'source_type',
  sourceId: 'source_id',
  crmId: 'crm_id',
  crmProvider: 'crm_provider',
  crmDataCache: 'crm_data_cache',
};

/** A CRL as `toAssignee` reads it, over the CRL `<t>` and its retailer location `<t>_rl`. */
interface StoredAssignee {
  id: string;
  name: string | null;
  companyRetailerId: string;
  retailerLocationId: string | null;
  storeName: string | null;
}
const ASSIGNEE: ColumnMap<StoredAssignee> = {
  id: 'id',
  name: 'name',
  companyRetailerId: 'company_retailer_id',
  retailerLocationId: 'retailer_location_id',
  storeName: (t) => `${t}_rl.name`,
};
/** An outcome over `lead_outcomes <t>` (`amount_minor` is at most 2^53 - 1: a JSON number reads it exactly). */
const OUTCOME: ColumnMap<LeadOutcomeRow> = {
  result: 'result',
  amountMinor: 'amount_minor',
  currency: 'currency',
  lostReason: 'lost_reason',
  closedOn: (t) => `to_char(${t}.closed_on, 'YYYY-MM-DD')`,
  recordedAt: 'recorded_at',
  recordedById: 'recorded_by_id',
};
const outcomeRow = (row: LeadOutcomeRow | null): LeadOutcomeRow | null => {
  if (!row) return null;
  if (typeof row.recordedAt === 'string') row.recordedAt = new Date(row.recordedAt);
  if (typeof row.amountMinor === 'string') row.amountMinor = Number(row.amountMinor);
  return row;
};
const ASSIGNEE_FROM = (t: string) => `company_retailer_locations ${t} left join retailer_locations ${t}_rl on ${t}_rl.id = ${t}.retailer_location_id`;

/** The columns of a `LeadRow`, over `leads l`. */
const LEAD_COLUMNS = selectColumns(LEAD, 'l');

const EMAIL_ORDER = 'x.created_at asc, x.seq asc';
const ACTIVITY_ORDER = 'x.created_at desc, x.seq desc';

const SQL = {
  leads: `select ${LEAD_COLUMNS} from "leads" l where l.id = any(?::uuid[])`,
  emails: `select x.lead_id as "parentId", ${selectColumns(EMAIL, 'x')} from "emails" x where x.lead_id = any(?::uuid[]) order by ${EMAIL_ORDER}`,
  phoneNumbers: `select x.lead_id as "parentId", ${selectColumns(PHONE_NUMBER, 'x')}
                   from "phone_numbers" x where x.lead_id = any(?::uuid[]) order by ${EMAIL_ORDER}`,
  locations: `select ${selectColumns(LOCATION, 'x')} from "locations" x where x.id = any(?::uuid[])`,
  activities: `select ${selectColumns(ACTIVITY, 'x')} from "lead_activities" x where x.lead_id = any(?::uuid[]) order by ${ACTIVITY_ORDER}`,
  assignees: `select ${selectColumns(ASSIGNEE, 'x')} from ${ASSIGNEE_FROM('x')} where x.id = any(?::uuid[])`,
  outcomes: `select x.lead_id as id, ${selectColumns(OUTCOME, 'x')} from "lead_outcomes" x where x.lead_id = any(?::uuid[])`,
  // The first-response timer at the lead's current store (docs/response-times.md "On the lead").
  timers: `select x.lead_id as id, x.due_at as "dueAt", x.breached_at is not null as breached
             from "lead_response_timers" x join "leads" l on l.id = x.lead_id and l.assignee_id = x.store_id where x.lead_id = any(?::uuid[])`,
};

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

const withFormats = (phones: PhoneNumberRow[]): PhoneNumberRow[] => phones.map(withFormat);

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
  assignee: ctx.loaders.custom<string, LeadAssigneeRow | null>('lead.assignees', async (ids) =>
    (await byId<StoredAssignee>(ctx.em, SQL.assignees, ids)).map((crl) => crl && toAssignee(crl)),
  ),
  outcome: ctx.loaders.custom<string, LeadOutcomeRow | null>('lead.outcomes', async (ids) =>
    (await byId<LeadOutcomeRow & { id: string }>(ctx.em, SQL.outcomes, ids)).map((row) => {
      if (!row) return null;
      const { id: _id, ...outcome } = row;
      return outcomeRow(outcome);
    }),
  ),
  timer: ctx.loaders.custom<string, { dueAt: Date | null; breached: boolean } | null>('lead.timers', (ids) =>
    byId<{ id: string; dueAt: Date | null; breached: boolean }>(ctx.em, SQL.timers, ids),
  ),
});

/** The associations a lead list can read with its rows (`readLeadPage`). */
export interface LeadEmbeds {
  emails: EmailRow[];
  phoneNumbers: PhoneNumberRow[];
  location: LocationRow | null;
  assignee: LeadAssigneeRow | null;
  leadActivities: LeadActivityRow[];
  outcome: LeadOutcomeRow | null;
  /** The first-response due time at the lead's current store (`Lead.respondBy`, response-times). */
  respondBy: Date | null;
  /** Whether that timer breached (`Lead.breached`). */
  breached: boolean;
}
export type LeadEmbed = keyof LeadEmbeds;
export const LEAD_EMBEDS: readonly LeadEmbed[] = ['emails', 'phoneNumbers', 'location', 'assignee', 'leadActivities', 'outcome', 'respondBy', 'breached'];

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
    outcome: () => reads.outcome.load(lead.id),
    respondBy: async () => {
      const due = (await reads.timer.load(lead.id))?.dueAt;
      return due ? new Date(due) : null;
    },
    breached: async () => !!(await reads.timer.load(lead.id))?.breached,
  };
  return load[name]();
}

/**
 * Each association as a JSON column of the lead row `l`: the same columns and order as the loaders'
 * statements above, so a page answered from them reads exactly as one answered by the loaders.
 */
const EMBED_SQL: Record<LeadEmbed, string> = {
  emails: jsonList(jsonColumns(EMAIL, 'x'), 'emails x where x.lead_id = l.id', EMAIL_ORDER),
  phoneNumbers: jsonList(jsonColumns(PHONE_NUMBER, 'x'), 'phone_numbers x where x.lead_id = l.id', EMAIL_ORDER),
  location: jsonRow(LOCATION, 'locations x where x.id = l.location_id'),
  assignee: jsonRow(ASSIGNEE, `${ASSIGNEE_FROM('x')} where x.id = l.assignee_id`),
  leadActivities: jsonList(jsonColumns(ACTIVITY, 'x'), 'lead_activities x where x.lead_id = l.id', ACTIVITY_ORDER),
  outcome: jsonRow(OUTCOME, 'lead_outcomes x where x.lead_id = l.id'),
  respondBy: `(select x.due_at from lead_response_timers x where x.lead_id = l.id and x.store_id = l.assignee_id)`,
  breached: `exists (select 1 from lead_response_timers x where x.lead_id = l.id and x.store_id = l.assignee_id and x.breached_at is not null)`,
};

/**
 * The same columns over the rows a statement has just inserted (`insertLead`): the lead `l` and the
 * data-modifying CTEs `loc`, `em`, `ph` and `act`, whose rows the statement's own reads of the tables
 * do not see yet.
 */
const INSERTED_EMBED_SQL: Record<LeadEmbed, string> = {
  emails: jsonList(jsonColumns(EMAIL, 'x'), 'em x', EMAIL_ORDER),
  phoneNumbers: jsonList(jsonColumns(PHONE_NUMBER, 'x'), 'ph x', EMAIL_ORDER),
  location: jsonRow(LOCATION, 'loc x'),
  assignee: EMBED_SQL.assignee,
  leadActivities: jsonList(jsonColumns(ACTIVITY, 'x'), 'act x', ACTIVITY_ORDER),
  // A lead just inserted has no outcome yet, and its timer has no due time yet.
  outcome: 'null::json',
  respondBy: 'null::timestamptz',
  breached: 'false',
};

/** The lead columns and the JSON columns of `embeds`, as `readLeadPage` and `primeLeadRow` name them. */
function leadColumnsWith(embeds: readonly LeadEmbed[], sql: Record<LeadEmbed, string> = EMBED_SQL): string {
  return [LEAD_COLUMNS, ...embeds.map((e) => embedColumn(e, sql[e]))].join(', ');
}

/**
 * A page of leads with the associations the operation selects, in one statement (each association a
 * JSON column), kept on each row for the field resolvers (`leadAssociation`): a page costs one
 * statement whatever it embeds, instead of one per association.
 */
async function readLeadPage(ctx: Context, ids: readonly string[], embeds: ReadonlySet<string>): Promise<LeadRow[]> {
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
  const { columns, embeds: read } = takeEmbeds<WithEmbeds>(row);
  for (const e of LEAD_EMBEDS) {
    if (!(e in read)) continue;
    const value = read[e];
    if (e === 'phoneNumbers') withFormats(value);
    if (e === 'assignee') embedded.assignee = value && toAssignee(value);
    else if (e === 'outcome') embedded.outcome = outcomeRow(value);
    else if (e === 'respondBy') embedded.respondBy = value ? new Date(value) : null;
    else if (e === 'breached') embedded.breached = !!value;
    else embedded[e] = Array.isArray(value) ? value.map(withDates) : value && withDates(value);
  }
  const lead = withDates(columns);
  lead[EMBEDDED] = embedded;
  leadReads(ctx).lead.prime(lead.id, lead);
  return lead;
}

/**
 * The lead activity list's rows (src/search/list.ts `RowReader`), read by the search's own statement
 * when its backend reads the tables. With `leadFields` (the fields the operation selects on `lead`),
 * each row also reads its lead with the associations selected of it (`leadColumnsWith`), primed into
 * the request's lead loader (`primeLeadRow`): a page and its leads cost one statement. The list's scope
 * is its leads' scope, so every lead read this way is one the caller sees.
 */
export function leadActivityRows(ctx: Context, leadFields: ReadonlySet<string>): RowReader<LeadActivityRow> {
  const lead = leadFields.size
    ? `, (select row_to_json(ld) from (select ${leadColumnsWith(LEAD_EMBEDS.filter((e) => leadFields.has(e)))} from leads l where l.id = x.lead_id) ld) as "embed_lead"`
    : '';
  return {
    sql: (ids) => ({ sql: `select ${selectColumns(ACTIVITY, 'x')}${lead} from lead_activities x where x.id = any(${ids})`, bindings: [] }),
    row: (raw) => {
      const { columns, embeds } = takeEmbeds<LeadActivityRow>(raw);
      if (embeds.lead) primeLeadRow(ctx, embeds.lead);
      return withDates(columns);
    },
  };
}

/** A lead's assignee: the CRL's own name, else its retailer location's. */
function toAssignee(crl: StoredAssignee): LeadAssigneeRow {
  const own = crl.name?.trim() ? crl.name : null;
  return {
    id: crl.id,
    type: ASSIGNEE_TYPE,
    name: own ?? (crl.retailerLocationId ? crl.storeName : null) ?? null,
    companyRetailerId: crl.companyRetailerId,
    retailerLocationId: crl.retailerLocationId,
  };
}

export interface NewLead {
  name: string;
  status: string;
  ownerCompanyId: string | null;
  ownerRetailerId: string | null;
  assigneeId: string | null;
  sourceType: string | null;
  sourceId: string | null;
  createdById: string;
  location: {
    addressName?: string | null;
    streetLineOne?: string | null;
    streetLineTwo?: string | null;
    postalCode?: string | null;
    city?: string | null;
    province?: string | null;
    country?: string | null;
    latitude: number | null;
    longitude: number | null;
    coordinatesSource: 'geocoder' | null;
  } | null;
  emails: string[];
  phones: Array<{ e164: string; country: string }>;
  activities: Array<{ type: string; data: Record<string, unknown> | null; sourceType?: string | null; sourceId?: string | null }>;
}

/**
 * A new lead, its location, emails, phone numbers and activities (in the order given) written by one
 * statement of data-modifying CTEs, which answers with the lead and everything it embeds as
 * `leadColumnsWith` names them: a create needs no read back. Triggers (search
 * text, scope keys, lead events) fire as for separate inserts; defaults (ids, `created_at`, `seq`) are
 * the database's.
 */
/** A new lead's nested rows as the insert statements read them (JSON records, snake_case). */
function nestedRows(lead: NewLead) {
  const location = lead.location && {
    address_name: lead.location.addressName ?? null,
    street_line_one: lead.location.streetLineOne ?? null,
    street_line_two: lead.location.streetLineTwo ?? null,
    postal_code: lead.location.postalCode ?? null,
    city: lead.location.city ?? null,
    province: lead.location.province ?? null,
    country: lead.location.country ?? null,
    latitude: lead.location.latitude,
    longitude: lead.location.longitude,
    coordinates_source: lead.location.coordinatesSource,
  };
  const phones = lead.phones.map((p) => ({ phone_number: p.e164, country_code: p.country, formatted: formatPhone(p.e164, p.country) }));
  const activities = lead.activities.map((a) => ({ type: a.type, data: a.data, source_type: a.sourceType ?? null, source_id: a.sourceId ?? null }));
  return { location, phones, activities };
}

/**
 * The arguments of `leadnet_new_lead_search_text` (Migration20261207000900_lead_search_text_at_insert) for
 * a new lead: its text is written with the row, and its contacts' statement triggers find nothing to rewrite.
 */
function searchTextValues(lead: NewLead): unknown[] {
  const at = lead.location;
  return [lead.name, lead.status, lead.emails, lead.phones.map((p) => p.e164), at?.city ?? null, at?.province ?? null, at?.country ?? null, at?.postalCode ?? null];
}

async function insertLead(tx: EntityManager, lead: NewLead): Promise<Record<string, any>> {
  const { location, phones, activities } = nestedRows(lead);
  const [row] = await query<Record<string, any>>(
    tx,
    `with loc as (
       insert into locations (address_name, street_line_one, street_line_two, postal_code, city, province, country, latitude, longitude, coordinates_source)
       select r.* from json_to_recordset(?::json) as r(address_name text, street_line_one text, street_line_two text, postal_code text,
                       city text, province text, country text, latitude float8, longitude float8, coordinates_source text)
       returning *),
     l as (
       insert into leads (name, status, owner_company_id, owner_retailer_id, assignee_id, source_type, source_id, created_by_id, location_id, search_text)
       values (?, ?, ?::uuid, ?::uuid, ?::uuid, ?, ?::uuid, ?::uuid, (select id from loc),
               leadnet_new_lead_search_text(?, ?, ?::text[], ?::text[], ?, ?, ?, ?)) returning *),
     em as (
       insert into emails (lead_id, email)
       select l.id, u.email from l, unnest(?::text[]) with ordinality as u(email, n) order by u.n returning *),
     ph as (
       insert into phone_numbers (lead_id, phone_number, country_code, formatted_international)
       select l.id, r.phone_number, r.country_code, r.formatted
         from l, rows from (json_to_recordset(?::json) as (phone_number text, country_code text, formatted text)) with ordinality as r(phone_number, country_code, formatted, n)
        order by r.n returning *),
     act as (
       insert into lead_activities (lead_id, type, data, source_type, source_id)
       select l.id, r.type, r.data, r.source_type, r.source_id
         from l, rows from (jsonb_to_recordset(?::jsonb) as (type text, data jsonb, source_type text, source_id uuid)) with ordinality as r(type, data, source_type, source_id, n)
        order by r.n returning *)
     select ${leadColumnsWith(LEAD_EMBEDS, INSERTED_EMBED_SQL)} from l`,
    [
      JSON.stringify(location ? [location] : []),
      lead.name,
      lead.status,
      lead.ownerCompanyId,
      lead.ownerRetailerId,
      lead.assigneeId,
      lead.sourceType,
      lead.sourceId,
      lead.createdById,
      ...searchTextValues(lead),
      lead.emails,
      JSON.stringify(phones),
      JSON.stringify(activities),
    ],
  );
  return row;
}

/**
 * `insertLead` for many leads in one statement (a batch create): the same rows, triggers and answer,
 * one row per lead in the order given. Ids of the leads and their locations are drawn first (`src`,
 * materialized once), so the nested rows find their lead without reading the insert's answer back; each
 * lead is inserted after its location (its search text reads it) and before its contacts, as
 * `insertLead` orders them. Each association is aggregated once per statement, not per lead.
 */
async function insertLeads(tx: EntityManager, leads: readonly NewLead[]): Promise<Array<Record<string, any>>> {
  const records = leads.map((lead) => {
    const { location, phones, activities } = nestedRows(lead);
    return {
      name: lead.name,
      status: lead.status,
      owner_company_id: lead.ownerCompanyId,
      owner_retailer_id: lead.ownerRetailerId,
      assignee_id: lead.assigneeId,
      source_type: lead.sourceType,
      source_id: lead.sourceId,
      created_by_id: lead.createdById,
      location,
      emails: lead.emails,
      phones,
      activities,
    };
  });
  const json = (map: ColumnMap<any>, order: string, from: string) =>
    `select x.lead_id, coalesce(json_agg(${jsonColumns(map, 'x')} order by ${order}), '[]') as j from ${from} x group by x.lead_id`;
  const text = `with src as materialized (
       select r.*, gen_random_uuid() as id, case when r.location is not null then gen_random_uuid() end as location_id
         from rows from (jsonb_to_recordset(?::jsonb) as (name text, status text, owner_company_id uuid, owner_retailer_id uuid,
              assignee_id uuid, source_type text, source_id uuid, created_by_id uuid, location jsonb, emails jsonb, phones jsonb, activities jsonb))
              with ordinality as r(name, status, owner_company_id, owner_retailer_id, assignee_id, source_type, source_id, created_by_id,
              location, emails, phones, activities, n)),
     loc as (
       insert into locations (id, address_name, street_line_one, street_line_two, postal_code, city, province, country, latitude, longitude, coordinates_source)
       select s.location_id, x.address_name, x.street_line_one, x.street_line_two, x.postal_code, x.city, x.province, x.country, x.latitude, x.longitude, x.coordinates_source
         from src s, jsonb_to_record(s.location) as x(address_name text, street_line_one text, street_line_two text, postal_code text,
              city text, province text, country text, latitude float8, longitude float8, coordinates_source text)
        where s.location_id is not null order by s.n
       returning *),
     l as (
       insert into leads (id, name, status, owner_company_id, owner_retailer_id, assignee_id, source_type, source_id, created_by_id, location_id, search_text)
       select s.id, s.name, s.status, s.owner_company_id, s.owner_retailer_id, s.assignee_id, s.source_type, s.source_id, s.created_by_id, loc.id,
              leadnet_new_lead_search_text(s.name, s.status,
                array(select e from jsonb_array_elements_text(s.emails) with ordinality as x(e, n) order by n),
                array(select x.p->>'phone_number' from jsonb_array_elements(s.phones) with ordinality as x(p, n) order by n),
                s.location->>'city', s.location->>'province', s.location->>'country', s.location->>'postal_code')
         from src s left join loc on loc.id = s.location_id order by s.n
       returning *),
     em as (
       insert into emails (lead_id, email)
       select l.id, e.email from l join src s on s.id = l.id, jsonb_array_elements_text(s.emails) with ordinality as e(email, n)
        order by s.n, e.n returning *),
     ph as (
       insert into phone_numbers (lead_id, phone_number, country_code, formatted_international)
       select l.id, r.phone_number, r.country_code, r.formatted
         from l join src s on s.id = l.id,
              rows from (jsonb_to_recordset(s.phones) as (phone_number text, country_code text, formatted text)) with ordinality as r(phone_number, country_code, formatted, n)
        order by s.n, r.n returning *),
     act as (
       insert into lead_activities (lead_id, type, data, source_type, source_id)
       select l.id, r.type, r.data, r.source_type, r.source_id
         from l join src s on s.id = l.id,
              rows from (jsonb_to_recordset(s.activities) as (type text, data jsonb, source_type text, source_id uuid)) with ordinality as r(type, data, source_type, source_id, n)
        order by s.n, r.n returning *),
     em_j as (${json(EMAIL, EMAIL_ORDER, 'em')}),
     ph_j as (${json(PHONE_NUMBER, EMAIL_ORDER, 'ph')}),
     act_j as (${json(ACTIVITY, ACTIVITY_ORDER, 'act')})
     select ${[
       LEAD_COLUMNS,
       embedColumn('emails', `coalesce(em_j.j, '[]')`),
       embedColumn('phoneNumbers', `coalesce(ph_j.j, '[]')`),
       embedColumn('location', jsonRow(LOCATION, 'loc x where x.id = l.location_id')),
       embedColumn('assignee', EMBED_SQL.assignee),
       embedColumn('leadActivities', `coalesce(act_j.j, '[]')`),
     ].join(', ')}
       from l join src s on s.id = l.id
       left join em_j on em_j.lead_id = l.id left join ph_j on ph_j.lead_id = l.id left join act_j on act_j.lead_id = l.id
      order by s.n`;
  return query<Record<string, any>>(tx, text, [JSON.stringify(records)]);
}

/** The emails and phone numbers of each lead of `ids` (stored values), in one statement. */
export function contactValues(tx: EntityManager, ids: readonly string[]): Promise<Array<{ id: string; emails: string[]; phones: string[] }>> {
  return query(
    tx,
    `select u.id, array(select e.email from emails e where e.lead_id = u.id) as emails,
            array(select p.phone_number from phone_numbers p where p.lead_id = u.id) as phones
       from unnest(?::uuid[]) as u(id)`,
    [pgArray(ids)],
  );
}

/** A lead of the caller sharing an email or a phone number with a batch's leads (`duplicatesOfMany`). */
export interface DuplicateCandidate {
  id: string;
  /** The batch's normalized emails and phone numbers it has. */
  emails: string[];
  phones: string[];
}

/** The lead's statements for a request (reads through its loaders, writes in the transaction given). */
export class LeadRepository {
  constructor(private readonly ctx: Context) {}

  /** The leads of `ids` in that order, with the associations in `embeds`, in one statement. */
  page(ids: readonly string[], embeds: ReadonlySet<string>): Promise<LeadRow[]> {
    return readLeadPage(this.ctx, ids, embeds);
  }


  /** The lead `id` as a row when `scope` lets the caller see it, in one statement. */
  async visible(id: string, scope: Where): Promise<LeadRow | null> {
    const cond = compileScope(leadSearch, scope);
    const [row] = await query<LeadRow>(
      this.ctx.em,
      `select ${LEAD_COLUMNS} from ${fromClause(leadSearch, cond.sql)} where l.id = ? and (${cond.sql})`,
      [id, ...cond.bindings],
    );
    return row ? withDates(row) : null;
  }

  /** The visible lead as an entity, for a write; 404 otherwise. */
  entity(id: string, scope: Where): Promise<Lead> {
    return findInScope(this.ctx, leadSearch, Lead, scope, id, 'Lead');
  }

  /** The lead as committed, through a loader of the request (primed by a create's own answer). */
  async committed(id: string, created?: Record<string, any>): Promise<LeadRow | null> {
    if (created) return primeLeadRow(this.ctx, created);
    return leadReads(this.ctx).lead.load(id);
  }

  /** The CRL `id` when `where` (over `assigneeSearch`) lets the caller assign leads to it. */
  async assignee(id: string, where: Where): Promise<string | null> {
    const cond = compileScope(assigneeSearch, where);
    const rows = await query<StoredAssignee>(this.ctx.em, `select ${selectColumns(ASSIGNEE, 'a')} from ${assigneeSearch.from} where a.id = ? and (${cond.sql}) limit 1`, [
      id,
      ...cond.bindings,
    ]);
    return rows[0]?.id ?? null;
  }

  /** Transaction-scoped advisory locks on `keys`, held until the transaction ends. */
  async lock(tx: EntityManager, keys: string[]): Promise<void> {
    await query(tx, 'select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest(?::text[]) as k', [keys]);
  }

  /** The oldest lead `where` selects sharing one of the emails or phone numbers, row-locked. */
  async findDuplicate(tx: EntityManager, where: Where, emails: string[], phones: string[]): Promise<string | null> {
    const cond = compileScope(leadSearch, where);
    const rows = await query(
      tx,
      `select l.id from ${leadSearch.from}
        where l.id in (select lead_id from emails where lower(email) = any(?::text[])
                       union select lead_id from phone_numbers where phone_number = any(?::text[]))
          and (${cond.sql})
        order by l.created_at asc, l.id asc limit 1
          for update of l`,
      [emails, phones, ...cond.bindings],
    );
    return rows[0]?.id ?? null;
  }

  /** A new lead and its children in one statement, answered as `committed` reads it. */
  insert(tx: EntityManager, lead: NewLead): Promise<Record<string, any>> {
    return insertLead(tx, lead);
  }

  /** New leads and their children in one statement, answered in the order given as `insert` answers one. */
  insertMany(tx: EntityManager, leads: readonly NewLead[]): Promise<Array<Record<string, any>>> {
    return leads.length ? insertLeads(tx, leads) : Promise.resolve([]);
  }

  /**
   * `findDuplicate` for a whole batch in one statement: every lead `where` selects sharing one of the
   * emails or phone numbers, row-locked, oldest first (the order `findDuplicate` picks by), each with
   * the ones it shares.
   */
  async duplicatesOfMany(tx: EntityManager, where: Where, emails: string[], phones: string[]): Promise<DuplicateCandidate[]> {
    if (!emails.length && !phones.length) return [];
    const cond = compileScope(leadSearch, where);
    return query<DuplicateCandidate>(
      tx,
      // Each value looked up once (the indexes on lower(email) and phone_number), then grouped by lead.
      // Matching each lead's values against the batch's whole arrays instead probes the index once a lead
      // and a value: over a second for 500 merging items.
      `with shared as materialized (
         select lead_id, array_agg(distinct email) filter (where email is not null) as emails,
                array_agg(distinct phone) filter (where phone is not null) as phones
           from (select e.lead_id, lower(e.email) as email, null::text as phone
                   from unnest(?::text[]) as k(value) join emails e on lower(e.email) = k.value
                 union all
                 select p.lead_id, null, p.phone_number
                   from unnest(?::text[]) as k(value) join phone_numbers p on p.phone_number = k.value) hits
          group by lead_id)
       select l.id, coalesce(s.emails, '{}') as emails, coalesce(s.phones, '{}') as phones
         from ${leadSearch.from} join shared s on s.lead_id = l.id
        where (${cond.sql})
        order by l.created_at asc, l.id asc
          for update of l`,
      [emails, phones, ...cond.bindings],
    );
  }

  /**
   * Leads as the transaction `tx` sees them now, with every association kept on the row (a batch's
   * answer to an item that merged: a later item may change the same lead), in the order of `ids`.
   */
  async current(tx: EntityManager, ids: readonly string[]): Promise<Array<Record<string, any>>> {
    const rows = await query<any>(tx, `select ${leadColumnsWith(LEAD_EMBEDS)} from leads l where l.id = any(?::uuid[])`, [pgArray(ids)]);
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    return ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
  }

  /** The CRLs of `ids` that `where` (over `assigneeSearch`) lets the caller assign leads to, in one statement. */
  async assignees(ids: readonly string[], where: Where): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const cond = compileScope(assigneeSearch, where);
    const rows = await query<{ id: string }>(this.ctx.em, `select a.id from ${assigneeSearch.from} where a.id = any(?::uuid[]) and (${cond.sql})`, [
      pgArray(ids),
      ...cond.bindings,
    ]);
    return new Set(rows.map((r) => r.id));
  }
}
