import { DateTime } from 'luxon';
import { resolveZone } from '../store-locator/store-locator.hours';

/**
 * The columns a user's time zone is resolved from, over a `users` row `u`: its own `time_zone`, else its
 * first store's (a company location user's or sales associate's CRL, a store manager's retailer location,
 * lowest id first): the zone stored on the store, else the zone at its coordinates.
 */
export const ZONE_COLUMNS = `u.time_zone as own_zone,
  (select jsonb_build_object('zones', jsonb_build_array(a.timezone, rl.timezone), 'lat', loc.latitude, 'lng', loc.longitude)
     from user_company_retailer_locations x join company_retailer_locations a on a.id = x.company_retailer_location_id
     left join retailer_locations rl on rl.id = a.retailer_location_id
     left join locations loc on loc.id = coalesce(rl.physical_address_id, a.physical_address_id)
    where x.user_id = u.id order by a.id limit 1) as crl_zone,
  (select jsonb_build_object('zones', jsonb_build_array(rl.timezone), 'lat', loc.latitude, 'lng', loc.longitude)
     from user_retailer_locations x join retailer_locations rl on rl.id = x.retailer_location_id
     left join locations loc on loc.id = rl.physical_address_id
    where x.user_id = u.id order by rl.id limit 1) as rl_zone`;

interface StoreZone {
  zones: Array<string | null>;
  lat: number | string | null;
  lng: number | string | null;
}

/** The zone a user's digest hour is read in, from a row with `ZONE_COLUMNS`: its own, its store's, else UTC. */
export function zoneOf(row: { own_zone?: string | null; crl_zone?: StoreZone | null; rl_zone?: StoreZone | null }): string {
  if (row.own_zone) return resolveZone([row.own_zone], null);
  const store = row.crl_zone ?? row.rl_zone;
  if (!store) return 'UTC';
  const point = store.lat === null || store.lng === null ? null : { latitude: Number(store.lat), longitude: Number(store.lng) };
  return resolveZone(store.zones, point);
}

/**
 * The next `hour`:00 by the wall clock of `zone`, strictly after `now`. Across a DST change the hour is
 * the local one (08:00 is 13:00 UTC in New York's winter and 12:00 in its summer); an hour a spring
 * change skips is the first instant after the gap.
 */
export function nextDigestAt(now: Date, hour: number, zone = 'UTC'): Date {
  const local = DateTime.fromJSDate(now, { zone });
  for (let days = 0; days <= 2; days++) {
    const at = local.plus({ days }).set({ hour, minute: 0, second: 0, millisecond: 0 });
    if (at.toMillis() > now.getTime()) return at.toJSDate();
  }
  return new Date(now.getTime() + 24 * 3_600_000); // unreachable: some day within two has the hour ahead
}
