import { badRequest } from '../errors';
import { normalizePage } from '../search/options';

/** SPEC 4.1: the string `null` anywhere in `opts` is a real null. */
export function nullify(value: unknown): unknown {
  if (value === 'null') return null;
  if (Array.isArray(value)) return value.map(nullify);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullify(v)]));
  }
  return value;
}

export interface ListVariables {
  q: string | null;
  where: unknown;
  order: unknown;
  aggs: unknown;
  page: number;
  perPage: number;
}

/** `q` and `opts[...]` of a list request (already parsed by qs) -> the variables of a list operation. */
export function listVariables(query: Record<string, unknown>): ListVariables {
  const q = query.q;
  if (q !== undefined && typeof q !== 'string') throw badRequest('q must be a string');
  const rawOpts = query.opts ?? {};
  if (typeof rawOpts !== 'object' || rawOpts === null || Array.isArray(rawOpts)) throw badRequest('opts must be an object');
  const opts = nullify(rawOpts) as Record<string, unknown>;
  const { page, perPage } = normalizePage(opts.page, opts.per_page);
  return { q: q ?? null, where: opts.where ?? null, order: opts.order ?? null, aggs: opts.aggs ?? null, page, perPage };
}

/** SPEC 4.1 `include`: comma-separated association names, `*` (the default) for all. */
export function parseInclude(include: unknown, associations: readonly string[]): Record<string, boolean> {
  const all = include === undefined || include === null || include === '*' || include === '';
  const names = all ? associations : String(include).split(',').map((s) => s.trim());
  const wanted = new Set(names.includes('*') ? associations : names);
  return Object.fromEntries(associations.map((a) => [a, wanted.has(a)]));
}
