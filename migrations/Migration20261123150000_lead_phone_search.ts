import { Migration } from '@mikro-orm/migrations';

/**
 * Phone search as people type numbers: the leads' stored q text (`leadnet_lead_search_text`, kept equal
 * to `textExpression(leadSearch)`) holds every tail of 4+ digits of each phone number instead of the
 * E.164 string, and is rebuilt for existing leads.
 */
export class Migration20261123150000_lead_phone_search extends Migration {
  async up(): Promise<void> {
    this.addSql(String.raw`create or replace function leadnet_lead_search_text(l leads) returns text
      language sql stable parallel safe as $$
      select leadnet_search_text(coalesce(l.name::text, '') || ' ' || coalesce(l.status::text, '') || ' ' || coalesce(array_to_string(array(select e.email from emails e where e.lead_id = l.id), ' '), '') || ' ' || coalesce(array_to_string(array(select substr(d.digits, i) from phone_numbers p
      cross join lateral (select regexp_replace(p.phone_number, '\D', '', 'g') as digits) d
      cross join lateral generate_series(1, length(d.digits) - 3) i
      where p.lead_id = l.id order by p.seq, i), ' '), '') || ' ' || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, ''))
        from (values (0)) as one(x) left join locations loc on loc.id = l.location_id
      $$;`);
    this.addSql(`update "leads" l set "search_text" = leadnet_lead_search_text(l) where l.id in (select lead_id from phone_numbers);`);
  }

  async down(): Promise<void> {
    this.addSql(String.raw`create or replace function leadnet_lead_search_text(l leads) returns text
      language sql stable parallel safe as $$
      select leadnet_search_text(coalesce(l.name::text, '') || ' ' || coalesce(l.status::text, '') || ' ' || coalesce(array_to_string(array(select e.email from emails e where e.lead_id = l.id), ' '), '') || ' ' || coalesce(array_to_string(array(select p.phone_number from phone_numbers p where p.lead_id = l.id), ' '), '') || ' ' || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, ''))
        from (values (0)) as one(x) left join locations loc on loc.id = l.location_id
      $$;`);
    this.addSql(`update "leads" l set "search_text" = leadnet_lead_search_text(l) where l.id in (select lead_id from phone_numbers);`);
  }
}
