import type { EntityManager } from '@mikro-orm/postgresql';
import { creatorTerritorySql } from '../lead/lead.policy';
import { EARTH_RADIUS_M, type LatLng } from '../../geo/distance';
import type { Sql } from '../../search/types';
import { pgArray } from '../../db/sql';

/** Routing's statements run in the caller's transaction, when it has one. */
type Sqlish = Pick<EntityManager, 'execute'>;

export const METRES_PER_MILE = 1609.344;

/**
 * The radius and nearest rules read their stores nearest first from the GiST index (`<->` on the earth
 * cube orders by chord length, which grows with great-circle distance) and stop after this many: enough
 * for every tie on distance to meet the boost, round-robin and id tie-breaks.
 */
export const NEAREST_CANDIDATES = 50;
const KNN = 'll_to_earth(e.latitude, e.longitude) <-> ll_to_earth(?::float8, ?::float8)';

/** The rules a company's routing tries, in the order it lists them (PRODUCT.md section 11). */
export enum RoutingRule {
  DeliveryArea = 'delivery_area',
  DeliveryRadius = 'delivery_radius',
  Nearest = 'nearest',
}

/** What routing knows about a lead: its company, address parts, placed point and territory. */
export interface RoutingTarget {
  companyId: string;
  postalCode?: string | null;
  /** Every accepted spelling of the lead's country, upper case (empty: the lead names none). */
  countries: string[];
  point: LatLng | null;
  territoryId: string | null;
  /** Stores never to choose (a lead reassigned after a breach never goes back to a store it had). */
  exclude?: readonly string[];
}

export interface RoutingOptions {
  strategies: readonly RoutingRule[];
  nearestMaxDistanceMiles: number | null;
  nearestInTerritory: boolean;
  roundRobin: boolean;
}

/** A delivery area's postal code as matched: upper case, no spaces (`v6b 1a1` = `V6B1A1`). */
export function postalKey(postalCode: string | null | undefined): string | null {
  const key = (postalCode ?? '').replace(/\s+/g, '').toUpperCase();
  return key || null;
}

/** Great-circle metres from the point bound as `?, ?, ?` (latitude, latitude, longitude) to `alias`. */
function haversine(alias: string): string {
  return `2 * ${EARTH_RADIUS_M} * asin(sqrt(least(1, power(sin(radians(${alias}.latitude - ?::float8) / 2), 2)
            + cos(radians(?::float8)) * cos(radians(${alias}.latitude)) * power(sin(radians(${alias}.longitude - ?::float8) / 2), 2))))`;
}

/**
 * Index condition: `alias` lies in the cube around the point holding a circle of the given metres
 * (`earth_box` measures on the sphere of `earth()`; widened a little so rounding drops no store).
 */
function inBox(alias: string, metresSql: string): string {
  return `earth_box(ll_to_earth(?::float8, ?::float8), (${metresSql}) * earth() / ${EARTH_RADIUS_M} * 1.000001 + 1) @> ll_to_earth(${alias}.latitude, ${alias}.longitude)`;
}

/**
 * The routing decision as one statement: each enabled rule's candidates (every one index-served: the
 * delivery areas by their postal-code index, the radius and nearest rules by the GiST index of
 * `routing_entries` inside an `earth_box`), then the first rule in the company's order that matched,
 * the nearest of its stores, the higher store-type boost, with round robin the least recently assigned,
 * then the lowest id. Null when no enabled rule can apply to the target. A store is a candidate while it
 * and its company retailer both have `receiving_leads` (the retailer's switch for all its stores of the
 * company): `routing_entries` holds only such stores, and the delivery-area rule, which also reaches
 * unplaced stores, checks both flags itself.
 */
