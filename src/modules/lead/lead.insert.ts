import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import { formatPhone } from '../contact/phone';
import { INSERTED_EMBED_SQL, LEAD_EMBEDS, leadColumnsWith } from './lead.reader';

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
 * `leadColumnsWith` names them (`primeLeadRow` reads it): a create needs no read back. Triggers (search
 * text, scope keys, lead events) fire as for separate inserts; defaults (ids, `created_at`, `seq`) are
 * the database's.
 */
export async function insertLead(tx: EntityManager, lead: NewLead): Promise<Record<string, any>> {
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
  const [row] = await query<Record<string, any>>(
    tx,
    `with loc as (
       insert into locations (address_name, street_line_one, street_line_two, postal_code, city, province, country, latitude, longitude, coordinates_source)
       select r.* from json_to_recordset(?::json) as r(address_name text, street_line_one text, street_line_two text, postal_code text,
                       city text, province text, country text, latitude float8, longitude float8, coordinates_source text)
       returning *),
     l as (
       insert into leads (name, status, owner_company_id, owner_retailer_id, assignee_id, source_type, source_id, created_by_id, location_id)
       values (?, ?, ?::uuid, ?::uuid, ?::uuid, ?, ?::uuid, ?::uuid, (select id from loc)) returning *),
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
      lead.emails,
      JSON.stringify(phones),
      JSON.stringify(activities),
    ],
  );
  return row;
}
