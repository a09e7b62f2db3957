import { Migration } from '@mikro-orm/migrations';

/**
 * The leads' q text (src/search/text.ts `textExpression` of lead.search.ts), stored in
 * `leads.search_text` with a trigram index, as products do. Leads read their emails, phone numbers and
 * location, which a generated column cannot, so row triggers keep it current instead.
 */
export class Migration20261122014000_lead_search_text extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "leads" add column "search_text" text null;`);
    // `textExpression(leadSearch)` for one lead row `l` (same fields, order and folding).
    this.addSql(String.raw`create or replace function leadnet_lead_search_text(l leads) returns text
      language sql stable parallel safe as $$
      select leadnet_search_text(coalesce(l.name::text, '') || ' ' || coalesce(l.status::text, '') || ' ' || coalesce(array_to_string(array(select e.email from emails e where e.lead_id = l.id), ' '), '') || ' ' || coalesce(array_to_string(array(select p.phone_number from phone_numbers p where p.lead_id = l.id), ' '), '') || ' ' || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, ''))
        from (values (0)) as one(x) left join locations loc on loc.id = l.location_id
      $$;`);
    this.addSql(`update "leads" l set "search_text" = leadnet_lead_search_text(l);`);

    // The lead's own text columns: computed before the row is written.
    this.addSql(`create or replace function leadnet_lead_search_text_own() returns trigger
      language plpgsql as $$
      begin
        NEW.search_text := leadnet_lead_search_text(NEW);
        return NEW;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_search_text before insert or update of name, status, location_id on leads
      for each row execute function leadnet_lead_search_text_own();`);
    // Emails and phone numbers: the leads they left and joined. (OLD and NEW are null where absent.)
    this.addSql(`create or replace function leadnet_lead_search_text_child() returns trigger
      language plpgsql as $$
      begin
        update leads l set search_text = leadnet_lead_search_text(l)
          where l.id in (OLD.lead_id, NEW.lead_id) and l.search_text is distinct from leadnet_lead_search_text(l);
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_search_text after insert or delete or update of email, lead_id on emails
      for each row execute function leadnet_lead_search_text_child();`);
    this.addSql(`create trigger leadnet_lead_search_text after insert or delete or update of phone_number, lead_id on phone_numbers
      for each row execute function leadnet_lead_search_text_child();`);
    // A location: the leads at it (a deleted one sets their location_id null, which the leads trigger sees).
    this.addSql(`create or replace function leadnet_lead_search_text_location() returns trigger
      language plpgsql as $$
      begin
        update leads l set search_text = leadnet_lead_search_text(l)
          where l.location_id = NEW.id and l.search_text is distinct from leadnet_lead_search_text(l);
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_search_text after update of city, province, country, postal_code on locations
      for each row execute function leadnet_lead_search_text_location();`);
    this.addSql(`create index "leads_location_id_index" on "leads" ("location_id");`);
    // fastupdate off: see products_search_text_trgm_index.
    this.addSql(`create index "leads_search_text_trgm_index" on "leads" using gin ("search_text" gin_trgm_ops) with (fastupdate = off);`);

    // The Elasticsearch outbox ignores a change of the stored text alone: the lead's outbox row comes
    // from the email, phone number or location that changed it (and its activities are unaffected).
    this.addSql(String.raw`create or replace function leadnet_search_outbox() returns trigger
      language plpgsql as $$
      declare
        stmt text := format('insert into search_outbox (document, record_id) select distinct %L, x from (%s) as s(x) where x is not null', TG_ARGV[0], TG_ARGV[1]);
      begin
        if TG_OP = 'UPDATE' and (NEW is not distinct from OLD or to_jsonb(NEW) - 'search_text' = to_jsonb(OLD) - 'search_text') then
          return null;
        end if;
        if TG_OP in ('INSERT', 'UPDATE') then
          execute stmt using NEW;
        end if;
        if TG_OP in ('UPDATE', 'DELETE') then
          execute stmt using OLD;
        end if;
        return null;
      end $$;`);
  }

  async down(): Promise<void> {
    this.addSql(String.raw`create or replace function leadnet_search_outbox() returns trigger
      language plpgsql as $$
      declare
        stmt text := format('insert into search_outbox (document, record_id) select distinct %L, x from (%s) as s(x) where x is not null', TG_ARGV[0], TG_ARGV[1]);
      begin
        if TG_OP = 'UPDATE' and NEW is not distinct from OLD then
          return null;
        end if;
        if TG_OP in ('INSERT', 'UPDATE') then
          execute stmt using NEW;
        end if;
        if TG_OP in ('UPDATE', 'DELETE') then
          execute stmt using OLD;
        end if;
        return null;
      end $$;`);
    this.addSql(`drop index if exists "leads_search_text_trgm_index";`);
    this.addSql(`drop index if exists "leads_location_id_index";`);
    this.addSql(`drop trigger if exists leadnet_lead_search_text on locations;`);
    this.addSql(`drop trigger if exists leadnet_lead_search_text on phone_numbers;`);
    this.addSql(`drop trigger if exists leadnet_lead_search_text on emails;`);
    this.addSql(`drop trigger if exists leadnet_lead_search_text on leads;`);
    this.addSql(`drop function if exists leadnet_lead_search_text_location();`);
    this.addSql(`drop function if exists leadnet_lead_search_text_child();`);
    this.addSql(`drop function if exists leadnet_lead_search_text_own();`);
    this.addSql(`drop function if exists leadnet_lead_search_text(leads);`);
    this.addSql(`alter table "leads" drop column if exists "search_text";`);
  }
}
