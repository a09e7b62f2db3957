import { DISTANCE_UNITS, MAX_DISTANCE_M, parseDistance, type GeoBox } from '../../geo/distance';
import { FACETS, type Facet, type GeoQuery, type ProductFilter, type ProductKey, type StockKind, type StoreLocatorQuery } from './store-locator.types';
import { flushTiny } from '../../limits';

/** The store locator's 400: `{ "error": "Invalid search parameters" }` (SPEC 4.5 rule 4). */
export class InvalidSearchParameters extends Error {
  /**
   * `parameter` is set for the additions (`address`, `open_now`): their 400 also names the parameter and
   * says why. The contract's own 400s keep their exact body.
   */
  constructor(
    readonly reason: string,
    readonly parameter?: string,
  ) {
    super(`Invalid search parameters: ${reason}`);
  }
}

/** Longest `address` accepted: a full street address fits; longer text is no place. */
export const MAX_ADDRESS_LENGTH = 200;

/** Unit suffixes as `meta.distance_unit` names them. */
const UNIT_NAMES: Record<string, string> = { miles: 'mi', NM: 'nmi' };

export const DEFAULT_RADIUS = '1000mi';
export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 500;
/** Box searches return this many results per page (PRODUCT.md section 7); `per_page` is for point searches. */
export const BOX_PER_PAGE = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMBER = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/;
const INTEGER = /^\s*\+?\d+\s*$/;

export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

type Query = Record<string, unknown>;

/** A point still to be found: the `address` parameter, geocoded by the service (it needs the company). */
export interface AddressGeo {
  kind: 'address';
  text: string;
  /** Metres. */
  radius: number;
}

export interface ParsedParams {
  geo: GeoQuery | AddressGeo;
  /** Unit of `distance` in results: the radius's (`mi` when the request has no radius; `m` for a bare number). */
  unit: DistanceUnit;
  /** `open_now=true`: only stores open at the response's instant. */
  openNow: boolean;
  facets: Partial<Record<Facet, string[]>>;
  products: ProductFilter[];
  page: number;
  perPage: number;
}

/**
 * The query string of `GET /store_locator` (parsed by qs) -> a search, or InvalidSearchParameters.
 * Blank values count as absent. Unknown parameters are ignored.
 */
export function parseStoreLocatorParams(query: Query): ParsedParams {
  checkShapes(query);
  const geo = parseGeo(query);
  const page = integer(query, 'page', 1);
  const perPage = geo.kind === 'box' ? BOX_PER_PAGE : Math.min(integer(query, 'per_page', DEFAULT_PER_PAGE), MAX_PER_PAGE);
  const facets: Partial<Record<Facet, string[]>> = {};
  for (const facet of FACETS) {
    const values = list(query, facet);
    if (values) facets[facet] = values;
  }
  return { geo, unit: distanceUnit(query), openNow: openNow(query), facets, products: productFilters(query), page, perPage };
}

/**
 * The backend query of a search whose place is known: `geo` replaces an address once geocoded; `ids`
 * restricts the search to these stores (the open-now filter).
 */
export function backendQuery(companyId: string, params: ParsedParams, geo?: GeoQuery, ids?: string[]): StoreLocatorQuery {
  const place = geo ?? params.geo;
  if (place.kind === 'address') throw new Error('an address must be geocoded before searching');
  return { companyId, geo: place, facets: params.facets, products: params.products, page: params.page, perPage: params.perPage, ...(ids ? { ids } : {}) };
}

export interface DistanceUnit {
  name: string;
  metres: number;
}

/** The unit of the `radius` as written; miles without one. Only read once `parseGeo` has accepted the radius. */
function distanceUnit(query: Query): DistanceUnit {
  const raw = typeof query.radius === 'string' && query.radius.trim() !== '' ? query.radius : DEFAULT_RADIUS;
  const suffix = /([A-Za-z]*)\s*$/.exec(raw)![1];
  if (suffix === '' || !Object.hasOwn(DISTANCE_UNITS, suffix)) return { name: 'm', metres: 1 };
  return { name: UNIT_NAMES[suffix] ?? suffix, metres: DISTANCE_UNITS[suffix] };
}

function openNow(query: Query): boolean {
  const v = query.open_now;
  if (v === undefined || v === null) return false;
  const text = typeof v === 'string' ? v.trim().toLowerCase() : null;
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new InvalidSearchParameters('open_now', 'open_now');
}

function radiusOf(query: Query): number {
  const radius = parseDistance(scalar(query, 'radius') ?? DEFAULT_RADIUS);
  if (radius === null) throw new InvalidSearchParameters('radius');
  return flushTiny(Math.min(radius, MAX_DISTANCE_M));
}

