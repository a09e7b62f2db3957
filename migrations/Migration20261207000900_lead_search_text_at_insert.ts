import { Migration } from '@mikro-orm/migrations';

/** The insert branch of `leadnet_lead_search_text_own` as Migration20261125160000_lead_search_text_statements wrote it. */
const FROM_OWN_COLUMNS = `select leadnet_search_text(coalesce(NEW.name::text, '') || ' ' || coalesce(NEW.status::text, '') || '   ' || coalesce(loc.city::text, '') || ' ' || coalesce(loc.province::text, '') || ' ' || coalesce(loc.country::text, '') || ' ' || coalesce(loc.postal_code::text, ''))
            into NEW.search_text
            from (values (0)) as one(x) left join locations loc on loc.id = NEW.location_id;`;

/**
 * A new lead's search text written once, by the statement that inserts it with its contacts. Before, the
 * lead was inserted with the text of its own columns, and the emails' statement trigger then rewrote
 * every new lead's row with the full text (a second row version, its trigram entries and the leads'
 * update triggers): about 70 to 110 ms of a 500-lead batch's 250.
 *
 * `leadnet_new_lead_search_text` is the text `leadnet_lead_search_text_refresh` computes, from values
 * instead of stored rows (emails and phone numbers in the order they are inserted). The insert trigger
 * keeps a text the statement gives; the contacts' statement triggers still recompute it, and store it
 * only where it differs, so a given text is never kept wrong.
 */
export class Migration20261207000900_lead_search_text_at_insert extends Migration {
  override async up(): Promise<void> {
    this.addSql(String.raw`create or replace function leadnet_new_lead_search_text(
        name text, status text, emails text[], phones text[], city text, province text, country text, postal_code text) returns text
      language sql stable parallel safe as $$
      select leadnet_search_text(coalesce(name, '') || ' ' || coalesce(status, '') || ' '
        || coalesce(array_to_string(emails, ' '), '') || ' '
        || coalesce((select string_agg(substr(d.digits, i), ' ' order by p.n, i)
                       from unnest(phones) with ordinality as p(phone, n)
                       cross join lateral (select regexp_replace(p.phone, '\D', '', 'g') as digits) d
                       cross join lateral generate_series(1, length(d.digits) - 3) i), '') || ' '
        || coalesce(city, '') || ' ' || coalesce(province, '') || ' ' || coalesce(country, '') || ' ' || coalesce(postal_code, ''))
      $$;`);
    this.addSql(ownTrigger(true));
  }

  override async down(): Promise<void> {
    this.addSql(ownTrigger(false));
    this.addSql(`drop function if exists leadnet_new_lead_search_text(text, text, text[], text[], text, text, text, text);`);
  }
}

function ownTrigger(keepGiven: boolean): string {
  return `create or replace function leadnet_lead_search_text_own() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          ${keepGiven ? 'if NEW.search_text is not null then return NEW; end if;' : ''}
          ${FROM_OWN_COLUMNS}
        else
          NEW.search_text := leadnet_lead_search_text(NEW);
        end if;
        return NEW;
      end $$;`;
}
