import v8 from 'node:v8';
import { LRUCache } from 'lru-cache';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';

/**
 * The memory model of the process: every cache that lives as long as the process holds at most its share
 * of the heap limit (`LEADNET_HEAP_MB`, `--max-old-space-size`), counted in estimated bytes, never in
 * entries (a cache of 500 entries is 50 KB of small documents or 1 GB of large ones). The shares add up
 * to `CACHE_SHARE_TOTAL`; the rest of the heap is for the code, the requests in flight and the database
 * pool. docs/operations.md ("Memory") gives the numbers and how to size the heap.
 */
export const HEAP_LIMIT_BYTES = v8.getHeapStatistics().heap_size_limit;

/** Each process-wide cache's share of the heap limit. */
export const CACHE_SHARES = {
  /** GraphQL documents compiled by graphql-jit (src/graphql/jit.ts). */
  graphql_compiled: 0.08,
  /** Parsed and validated GraphQL documents (Apollo's document store). */
  graphql_parsed: 0.05,
  /** Automatic persisted queries' texts (Apollo's APQ cache). */
  graphql_persisted: 0.01,
  /** Hashes of documents that passed the document limits (src/graphql/cost.ts). */
  graphql_accepted: 0.005,
  /** Plans of plain list pages (src/search/postgres.ts). */
  search_plans: 0.04,
  /** Variables of REST list query strings (src/rest/query.ts). */
  rest_list_variables: 0.02,
  /** Callers of recently used API keys (src/auth/caller-cache.ts). */
  api_key_callers: 0.01,
  /** Formatted phone numbers (contacts and the store locator). */
  phone_formats: 0.005,
  /** Time zones and their remembered offsets (store locator hours). */
  time_zones: 0.01,
  /** Companies' stores held for wide store locator searches (STORE_LOCATOR_HELD_MB sets another size). */
  store_locator_held: 0.08,
  /** Rendered store pages, directories and robots.txt (src/modules/store-pages/store-pages.cache.ts). */
  store_pages: 0.03,
} as const;

export type CacheName = keyof typeof CACHE_SHARES;

/** All the shares together: the most the process-wide caches can hold, as a fraction of the heap limit. */
export const CACHE_SHARE_TOTAL = Object.values(CACHE_SHARES).reduce((a, b) => a + b, 0);

/** A cache's budget in bytes. */
export function cacheBudget(name: CacheName): number {
  return Math.floor(HEAP_LIMIT_BYTES * CACHE_SHARES[name]);
}

/** What `/metrics` reports of a cache. */
export interface CacheStats {
  name: string;
  bytes: number;
  budget: number;
  entries: number;
  hits: number;
  misses: number;
}

/** A cache that reports itself to `/metrics`. */
export interface MeasuredCache {
  stats(): CacheStats;
}

const registered = new Map<string, MeasuredCache>();

/** Adds a cache to what `/metrics` reports (a later one of the same name replaces it: a rebuilt app in tests). */
export function registerCache(name: string, cache: MeasuredCache): void {
  registered.set(name, cache);
}

/** Every registered cache's numbers, by name. */
export function cacheStats(): CacheStats[] {
  return [...registered.values()].map((c) => c.stats());
}

/** Bytes of a JavaScript string in the heap, roughly (two per UTF-16 unit, some for the header). */
export function stringBytes(text: string): number {
  return 2 * text.length + 24;
}

/** Bytes an entry of the LRU list itself takes (its slots in the key, value, links and size arrays, the Map entry). */
const ENTRY_BYTES = 96;

export interface BudgetedCacheOptions<K, V> {
  /** The entry's estimated bytes, key and value together (the list's own slots are added). */
  sizeOf: (value: V, key: K) => number;
  /** Budget in bytes; default the name's share of the heap limit. */
  maxBytes?: number;
  /** No single entry above this many bytes is kept; default a sixteenth of the budget. */
  maxEntryBytes?: number;
  /** Entries expire after this many milliseconds. */
  ttl?: number;
}

/**
 * An LRU cache bounded by the estimated bytes of what it holds (lru-cache's `maxSize`), whose size, budget,
 * hits and misses `/metrics` reports. An entry larger than `maxEntryBytes` is not kept (`set` leaves it out).
 */
export class BudgetedCache<K extends {}, V extends {}> extends LRUCache<K, V> implements MeasuredCache {
  hits = 0;
  misses = 0;
  readonly maxEntryBytes: number;

  constructor(
    readonly name: CacheName,
    options: BudgetedCacheOptions<K, V>,
  ) {
    const maxSize = Math.max(1, options.maxBytes ?? cacheBudget(name));
    const maxEntrySize = Math.max(1, Math.min(maxSize, options.maxEntryBytes ?? Math.floor(maxSize / 16)));
    super({ maxSize, maxEntrySize, ttl: options.ttl, sizeCalculation: (value, key) => Math.max(1, Math.ceil(ENTRY_BYTES + options.sizeOf(value, key))) });
    this.maxEntryBytes = maxEntrySize;
    registerCache(name, this);
  }

  override get(key: K, options?: LRUCache.GetOptions<K, V, unknown>): V | undefined {
    const value = super.get(key, options);
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  /** Whether an entry of this many bytes would be kept. */
  fits(bytes: number): boolean {
    return ENTRY_BYTES + bytes <= this.maxEntryBytes;
  }

  stats(): CacheStats {
    return { name: this.name, bytes: this.calculatedSize, budget: this.maxSize, entries: this.size, hits: this.hits, misses: this.misses };
  }
}

/** A budgeted cache as the key-value cache Apollo Server takes (its document store, its APQ cache). */
export function keyValueCache<V extends {}>(cache: BudgetedCache<string, V>): KeyValueCache<V> {
  return {
    async get(key) {
      return cache.get(key);
    },
    async set(key, value, options) {
      cache.set(key, value, options?.ttl ? { ttl: options.ttl * 1000 } : undefined);
    },
    async delete(key) {
      return cache.delete(key);
    },
  };
}
