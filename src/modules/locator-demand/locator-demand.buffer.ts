import type { LatLng } from '../../geo/distance';
import { countDemandSearch } from '../../observability/locator-demand-counts';
import { cellOf, nearestBucket, NEAREST_BUCKETS } from './locator-demand.cells';

/** What a search looked like once answered: no address text, no client, the point only until it is a cell. */
export interface DemandSearch {
  companyId: string;
  at: Date;
  /** The searched point (a box's centre); null when the search is not kept (a wide box). */
  place: LatLng | null;
  /** The products asked for, as `<key>:<value>` (`sku:BIKE-1`, `id:<uuid>`, `collection_id:<uuid>`). */
  products: string[];
  /** Stores found (the answer's `meta.total`). */
  total: number;
  /** Metres from the point to the nearest store of the answer's first page; null when none was found. */
  nearestMetres: number | null;
}

export type DemandOutcome = 'found' | 'none' | 'far';

/** The row every search adds to, and the one each search asking for any product adds to. */
export const ALL_SEARCHES = '';
export const ANY_PRODUCT = '*';
/** Kept of one search: at most this many products, each at most this long (longer values are cut). */
export const MAX_PRODUCTS_PER_SEARCH = 10;
export const MAX_PRODUCT_LENGTH = 120;

/** One kept count: its key and what it adds. */
export interface DemandCount {
  key: string;
  companyId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  latCell: number;
  lngCell: number;
  product: string;
  outcome: DemandOutcome;
  searches: number;
  results: number;
  /** Searches per nearest-distance bucket (`NEAREST_BUCKETS`, then beyond the last). */
  nearest: number[];
}

export interface DemandBufferLimits {
  /** Distinct keys held at most. */
  maxEntries: number;
  /** Estimated bytes held at most. */
  maxBytes: number;
  /** A search whose nearest store is at least this far (metres) found only far stores. */
  farMetres: number;
}

/** Estimated bytes of an entry: its key twice (the map's key and the field), the other fields and the Map's slot. */
const entryBytes = (key: string) => 2 * (2 * key.length) + 240;

/**
 * The counts of the searches answered since the last flush, by key, in memory: recording is a few map
 * updates, never a statement. Bounded by entries and bytes: a search whose key is new when the buffer is
 * full is dropped (and counted, `leadnet_locator_demand_searches_total{outcome="dropped"}`); keys
 * already held still count.
 */
export class DemandBuffer {
  private entries = new Map<string, DemandCount>();
  private heldBytes = 0;

  constructor(readonly limits: DemandBufferLimits) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** Counts one answered search; false when it was not kept (dropped, or no place). */
  record(search: DemandSearch): boolean {
    if (!search.place) {
      countDemandSearch('skipped');
      return false;
    }
    const cell = cellOf(search.place);
    const day = search.at.toISOString().slice(0, 10);
    const outcome: DemandOutcome =
      search.total === 0 || search.nearestMetres === null ? 'none' : search.nearestMetres >= this.limits.farMetres ? 'far' : 'found';
    const products = [...new Set(search.products.map((p) => p.replace(/\u0000/g, '').slice(0, MAX_PRODUCT_LENGTH)))].slice(0, MAX_PRODUCTS_PER_SEARCH);
    const keys = [ALL_SEARCHES, ...(products.length ? [ANY_PRODUCT, ...products] : [])].map((product) => ({
      product,
      key: `${search.companyId}|${day}|${cell.lat}|${cell.lng}|${outcome}|${product}`,
    }));
    // All of a search's rows or none: the totals and the product rows must agree.
    const added = keys.filter((k) => !this.entries.has(k.key));
    const addedBytes = added.reduce((sum, k) => sum + entryBytes(k.key), 0);
    if (added.length && (this.entries.size + added.length > this.limits.maxEntries || this.heldBytes + addedBytes > this.limits.maxBytes)) {
      countDemandSearch('dropped');
      return false;
    }
    const bucket = search.nearestMetres === null || search.total === 0 ? -1 : nearestBucket(search.nearestMetres);
    for (const { key, product } of keys) {
      let entry = this.entries.get(key);
      if (!entry) {
        entry = { key, companyId: search.companyId, day, latCell: cell.lat, lngCell: cell.lng, product, outcome, searches: 0, results: 0, nearest: new Array(NEAREST_BUCKETS.length + 1).fill(0) };
        this.entries.set(key, entry);
      }
      entry.searches += 1;
      entry.results += search.total;
      if (bucket >= 0) entry.nearest[bucket] += 1;
    }
    this.heldBytes += addedBytes;
    countDemandSearch('recorded');
    return true;
  }

  /** Everything held, ordered by key (the order every process writes rows in), and an empty buffer. */
  take(): DemandCount[] {
    const counts = [...this.entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.entries = new Map();
    this.heldBytes = 0;
    return counts;
  }

  /**
   * Puts back counts a flush could not write, added to what arrived since, as far as the bounds allow;
   * returns how many searches' counts were lost (counted as dropped).
   */
  restore(counts: DemandCount[]): number {
    let lost = 0;
    for (const count of counts) {
      const held = this.entries.get(count.key);
      if (held) {
        held.searches += count.searches;
        held.results += count.results;
        count.nearest.forEach((n, i) => (held.nearest[i] += n));
        continue;
      }
      const bytes = entryBytes(count.key);
      if (this.entries.size + 1 > this.limits.maxEntries || this.heldBytes + bytes > this.limits.maxBytes) {
        if (count.product === ALL_SEARCHES) lost += count.searches;
        continue;
      }
      this.entries.set(count.key, count);
      this.heldBytes += bytes;
    }
    for (let i = 0; i < lost; i++) countDemandSearch('dropped');
    return lost;
  }
}
