import { addressString, directionsUrl, formatPhone, fullName } from './store-locator.format';
import { HoursCalendar, resolveZone, type HourEntry, type HourRow } from './store-locator.hours';
import type { Weekday } from '../retailer-location/hour.entity';
import { pgArray } from '../../db/sql';
import type { Execute } from './store-locator.types';
import type { Sql } from '../../search/types';

export interface StoreLocatorAddress {
  id: string;
  address_name: string | null;
  street_line_one: string | null;
  street_line_two: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  /** The formatted single line (`addressString`). */
  string: string;
}

export interface StoreLocatorProduct {
  product_id: string;
  sku: string;
  name: string;
  category: string | null;
  url: string | null;
  external_id: string | null;
  collection_id: string | null;
  stocked: boolean;
  available: boolean;
  images: Array<{ id: string; url: string; thumbnail_url: string | null }>;
}

/** SPEC 2.7 store locator result. */
export interface StoreLocatorResult {
  id: string;
  name: string | null;
  full_name: string | null;
  retailer_name: string | null;
  store_type: string | null;
  website: string | null;
  place_id: string | null;
  address: StoreLocatorAddress | null;
  email: { id: string; email: string } | null;
  phone_number: { id: string; phone_number: string; country_code: string; formatted: string } | null;
  retailer_location_hours: HourEntry[];
  retailer_location_products: StoreLocatorProduct[];
  /** Addition (PRODUCT.md 11): open at the response's instant, by the store's hours in its own zone. */
  open_now: boolean;
  /** Addition: the store's weekday at the response's instant, in its zone (which hour entry is today). */
  local_weekday: Weekday;
  /** Addition: a maps directions link to the store (`directionsUrl`), null without address and coordinates. */
  directions_url: string | null;
}

// Read-through (PRODUCT.md section 1): a CRL linked to a retailer location shows that location's address,
// email, phone and hours; name, website and place_id fall back to it when the CRL's own are blank.
const through = (column: string) => `case when crl.retailer_location_id is null then crl.${column} else rl.${column} end`;

const HOUR_JSON = `json_build_object('day', h.day, 'open', h.open, 'open_at_hour', h.open_at_hour, 'open_at_minute', h.open_at_minute,
  'close_at_hour', h.close_at_hour, 'close_at_minute', h.close_at_minute)`;

/**
 * Every result of the ids in one statement: the store's columns, and its hours and its stocked or
 * available products (with images) as JSON columns.
 */
const RESULTS_SQL = `
  select crl.id,
         coalesce(nullif(btrim(crl.name), ''), rl.name) as name,
         coalesce(nullif(btrim(cr.name), ''), r.name) as retailer_name,
         st.name as store_type,
         coalesce(nullif(btrim(crl.website), ''), rl.website) as website,
         coalesce(nullif(btrim(crl.place_id), ''), rl.place_id) as place_id,
         crl.timezone as crl_timezone, rl.timezone as rl_timezone,
         l.id as address_id, l.address_name, l.street_line_one, l.street_line_two, l.postal_code, l.city, l.province,
         l.country, l.latitude, l.longitude,
         e.id as email_id, e.email,
         ph.id as phone_id, ph.phone_number, ph.country_code, ph.formatted_international,
         case when crl.retailer_location_id is null
              then (select coalesce(json_agg(${HOUR_JSON}), '[]') from hours h where h.company_retailer_location_id = crl.id)
              else (select coalesce(json_agg(${HOUR_JSON}), '[]') from hours h where h.retailer_location_id = crl.retailer_location_id)
         end as hours,
         (select coalesce(json_agg(json_build_object('product_id', p.id, 'sku', p.sku, 'name', p.name, 'category', p.category, 'url', p.url,
                   'external_id', p.external_id, 'collection_id', p.collection_id, 'stocked', s.stocked, 'available', s.available,
                   'images', (select coalesce(json_agg(json_build_object('id', i.id, 'url', i.url, 'thumbnail_url', i.thumbnail_url)
                                                       order by i.position, i.id), '[]')
                                from product_images i where i.product_id = p.id))
                 order by p.name collate "C", p.sku collate "C", p.id), '[]')
            from stocks s join products p on p.id = s.product_id and p.company_id = crl.company_id
           where s.company_retailer_location_id = crl.id and (s.stocked or s.available)) as products
    from unnest(?::uuid[]) as ids(id)
    join company_retailer_locations crl on crl.id = ids.id
    join company_retailers cr on cr.id = crl.company_retailer_id
    join retailers r on r.id = cr.retailer_id
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    left join locations l on l.id = ${through('physical_address_id')}
    left join emails e on e.id = ${through('general_email_id')}
    left join phone_numbers ph on ph.id = ${through('general_phone_number_id')}
    left join company_store_types st on st.id = crl.company_store_type_id`;

/** The statement that reads the results of `ids`. */
export function readerStatement(ids: string[]): Sql {
  return { sql: RESULTS_SQL, bindings: [pgArray(ids)] };
}

/**
 * Turns CRL ids into SPEC 2.7 results with one set-based statement, whatever the number of ids. Hours are computed for the clock's `now`.
 */
export class StoreLocatorReader {
  constructor(
    private readonly execute: Execute,
    /** The clock results are computed for (tests fix it). */
    readonly now: () => Date = () => new Date(),
  ) {}

  /** Results in the order of `ids` at the instant `at`; unknown ids are left out. */
  async load(ids: string[], at: Date = this.now()): Promise<StoreLocatorResult[]> {
    if (!ids.length) return [];
    const statement = readerStatement(ids);
    const stores = await this.execute(statement.sql, statement.bindings);
    const calendar = new HoursCalendar(at);
    const byId = new Map(stores.map((s) => [s.id as string, s]));
    return ids.flatMap((id) => {
      const s = byId.get(id);
      if (!s) return [];
      const coordinates = s.latitude !== null && s.longitude !== null ? { latitude: Number(s.latitude), longitude: Number(s.longitude) } : null;
      const zone = resolveZone([s.crl_timezone, s.rl_timezone], coordinates);
      const rows = s.hours as HourRow[];
      const line = s.address_id ? addressString(s) : null;
      return [
        {
          id: s.id,
          name: s.name ?? null,
          full_name: fullName(s.retailer_name, s.name),
          retailer_name: s.retailer_name ?? null,
          store_type: s.store_type ?? null,
          website: s.website ?? null,
          place_id: s.place_id ?? null,
          address: s.address_id
            ? {
                id: s.address_id,
                address_name: s.address_name,
                street_line_one: s.street_line_one,
                street_line_two: s.street_line_two,
                postal_code: s.postal_code,
                city: s.city,
                province: s.province,
                country: s.country,
                latitude: coordinates?.latitude ?? null,
                longitude: coordinates?.longitude ?? null,
                string: line!,
              }
            : null,
          email: s.email_id ? { id: s.email_id, email: s.email } : null,
          phone_number: s.phone_id
            ? { id: s.phone_id, phone_number: s.phone_number, country_code: s.country_code, formatted: s.formatted_international ?? formatPhone(s.phone_number, s.country_code) }
            : null,
          retailer_location_hours: calendar.week(rows, zone),
          retailer_location_products: s.products as StoreLocatorProduct[],
          open_now: calendar.openNow(rows, zone),
          local_weekday: calendar.weekday(zone),
          directions_url: directionsUrl(coordinates, line, s.place_id ?? null),
        },
      ];
    });
  }
}
