import { Migration } from '@mikro-orm/migrations';

/** The CRL ids a statement's rows of an hours-like table (`hours`, `hour_exceptions`) belong to. */
const ownerIds = (rows: string) => `array(
  select company_retailer_location_id from ${rows} where company_retailer_location_id is not null
  union
  select crl.id from company_retailer_locations crl join ${rows} r on crl.retailer_location_id = r.retailer_location_id)`;
/** The CRL ids of a statement's `stocks` rows. */
const stockIds = (rows: string) => `array(select company_retailer_location_id from ${rows})`;

/** A trigger function that touches the pages of the statement's stores (`ids` of the transition tables). */
const touchFunction = (name: string, ids: (rows: string) => string) => `create or replace function ${name}() returns trigger
  language plpgsql as $$
  begin
    if TG_OP = 'INSERT' then
      perform leadnet_store_pages_touch(${ids('new_rows')});
    elsif TG_OP = 'DELETE' then
      perform leadnet_store_pages_touch(${ids('old_rows')});
    else
      perform leadnet_store_pages_touch(${ids('new_rows')} || ${ids('old_rows')});
    end if;
    return null;
  end $$;`;

/** Statement triggers for insert, update and delete of `table` running `fn` with transition tables. */
const touchTriggers = (table: string, fn: string) => [
  `create trigger "${table}_store_pages_insert" after insert on "${table}" referencing new table as new_rows for each statement execute function ${fn}();`,
  `create trigger "${table}_store_pages_update" after update on "${table}" referencing old table as old_rows new table as new_rows for each statement execute function ${fn}();`,
  `create trigger "${table}_store_pages_delete" after delete on "${table}" referencing old table as old_rows for each statement execute function ${fn}();`,
];

/**
 * Store pages (docs/store-pages.md): readable, stable URLs for the locator's listed stores.
 *
 * - `store_pages`: one row per store that has been listed (`store_locator_entries`), with its current
 *   city and store slugs, the names the directory shows, whether it is listed now and when anything shown
 *   on its page last changed (`updated_at`, the sitemap's `lastmod`).
 * - `store_page_slugs`: every (company, city slug, store slug) a store has had: the current one answers,
 *   an older one redirects 301 to it. A slug once given stays its store's, so a collision in a company's
 *   city gets the next free suffix (`-2`, `-3`...).
 * - `company_page_slugs`: the same for companies (unique over the service).
 *
 * Triggers keep them in the writing transaction: a store's entry written (a CRL, its retailer location or
 * its address changed) refreshes its row and slugs; hours, hour exceptions and stock touch `updated_at`;
 * each of these statements NOTIFYs `leadnet_store_pages`, on which every process empties its page cache.
 */
