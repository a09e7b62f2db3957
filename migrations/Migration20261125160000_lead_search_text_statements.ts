import { Migration } from '@mikro-orm/migrations';

/** `leadnet_lead_search_text(l)` (lead.search.ts `textExpression`), emails in insertion order. */
const ONE_LEAD = String.raw`create or replace function leadnet_lead_search_text(l leads) returns text
      language sql stable parallel safe as $$
      select leadnet_search_text(coalesce(l.name::text, '') || ' ' || coalesce(l.status::text, '') || ' ' || coalesce(array_to_string(array(select e.email from emails e where e.lead_id = l.id order by e.seq), ' '), '') || ' ' || coalesce(array_to_string(array(select substr(d.digits, i) from phone_numbers p
      cross join lateral (select regexp_replace(p.phone_number, '\D', '', 'g') as digits) d
      cross join lateral generate_series(1, length(d.digits) - 3) i
      where p.lead_id = l.id order by p.seq, i), ' '), '') || ' ' || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, ''))
        from (values (0)) as one(x) left join locations loc on loc.id = l.location_id
      $$;`;

/**
 * The leads of a statement's changed emails or phone numbers (`column` being the searched one): those
 * a row left, joined, or whose row changed its text or order. A statement trigger of each event reads
 * only the transition tables it has.
 */
const contactsTrigger = (table: string, column: string) => `create or replace function leadnet_lead_search_text_${table}() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          perform leadnet_lead_search_text_refresh(array(select lead_id from new_rows));
        elsif TG_OP = 'DELETE' then
          perform leadnet_lead_search_text_refresh(array(select lead_id from old_rows));
        else
          perform leadnet_lead_search_text_refresh(array(
            select lead_id from ((select lead_id, ${column}, seq from old_rows except all select lead_id, ${column}, seq from new_rows)
                                 union all
                                 (select lead_id, ${column}, seq from new_rows except all select lead_id, ${column}, seq from old_rows)) changed));
        end if;
        return null;
      end $$;`;

/**
 * The leads' stored q text (`leads.search_text`, Migration20261122014000_lead_search_text) kept by
 * statement triggers on emails, phone numbers and locations: a statement recomputes the text of the
 * leads it touched once, with one set-based update (`leadnet_lead_search_text_refresh`), instead of
 * one update of a lead per written row. Bulk writes (imports, merges of many contacts, seeds) thus cost
 * one pass. A new lead's text is set before it is written from its own columns and location (its
 * contacts reference it, so they come later). Emails enter the text in insertion order, so that the
 * set-based and the per-lead computations agree to the byte.
 */
