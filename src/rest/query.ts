import qs from 'qs';
import { BudgetedCache, stringBytes } from '../memory';
import { frozenVariables } from '../graphql/jit';
import { badRequest } from '../errors';
import { normalizePage } from '../search/options';
import { checkJson, checkListArgs, LimitViolation } from '../limits';

/**
 * The query string of a request (`url` is its path and query): the one reader of /v1 query parameters.
 * Deeper and longer than express's defaults (5 levels, 20 array items), so that
 * `opts[where][_or][0][_and][0][status]=x` and long id lists keep their shape. A parameter name or
 * bracket key that names a property of every object (`__proto__`, `constructor`, `toString`...) is a
 * 400: no parameter or key is called that, and qs would drop `__proto__` without a word.
 */
export function parseQueryString(url: string): Record<string, unknown> {
  const i = url.indexOf('?');
  return qs.parse(i < 0 ? '' : url.slice(i + 1), QS_OPTIONS);
}

const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

const QS_OPTIONS: qs.IParseOptions = {
  depth: 20,
  arrayLimit: 1000,
  parameterLimit: 10000,
  plainObjects: true,
  allowPrototypes: true,
  decoder: (text, decode, charset, type) => {
    const decoded = decode(text, decode, charset);
    if (type === 'key') {
      const name = decoded.split(/[[\]]/).find((part) => PROTOTYPE_NAMES.has(part));
      if (name !== undefined) throw badRequest(`Query parameter ${decoded} is not accepted: no parameter or key is named ${name}`);
    }
    return decoded;
  },
};

const INDEX_RE = /^(0|[1-9]\d{0,8})$/;

/**
 * SPEC 4.1: the string `null` anywhere in `opts` is a real null. Objects whose keys are all indexes
 * (`a[0]=x&a[1]=y`, or qs's form of a list longer than its array limit) become lists.
 */
export function nullify(value: unknown): unknown {
  if (value === 'null') return null;
  if (Array.isArray(value)) return value.map(nullify);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length && entries.every(([k]) => INDEX_RE.test(k))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => nullify(v));
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, nullify(v)]));
  }
  return value;
}

/** `opts[where]`, `opts[order]` and `opts[aggs]` as sent: the list operation's `$opts` (`ListQueryOptions`). */
export interface ListQueryOptionsVariable {
  where: unknown;
  order: unknown;
  aggs: unknown;
}

/** A list request read from its query string. */
export interface ListRequest {
  /**
   * The list operation's variables (`src/modules/<resource>/<resource>.rest.graphql`): `$q`, `$page`,
   * `$perPage`, and `$opts` when the request sends any of `where`, `order` or `aggs` (else null: the
   * list reads no options).
   */
  variables: { q: string | null; page: number; perPage: number; opts: ListQueryOptionsVariable | null };
  /** `opts[where]`, `opts[order]` and `opts[aggs]` as sent (null when absent). */
  options: ListQueryOptionsVariable;
}

/**
 * `q` and `opts[...]` of a list request (already parsed by qs), as its list operation's variables.
 * `where`, `order` and `aggs` keep the contract's shape (PRODUCT.md 6) and are bounded here as GraphQL
 * bounds its arguments, so that a request over the bounds is a 400 naming `opts`.
 */
export function listRequest(query: Record<string, unknown>): ListRequest {
  const q = query.q;
  if (q !== undefined && typeof q !== 'string') throw badRequest('q must be a string');
  const rawOpts = query.opts ?? {};
  if (typeof rawOpts !== 'object' || rawOpts === null || Array.isArray(rawOpts)) throw badRequest('opts must be an object');
  const opts = nullify(rawOpts) as Record<string, unknown>;
  const { page, perPage } = normalizePage(opts.page, opts.per_page);
  const options = { where: opts.where ?? null, order: opts.order ?? null, aggs: opts.aggs ?? null };
  for (const value of Object.values(options)) {
    try {
      checkJson(value);
    } catch (e) {
      throw e instanceof LimitViolation ? badRequest(`JSON ${e.message}`) : e;
    }
  }
  checkListArgs(options);
  const given = options.where !== null || options.order !== null || options.aggs !== null;
  return { variables: { q: q ?? null, page, perPage, opts: given ? options : null }, options };
}

/** SPEC 4.1 `include`: comma-separated association names, `*` (the default) for all. One value, else 400. */
export function parseInclude(include: unknown, associations: readonly string[]): Record<string, boolean> {
  if (include !== undefined && typeof include !== 'string') throw badRequest('include must be a string');
  const all = include === undefined || include === '*' || include === '';
  const names = all ? associations : include.split(',').map((s) => s.trim());
  const wanted = new Set(names.includes('*') ? associations : names);
  return Object.fromEntries(associations.map((a) => [a, wanted.has(a)]));
}

/** Query strings longer than this are read each time they come (long id lists are one-offs). */
const KEPT_QUERY_CHARS = 2048;
/**
 * Kept variables of every list, by reader and query string, within the `rest_list_variables` budget: the
 * parsed and frozen variables take a few times their query string's bytes.
 */
const kept = new BudgetedCache<string, Readonly<Record<string, unknown>>>('rest_list_variables', { sizeOf: (_variables, key) => 8 * stringBytes(key) + 1024 });
let readers = 0;

/**
 * The variables of a resource's list operation for the query string of `url`: `listRequest` and the
 * `include_<association>` flags, read once per query string and kept (frozen: every request with that
 * query string gets the same object), as a GraphQL server keeps the documents it parsed. A query string
 * that is a 400 is read again each time. What a query string gives does not depend on the caller.
 */
export function listVariablesReader(associations: readonly string[]): (url: string) => Readonly<Record<string, unknown>> {
  const reader = `${readers++}?`;
  const read = (search: string) => {
    const query = qs.parse(search, QS_OPTIONS);
    const { variables } = listRequest(query);
    const include = Object.fromEntries(Object.entries(parseInclude(query.include, associations)).map(([k, v]) => [`include_${k}`, v]));
    return frozenVariables({ ...variables, ...include });
  };
  return (url) => {
    const i = url.indexOf('?');
    const search = i < 0 ? '' : url.slice(i + 1);
    if (search.length > KEPT_QUERY_CHARS) return read(search);
    const key = reader + search;
    let variables = kept.get(key);
    if (!variables) kept.set(key, (variables = read(search)));
    return variables;
  };
}
