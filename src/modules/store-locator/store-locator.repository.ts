import type { EntityManager } from '@mikro-orm/postgresql';
import { boxCentre, boxRadius, EARTH_RADIUS_M, MAX_DISTANCE_M, type LatLng } from '../../geo/distance';
import type { Sql } from '../../search/types';
import { pgArray, query, type Execute } from '../../db/sql';
import { circleCells, type CellRange, type CircleCells } from './store-locator.cells';
import { FACET_LIMIT, FACETS, PRODUCT_FIELDS, type Facet, type GeoQuery, type ProductFilter, type ScoreSettings, type StoreLocatorQuery } from './store-locator.types';

/*
 * The store locator's SQL: the statements of a search (the full scoring and the nearest-neighbour
 * search), of its results, of the held copies, of the open-now filter and of the Elasticsearch documents,
 * and the functions that send them. They take the `Execute` they are sent with: `storeLocatorExecute`
 * (the endpoint's) or a test's stand-in.
 */

/**
 * The endpoint's statements: values as parameters, and the statements are long and the same on every
 * search, so each connection parses and plans them once (src/db/sql.ts).
 */
export function storeLocatorExecute(em: EntityManager): Execute {
  return (sql, bindings) => query(em, sql, bindings);
}

/**
 * The ranking statement is planned for each search: how many stores a radius holds decides its plan,
 * and a generic plan made for any radius reads 25% more at the default 1,000 miles.
 */
export function plannedExecute(em: EntityManager): Execute {
  return (sql, bindings) => query(em, sql, bindings, { prepare: false });
}

/** The company's id when it exists (`id` a UUID). */
export async function companyId(execute: Execute, id: string): Promise<string | undefined> {
  const [row] = await execute('select id from companies where id = ?::uuid', [id]);
  return row?.id;
}

/** The countries of the company's listed stores, most stores first (at most 20). */
export async function storeCountries(execute: Execute, companyId: string): Promise<string[]> {
  const rows = await execute(
    `select country from store_locator_entries where company_id = ?::uuid and country is not null group by country order by count(*) desc, country limit 20`,
    [companyId],
  );
  return rows.map((r) => String(r.country));
}

const EXCEPTION_JSON = `json_build_object('starts_on', x.starts_on, 'ends_on', x.ends_on, 'closed', x.closed, 'hours', x.hours, 'label', x.label)`;

/**
 * The dated exceptions of the store `crl` (owned like its hours) in force on any date of a window around
 * the statement's \`?::date\` (a UTC date): two days before (yesterday in the furthest zone west, whose
 * spans run past midnight) to nine days after (the week the results show, in the furthest zone east), as
 * a JSON array column \`exceptions\`. One binding: the UTC date.
 */
const exceptionsNear = (crl: string) => `
      select coalesce(json_agg(${EXCEPTION_JSON} order by x.starts_on), '[]') as exceptions
        from hour_exceptions x
       where (case when ${crl}.retailer_location_id is null then x.company_retailer_location_id = ${crl}.id
                   else x.retailer_location_id = ${crl}.retailer_location_id end)
         and x.ends_on >= ?::date - 2 and x.starts_on <= ?::date + 9`;

/** The UTC date of an instant, the binding of `exceptionsNear`'s window. */
export const utcDate = (at: Date) => at.toISOString().slice(0, 10);

/** The stores of a company in (a cube around) the search area that have open hours, with their zone inputs. */
const OPEN_CANDIDATES_SQL = (prefilter: string) => `
  select e.crl_id as id, crl.timezone as crl_timezone, rl.timezone as rl_timezone, e.latitude, e.longitude, coalesce(hh.hours, '[]') as hours, hx.exceptions
    from store_locator_entries e
    join company_retailer_locations crl on crl.id = e.crl_id
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    cross join lateral (
      select json_agg(json_build_object('day', h.day, 'open', h.open, 'open_at_hour', h.open_at_hour, 'open_at_minute', h.open_at_minute,
                                        'close_at_hour', h.close_at_hour, 'close_at_minute', h.close_at_minute)) as hours
        from hours h
       where h.open and (h.retailer_location_id = crl.retailer_location_id
                         or (crl.retailer_location_id is null and h.company_retailer_location_id = crl.id))
    ) hh
    cross join lateral (${exceptionsNear('crl')}) hx
   where e.company_id = ?::uuid and ${prefilter}
     and (hh.hours is not null or exists (select from json_array_elements(hx.exceptions) x where not (x ->> 'closed')::boolean))`;