export function routingSql(target: RoutingTarget, options: RoutingOptions): Sql | null {
  const parts: Sql[] = [];
  const point = target.point;
  const originBindings = point ? [point.latitude, point.latitude, point.longitude] : [];
  const boxBindings = point ? [point.latitude, point.longitude] : [];
  const postal = postalKey(target.postalCode);
  const exclude = target.exclude?.length ? [...target.exclude] : null;
  const notExcluded = (column: string): Sql => (exclude ? { sql: ` and ${column} <> all(?::uuid[])`, bindings: [pgArray(exclude)] } : { sql: '', bindings: [] });
  options.strategies.forEach((rule) => {
    if (rule === RoutingRule.DeliveryArea && postal) {
      parts.push({
        sql: `select crl.id, '${rule}'::text as rule, ${point ? haversine('e') : 'null::float8'} as distance, coalesce(st.boost, 0) as boost
                from delivery_areas da
                join company_retailer_locations crl on crl.id = da.company_retailer_location_id
                join company_retailers cr on cr.id = crl.company_retailer_id
                left join routing_entries e on e.crl_id = crl.id
                left join company_store_types st on st.id = crl.company_store_type_id
               where upper(replace(da.postal_code, ' ', '')) = ? and crl.company_id = ?::uuid and crl.receiving_leads and cr.receiving_leads
                 and (da.country is null or btrim(da.country) = '' or cardinality(?::text[]) = 0 or upper(btrim(da.country)) = any(?::text[]))${notExcluded('crl.id').sql}`,
        bindings: [...originBindings, postal, target.companyId, pgArray(target.countries), pgArray(target.countries), ...notExcluded('crl.id').bindings],
      });
    } else if (rule === RoutingRule.DeliveryRadius && point) {
      parts.push({
        sql: `select e.crl_id as id, '${rule}'::text as rule, d.distance, coalesce(st.boost, 0) as boost
                from routing_entries e cross join lateral (select ${haversine('e')} as distance) d
                left join company_store_types st on st.id = e.company_store_type_id
               where e.company_id = ?::uuid and e.delivery_radius_m is not null
                 and ${inBox('e', 'select max(m.delivery_radius_m) from routing_entries m where m.company_id = ?::uuid')}
                 and d.distance <= e.delivery_radius_m${notExcluded('e.crl_id').sql}
               order by ${KNN} limit ${NEAREST_CANDIDATES}`,
        bindings: [...originBindings, target.companyId, ...boxBindings, target.companyId, ...notExcluded('e.crl_id').bindings, ...boxBindings],
      });
    } else if (rule === RoutingRule.Nearest && point && options.nearestMaxDistanceMiles) {
      const metres = options.nearestMaxDistanceMiles * METRES_PER_MILE;
      const territory = options.nearestInTerritory && target.territoryId;
      parts.push({
        sql: `select e.crl_id as id, '${rule}'::text as rule, d.distance, coalesce(st.boost, 0) as boost
                from routing_entries e cross join lateral (select ${haversine('e')} as distance) d
                left join company_store_types st on st.id = e.company_store_type_id
               where e.company_id = ?::uuid and ${inBox('e', '?::float8')} and d.distance <= ?::float8
                 ${territory ? 'and e.territory_id = ?::uuid' : ''}${notExcluded('e.crl_id').sql}
               order by ${KNN} limit ${NEAREST_CANDIDATES}`,
        bindings: [
          ...originBindings,
          target.companyId,
          ...boxBindings,
          metres,
          metres,
          ...(territory ? [target.territoryId] : []),
          ...notExcluded('e.crl_id').bindings,
          ...boxBindings,
        ],
      });
    }
  });
  if (!parts.length) return null;
  // With round robin, stores within a tenth of a mile of each other are equally near.
  const nearness = options.roundRobin ? `round((c.distance / ${METRES_PER_MILE})::numeric, 1)` : 'c.distance';
  // Each rule is read only when every rule before it found nothing (a one-time filter on the earlier sets).
  const ctes = parts.map((p, i) => {
    const earlier = parts.slice(0, i).map((_, j) => `not exists (select 1 from rule_${j + 1})`);
    return `rule_${i + 1} as materialized (select * from (${p.sql}) r${earlier.length ? ` where ${earlier.join(' and ')}` : ''})`;
  });
  return {
    sql: `with ${ctes.join(',\n')}
          select c.id, c.rule, c.distance
            from (${parts.map((_, i) => `select * from rule_${i + 1}`).join(' union all ')}) c
            ${options.roundRobin ? 'left join routing_round_robin rr on rr.crl_id = c.id' : ''}
           order by ${nearness} asc nulls last, c.boost desc, ${options.roundRobin ? 'rr.last_assigned_at asc nulls first,' : ''} c.id asc
           limit 1`,
    bindings: parts.flatMap((p) => p.bindings),
  };
}

