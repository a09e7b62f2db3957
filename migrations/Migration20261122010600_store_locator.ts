import { Migration } from '@mikro-orm/migrations';

/**
 * The store locator's read model: one row per listed store (a CRL with both lead flags on and a placed
 * address, read through its retailer location), with a GiST index on its earth position. Triggers keep it
 * in step with every write to CRLs, retailer locations and addresses, whoever makes it, in the writing
 * transaction; searches then read one narrow table instead of joining three per candidate.
 */
export class Migration20261122010600_store_locator extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "retailer_locations_physical_address_id_index" on "retailer_locations" ("physical_address_id");`);
    this.addSql(`create index "company_retailer_locations_physical_address_id_index" on "company_retailer_locations" ("physical_address_id");`);
    this.addSql(`create table "store_locator_entries" (
      "crl_id" uuid not null,
      "company_id" uuid not null,
      "latitude" double precision not null,
      "longitude" double precision not null,
      "city" varchar(255) null,
      "province" varchar(255) null,
      "country" varchar(255) null,
      "company_store_type_id" uuid null,
      constraint "store_locator_entries_pkey" primary key ("crl_id"),
      constraint "store_locator_entries_crl_id_foreign" foreign key ("crl_id") references "company_retailer_locations" ("id") on delete cascade
    );`);
    this.addSql(`create index "store_locator_entries_earth_index" on "store_locator_entries" using gist (ll_to_earth("latitude", "longitude"));`);
    this.addSql(`create index "store_locator_entries_company_id_index" on "store_locator_entries" ("company_id");`);

    // Upsert the listed ones, delete the others: safe when two transactions refresh the same store.
    this.addSql(`create or replace function leadnet_store_locator_refresh(ids uuid[]) returns void
      language plpgsql as $$
      begin
        if ids is null or cardinality(ids) = 0 then return; end if;
        with touched as (
          select distinct id from unnest(ids) as u(id)
        ), listed as (
          select crl.id as crl_id, crl.company_id, l.latitude, l.longitude, l.city, l.province, l.country, crl.company_store_type_id
            from touched
            join company_retailer_locations crl on crl.id = touched.id
            left join retailer_locations rl on rl.id = crl.retailer_location_id
            join locations l on l.id = case when crl.retailer_location_id is null then crl.physical_address_id else rl.physical_address_id end
           where crl.sending_leads and crl.receiving_leads
             and l.latitude between -90 and 90 and l.longitude between -180 and 180
        ), dropped as (
          delete from store_locator_entries e using touched
           where e.crl_id = touched.id and not exists (select 1 from listed where listed.crl_id = e.crl_id)
        )
        insert into store_locator_entries (crl_id, company_id, latitude, longitude, city, province, country, company_store_type_id)
        select * from listed
        on conflict (crl_id) do update set
          company_id = excluded.company_id, latitude = excluded.latitude, longitude = excluded.longitude, city = excluded.city,
          province = excluded.province, country = excluded.country, company_store_type_id = excluded.company_store_type_id;
      end $$;`);

    this.addSql(`create or replace function leadnet_store_locator_crl_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_store_locator_refresh(array(select id from changed));
        return null;
      end $$;`);
    this.addSql(`create or replace function leadnet_store_locator_retailer_location_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_store_locator_refresh(array(
          select crl.id from company_retailer_locations crl join changed c on crl.retailer_location_id = c.id));
        return null;
      end $$;`);
    this.addSql(`create or replace function leadnet_store_locator_location_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_store_locator_refresh(array(
          select crl.id from company_retailer_locations crl join changed c on crl.physical_address_id = c.id
           where crl.retailer_location_id is null
          union
          select crl.id from retailer_locations rl join changed c on rl.physical_address_id = c.id
            join company_retailer_locations crl on crl.retailer_location_id = rl.id));
        return null;
      end $$;`);
    // Deletes need no trigger: entries cascade with their CRL, and deleting a retailer location or an
    // address sets the referencing keys to null, an update that fires the triggers below.
    this.addSql(`create trigger "store_locator_crl_inserted" after insert on "company_retailer_locations"
      referencing new table as changed for each statement execute function leadnet_store_locator_crl_changed();`);
    this.addSql(`create trigger "store_locator_crl_updated" after update on "company_retailer_locations"
      referencing new table as changed for each statement execute function leadnet_store_locator_crl_changed();`);
    this.addSql(`create trigger "store_locator_retailer_location_updated" after update on "retailer_locations"
      referencing new table as changed for each statement execute function leadnet_store_locator_retailer_location_changed();`);
    this.addSql(`create trigger "store_locator_location_updated" after update on "locations"
      referencing new table as changed for each statement execute function leadnet_store_locator_location_changed();`);
    this.addSql(`select leadnet_store_locator_refresh(array(select id from company_retailer_locations));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "store_locator_location_updated" on "locations";`);
    this.addSql(`drop trigger if exists "store_locator_retailer_location_updated" on "retailer_locations";`);
    this.addSql(`drop trigger if exists "store_locator_crl_updated" on "company_retailer_locations";`);
    this.addSql(`drop trigger if exists "store_locator_crl_inserted" on "company_retailer_locations";`);
    this.addSql(`drop function if exists leadnet_store_locator_location_changed();`);
    this.addSql(`drop function if exists leadnet_store_locator_retailer_location_changed();`);
    this.addSql(`drop function if exists leadnet_store_locator_crl_changed();`);
    this.addSql(`drop function if exists leadnet_store_locator_refresh(uuid[]);`);
    this.addSql(`drop table if exists "store_locator_entries";`);
    this.addSql(`drop index if exists "company_retailer_locations_physical_address_id_index";`);
    this.addSql(`drop index if exists "retailer_locations_physical_address_id_index";`);
  }
}