/** A store that can be in the search area and has open hours, with its zone inputs. */
export interface OpenCandidate {
  id: string;
  crl_timezone: string | null;
  rl_timezone: string | null;
  latitude: string | number;
  longitude: string | number;
  /** Its open hours (JSON rows of `hours`). */
  hours: unknown;
  /** Its dated exceptions near `at` (JSON rows of `hour_exceptions`). */
  exceptions: unknown;
}

/**
 * The company's stores in (a cube around) the search area that have open hours, or special hours near
 * `at`, with their exceptions near `at` (a day closed by one is decided by the caller's hours logic).
 */
export function openCandidates(execute: Execute, companyId: string, geo: GeoQuery, at: Date): Promise<OpenCandidate[]> {
  const prefilter = areaPrefilter(geo);
  const day = utcDate(at);
  return execute(OPEN_CANDIDATES_SQL(prefilter.sql), [day, day, companyId, ...prefilter.bindings]);
}

/** The one row of a search statement (`storeLocatorSql`, `nearestSql`). */
export async function searchRow(execute: Execute, statement: Sql): Promise<Record<string, any>> {
  const [row] = await execute(statement.sql, statement.bindings);
  return row;
}

/** A search area this wide (radius, or the circle holding a box) covers much of a network. */
export const WIDE_SEARCH_M = 250_000;

/** A facet's JSON column, read from the CTE `b_<facet>` of its buckets (`k`, `c`). */
const facetColumn = (f: string) => `json_build_object(
       'buckets', coalesce((select json_agg(json_build_object('key', k, 'doc_count', c) order by c desc, k collate "C" asc)
                              from (select k, c from b_${f} order by c desc, k collate "C" asc limit ${FACET_LIMIT}) t), '[]'::json),
       'all', (select coalesce(sum(c), 0) from b_${f})) as ${f}`;

const FACET_COLUMN: Record<Facet, string> = { city: 'city', province: 'province', country: 'country', store_type: 'store_type' };

