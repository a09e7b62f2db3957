import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, query } from '../../db/sql';
import { ALL_SEARCHES, ANY_PRODUCT, type DemandCount } from './locator-demand.buffer';

const UUID = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`;

/** The count columns, in the order `DemandCount.nearest` holds the buckets after `searches` and `results`. */
export const NEAREST_COLUMNS = ['nearest_under_5km', 'nearest_under_10km', 'nearest_under_25km', 'nearest_under_50km', 'nearest_under_100km', 'nearest_over_100km'] as const;
const COUNT_COLUMNS = ['searches', 'results', ...NEAREST_COLUMNS] as const;

/**
 * Adds the buffer's counts to their rows in one statement: rows are inserted in the order given (the
 * buffer's key order, the same in every process, so two flushes of overlapping keys wait for each other
 * rather than deadlock) and an existing row gets the counts added. A product row is kept only when the
 * company has such a product (or collection): made-up values asked for in a query string make no rows.
 * Counts of a company deleted since are left out.
 */
export async function addCounts(em: EntityManager, counts: readonly DemandCount[]): Promise<void> {
  if (!counts.length) return;
  const col = <T,>(read: (c: DemandCount) => T) => pgArray(counts.map((c) => String(read(c))));
  await query(
    em,
    `insert into locator_demand as d (company_id, day, lat_cell, lng_cell, product, outcome, ${COUNT_COLUMNS.join(', ')})
     select v.company_id, v.day, v.lat_cell, v.lng_cell, v.product, v.outcome, ${COUNT_COLUMNS.map((c) => `v.${c}`).join(', ')}
       from unnest(?::uuid[], ?::date[], ?::smallint[], ?::smallint[], ?::text[], ?::text[], ${COUNT_COLUMNS.map(() => '?::bigint[]').join(', ')})
            with ordinality as v(company_id, day, lat_cell, lng_cell, product, outcome, ${COUNT_COLUMNS.join(', ')}, ord)
      where exists (select 1 from companies c where c.id = v.company_id)
        and case
              when v.product in (?, ?) then true
              when v.product like 'sku:%' then exists (select 1 from products p where p.company_id = v.company_id and p.sku = substr(v.product, 5))
              when v.product like 'external_id:%' then exists (select 1 from products p where p.company_id = v.company_id and p.external_id = substr(v.product, 13))
              when v.product ~ '^id:${UUID}$' then exists (select 1 from products p where p.company_id = v.company_id and p.id = substr(v.product, 4)::uuid)
              when v.product ~ '^collection_id:${UUID}$' then exists (select 1 from collections k where k.company_id = v.company_id and k.id = substr(v.product, 15)::uuid)
              else false
            end
      order by v.ord
     on conflict (company_id, day, lat_cell, lng_cell, product, outcome) do update
        set ${COUNT_COLUMNS.map((c) => `${c} = d.${c} + excluded.${c}`).join(', ')}`,
    [
      col((c) => c.companyId),
      col((c) => c.day),
      col((c) => c.latCell),
      col((c) => c.lngCell),
      col((c) => c.product),
      col((c) => c.outcome),
      col((c) => c.searches),
      col((c) => c.results),
      ...NEAREST_COLUMNS.map((_, i) => col((c) => c.nearest[i])),
      ALL_SEARCHES,
      ANY_PRODUCT,
    ],
  );
}

/** Deletes the days before `before` (`YYYY-MM-DD`), at most `limit` rows; how many went. */
export async function deleteDaysBefore(em: EntityManager, before: string, limit: number): Promise<number> {
  const rows = await query<{ n: string }>(
    em,
    `with gone as (delete from locator_demand where ctid = any(array(select ctid from locator_demand where day < ?::date limit ?)) returning 1)
     select count(*)::text as n from gone`,
    [before, limit],
  );
  return Number(rows[0]?.n ?? 0);
}

export type DemandKey = 'cell' | 'product' | 'day' | 'outcome';

export interface DemandQuery {
  companyId: string;
  from: string;
  to: string;
  /** Cell rows and columns (inclusive); `lng` wraps when its first is larger (a box across the antimeridian). */
  cells?: { lat: [number, number]; lng: [number, number] };
  /** Only the searches asking for this product (`<key>:<value>`). */
  product?: string;
  groupBy: DemandKey[];
  limit: number;
}

export interface DemandRow {
  lat_cell: number | null;
  lng_cell: number | null;
  product: string | null;
  day: string | null;
  outcome: string | null;
  searches: string;
  no_result: string;
  far_only: string;
  product_searches: string;
  results: string;
  nearest: string[];
}

/**
 * The counts of a company's days `from..to`, summed per group, most searches first, `limit` groups at
 * most: one range scan of the primary key (company, day). Grouped by product, the product rows (each
 * counts the searches asking for it); with a product, that product's rows; otherwise the rows of every
 * search (`''`) beside those of the searches asking for any product (`'*'`).
 */
export async function demandGroups(em: EntityManager, q: DemandQuery): Promise<DemandRow[]> {
  const { sql, bindings } = demandGroupsSql(q);
  return query<DemandRow>(em, sql, bindings);
}

/** The statement of `demandGroups` (tests read its plan). */
export function demandGroupsSql(q: DemandQuery): { sql: string; bindings: unknown[] } {
  const bindings: unknown[] = [q.companyId, q.from, q.to];
  const where = ['d.company_id = ?::uuid', 'd.day between ?::date and ?::date'];
  const byProduct = q.groupBy.includes('product') || q.product !== undefined;
  if (q.product !== undefined) {
    where.push('d.product = ?');
    bindings.push(q.product);
  } else if (byProduct) {
    where.push('d.product not in (?, ?)');
    bindings.push(ALL_SEARCHES, ANY_PRODUCT);
  } else {
    where.push('d.product in (?, ?)');
    bindings.push(ALL_SEARCHES, ANY_PRODUCT);
  }
  if (q.cells) {
    where.push('d.lat_cell between ? and ?');
    bindings.push(q.cells.lat[0], q.cells.lat[1]);
    if (q.cells.lng[0] <= q.cells.lng[1]) where.push('d.lng_cell between ? and ?');
    else where.push('(d.lng_cell >= ? or d.lng_cell <= ?)');
    bindings.push(q.cells.lng[0], q.cells.lng[1]);
  }
  const keys: Record<DemandKey, string[]> = {
    cell: ['d.lat_cell', 'd.lng_cell'],
    product: ['d.product'],
    day: ['d.day'],
    outcome: ['d.outcome'],
  };
  const groupColumns = q.groupBy.flatMap((k) => keys[k]);
  const select = (k: DemandKey, column: string, as: string) => (q.groupBy.includes(k) ? `${column} as ${as}` : `null as ${as}`);
  // The rows counted as searches: all of them, or (not by product) the rows of every search.
  const counted = byProduct ? 'true' : `d.product = ''`;
  const sum = (column: string, and = 'true') => `coalesce(sum(d.${column}) filter (where ${counted} and ${and}), 0)::text`;
  const searches = `sum(d.searches) filter (where ${counted})`;
  bindings.push(q.limit);
  return {
    sql: `select ${select('cell', 'd.lat_cell', 'lat_cell')}, ${select('cell', 'd.lng_cell', 'lng_cell')},
            ${select('product', 'd.product', 'product')}, ${select('day', `to_char(d.day, 'YYYY-MM-DD')`, 'day')},
            ${select('outcome', 'd.outcome', 'outcome')},
            ${sum('searches')} as searches,
            ${sum('searches', `d.outcome = 'none'`)} as no_result,
            ${sum('searches', `d.outcome = 'far'`)} as far_only,
            ${byProduct ? sum('searches') : `coalesce(sum(d.searches) filter (where d.product = '*'), 0)::text`} as product_searches,
            ${sum('results')} as results,
            array[${NEAREST_COLUMNS.map((c) => sum(c)).join(', ')}] as nearest
       from locator_demand d
      where ${where.join(' and ')}
      ${groupColumns.length ? `group by ${groupColumns.join(', ')}` : ''}
      order by ${searches} desc nulls last${groupColumns.length ? `, ${groupColumns.join(', ')}` : ''}
      limit ?`,
    bindings,
  };
}

/** Whether the company exists. */
export async function companyExists(em: EntityManager, id: string): Promise<boolean> {
  return (await query(em, 'select 1 from companies where id = ?::uuid', [id])).length > 0;
}