function parseGeo(query: Query): GeoQuery | AddressGeo {
  const latitude = number(query, 'latitude', -90, 90);
  const longitude = number(query, 'longitude', -180, 180);
  if (latitude !== undefined && longitude !== undefined) {
    return { kind: 'point', origin: { latitude, longitude }, radius: radiusOf(query) };
  }
  if (latitude !== undefined || longitude !== undefined) throw new InvalidSearchParameters('partial point');
  // A place a shopper typed: a point once geocoded, so it wins over a box as a point does.
  const address = query.address;
  if (address !== undefined && address !== null) {
    if (typeof address !== 'string') throw new InvalidSearchParameters('address is not one string', 'address');
    const text = address.trim();
    if (text.length > MAX_ADDRESS_LENGTH) throw new InvalidSearchParameters(`address is longer than ${MAX_ADDRESS_LENGTH} characters`, 'address');
    if (text !== '') return { kind: 'address', text, radius: radiusOf(query) };
  }
  const box = {
    north: number(query, 'top_left_latitude', -90, 90),
    west: number(query, 'top_left_longitude', -180, 180),
    south: number(query, 'bottom_right_latitude', -90, 90),
    east: number(query, 'bottom_right_longitude', -180, 180),
  };
  const given = Object.values(box).filter((v) => v !== undefined).length;
  if (given === 0) throw new InvalidSearchParameters('no point and no box');
  if (given < 4) throw new InvalidSearchParameters('partial box');
  const full = box as GeoBox;
  if (full.north < full.south) throw new InvalidSearchParameters('box top below its bottom');
  return { kind: 'box', box: full };
}

/** Parameters that take one value; `address` and `open_now` (additions) name themselves in their 400. */
const SINGLE = [
  'latitude', 'longitude', 'radius', 'per_page', 'page',
  'top_left_latitude', 'top_left_longitude', 'bottom_right_latitude', 'bottom_right_longitude',
  'address', 'open_now',
];
const NAMED = new Set(['address', 'open_now']);

/**
 * Every parameter the search knows, in a shape it takes, whether or not this search reads it (a point
 * leaves the box unread): one value for the single-valued ones, one or several for the filters.
 */
function checkShapes(query: Query): void {
  for (const name of SINGLE) {
    const v = query[name];
    if (v === undefined || typeof v === 'string') continue;
    throw NAMED.has(name) ? new InvalidSearchParameters(`${name} is not one string`, name) : new InvalidSearchParameters(name);
  }
  for (const name of LISTS) list(query, name);
}

/** One value of a single-valued parameter; a repeated or nested one is invalid. Blank is absent. */
function scalar(query: Query, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidSearchParameters(name);
  return v.trim() === '' ? undefined : v;
}

function number(query: Query, name: string, min: number, max: number): number | undefined {
  const v = scalar(query, name);
  if (v === undefined) return undefined;
  if (!NUMBER.test(v)) throw new InvalidSearchParameters(name);
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw new InvalidSearchParameters(name);
  return flushTiny(n);
}

function integer(query: Query, name: string, fallback: number): number {
  const v = scalar(query, name);
  if (v === undefined) return fallback;
  const n = INTEGER.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidSearchParameters(name);
  return n;
}

/**
 * A multi-valued parameter: `a=x&a=y`, `a[]=x&a[]=y` (qs gives an array, or an object past its array
 * limit) or a single `a=x`. Blank entries are dropped; undefined when nothing is left.
 */
function list(query: Query, name: string): string[] | undefined {
  const raw = query[name] ?? query[`${name}[]`];
  if (raw === undefined || raw === null) return undefined;
  const items = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : isIndexed(raw) ? Object.values(raw) : null;
  if (!items?.every((i) => typeof i === 'string')) throw new InvalidSearchParameters(name);
  const values = [...new Set((items as string[]).map((i) => i.trim()).filter(Boolean))];
  return values.length ? values : undefined;
}

/** qs's form of a list longer than its array limit: an object whose keys are all indexes. */
function isIndexed(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.keys(v).every((k) => /^\d+$/.test(k));
}

const PRODUCT_PARAMS: Array<[ProductKey, string]> = [
  ['id', 'ids'],
  ['sku', 'skus'],
  ['external_id', 'external_ids'],
  ['collection_id', 'collection_ids'],
];

/** The multi-valued parameters: the facet filters and the product filters. */
const LISTS = [...FACETS, ...(['stocked', 'available'] as StockKind[]).flatMap((kind) => PRODUCT_PARAMS.map(([, suffix]) => `${kind}_product_${suffix}`))];

/**
 * The product filters, ANDed. Ids that are not UUIDs can match nothing and are dropped (a parameter left
 * with none matches nothing). A collection filter replaces the SKU and external-id filters of its kind.
 */
function productFilters(query: Query): ProductFilter[] {
  const filters: ProductFilter[] = [];
  for (const kind of ['stocked', 'available'] as StockKind[]) {
    const given = new Map<ProductKey, string[]>();
    for (const [key, suffix] of PRODUCT_PARAMS) {
      const values = list(query, `${kind}_product_${suffix}`);
      if (values) given.set(key, key === 'id' || key === 'collection_id' ? values.filter(isUuid).map((v) => v.toLowerCase()) : values);
    }
    if (given.has('collection_id')) {
      given.delete('sku');
      given.delete('external_id');
    }
    for (const [key, values] of given) filters.push({ kind, key, values });
  }
  return filters;
}
