import { boxCentre, boxRadius, EARTH_RADIUS_M, MAX_DISTANCE_M, type LatLng } from '../../geo/distance';
import type { AggResult, Sql } from '../../search/types';
import {
  FACETS,
  type Execute,
  type Facet,
  type ProductFilter,
  type ScoreSettings,
  type StoreLocatorHits,
  type StoreLocatorQuery,
  type StoreLocatorSearch,
  pgArray,
} from './store-locator.types';

/** Buckets per facet, as the list endpoints' default `limit` (PRODUCT.md section 6). */
export const FACET_LIMIT = 1000;

/**
 * The store locator on PostgreSQL, in one statement: the stores in range (GiST index on the earth position
 * of addresses, `earth_box` prefilter, exact haversine recheck) are materialized once, then the page,
 * the total and the four facets are read from them.
 */
export class PostgresStoreLocatorSearch implements StoreLocatorSearch {
  constructor(
    private readonly execute: Execute,
    private readonly settings: ScoreSettings,
  ) {}

  async search(query: StoreLocatorQuery): Promise<StoreLocatorHits> {
    const statement = storeLocatorSql(query, this.settings);
    const [row] = await this.execute(statement.sql, statement.bindings);
    const aggs = {} as Record<Facet, AggResult>;
    for (const facet of FACETS) {
      const { buckets, all } = row[facet] as { buckets: Array<{ key: string; doc_count: number }>; all: number };
      const shown = buckets.reduce((sum, b) => sum + b.doc_count, 0);
      aggs[facet] = { doc_count_error_upper_bound: 0, sum_other_doc_count: Number(all) - shown, buckets };
    }
    return { ids: row.ids as string[], total: Number(row.total), aggs };
  }
}

const FACET_COLUMN: Record<Facet, string> = { city: 'city', province: 'province', country: 'country', store_type: 'store_type' };

/** The whole search as one SQL statement (also run bare by the benchmark). */
export function storeLocatorSql(query: StoreLocatorQuery, settings: ScoreSettings): Sql {
  const geo = geoCondition(query);
  const arm = (join: string): Sql => ({
    sql: `select crl.id, crl.company_store_type_id, l.city, l.province, l.country, l.latitude, l.longitude
            from locations l ${join}
           where crl.company_id = ?::uuid and crl.sending_leads and crl.receiving_leads
             and l.latitude is not null and l.longitude is not null and ${geo.prefilter.sql}`,
    bindings: [query.companyId, ...geo.prefilter.bindings],
  });
  // Read-through (PRODUCT.md section 1): the address of a CRL with a retailer location is that location's.
  const viaRetailerLocation = arm(
    `join retailer_locations rl on rl.physical_address_id = l.id
     join company_retailer_locations crl on crl.retailer_location_id = rl.id`,
  );
  const own = arm(`join company_retailer_locations crl on crl.physical_address_id = l.id and crl.retailer_location_id is null`);
  const products = query.products.map((f) => productCondition(f, query.companyId));
  const where = [geo.recheck, ...products];
  const score =
    query.geo.kind === 'point'
      ? {
          sql: `exp(greatest(-700, ?::float8 * power(greatest(0, d.distance - ?::float8) / ?::float8, 2))) + coalesce(st.boost, 0)`,
          bindings: [Math.log(settings.decay), settings.offsetMeters, settings.scaleMeters],
        }
      : { sql: '0::float8', bindings: [] };

  const stores: Sql = {
    sql: `select a.id, a.city, a.province, a.country, st.name as store_type, d.distance, ${score.sql} as score
            from (${viaRetailerLocation.sql} union all ${own.sql}) a
            cross join lateral (select ${haversineSql('a.latitude', 'a.longitude')} as distance) d
            left join company_store_types st on st.id = a.company_store_type_id
           where ${where.map((w) => `(${w.sql})`).join(' and ')}`,
    bindings: [
      ...score.bindings,
      ...viaRetailerLocation.bindings,
      ...own.bindings,
      ...geo.centre,
      ...where.flatMap((w) => w.bindings),
    ],
  };

  const facetFilter = (except?: Facet): Sql => {
    const parts = FACETS.filter((f) => f !== except && query.facets[f]).map((f) => ({
      sql: `${FACET_COLUMN[f]} = any(?::text[])`,
      bindings: [pgArray(query.facets[f]!)],
    }));
    return parts.length ? { sql: parts.map((p) => p.sql).join(' and '), bindings: parts.flatMap((p) => p.bindings) } : { sql: 'true', bindings: [] };
  };
  const order = query.geo.kind === 'point' ? 'score desc, distance asc, id asc' : 'distance asc, id asc';
  const all = facetFilter();
  const facetCtes = FACETS.map((f) => {
    const filter = facetFilter(f);
    return {
      sql: `g_${f} as (select ${FACET_COLUMN[f]} as k, count(*)::int as c from stores where ${filter.sql} and ${FACET_COLUMN[f]} is not null group by 1)`,
      bindings: filter.bindings,
    };
  });
  const facetColumns = FACETS.map(
    (f) => `json_build_object(
       'buckets', coalesce((select json_agg(json_build_object('key', k, 'doc_count', c) order by c desc, k collate "C" asc)
                              from (select k, c from g_${f} order by c desc, k collate "C" asc limit ${FACET_LIMIT}) t), '[]'::json),
       'all', (select coalesce(sum(c), 0) from g_${f})) as ${f}`,
  );
  return {
    sql: `with stores as materialized (${stores.sql}),
          ${facetCtes.map((c) => c.sql).join(',\n')}
          select coalesce((select json_agg(p.id order by p.n)
                             from (select id, row_number() over (order by ${order}) as n
                                     from stores where ${all.sql} order by ${order} limit ? offset ?) p), '[]'::json) as ids,
                 (select count(*)::int from stores where ${all.sql}) as total,
                 ${facetColumns.join(',\n')}`,
    bindings: [
      ...stores.bindings,
      ...facetCtes.flatMap((c) => c.bindings),
      ...all.bindings,
      query.perPage,
      (query.page - 1) * query.perPage,
      ...all.bindings,
    ],
  };
}