/** The store `routingSql` chose: its id, the rule that matched and its distance in metres (null unplaced). */
export interface RoutedStoreRow {
  id: string;
  rule: RoutingRule;
  distance: string | number | null;
}

/** The store the target is routed to under `options` (`routingSql`); null when no rule can apply or none matched. */
export async function routedStore(em: Sqlish, target: RoutingTarget, options: RoutingOptions): Promise<RoutedStoreRow | null> {
  const statement = routingSql(target, options);
  if (!statement) return null;
  const [row] = await em.execute<RoutedStoreRow[]>(statement.sql, statement.bindings as any[]);
  return row ?? null;
}

/** A `company_routing_settings` row. */
export interface RoutingSettingsRow {
  company_id: string;
  enabled: boolean;
  strategies: string[];
  nearest_max_distance_miles: string | number | null;
  nearest_in_territory: boolean;
  round_robin: boolean;
  updated_at: Date | string;
}

/** The company's saved settings, if it ever saved any. */
export async function readRoutingSettings(em: Sqlish, companyId: string): Promise<RoutingSettingsRow | undefined> {
  const [row] = await em.execute<RoutingSettingsRow[]>(`select * from company_routing_settings where company_id = ?`, [companyId]);
  return row;
}

/** Saves the company's settings (created or replaced). */
export async function saveRoutingSettings(
  em: Sqlish,
  companyId: string,
  settings: { enabled: boolean; strategies: readonly RoutingRule[]; nearestMaxDistanceMiles: number | null; nearestInTerritory: boolean; roundRobin: boolean },
): Promise<RoutingSettingsRow> {
  const [row] = await em.execute<RoutingSettingsRow[]>(
      `insert into company_routing_settings (company_id, enabled, strategies, nearest_max_distance_miles, nearest_in_territory, round_robin)
       values (?, ?, ?::text[], ?, ?, ?)
       on conflict (company_id) do update set enabled = excluded.enabled, strategies = excluded.strategies,
         nearest_max_distance_miles = excluded.nearest_max_distance_miles, nearest_in_territory = excluded.nearest_in_territory,
         round_robin = excluded.round_robin, updated_at = now()
       returning *`,
    [companyId, settings.enabled, pgArray(settings.strategies), settings.nearestMaxDistanceMiles, settings.nearestInTerritory, settings.roundRobin],
  );
  return row;
}

/**
 * What rerouting reads of a company's own lead: its stored location, and its creator's territory when a
 * territory manager of the company created it. Undefined for another company's lead.
 */
export interface RerouteLeadRow {
  postal_code: string | null;
  country: string | null;
  latitude: string | number | null;
  longitude: string | number | null;
  territory_id: string | null;
}

export async function rerouteLeadRow(em: Sqlish, companyId: string, leadId: string): Promise<RerouteLeadRow | undefined> {
  const [lead] = await em.execute<RerouteLeadRow[]>(
    `select loc.postal_code, loc.country, loc.latitude, loc.longitude,
            ${creatorTerritorySql('u', 'l')} as territory_id
       from leads l left join locations loc on loc.id = l.location_id left join users u on u.id = l.created_by_id
      where l.id = ? and l.owner_company_id = ?`,
    [leadId, companyId],
  );
  return lead;
}

/** Waits for the transaction-scoped advisory lock `key` (round-robin turns are taken under it). */
export async function lockRoundRobin(em: Sqlish, key: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [key]);
}

/** The store's round-robin turn is now. */
export async function recordRoundRobinTurn(em: Sqlish, crlId: string): Promise<void> {
  await em.execute(
      `insert into routing_round_robin (crl_id, last_assigned_at) values (?, clock_timestamp())
       on conflict (crl_id) do update set last_assigned_at = excluded.last_assigned_at`,
    [crlId],
  );
}
