import type { GeoBox, LatLng } from '../../geo/distance';
import type { AggResult } from '../../search/types';

/** The fields `meta.aggs` counts over; each is also a filter parameter (PRODUCT.md section 7). */
export const FACETS = ['city', 'province', 'country', 'store_type'] as const;
export type Facet = (typeof FACETS)[number];
/** Buckets per facet, as the list endpoints' default `limit` (PRODUCT.md section 6). */
export const FACET_LIMIT = 1000;

/** Which stock flag a product filter reads. */
export type StockKind = 'stocked' | 'available';
/** Which product attribute a product filter matches. */
export type ProductKey = 'id' | 'sku' | 'external_id' | 'collection_id';

/**
 * One product filter parameter, e.g. `stocked_product_skus`: the store stocks (or has available) at least
 * one product of the company whose `key` is among `values`. An empty `values` matches nothing.
 */
export interface ProductFilter {
  kind: StockKind;
  key: ProductKey;
  values: string[];
}

/** Field of a store document holding the values a product filter matches. */
export const productField = (f: Pick<ProductFilter, 'kind' | 'key'>) => `${f.kind}_product_${f.key}s`;

/** Every product filter field of a store document. */
export const PRODUCT_FIELDS = (['stocked', 'available'] as const).flatMap((kind) =>
  (['id', 'sku', 'external_id', 'collection_id'] as const).map((key) => productField({ kind, key })),
);

export type GeoQuery =
  | { kind: 'point'; origin: LatLng; /** Metres. */ radius: number }
  | { kind: 'box'; box: GeoBox };

/** A validated store locator search (SPEC 4.5, PRODUCT.md section 7). */
export interface StoreLocatorQuery {
  companyId: string;
  geo: GeoQuery;
  /** Any-of values per facet; a facet absent here is not filtered. */
  facets: Partial<Record<Facet, string[]>>;
  /** ANDed; collection precedence is already applied. */
  products: ProductFilter[];
  page: number;
  perPage: number;
  /** Only these CRLs (any others are left out); absent means no such restriction. */
  ids?: string[];
}

/** The Gaussian distance score: `decay ^ ((max(0, d - offset) / scale) ^ 2)` + the store type's boost. */
export interface ScoreSettings {
  scaleMeters: number;
  offsetMeters: number;
  decay: number;
}

export interface StoreLocatorHits {
  /** CRL ids of the page, in order. */
  ids: string[];
  total: number;
  aggs: Record<Facet, AggResult>;
}

/**
 * One store locator search backend (PostgreSQL or Elasticsearch, chosen by `SEARCH_BACKEND`). It finds and
 * orders the listed stores; turning ids into results is shared (`StoreLocatorReader`).
 */
export interface StoreLocatorSearch {
  search(query: StoreLocatorQuery): Promise<StoreLocatorHits>;
}

/** Runs one SQL statement with positional `?` bindings (`store-locator.repository.ts` sends them). */
export type { Execute } from '../../db/sql';

/** An answered search as the locator's observer is told of it (locator demand counts them). */
export interface AnsweredSearch {
  companyId: string;
  at: Date;
  /** The searched place: the given or geocoded point, or the box. */
  geo: GeoQuery;
  page: number;
  products: ProductFilter[];
  /** Stores found (`meta.total`). */
  total: number;
  /** Metres from the point (a box's centre) to the nearest store of the page; null when the page has none placed. */
  nearestMetres: number | null;
}

/** Told of each answered search, synchronously: it must not wait for anything (no statement). */
export type SearchObserver = (search: AnsweredSearch) => void;
