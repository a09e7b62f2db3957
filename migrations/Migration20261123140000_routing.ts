import { Migration } from '@mikro-orm/migrations';

/**
 * Lead routing (issue 14, PRODUCT.md section 11): a company's routing settings, the routing read model
 * (`routing_entries`: one row per placed CRL with `receiving_leads`, its effective territory, delivery
 * radius in metres and a GiST index on its earth position, kept in step by triggers in the writing
 * transaction like `store_locator_entries`), the round-robin state, and the index delivery areas are
 * matched on.
 */
export class Migration20261123140000_routing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "company_routing_settings" (
      "company_id" uuid not null primary key references "companies" ("id") on delete cascade,
      "enabled" boolean not null default false,
      "strategies" text[] not null default '{delivery_area,delivery_radius}',
      "nearest_max_distance_miles" double precision null,
      "nearest_in_territory" boolean not null default false,
      "round_robin" boolean not null default false,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      constraint "company_routing_settings_strategies_check"
        check ("strategies" <@ array['delivery_area', 'delivery_radius', 'nearest']::text[]));`);

    this.addSql(`create table "routing_entries" (
      "crl_id" uuid not null primary key references "company_retailer_locations" ("id") on delete cascade,
      "company_id" uuid not null,
      "latitude" double precision not null,
      "longitude" double precision not null,
      "delivery_radius_m" double precision null,
      "territory_id" uuid null,
      "company_store_type_id" uuid null);`);
    this.addSql(`create index "routing_entries_earth_index" on "routing_entries" using gist (ll_to_earth("latitude", "longitude"));`);
    this.addSql(`create index "routing_entries_company_id_delivery_radius_m_index" on "routing_entries" ("company_id", "delivery_radius_m");`);

    this.addSql(`create table "routing_round_robin" (
      "crl_id" uuid not null primary key references "company_retailer_locations" ("id") on delete cascade,
      "last_assigned_at" timestamptz not null);`);

    // Delivery areas are matched on the postal code without spaces, upper case ("v6b 1a1" = "V6B1A1").
    this.addSql(`create index "delivery_areas_routing_postal_code_index" on "delivery_areas" (upper(replace("postal_code", ' ', '')));`);

    this.addSql(`create or replace function leadnet_routing_refresh(ids uuid[]) returns void
      language plpgsql as $$
      begin
        if ids is null or cardinality(ids) = 0 then return; end if;
        with touched as (
          select distinct id from unnest(ids) as u(id)
        ), listed as (
          select crl.id as crl_id, crl.company_id, l.latitude, l.longitude,
                 case when crl.delivery_radius > 0 then crl.delivery_radius * 1609.344 end as delivery_radius_m,
                 coalesce(crl.territory_id, cr.territory_id) as territory_id, crl.company_store_type_id
            from touched
            join company_retailer_locations crl on crl.id = touched.id
            join company_retailers cr on cr.id = crl.company_retailer_id
            left join retailer_locations rl on rl.id = crl.retailer_location_id
            join locations l on l.id = case when crl.retailer_location_id is null then crl.physical_address_id else rl.physical_address_id end
           where crl.receiving_leads
             and l.latitude between -90 and 90 and l.longitude between -180 and 180
        ), dropped as (
          delete from routing_entries e using touched
           where e.crl_id = touched.id and not exists (select 1 from listed where listed.crl_id = e.crl_id)
        )
        insert into routing_entries (crl_id, company_id, latitude, longitude, delivery_radius_m, territory_id, company_store_type_id)
        select * from listed
        on conflict (crl_id) do update set
          company_id = excluded.company_id, latitude = excluded.latitude, longitude = excluded.longitude,
          delivery_radius_m = excluded.delivery_radius_m, territory_id = excluded.territory_id,
          company_store_type_id = excluded.company_store_type_id;
      end $$;`);

    this.addSql(`create or replace function leadnet_routing_crl_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_routing_refresh(array(select id from changed));
        return null;
      end $$;`);
    this.addSql(`create or replace function leadnet_routing_company_retailer_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_routing_refresh(array(
          select crl.id from company_retailer_locations crl join changed c on crl.company_retailer_id = c.id));
        return null;
      end $$;`);
    this.addSql(`create or replace function leadnet_routing_retailer_location_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_routing_refresh(array(
          select crl.id from company_retailer_locations crl join changed c on crl.retailer_location_id = c.id));
        return null;
      end $$;`);
    this.addSql(`create or replace function leadnet_routing_location_changed() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_routing_refresh(array(
          select crl.id from company_retailer_locations crl join changed c on crl.physical_address_id = c.id
           where crl.retailer_location_id is null
          union
          select crl.id from retailer_locations rl join changed c on rl.physical_address_id = c.id
            join company_retailer_locations crl on crl.retailer_location_id = rl.id));
        return null;
      end $$;`);
    // Deletes need no trigger: entries cascade with their CRL, and deleting a retailer location, an address
    // or a territory sets the referencing keys to null, an update that fires the triggers below.
    this.addSql(`create trigger "routing_crl_inserted" after insert on "company_retailer_locations"
      referencing new table as changed for each statement execute function leadnet_routing_crl_changed();`);
    this.addSql(`create trigger "routing_crl_updated" after update on "company_retailer_locations"
      referencing new table as changed for each statement execute function leadnet_routing_crl_changed();`);
    this.addSql(`create trigger "routing_company_retailer_updated" after update on "company_retailers"
      referencing new table as changed for each statement execute function leadnet_routing_company_retailer_changed();`);
    this.addSql(`create trigger "routing_retailer_location_updated" after update on "retailer_locations"
      referencing new table as changed for each statement execute function leadnet_routing_retailer_location_changed();`);
    this.addSql(`create trigger "routing_location_updated" after update on "locations"
      referencing new table as changed for each statement execute function leadnet_routing_location_changed();`);
    this.addSql(`select leadnet_routing_refresh(array(select id from company_retailer_locations));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "routing_location_updated" on "locations";`);
    this.addSql(`drop trigger if exists "routing_retailer_location_updated" on "retailer_locations";`);
    this.addSql(`drop trigger if exists "routing_company_retailer_updated" on "company_retailers";`);
    this.addSql(`drop trigger if exists "routing_crl_updated" on "company_retailer_locations";`);
    this.addSql(`drop trigger if exists "routing_crl_inserted" on "company_retailer_locations";`);
    this.addSql(`drop function if exists leadnet_routing_location_changed();`);
    this.addSql(`drop function if exists leadnet_routing_retailer_location_changed();`);
    this.addSql(`drop function if exists leadnet_routing_company_retailer_changed();`);
    this.addSql(`drop function if exists leadnet_routing_crl_changed();`);
    this.addSql(`drop function if exists leadnet_routing_refresh(uuid[]);`);
    this.addSql(`drop index if exists "delivery_areas_routing_postal_code_index";`);
    this.addSql(`drop table if exists "routing_round_robin";`);
    this.addSql(`drop table if exists "routing_entries";`);
    this.addSql(`drop table if exists "company_routing_settings";`);
  }
}