export class Migration20261125160000_lead_search_text_statements extends Migration {
  async up(): Promise<void> {
    this.addSql(ONE_LEAD);
    // The texts of the given leads, computed in one statement (the same expression as
    // leadnet_lead_search_text, without a function call per lead; each lead's contacts are read through
    // their lead_id index, whatever the planner estimates), stored where they changed. Null and repeated
    // ids are ignored.
    this.addSql(String.raw`create or replace function leadnet_lead_search_text_refresh(ids uuid[]) returns void
      language plpgsql as $$
      begin
        if cardinality(ids) = 0 then
          return;
        end if;
        update leads l set search_text = t.search_text
          from (select l.id, leadnet_search_text(coalesce(l.name::text, '') || ' ' || coalesce(l.status::text, '') || ' '
                  || coalesce((select string_agg(e.email, ' ' order by e.seq) from emails e where e.lead_id = l.id), '') || ' '
                  || coalesce((select string_agg(substr(d.digits, i), ' ' order by p.seq, i) from phone_numbers p
                                 cross join lateral (select regexp_replace(p.phone_number, '\D', '', 'g') as digits) d
                                 cross join lateral generate_series(1, length(d.digits) - 3) i
                                where p.lead_id = l.id), '') || ' '
                  || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, '')) as search_text
                  from leads l left join locations loc on loc.id = l.location_id
                 where l.id in (select unnest(ids))) t
         where l.id = t.id and l.search_text is distinct from t.search_text;
      end $$;`);

    this.addSql(`create or replace function leadnet_lead_search_text_own() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          select leadnet_search_text(coalesce(NEW.name::text, '') || ' ' || coalesce(NEW.status::text, '') || '   ' || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, ''))
            into NEW.search_text
            from (values (0)) as one(x) left join locations loc on loc.id = NEW.location_id;
        else
          NEW.search_text := leadnet_lead_search_text(NEW);
        end if;
        return NEW;
      end $$;`);

    for (const [table, column] of [['emails', 'email'], ['phone_numbers', 'phone_number']]) {
      this.addSql(`drop trigger leadnet_lead_search_text on ${table};`);
      this.addSql(contactsTrigger(table, column));
      // The insert trigger keeps the old name, which bulk loaders disable around a load.
      this.addSql(`create trigger leadnet_lead_search_text after insert on ${table}
        referencing new table as new_rows for each statement execute function leadnet_lead_search_text_${table}();`);
      this.addSql(`create trigger leadnet_lead_search_text_update after update on ${table}
        referencing old table as old_rows new table as new_rows for each statement execute function leadnet_lead_search_text_${table}();`);
      this.addSql(`create trigger leadnet_lead_search_text_delete after delete on ${table}
        referencing old table as old_rows for each statement execute function leadnet_lead_search_text_${table}();`);
    }
    this.addSql(`drop function leadnet_lead_search_text_child();`);

    // A location's searched columns: the leads at the locations whose values changed.
    this.addSql(`drop trigger leadnet_lead_search_text on locations;`);
    this.addSql(`create or replace function leadnet_lead_search_text_location() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_lead_search_text_refresh(array(
          select l.id from leads l
           where l.location_id in (select id from (select id, city, province, country, postal_code from new_rows
                                                   except select id, city, province, country, postal_code from old_rows) changed)));
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_search_text after update on locations
      referencing old table as old_rows new table as new_rows for each statement execute function leadnet_lead_search_text_location();`);

    // Leads with several emails whose stored order was not their insertion order.
    this.addSql(`select leadnet_lead_search_text_refresh(array(select lead_id from emails where lead_id is not null group by lead_id having count(*) > 1));`);
  }

  async down(): Promise<void> {
    this.addSql(`drop trigger if exists leadnet_lead_search_text on locations;`);
    this.addSql(`create or replace function leadnet_lead_search_text_location() returns trigger
      language plpgsql as $$
      begin
        update leads l set search_text = leadnet_lead_search_text(l)
          where l.location_id = NEW.id and l.search_text is distinct from leadnet_lead_search_text(l);
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_search_text after update of city, province, country, postal_code on locations
      for each row execute function leadnet_lead_search_text_location();`);
    this.addSql(`create or replace function leadnet_lead_search_text_child() returns trigger
      language plpgsql as $$
      begin
        update leads l set search_text = leadnet_lead_search_text(l)
          where l.id in (OLD.lead_id, NEW.lead_id) and l.search_text is distinct from leadnet_lead_search_text(l);
        return null;
      end $$;`);
    for (const [table, column] of [['emails', 'email'], ['phone_numbers', 'phone_number']]) {
      for (const name of ['leadnet_lead_search_text', 'leadnet_lead_search_text_update', 'leadnet_lead_search_text_delete']) {
        this.addSql(`drop trigger if exists ${name} on ${table};`);
      }
      this.addSql(`drop function if exists leadnet_lead_search_text_${table}();`);
      this.addSql(`create trigger leadnet_lead_search_text after insert or delete or update of ${column}, lead_id on ${table}
        for each row execute function leadnet_lead_search_text_child();`);
    }
    this.addSql(`create or replace function leadnet_lead_search_text_own() returns trigger
      language plpgsql as $$
      begin
        NEW.search_text := leadnet_lead_search_text(NEW);
        return NEW;
      end $$;`);
    this.addSql(`drop function if exists leadnet_lead_search_text_refresh(uuid[]);`);
    this.addSql(ONE_LEAD.replace(' order by e.seq', ''));
  }
}
