import { badRequest } from '../errors';
import { checkPage } from '../limits';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, type Aggs, type Order } from './types';

export interface PageRequest {
  page: number;
  perPage: number;
}

/** PRODUCT.md section 6: page and per_page below 1 are 400; per_page above 500 is lowered to 500. */
export function normalizePage(page: unknown, perPage: unknown): PageRequest {
  const p = page === undefined || page === null || page === '' ? 1 : toInteger(page, 'page');
  const pp = perPage === undefined || perPage === null || perPage === '' ? DEFAULT_PER_PAGE : toInteger(perPage, 'per_page');
  if (p < 1) throw badRequest('opts[page] must be an integer of at least 1');
  checkPage(p);
  if (pp < 1) throw badRequest('opts[per_page] must be an integer of at least 1');
  return { page: p, perPage: Math.min(pp, MAX_PER_PAGE) };
}

function toInteger(value: unknown, name: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (name === 'page' && Number.isFinite(n) && n > 0) checkPage(n);
  if (!Number.isSafeInteger(n)) throw badRequest(`opts[${name}] must be an integer of at least 1`);
  return n;
}

/** `{a: 'desc', b: 'asc'}`, `[{a: 'desc'}]` or `'a'` -> ordered `[field, direction]` pairs. */
export function normalizeOrder(order: Order | null | undefined | unknown): Array<[string, 'asc' | 'desc']> {
  if (order === null || order === undefined || order === '') return [];
  if (typeof order === 'string') return [[order, 'asc']];
  const list = Array.isArray(order) ? order : [order];
  const pairs: Array<[string, 'asc' | 'desc']> = [];
  for (const item of list) {
    if (typeof item === 'string') {
      pairs.push([item, 'asc']);
      continue;
    }
    if (typeof item !== 'object' || item === null) throw badRequest('opts[order] is invalid');
    for (const [field, dir] of Object.entries(item)) {
      const direction = typeof dir === 'string' ? dir.toLowerCase() : isDirectionObject(dir) ? String(dir.order).toLowerCase() : '';
      if (direction !== 'asc' && direction !== 'desc') throw badRequest(`opts[order][${field}] must be asc or desc`);
      pairs.push([field, direction]);
    }
  }
  return pairs;
}

function isDirectionObject(v: unknown): v is { order: unknown } {
  return typeof v === 'object' && v !== null && 'order' in v;
}

export interface AggRequest {
  field: string;
  limit: number;
  minDocCount: number;
  where: unknown;
  orderByKey: boolean;
  direction: 'asc' | 'desc';
}

/** `['status']`, `'status'` or `{status: {limit, where, order, min_doc_count}}` -> one request per field. */
export function normalizeAggs(aggs: Aggs | null | undefined | unknown): AggRequest[] {
  if (aggs === null || aggs === undefined || aggs === '') return [];
  const entries: Array<[string, unknown]> = [];
  const add = (item: unknown) => {
    if (typeof item === 'string') entries.push([item, {}]);
    // `opts[aggs][]=status&opts[aggs][city][limit]=5` arrives as {0: 'status', city: {limit: '5'}}.
    else if (isObject(item)) for (const [k, v] of Object.entries(item)) entries.push(/^\d+$/.test(k) && typeof v === 'string' ? [v, {}] : [k, v]);
    else throw badRequest('opts[aggs] must name fields');
  };
  if (Array.isArray(aggs)) aggs.forEach(add);
  else add(aggs);
  return entries.map(([field, options]) => {
    if (options !== null && options !== undefined && options !== '' && !isObject(options)) {
      throw badRequest(`opts[aggs][${field}] must be an object of options`);
    }
    const o = (options ?? {}) as Record<string, unknown>;
    const limit = o.limit === undefined || o.limit === null || o.limit === '' ? 1000 : Number(o.limit);
    const minDocCount = o.min_doc_count === undefined || o.min_doc_count === null || o.min_doc_count === '' ? 1 : Number(o.min_doc_count);
    if (!Number.isInteger(limit) || limit < 1) throw badRequest(`opts[aggs][${field}][limit] must be a positive integer`);
    // PostgreSQL compares it with a bigint count: a larger number would not bind.
    if (!Number.isInteger(minDocCount) || minDocCount < 0 || minDocCount > MAX_MIN_DOC_COUNT) {
      throw badRequest(`opts[aggs][${field}][min_doc_count] must be an integer between 0 and ${MAX_MIN_DOC_COUNT}`);
    }
    const [[orderKey, direction] = ['_count', 'desc'] as [string, 'asc' | 'desc']] = normalizeOrder(o.order ?? null);
    const byKey = orderKey === '_key' || orderKey === '_term';
    if (!byKey && orderKey !== '_count') throw badRequest(`opts[aggs][${field}][order] must be on _count or _key`);
    return {
      field,
      limit: Math.min(limit, MAX_AGG_LIMIT),
      // Zero-count buckets would list values outside the caller's scope (and Elasticsearch takes them
      // from the whole index): a bucket always has at least one visible record.
      minDocCount: Math.max(minDocCount, 1),
      where: o.where ?? null,
      orderByKey: byKey,
      direction,
    };
  });
}

const MAX_AGG_LIMIT = 10000;
const MAX_MIN_DOC_COUNT = 2_147_483_647;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Bucket keys keep the field's type; dates are ISO 8601 in UTC. */
export function bucketKey(type: string | undefined, key: unknown): string | number | boolean {
  if (type === 'date') return new Date(String(key)).toISOString();
  if (type === 'number') return Number(key);
  if (type === 'boolean') return key === true || key === 'true';
  return String(key);
}
