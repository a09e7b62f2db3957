import { Migration } from '@mikro-orm/migrations';

/**
 * Routing's delivery radius in metres is at most half the earth's circumference (no point on earth is
 * farther, so the routing decision is the same), and a NaN radius counts as none: a radius near the
 * largest double overflowed `delivery_radius * 1609.344` in the trigger (a 500 on the CRL write, or on
 * adding its address later) or the `earth_box` of the radius rule (a 500 on every routed lead of the
 * company). The service bounds `delivery_radius` too (src/limits.ts); this holds for any writer.
 *
 * A store is routed to only while its company retailer receives leads too: the retailer's own switch
 * (`company_retailers.receiving_leads`, which a retailer admin may write) took no store out of routing.
 * The company retailer's update trigger already refreshes its stores' entries.
 */
export class Migration20261125151000_routing_radius_guard extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      refresh(`least(crl.delivery_radius, pi() * 6371008.7714 / 1609.344) * 1609.344`, `crl.delivery_radius > 0 and crl.delivery_radius <> 'NaN'`, 'crl.receiving_leads and cr.receiving_leads'),
    );
    this.addSql(`select leadnet_routing_refresh(array(select id from company_retailer_locations));`);
  }

  override async down(): Promise<void> {
    this.addSql(refresh('crl.delivery_radius * 1609.344', 'crl.delivery_radius > 0', 'crl.receiving_leads'));
    this.addSql(`select leadnet_routing_refresh(array(select id from company_retailer_locations));`);
  }
}

/** `leadnet_routing_refresh` of Migration20261123140000_routing, with the radius in metres and the receiving test as given. */
function refresh(metres: string, hasRadius: string, receiving: string): string {
  return `create or replace function leadnet_routing_refresh(ids uuid[]) returns void
      language plpgsql as $$
      begin
        if ids is null or cardinality(ids) = 0 then return; end if;
        with touched as (
          select distinct id from unnest(ids) as u(id)
        ), listed as (
          select crl.id as crl_id, crl.company_id, l.latitude, l.longitude,
                 case when ${hasRadius} then ${metres} end as delivery_radius_m,
                 coalesce(crl.territory_id, cr.territory_id) as territory_id, crl.company_store_type_id
            from touched
            join company_retailer_locations crl on crl.id = touched.id
            join company_retailers cr on cr.id = crl.company_retailer_id
            left join retailer_locations rl on rl.id = crl.retailer_location_id
            join locations l on l.id = case when crl.retailer_location_id is null then crl.physical_address_id else rl.physical_address_id end
           where ${receiving}
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
      end $$;`;
}