/** Great-circle distance in metres from the point bound as `?, ?` (latitude, longitude) to the columns. */
function haversineSql(lat: string, lng: string): string {
  return `2 * ${EARTH_RADIUS_M} * asin(sqrt(least(1, power(sin(radians(${lat} - ?::float8) / 2), 2)
            + cos(radians(?::float8)) * cos(radians(${lat})) * power(sin(radians(${lng} - ?::float8) / 2), 2))))`;
}

interface GeoSql {
  /** Index-backed: the address lies in a cube holding the search area. */
  prefilter: Sql;
  /** Bindings of the haversine origin (the point, or the box centre). */
  centre: unknown[];
  /** The exact condition on the candidate row `a` and its distance `d.distance`. */
  recheck: Sql;
}

/**
 * `earth_box` takes a distance on the sphere of `earth()` (6378168 m unless changed), not on the mean
 * radius: scale it, and widen it a little so rounding cannot drop a store on the edge.
 */
function earthBox(centre: LatLng, metres: number): Sql {
  return {
    sql: `earth_box(ll_to_earth(?::float8, ?::float8), ?::float8 * earth() / ${EARTH_RADIUS_M}) @> ll_to_earth(l.latitude, l.longitude)`,
    bindings: [centre.latitude, centre.longitude, Math.min(metres, MAX_DISTANCE_M) * 1.000001 + 1],
  };
}

function geoCondition(query: StoreLocatorQuery): GeoSql {
  const geo = query.geo;
  if (geo.kind === 'point') {
    const { latitude, longitude } = geo.origin;
    return {
      prefilter: earthBox(geo.origin, geo.radius),
      centre: [latitude, latitude, longitude],
      recheck: geo.radius >= MAX_DISTANCE_M ? { sql: 'true', bindings: [] } : { sql: 'd.distance <= ?::float8', bindings: [geo.radius] },
    };
  }
  const { box } = geo;
  const centre = boxCentre(box);
  const longitude =
    box.west <= box.east
      ? { sql: 'a.longitude between ?::float8 and ?::float8', bindings: [box.west, box.east] }
      : { sql: '(a.longitude >= ?::float8 or a.longitude <= ?::float8)', bindings: [box.west, box.east] };
  return {
    prefilter: earthBox(centre, boxRadius(box, centre)),
    centre: [centre.latitude, centre.latitude, centre.longitude],
    recheck: { sql: `a.latitude between ?::float8 and ?::float8 and ${longitude.sql}`, bindings: [box.south, box.north, ...longitude.bindings] },
  };
}

const PRODUCT_COLUMN: Record<ProductFilter['key'], string> = {
  id: 'p.id = any(?::uuid[])',
  sku: 'p.sku = any(?::text[])',
  external_id: 'p.external_id = any(?::text[])',
  collection_id: 'p.collection_id = any(?::uuid[])',
};

/** The store stocks (or has available) one of the company's products matching the filter. */
function productCondition(filter: ProductFilter, companyId: string): Sql {
  if (!filter.values.length) return { sql: 'false', bindings: [] };
  return {
    sql: `a.id in (select s.company_retailer_location_id from stocks s
                     join products p on p.id = s.product_id and p.company_id = ?::uuid
                    where s.${filter.kind} and ${PRODUCT_COLUMN[filter.key]})`,
    bindings: [companyId, pgArray(filter.values)],
  };
}
