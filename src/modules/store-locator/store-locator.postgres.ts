import type { AggResult } from '../../search/types';
import { FACETS, type Execute, type Facet, type ScoreSettings, type StoreLocatorHits, type StoreLocatorQuery, type StoreLocatorSearch } from './store-locator.types';
import { HeldStoresCache } from './store-locator.held';
import { nearestCells, nearestSql, NEAREST_MIN_RADIUS_M, searchRow, storeLocatorSql } from './store-locator.repository';

/**
 * The store locator on PostgreSQL, in one statement: the listed stores in range (`store_locator_entries`,
 * GiST index on their earth position, `earth_box` prefilter, exact haversine recheck) are materialized
 * once, then the page, the total and the four facets are read from them.
 */
export class PostgresStoreLocatorSearch implements StoreLocatorSearch {
  /** Copies of companies' listed stores, for the total and facets of wide point searches. */
  readonly held: HeldStoresCache;
  /** Searches whose total and facets came from a held copy. */
  fromCopy = 0;

  constructor(
    private readonly execute: Execute,
    private readonly settings: ScoreSettings,
    /** Companies whose stores are held at once (STORE_LOCATOR_HELD_COMPANIES). */
    heldCompanies = 16,
    /** Memory their copies take at most (STORE_LOCATOR_HELD_MB). */
    heldBytes = Infinity,
  ) {
    this.held = new HeldStoresCache(execute, heldCompanies, heldBytes);
  }

  async search(query: StoreLocatorQuery): Promise<StoreLocatorHits> {
    // A narrow circle holds few stores: scoring them all beats the nearest-neighbour scans and cell counts.
    const wide = query.geo.kind === 'point' && query.geo.radius >= NEAREST_MIN_RADIUS_M;
    const cells = wide ? nearestCells(query) : null;
    if (cells && query.geo.kind === 'point') {
      const held = this.held.get(query.companyId);
      const sums = held?.sum(cells, query.geo.origin, query.geo.radius);
      const statement = nearestSql(query, this.settings, held && sums ? { version: held.version, typeIds: held.typeIds, near: sums.nearPoints } : undefined)!;
      const row = await searchRow(this.execute, statement);
      if (held && sums && row.version === held.version) {
        // The copy is the statement's snapshot: its sums, with the edge stores the statement decided.
        for (const i of row.near_within as number[]) held.count(sums.counts, sums.near[i]);
        this.fromCopy++;
        return { ids: row.ids as string[], ...held.answer(sums.counts, (row.type_names ?? {}) as Record<string, string>) };
      }
      this.held.seen(query.companyId, String(row.version));
      if (!held) return hitsOf(row);
      // The copy is of another version: the kept counts answer (its page read again in the same snapshot).
      const exact = nearestSql(query, this.settings)!;
      return hitsOf(await searchRow(this.execute, exact));
    }
    return hitsOf(await searchRow(this.execute, storeLocatorSql(query, this.settings)));
  }
}

/** The hits of a statement's row (ids, total and the four facet columns). */
function hitsOf(row: Record<string, unknown>): StoreLocatorHits {
  const aggs = {} as Record<Facet, AggResult>;
  for (const facet of FACETS) {
    const { buckets, all } = row[facet] as { buckets: Array<{ key: string; doc_count: number }>; all: number };
    const shown = buckets.reduce((sum, b) => sum + b.doc_count, 0);
    aggs[facet] = { doc_count_error_upper_bound: 0, sum_other_doc_count: Number(all) - shown, buckets };
  }
  return { ids: row.ids as string[], total: Number(row.total), aggs };
}