export class Migration20261207000200_store_pages extends Migration {
  override async up(): Promise<void> {
    // Lowercase ASCII words joined by '-', diacritics folded ("Vélos Lyon" -> "velos-lyon"), at most 80 characters.
    this.addSql(`create or replace function leadnet_slug(t text) returns text language sql stable as $$
      select nullif(btrim(left(btrim(regexp_replace(lower(unaccent(coalesce(t, ''))), '[^a-z0-9]+', '-', 'g'), '-'), 80), '-'), '')
    $$;`);
    this.addSql(`create table "store_pages" (
      "crl_id" uuid not null,
      "company_id" uuid not null,
      "country" varchar(255) null,
      "city" varchar(255) null,
      "name" text null,
      "city_slug" text not null,
      "store_slug" text not null,
      "listed" boolean not null default true,
      "updated_at" timestamptz not null default now(),
      constraint "store_pages_pkey" primary key ("crl_id"),
      constraint "store_pages_crl_id_foreign" foreign key ("crl_id") references "company_retailer_locations" ("id") on delete cascade);`);
    this.addSql(`create index "store_pages_directory_index" on "store_pages" ("company_id", "country", "city_slug", "store_slug") where "listed";`);
    this.addSql(`create index "store_pages_listed_index" on "store_pages" ("crl_id") include ("updated_at") where "listed";`);
    this.addSql(`create table "store_page_slugs" (
      "company_id" uuid not null,
      "city_slug" text not null,
      "store_slug" text not null,
      "crl_id" uuid not null,
      constraint "store_page_slugs_pkey" primary key ("company_id", "city_slug", "store_slug"),
      constraint "store_page_slugs_crl_id_foreign" foreign key ("crl_id") references "company_retailer_locations" ("id") on delete cascade);`);
    this.addSql(`create index "store_page_slugs_crl_id_index" on "store_page_slugs" ("crl_id");`);
    this.addSql(`create table "company_page_slugs" (
      "slug" text not null,
      "company_id" uuid not null,
      "current" boolean not null,
      constraint "company_page_slugs_pkey" primary key ("slug"),
      constraint "company_page_slugs_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete cascade);`);
    this.addSql(`create unique index "company_page_slugs_current_index" on "company_page_slugs" ("company_id") where "current";`);

    // A company's current slug from its name; a name whose slug is taken by another company gets a suffix.
    this.addSql(`create or replace function leadnet_company_page_slugs_refresh(ids uuid[]) returns void
      language plpgsql as $$
      declare
        r record;
        candidate text;
        n int;
      begin
        for r in
          select c.id, coalesce(leadnet_slug(c.name), 'company') as base
            from companies c
           where c.id = any(ids)
             and not exists (select 1 from company_page_slugs s where s.company_id = c.id and s.current
                              and (s.slug = coalesce(leadnet_slug(c.name), 'company') or s.slug ~ ('^' || coalesce(leadnet_slug(c.name), 'company') || '-[0-9]+$')))
           order by c.id
        loop
          perform pg_advisory_xact_lock(hashtext('leadnet_company_page_slug'));
          candidate := r.base;
          n := 1;
          loop
            perform 1 from company_page_slugs s where s.slug = candidate and s.company_id <> r.id;
            exit when not found;
            n := n + 1;
            candidate := r.base || '-' || n;
          end loop;
          update company_page_slugs set current = false where company_id = r.id and current;
          insert into company_page_slugs (slug, company_id, current) values (candidate, r.id, true)
            on conflict (slug) do update set current = true;
        end loop;
      end $$;`);

    // What each listed store of `ids` should show and be named: its names, its city slug and the base of
    // its store slug, and whether its current slugs already fit (same city, the base or base-N).
    this.addSql(`create or replace function leadnet_store_pages_desired(ids uuid[])
      returns table (crl_id uuid, company_id uuid, country varchar, city varchar, name text, city_slug text, base text, fits boolean)
      language sql stable as $$
        select e.crl_id, e.company_id, e.country, e.city, d.name, c.city_slug, c.base,
               coalesce(p.city_slug = c.city_slug and (p.store_slug = c.base or p.store_slug ~ ('^' || c.base || '-[0-9]+$')), false)
          from store_locator_entries e
          join company_retailer_locations crl on crl.id = e.crl_id
          join company_retailers cr on cr.id = crl.company_retailer_id
          join retailers ret on ret.id = cr.retailer_id
          left join retailer_locations rl on rl.id = crl.retailer_location_id
          cross join lateral (select coalesce(nullif(btrim(crl.name), ''), nullif(btrim(rl.name), ''), nullif(btrim(cr.name), ''), ret.name) as name) d
          cross join lateral (select coalesce(leadnet_slug(e.city), 'other') as city_slug, coalesce(leadnet_slug(d.name), 'store') as base) c
          left join store_pages p on p.crl_id = e.crl_id
         where e.crl_id = any(ids)
      $$;`);

    // The rows and slugs of these stores: listed ones (in store_locator_entries) upserted, the others
    // unlisted. Set-based for stores whose slugs still fit and for new slugs nobody holds (a bulk import);
    // one store at a time, under a lock per company, only where a suffix must be found.
    this.addSql(`create or replace function leadnet_store_pages_refresh(ids uuid[]) returns void
      language plpgsql as $$
      declare
        r record;
        candidate text;
        n int;
      begin
        if ids is null or cardinality(ids) = 0 then return; end if;
        update store_pages p set listed = false, updated_at = now()
         where p.crl_id = any(ids) and p.listed and not exists (select 1 from store_locator_entries e where e.crl_id = p.crl_id);
        update store_pages p set company_id = d.company_id, country = d.country, city = d.city, name = d.name, listed = true, updated_at = now()
          from leadnet_store_pages_desired(ids) d
         where d.fits and p.crl_id = d.crl_id;
        with d as (
          select * from leadnet_store_pages_desired(ids) where not fits
        ), fresh as (
          select d.*, row_number() over (partition by d.company_id, d.city_slug, d.base order by d.crl_id) as k
            from d
           where not exists (select 1 from store_page_slugs s where s.company_id = d.company_id and s.city_slug = d.city_slug and s.store_slug = d.base)
        ), taken as (
          insert into store_page_slugs (company_id, city_slug, store_slug, crl_id)
          select f.company_id, f.city_slug, f.base, f.crl_id from fresh f where f.k = 1
          on conflict do nothing
          returning store_page_slugs.crl_id, store_page_slugs.store_slug
        )
        insert into store_pages (crl_id, company_id, country, city, name, city_slug, store_slug, listed, updated_at)
        select d.crl_id, d.company_id, d.country, d.city, d.name, d.city_slug, t.store_slug, true, now() from taken t join d on d.crl_id = t.crl_id
        on conflict (crl_id) do update set company_id = excluded.company_id, country = excluded.country, city = excluded.city,
          name = excluded.name, city_slug = excluded.city_slug, store_slug = excluded.store_slug, listed = true, updated_at = now();
        for r in select * from leadnet_store_pages_desired(ids) where not fits order by crl_id
        loop
          -- Two writers naming stores alike in one company take their suffixes in turn (one lock a company).
          perform pg_advisory_xact_lock(hashtext('leadnet_store_page_slug/' || r.company_id::text));
          candidate := r.base;
          n := 1;
          loop
            perform 1 from store_page_slugs s
             where s.company_id = r.company_id and s.city_slug = r.city_slug and s.store_slug = candidate and s.crl_id <> r.crl_id;
            exit when not found;
            n := n + 1;
            candidate := r.base || '-' || n;
          end loop;
          insert into store_page_slugs (company_id, city_slug, store_slug, crl_id) values (r.company_id, r.city_slug, candidate, r.crl_id)
            on conflict do nothing;
          insert into store_pages (crl_id, company_id, country, city, name, city_slug, store_slug, listed, updated_at)
          values (r.crl_id, r.company_id, r.country, r.city, r.name, r.city_slug, candidate, true, now())
          on conflict (crl_id) do update set company_id = excluded.company_id, country = excluded.country, city = excluded.city,
            name = excluded.name, city_slug = excluded.city_slug, store_slug = excluded.store_slug, listed = true, updated_at = now();
        end loop;
      end $$;`);

    this.addSql(`create or replace function leadnet_store_pages_touch(ids uuid[]) returns void
      language plpgsql as $$
      begin
        update store_pages set updated_at = now() where crl_id = any(ids) and updated_at < now();
        perform pg_notify('leadnet_store_pages', '');
      end $$;`);

    this.addSql(`create or replace function leadnet_store_pages_entries_changed() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'DELETE' then
          perform leadnet_store_pages_refresh(array(select crl_id from old_rows));
        else
          perform leadnet_store_pages_refresh(array(select crl_id from new_rows));
        end if;
        perform pg_notify('leadnet_store_pages', '');
        return null;
      end $$;`);
    this.addSql(`create trigger "store_locator_entries_store_pages_insert" after insert on "store_locator_entries"
      referencing new table as new_rows for each statement execute function leadnet_store_pages_entries_changed();`);
    this.addSql(`create trigger "store_locator_entries_store_pages_update" after update on "store_locator_entries"
      referencing new table as new_rows for each statement execute function leadnet_store_pages_entries_changed();`);
    this.addSql(`create trigger "store_locator_entries_store_pages_delete" after delete on "store_locator_entries"
      referencing old table as old_rows for each statement execute function leadnet_store_pages_entries_changed();`);

    this.addSql(`create or replace function leadnet_store_pages_companies_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_company_page_slugs_refresh(array(select id from new_rows));
        perform pg_notify('leadnet_store_pages', '');
        return null;
      end $$;`);
    this.addSql(`create trigger "companies_store_pages_insert" after insert on "companies"
      referencing new table as new_rows for each statement execute function leadnet_store_pages_companies_changed();`);
    this.addSql(`create trigger "companies_store_pages_update" after update on "companies"
      referencing new table as new_rows for each statement execute function leadnet_store_pages_companies_changed();`);

    this.addSql(touchFunction('leadnet_store_pages_hours_changed', ownerIds));
    this.addSql(touchFunction('leadnet_store_pages_stocks_changed', stockIds));
    for (const sql of touchTriggers('hours', 'leadnet_store_pages_hours_changed')) this.addSql(sql);
    for (const sql of touchTriggers('stocks', 'leadnet_store_pages_stocks_changed')) this.addSql(sql);
    // Dated exceptions (Migration20261207000100_hour_exceptions) are owned like hours.
    for (const sql of touchTriggers('hour_exceptions', 'leadnet_store_pages_hours_changed')) {
      this.addSql(`do $do$ begin if to_regclass('hour_exceptions') is not null then execute ${quote(sql)}; end if; end $do$;`);
    }
    // What else a page shows (products' names, contact details) reaches it by the cache's time to live.
    this.addSql(`create or replace function leadnet_store_pages_notify() returns trigger
      language plpgsql as $$
      begin
        perform pg_notify('leadnet_store_pages', '');
        return null;
      end $$;`);
    this.addSql(`create trigger "products_store_pages_changed" after update or delete on "products"
      for each statement execute function leadnet_store_pages_notify();`);

    this.addSql(`select leadnet_company_page_slugs_refresh(array(select id from companies));`);
    this.addSql(`select leadnet_store_pages_refresh(array(select crl_id from store_locator_entries));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "products_store_pages_changed" on "products";`);
    for (const table of ['hours', 'stocks', 'hour_exceptions']) {
      for (const op of ['insert', 'update', 'delete']) {
        this.addSql(`do $do$ begin if to_regclass('${table}') is not null then execute 'drop trigger if exists "${table}_store_pages_${op}" on "${table}"'; end if; end $do$;`);
      }
    }
    for (const op of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "store_locator_entries_store_pages_${op}" on "store_locator_entries";`);
    for (const op of ['insert', 'update']) this.addSql(`drop trigger if exists "companies_store_pages_${op}" on "companies";`);
    for (const fn of ['notify()', 'stocks_changed()', 'hours_changed()', 'companies_changed()', 'entries_changed()', 'touch(uuid[])', 'refresh(uuid[])', 'desired(uuid[])']) {
      this.addSql(`drop function if exists leadnet_store_pages_${fn};`);
    }
    this.addSql(`drop function if exists leadnet_company_page_slugs_refresh(uuid[]);`);
    this.addSql(`drop table if exists "company_page_slugs";`);
    this.addSql(`drop table if exists "store_page_slugs";`);
    this.addSql(`drop table if exists "store_pages";`);
    this.addSql(`drop function if exists leadnet_slug(text);`);
  }
}

/** A SQL string literal. */
function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
