import type { Caller } from '../auth/caller';

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
  /**
   * PostgreSQL, for an `array` field whose elements are an expression over rows related to the
   * document's row (the CRLs under a company retailer): those rows, as a correlated
   * `<table> <alias> ... where <alias>.<key> = <root>.id`, and the expression. A condition on the
   * field is then `exists (select 1 from <rows> and <condition on value>)`, which PostgreSQL plans as
   * a semi-join (the related table's indexes find the documents) where a condition over `unnest(sql)`
   * is a filter evaluated on every row of the list's table.
   */
  each?: { rows: string; value: string };
  /** `q` reads this field. */
  text?: boolean;
  /**
   * Only the caller's scope reads this field (e.g. the ids of every CRL under a company retailer, which
   * the caller may not all see): a client's `where`, `order`, `aggs` and `q` do not know it.
   */
  scopeOnly?: boolean;
  /**
   * Only these callers may read the field in `where`, `order` and `aggs` (for the others it is in
   * `SearchRequest.hidden`): e.g. a territory's name, which retailer users do not see.
   */
  readableBy?: (caller: Caller) => boolean;
  /**
   * A field that never holds this field's value on the same row (a lead's assignee company beyond its
   * owner is never its owner company): `this = v` implies `not other = v`, so a scope branch on this
   * field does not repeat the negation of an earlier branch on the other (`scopeParts`).
   */
  neverEquals?: string;
}

/**
 * A table whose row changes alter documents (Elasticsearch outbox triggers). `ids` is SQL selecting
 * the ids of the documents a changed row affects, with the row (old or new) as `$1`, e.g.
 * `select ($1).id` for the root table, `select ($1).lead_id` for a child table, or
 * `select l.id from leads l where l.assignee_id = ($1).id` for a table the document joins.
 */
export interface SearchSource {
  table: string;
  ids: string;
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
  /**
   * Joins only some fields read (`left join locations loc on ...` for a lead's city), added to a
   * statement only when its SQL names the alias: PostgreSQL 15 plans no index-only scan across a
   * left join, even one it removes. `from` plus every join is `fromClause(doc)`.
   */
  joins?: Array<{ alias: string; sql: string }>;
  fields: Record<string, SearchField>;
  /**
   * PostgreSQL: a stored copy of `textExpression(doc)` (a generated column, e.g. `p.search_text`) that
   * `q` reads instead of folding the text fields on every row; index it with `gin_trgm_ops`.
   */
  textSql?: string;
  /**
   * PostgreSQL: a table of exact counts of the root rows per value of some uuid fields, kept by
   * triggers. A total whose scope part is one of these fields equal to given values (or both fields of a
   * pair, each equal to given values), with no `q` and no `where`, is read from it instead of counted.
   * A field's rows are `field` (its name), `key` (a value) and `n` summed over the key's rows; a pair
   * `[a, b]`'s are `field` `'a,b'`, `within_key` (a value of a) and `key` (a value of b).
   */
  counts?: {
    table: string;
    fields: ReadonlyArray<string | readonly [string, string]>;
    /**
     * The counts of some of those fields per UTC day of the date field `field` (`field`, `key`, `day`,
     * `n`), kept by triggers: a total whose `where` is only a range of that field sums the days it covers
     * whole and counts the rows of the partial days at its ends.
     */
    byDay?: { table: string; field: string; fields: readonly string[] };
  };
  /**
   * Tables feeding the document, for backends that keep a copy (Elasticsearch). Default: the root
   * table of `from`, one document per row.
   */
  sources?: SearchSource[];
  /**
   * Elasticsearch only: an index with its own mapping and documents instead of ones derived from
   * `fields` (the store locator, whose searches do not go through `SearchBackend`). `build` returns the
   * sources of the given root ids; an id it leaves out is deleted from the index.
   */
  customIndex?: CustomIndex;
}

export interface CustomIndex {
  definition(): { settings: Record<string, unknown>; mappings: Record<string, unknown> };
  build(execute: (sql: string, bindings: unknown[]) => Promise<any[]>, ids: string[]): Promise<Map<string, Record<string, unknown>>>;
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
  /**
   * Fields this caller may not read although others may (a name of a record type it does not see, a
   * count over records it does not all see): to its `where`, `order` and `aggs` they do not exist.
   */
  hidden?: readonly string[];
  /**
   * Keyset paging (cursor connections): `perPage` rows from the start of the list (`page` is 1), or
   * the rows strictly after `after` (the sort values of a row, as `SearchResult.sortValues` gives them);
   * `backward`: the `perPage` rows strictly before it, the list read from its end. Counts ignore it.
   */
  keyset?: { after: unknown[] | null; backward: boolean };
  /**
   * The page's rows, read by the search's own statement when the backend reads the tables
   * (PostgreSQL): a statement of the rows whose ids are the `uuid[]` SQL expression `ids`, in any
   * order, each row as its JSON. A backend that cannot leaves `SearchResult.rows` out (the caller then
   * reads the rows by id).
   */
  rows?: (ids: string) => Sql;
  /**
   * The same rows as a select list over the document's root alias (every field a column or expression of
   * the root row), when the reader has one: PostgreSQL reads them in the page's own range scan when it
   * can (`SearchPlan.pageOf`), each a row of the statement, its values as node-postgres reads them.
   */
  rowColumns?: string;
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
  /** With `keyset`: each id's sort values (the list order's terms, the id last), for cursors. */
  sortValues?: unknown[][];
  /** The rows of `SearchRequest.rows` when the backend read them (any order), as JSON objects. */
  rows?: Record<string, any>[];
}

/** One search backend (PostgreSQL by default, Elasticsearch by configuration). */
export interface SearchBackend {
  search(doc: SearchDocument, request: SearchRequest): Promise<SearchResult>;
  /**
   * Called before a write: a backend keeping a copy notes where the write's changes will start (its
   * outbox's newest row), for `afterWrite`.
   */
  beforeWrite?(): Promise<string | null>;
  /**
   * Called after a write committed, before it is acknowledged, with what `beforeWrite` returned: a
   * backend keeping a copy makes the write searchable here (read-your-writes), within a bounded wait.
   */
  afterWrite?(since?: string | null): Promise<void>;
  /** Called once when the app starts (create indexes, start an indexer) and when it stops. */
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

export const MAX_PER_PAGE = 500;
export const DEFAULT_PER_PAGE = 50;

/** The fields of a document a client may name in `where`, `order` and `aggs` (`scopeOnly` ones are the scope's alone). */
export function clientFields(doc: SearchDocument): Array<[string, SearchField]> {
  return Object.entries(doc.fields).filter(([, f]) => !f.scopeOnly);
}

/**
 * The document's FROM clause with the optional joins the given SQL reads (every join without SQL), and
 * the joins those read in turn (a join may read an earlier one's alias in its condition).
 */
export function fromClause(doc: SearchDocument, ...sql: string[]): string {
  const joins = doc.joins ?? [];
  if (!sql.length) return [doc.from, ...joins.map((j) => j.sql)].join(' ');
  const reads = (s: string, alias: string) => new RegExp(`\\b${alias}\\.`).test(s);
  const kept = new Array<boolean>(joins.length).fill(false);
  for (let i = joins.length - 1; i >= 0; i--) {
    const alias = joins[i].alias;
    kept[i] = sql.some((s) => reads(s, alias)) || joins.some((j, k) => k > i && kept[k] && reads(j.sql, alias));
  }
  return [doc.from, ...joins.filter((_, i) => kept[i]).map((j) => j.sql)].join(' ');
}
