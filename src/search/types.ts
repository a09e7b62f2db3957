/** A raw SQL fragment with positional `?` bindings (knex style). */
export interface Sql {
  sql: string;
  bindings: unknown[];
}

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'uuid';

export interface SearchField {
  /** SQL expression over the document's FROM clause; for `array` fields an SQL array expression. */
  sql: string;
  type: FieldType;
  /** The field holds several values (emails of a lead, activity types...). */
  array?: boolean;
  /** `q` reads this field. */
  text?: boolean;
}

/**
 * What a resource indexes: its fields (by their REST/snake_case names) and how to read them in SQL.
 * Each resource declares its document in its own folder (`<resource>.search.ts`).
 */
export interface SearchDocument {
  /** Index / resource name, e.g. `products`. */
  name: string;
  /** FROM clause including joins, e.g. `products p`. Its root alias must expose `id` and `created_at`. */
  from: string;
  /** The root alias used in `from`, e.g. `p`. */
  alias: string;
  fields: Record<string, SearchField>;
}

export type WhereValue = unknown;
/** `opts[where]` as parsed from JSON or the query string (PRODUCT.md section 6). */
export type Where = Record<string, WhereValue>;
/** `opts[order]`: a field name, or an ordered list of `{field: direction}` pairs. */
export type Order = string | Record<string, 'asc' | 'desc'> | Array<Record<string, 'asc' | 'desc'>>;
export interface AggOptions {
  limit?: number;
  where?: Where;
  order?: Record<string, 'asc' | 'desc'>;
  min_doc_count?: number;
}
export type Aggs = string[] | Record<string, AggOptions>;

export interface SearchRequest {
  q?: string | null;
  where?: Where | null;
  order?: Order | null;
  page: number;
  perPage: number;
  aggs?: Aggs | null;
  /**
   * The caller's role scope, in the same language as `where` over the document's fields (which may
   * include fields kept for scoping, such as `company_id`). Always applied: totals and facets count
   * only what the caller may see. `{}` is everything; `{ id: [] }` is nothing.
   */
  scope: Where;
}

export interface AggBucket {
  key: string | number | boolean;
  doc_count: number;
}
export interface AggResult {
  doc_count_error_upper_bound: 0;
  sum_other_doc_count: number;
  buckets: AggBucket[];
}

export interface SearchResult {
  /** Matching ids of the requested page, in order. */
  ids: string[];
  /** Exact number of matches. */
  total: number;
  aggs: Record<string, AggResult>;
}

/** One search backend (PostgreSQL by default, Elasticsearch by configuration). */
export interface SearchBackend {
  search(doc: SearchDocument, request: SearchRequest): Promise<SearchResult>;
}

export const MAX_PER_PAGE = 500;
export const DEFAULT_PER_PAGE = 50;