/** The whole search as one SQL statement (also run bare by the benchmark). */
export function storeLocatorSql(query: StoreLocatorQuery, settings: ScoreSettings): Sql {
  const geo = geoCondition(query);
  // Each product filter is its own materialized set of CRL ids, so the planner hashes it instead of probing
  // stock once per candidate (the GiST estimate of candidates is a constant, far too low for wide searches).
  // A wide search (much of a network) with product filters starts from the stores carrying the products;
  // otherwise the GiST index finds the stores in range and each is checked for the products. Neither is left
  // to the planner: its estimate of the stores in a cube is a constant, far too low for wide searches.
  const byProducts = geo.radius > WIDE_SEARCH_M && query.products.length > 0 && query.products.every((f) => f.values.length > 0);
  const productSets: Sql[] = byProducts
    ? [
        ...query.products.map((f, i) => productSet(f, query.companyId, `product_filter_${i}`)),
        {
          sql: `product_stores as materialized (${query.products.map((_, i) => `select id from product_filter_${i}`).join(' intersect ')})`,
          bindings: [],
        },
      ]
    : [];
  const where: Sql[] = [
    geo.recheck,
    ...(query.ids ? [{ sql: 'e.crl_id = any(?::uuid[])', bindings: [pgArray(query.ids)] }] : []),
    ...(byProducts ? [] : query.products.map((f) => productCondition(f, query.companyId))),
  ];
  const score =
    query.geo.kind === 'point'
      ? {
          sql: `exp(greatest(-700, ?::float8 * power(greatest(0, d.distance - ?::float8) / ?::float8, 2))) + coalesce(st.boost, 0)`,
          bindings: [Math.log(settings.decay), settings.offsetMeters, settings.scaleMeters],
        }
      : { sql: '0::float8', bindings: [] };

  // `store_locator_entries` holds exactly the listed stores (see its migration).
  const candidates: Sql = {
    sql: `select e.crl_id as id, e.city, e.province, e.country, st.name as store_type, d.distance, ${score.sql} as score
            from ${byProducts ? 'product_stores ps join store_locator_entries e on e.crl_id = ps.id' : 'store_locator_entries e'}
            cross join lateral (select ${haversineSql('e.latitude', 'e.longitude')} as distance) d
            left join company_store_types st on st.id = e.company_store_type_id
           where e.company_id = ?::uuid and ${byProducts ? 'true' : geo.prefilter.sql} and ${where.map((w) => `(${w.sql})`).join(' and ')}`,
    bindings: [
      ...score.bindings,
      ...geo.centre,
      query.companyId,
      ...(byProducts ? [] : geo.prefilter.bindings),
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
  // One pass over the stores counts the total and every facet: a grouping set per facet, each counting
  // the rows that pass every facet filter but its own.
  const counts = [...FACETS.map((f) => ({ name: `c_${f}`, filter: facetFilter(f) })), { name: 'c_all', filter: all }];
  const facetBuckets = FACETS.map(
    (f) => `b_${f} as (select ${FACET_COLUMN[f]} as k, c_${f} as c from g where g_${f} = 0 and ${FACET_COLUMN[f]} is not null and c_${f} > 0)`,
  );
  const facetColumns = FACETS.map(facetColumn);
  return {
    // The radius applies outside the materialized candidates, so the distance is computed once a row.
    sql: `with ${productSets.map((p) => `${p.sql},`).join('\n')}
          candidates as materialized (${candidates.sql}),
          stores as not materialized (select * from candidates where ${geo.within.sql}),
          g as (select ${FACETS.map((f) => `grouping(${FACET_COLUMN[f]}) as g_${f}, ${FACET_COLUMN[f]}`).join(', ')},
                       ${counts.map((c) => `count(*) filter (where ${c.filter.sql})::int as ${c.name}`).join(', ')}
                  from stores group by grouping sets (${FACETS.map((f) => `(${FACET_COLUMN[f]})`).join(', ')}, ())),
          ${facetBuckets.join(',\n')}
          select coalesce((select json_agg(p.id order by ${order})
                             from (select id, score, distance from stores where ${all.sql} order by ${order} limit ? offset ?) p), '[]'::json) as ids,
                 (select c_all from g where ${FACETS.map((f) => `g_${f} = 1`).join(' and ')}) as total,
                 ${facetColumns.join(',\n')}`,
    bindings: [
      ...productSets.flatMap((p) => p.bindings),
      ...candidates.bindings,
      ...geo.within.bindings,
      ...counts.flatMap((c) => c.filter.bindings),
      ...all.bindings,
      query.perPage,
      (query.page - 1) * query.perPage,
    ],
  };
}

/** The widest circle `nearestSql` answers: its cells' corners are far from the antipode. */
export const NEAREST_MAX_RADIUS_M = 3_000_000;

/** The narrowest circle the search sends to `nearestSql` (side by side, 50 miles was twice as fast scored in full). */
export const NEAREST_MIN_RADIUS_M = 200 * 1609.344;

/** The deepest page `nearestSql` answers (page × per_page): deeper, nearest-neighbour scans cost more than scoring. */
export const NEAREST_MAX_DEPTH = 1000;

/** The cells of a point search `nearestSql` answers; null when it cannot (see there). */
export function nearestCells(query: StoreLocatorQuery): CircleCells | null {
  const geo = query.geo;
  if (geo.kind !== 'point' || query.ids || query.products.length || FACETS.some((f) => query.facets[f])) return null;
  if (query.page * query.perPage > NEAREST_MAX_DEPTH) return null;
  return circleCells(geo.origin, geo.radius, NEAREST_MAX_RADIUS_M);
}

/** What a search knows from a held copy of the company's stores (`HeldStores`), for `nearestSql`. */
export interface HeldInput {
  /** The copy's version: when the statement reads the same, it leaves the total and the facets out. */
  version: string;
  /** The store type ids of the copy: the statement names them. */
  typeIds: string[];
  /** Stores too near the circle's edge to decide in the application: the statement says which are within. */
  near: LatLng[];
}

/**
 * A point search with no filter, as `storeLocatorSql` answers it, without scoring every store in range;
 * null when it cannot (filters, a box, a deep page, a circle over a pole or the antimeridian, or wider
 * than NEAREST_MAX_RADIUS_M).
 *
 * The page: within one boost value the score only falls with the distance, so each boost value's first
 * `page × per_page` stores are its nearest ones, found by a nearest-neighbour scan of the GiST index (by
 * the chord between earth positions, then every store as near as the last one found, so rounding cannot
 * drop a tie). Their union holds the page; it is ordered by the exact score, distance and id.
 * The total and the facets: the kept counts of the cells wholly inside the circle
 * (`store_locator_cell_counts`), plus the stores of the cells its edge cuts, checked one by one.
 *
 * Columns: `ids`, `version` (the company's `store_locator_versions`, in the statement's snapshot), then
 * `total` and the four facets; or, with `held` (the total and the facets come from the held copy when
 * `version` is its version), `type_names` (id -> name of its type ids) and `near_within` (indexes into
 * `held.near` of the stores within the circle).
 */
export function nearestSql(query: StoreLocatorQuery, settings: ScoreSettings, held?: HeldInput): Sql | null {
  const geo = query.geo;
  const cells = nearestCells(query);
  if (!cells || geo.kind !== 'point') return null;
  const depth = query.page * query.perPage;
  const { latitude, longitude } = geo.origin;
  const centre = [latitude, latitude, longitude];
  const box = earthBox(geo.origin, geo.radius);
  const position = 'll_to_earth(e.latitude, e.longitude)';
  // A store of boost group `g` (a store without a type counts as boost 0).
  const member = '(e.company_store_type_id = any(g.types) or (g.boost = 0 and e.company_store_type_id is null))';
  const ranges = (list: CellRange[]) => [`{${list.map((r) => r.lo).join(',')}}`, `{${list.map((r) => r.hi).join(',')}}`];
  const page: Sql = {
    sql: `origin as (select ll_to_earth(?::float8, ?::float8) as p),
          groups as (select b.boost, array(select st.id from company_store_types st where st.company_id = ?::uuid and st.boost = b.boost) as types
                       from (select boost from company_store_types where company_id = ?::uuid union select 0) b),
          reach as materialized (select g.*, (select max(k.chord) from (
                                   select ${position} <-> o.p as chord from store_locator_entries e
                                    where e.company_id = ?::uuid and ${member} and ${box.sql}
                                    order by ${position} <-> o.p limit ?) k) as chord
                      from groups g cross join origin o),
          nearest as (select e.crl_id as id, d.distance,
                             exp(greatest(-700, ?::float8 * power(greatest(0, d.distance - ?::float8) / ?::float8, 2))) + coalesce(st.boost, 0) as score
                        from reach g cross join origin o
                        join store_locator_entries e on e.company_id = ?::uuid and ${member}
                         and earth_box(o.p, sec_to_gc(g.chord) * (1 + 2e-9) + 0.002) @> ${position} and ${position} <-> o.p <= g.chord * (1 + 1e-9) + 0.001
                        cross join lateral (select ${haversineSql('e.latitude', 'e.longitude')} as distance) d
                        left join company_store_types st on st.id = e.company_store_type_id
                       where d.distance <= ?::float8)`,
    bindings: [
      latitude,
      longitude,
      query.companyId,
      query.companyId,
      query.companyId,
      ...box.bindings,
      depth,
      Math.log(settings.decay),
      settings.offsetMeters,
      settings.scaleMeters,
      query.companyId,
      ...centre,
      geo.radius,
    ],
  };
  const ids = {
    sql: `coalesce((select json_agg(p.id order by p.score desc, p.distance asc, p.id asc)
                      from (select id, score, distance from nearest order by score desc, distance asc, id asc limit ? offset ?) p), '[]'::json) as ids,
          (select coalesce((select version from store_locator_versions where company_id = ?::uuid), 0))::text as version`,
    bindings: [query.perPage, (query.page - 1) * query.perPage, query.companyId],
  };
  if (held) {
    return {
      sql: `with ${page.sql}
            select ${ids.sql},
                   (select coalesce(json_object_agg(st.id, st.name), '{}'::json) from company_store_types st where st.id = any(?::uuid[])) as type_names,
                   array(select u.i::int - 1 from unnest(?::float8[], ?::float8[]) with ordinality u(latitude, longitude, i)
                          where ${haversineSql('u.latitude', 'u.longitude')} <= ?::float8) as near_within`,
      bindings: [
        ...page.bindings,
        ...ids.bindings,
        pgArray(held.typeIds),
        `{${held.near.map((p) => p.latitude).join(',')}}`,
        `{${held.near.map((p) => p.longitude).join(',')}}`,
        ...centre,
        geo.radius,
      ],
    };
  }
  const facetRows = FACETS.map(
    (f) => `b_${f} as (select k, c from ${f === 'store_type' ? 'type_counts where true' : `counts where facet = '${f}'`} and k is not null and c > 0)`,
  );
  return {
    sql: `with ${page.sql},
          edge as materialized (
                   select e.city, e.province, e.country, e.company_store_type_id
                     from store_locator_entries e
                    where e.company_id = ?::uuid and e.cell = any(?::int[]) and ${haversineSql('e.latitude', 'e.longitude')} <= ?::float8),
          counts as materialized (
                     select facet, key as k, sum(n)::int as c from (
                       select c.facet, c.key, c.n
                         from unnest(?::int[], ?::int[]) r(lo, hi)
                         cross join lateral (select c.facet, c.key, c.n from store_locator_cell_counts c
                                              where c.company_id = ?::uuid and c.cell between r.lo and r.hi) c
                       union all
                       select f.facet, f.key, 1 from edge
                        cross join lateral (values ('city', city), ('province', province), ('country', country),
                                                   ('store_type', company_store_type_id::text)) f(facet, key)) x
                      group by facet, key),
          type_counts as (select st.name as k, sum(c.c)::int as c from counts c join company_store_types st on st.id::text = c.k
                           where c.facet = 'store_type' group by st.name),
          ${facetRows.join(',\n')}
          select ${ids.sql},
                 (select coalesce(sum(c), 0)::int from counts where facet = 'store_type') as total,
                 ${FACETS.map(facetColumn).join(',\n')}`,
    bindings: [
      ...page.bindings,
      query.companyId,
      `{${cells.cut.flatMap((r) => Array.from({ length: r.hi - r.lo + 1 }, (_, i) => r.lo + i)).join(',')}}`,
      ...centre,
      geo.radius,
      ...ranges(cells.inside),
      query.companyId,
      ...ids.bindings,
    ],
  };
}

/** Great-circle distance in metres from the point bound as `?, ?` (latitude, longitude) to the columns. */
function haversineSql(lat: string, lng: string): string {
  return `2 * ${EARTH_RADIUS_M} * asin(sqrt(least(1, power(sin(radians(${lat} - ?::float8) / 2), 2)
            + cos(radians(?::float8)) * cos(radians(${lat})) * power(sin(radians(${lng} - ?::float8) / 2), 2))))`;
}

interface GeoSql {
  /** Radius of the circle holding the search area, metres. */
  radius: number;
  /** Index-backed: the address lies in a cube holding the search area. */
  prefilter: Sql;
  /** Bindings of the haversine origin (the point, or the box centre). */
  centre: unknown[];
  /** The exact condition on the entry `e` (box). */
  recheck: Sql;
  /** The exact condition on a candidate's `distance` (radius). */
  within: Sql;
}

/**
 * `earth_box` takes a distance on the sphere of `earth()` (6378168 m unless changed), not on the mean
 * radius: scale it, and widen it a little so rounding cannot drop a store on the edge.
 */
function earthBox(centre: LatLng, metres: number): Sql {
  return {
    sql: `earth_box(ll_to_earth(?::float8, ?::float8), ?::float8 * earth() / ${EARTH_RADIUS_M}) @> ll_to_earth(e.latitude, e.longitude)`,
    bindings: [centre.latitude, centre.longitude, Math.min(metres, MAX_DISTANCE_M) * 1.000001 + 1],
  };
}

/** Index-backed: the entry `e` lies in a cube holding the search area (a superset of the stores in it). */
function areaPrefilter(geo: StoreLocatorQuery['geo']): Sql {
  return geoCondition({ geo } as StoreLocatorQuery).prefilter;
}

function geoCondition(query: Pick<StoreLocatorQuery, 'geo'>): GeoSql {
  const geo = query.geo;
  if (geo.kind === 'point') {
    const { latitude, longitude } = geo.origin;
    return {
      radius: geo.radius,
      prefilter: earthBox(geo.origin, geo.radius),
      centre: [latitude, latitude, longitude],
      recheck: { sql: 'true', bindings: [] },
      within: geo.radius >= MAX_DISTANCE_M ? { sql: 'true', bindings: [] } : { sql: 'distance <= ?::float8', bindings: [geo.radius] },
    };
  }
  const { box } = geo;
  const centre = boxCentre(box);
  const radius = boxRadius(box, centre);
  const longitude =
    box.west <= box.east
      ? { sql: 'e.longitude between ?::float8 and ?::float8', bindings: [box.west, box.east] }
      : { sql: '(e.longitude >= ?::float8 or e.longitude <= ?::float8)', bindings: [box.west, box.east] };
  return {
    radius,
    prefilter: earthBox(centre, radius),
    centre: [centre.latitude, centre.latitude, centre.longitude],
    recheck: { sql: `e.latitude between ?::float8 and ?::float8 and ${longitude.sql}`, bindings: [box.south, box.north, ...longitude.bindings] },
    within: { sql: 'true', bindings: [] },
  };
}

const PRODUCT_COLUMN: Record<ProductFilter['key'], string> = {
  id: 'p.id = any(?::uuid[])',
  sku: 'p.sku = any(?::text[])',
  external_id: 'p.external_id = any(?::text[])',
  collection_id: 'p.collection_id = any(?::uuid[])',
};

/** The store `e` stocks (or has available) one of the company's products matching the filter. */
function productCondition(filter: ProductFilter, companyId: string): Sql {
  if (!filter.values.length) return { sql: 'false', bindings: [] };
  return {
    sql: `exists (select 1 from stocks s join products p on p.id = s.product_id and p.company_id = ?::uuid
                   where s.company_retailer_location_id = e.crl_id and s.${filter.kind} and ${PRODUCT_COLUMN[filter.key]})`,
    bindings: [companyId, pgArray(filter.values)],
  };
}

/** The CRLs stocking (or having available) one of the company's products matching the filter, as a CTE. */
function productSet(filter: ProductFilter, companyId: string, name: string): Sql {
  return {
    sql: `${name} as materialized (
            select distinct s.company_retailer_location_id as id from stocks s
              join products p on p.id = s.product_id and p.company_id = ?::uuid
             where s.${filter.kind} and ${PRODUCT_COLUMN[filter.key]})`,
    bindings: [companyId, pgArray(filter.values)],
  };
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
         (${exceptionsNear('crl')}) as exceptions,
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

/** The statement that reads the results of `ids` (with their dated exceptions near `at`). */
export function readerStatement(ids: string[], at: Date = new Date()): Sql {
  const day = utcDate(at);
  return { sql: RESULTS_SQL, bindings: [day, day, pgArray(ids)] };
}

/** The rows of `readerStatement`: the stores of `ids` (unknown ids left out), in any order. */
export function resultRows(execute: Execute, ids: string[], at: Date = new Date()): Promise<any[]> {
  const statement = readerStatement(ids, at);
  return execute(statement.sql, statement.bindings);
}

/**
 * The company's version, its count of listed stores, and each facet's non-null keys in `C` order (JSON
 * arrays; store types by id), so that a store's key numbers are known when it is read.
 */
export const HELD_KEYS_SQL = `
  select coalesce((select version from store_locator_versions where company_id = ?::uuid), 0)::text as version,
         count(*)::int as stores,
${FACETS.map((f) => {
  const column = f === 'store_type' ? 'e.company_store_type_id::text' : `e.${f}::text`;
  return `         coalesce(json_agg(distinct ${column} collate "C" order by ${column} collate "C") filter (where ${column} is not null), '[]')::text as ${f}`;
}).join(',\n')}
    from store_locator_entries e where e.company_id = ?::uuid`;

/**
 * The next page (HELD_PAGE) of a company's listed stores in (cell, id) order after a (cell, id), with the
 * company's version in the same snapshot: a JSON array of `[cell, latitude, longitude, city, province,
 * country, store type id, id]` (float8 is written in JSON with the digits that read back to the same
 * double). Pages read at the version of HELD_KEYS_SQL are parts of one copy.
 */
export const HELD_STORES_SQL = `
  select coalesce((select version from store_locator_versions where company_id = ?::uuid), 0)::text as version,
         coalesce(json_agg(json_build_array(e.cell, e.latitude, e.longitude, e.city, e.province, e.country, e.company_store_type_id, e.crl_id)
                           order by e.cell, e.crl_id), '[]')::text as stores
    from (select * from store_locator_entries e
           where e.company_id = ?::uuid and e.cell >= ?::int and (e.cell, e.crl_id) > (?::int, ?::uuid)
           order by e.cell, e.crl_id limit ?::int) e`;

/** The company's version, its count of listed stores and each facet's keys (`HELD_KEYS_SQL`). */
export async function heldKeys(execute: Execute, companyId: string): Promise<Record<string, any>> {
  const [head] = await execute(HELD_KEYS_SQL, [companyId, companyId]);
  return head;
}

/** The next page of the company's stores after `after` (cell, id), with its version (`HELD_STORES_SQL`). */
export async function heldStoresPage(execute: Execute, companyId: string, after: [number, string], pageSize: number): Promise<{ version: string; stores: string }> {
  const [page] = await execute(HELD_STORES_SQL, [companyId, companyId, after[0], after[0], after[1], pageSize]);
  return page;
}

/** Reads the store types' boosts from PostgreSQL at query time, so a boost change needs no reindex. */
const STORE_TYPES_SQL = `select id, boost from company_store_types where company_id = ?::uuid and boost > 0`;

/** The company's boosted store types. */
export async function storeTypeBoosts(execute: Execute, companyId: string): Promise<Array<{ id: string; boost: number }>> {
  return (await execute(STORE_TYPES_SQL, [companyId])).map((r) => ({ id: r.id, boost: Number(r.boost) }));
}

/** A store document per CRL, read from PostgreSQL with one statement for any number of CRLs. */
const DOCUMENTS_SQL = (where: string) => `
  select crl.id, crl.company_id, crl.sending_leads, crl.receiving_leads, l.latitude, l.longitude, l.city, l.province,
         l.country, st.id as store_type_id, st.name as store_type,
         ${PRODUCT_FIELDS.map((f) => `coalesce(sp.${f}, '{}') as ${f}`).join(', ')}
    from company_retailer_locations crl
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    left join locations l on l.id = case when crl.retailer_location_id is null then crl.physical_address_id else rl.physical_address_id end
    left join company_store_types st on st.id = crl.company_store_type_id
    left join lateral (
      select ${(['stocked', 'available'] as const)
        .map((k) =>
          [
            `array_agg(distinct p.id::text) filter (where s.${k}) as ${k}_product_ids`,
            `array_agg(distinct p.sku) filter (where s.${k}) as ${k}_product_skus`,
            `array_agg(distinct p.external_id) filter (where s.${k} and p.external_id is not null) as ${k}_product_external_ids`,
            `array_agg(distinct p.collection_id::text) filter (where s.${k} and p.collection_id is not null) as ${k}_product_collection_ids`,
          ].join(', '),
        )
        .join(', ')}
        from stocks s join products p on p.id = s.product_id and p.company_id = crl.company_id
       where s.company_retailer_location_id = crl.id
    ) sp on true
   where ${where}`;

/** The store document rows of these CRLs (those that exist). */
export function documentRows(execute: Execute, ids: string[]): Promise<any[]> {
  return execute(DOCUMENTS_SQL('crl.id = any(?::uuid[])'), [pgArray(ids)]);
}

/** The store document rows of every CRL of the company. */
export function companyDocumentRows(execute: Execute, companyId: string): Promise<any[]> {
  return execute(DOCUMENTS_SQL('crl.company_id = ?::uuid'), [companyId]);
}
