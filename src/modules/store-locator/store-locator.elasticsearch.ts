import { boxCentre, MAX_DISTANCE_M, type LatLng } from '../../geo/distance';
import type { AggResult } from '../../search/types';
import {
  FACET_LIMIT,
  FACETS,
  PRODUCT_FIELDS,
  productField,
  type Execute,
  type Facet,
  type ScoreSettings,
  type StoreLocatorHits,
  type StoreLocatorQuery,
  type StoreLocatorSearch,
} from './store-locator.types';
import { companyDocumentRows, documentRows, storeTypeBoosts } from './store-locator.repository';
import { createIndexOnce, engineSearch } from '../../search/elasticsearch/unavailable';
import { DURABLE } from '../../search/elasticsearch/mapping';

/** The part of the Elasticsearch client the store locator uses (the real one is adapted by `esClient`). */
export interface EsClient {
  search(request: Record<string, unknown>): Promise<any>;
  bulk(request: { operations: unknown[]; refresh?: boolean | 'wait_for' }): Promise<any>;
  indices: {
    exists(request: { index: string }): Promise<boolean>;
    create(request: Record<string, unknown>): Promise<unknown>;
    delete(request: { index: string; ignore_unavailable?: boolean }): Promise<unknown>;
    refresh(request: { index: string }): Promise<unknown>;
  };
}

/** Deepest page an index allows (`index.max_result_window`, set when the index is created). */
export const MAX_RESULT_WINDOW = 100_000;

/** The store locator index: one document per CRL. */
export const STORE_LOCATOR_INDEX = {
  settings: { number_of_shards: 1, max_result_window: MAX_RESULT_WINDOW },
  mappings: {
    dynamic: 'strict',
    properties: {
      id: { type: 'keyword' },
      company_id: { type: 'keyword' },
      sending_leads: { type: 'boolean' },
      receiving_leads: { type: 'boolean' },
      location: { type: 'geo_point' },
      city: { type: 'keyword' },
      province: { type: 'keyword' },
      country: { type: 'keyword' },
      store_type: { type: 'keyword' },
      store_type_id: { type: 'keyword' },
      ...Object.fromEntries(PRODUCT_FIELDS.map((f) => [f, { type: 'keyword' }])),
    },
  },
} as const;

export interface StoreTypeBoost {
  id: string;
  boost: number;
}

const geoPoint = (p: LatLng) => ({ lat: p.latitude, lon: p.longitude });
const metres = (m: number) => `${m}m`;
/** The smallest `geo_distance` sent. */
const MIN_RADIUS_M = 0.01;

/**
 * The search request for a store locator query (PRODUCT.md section 7). Point: `geo_distance` filter and a
 * `function_score` summing a `gauss` decay on the distance and one weight per boosted store type, sorted
 * by score, then `_geo_distance`, then id. Box: `geo_bounding_box`, sorted by distance from its centre,
 * then id. Facet filters go in `post_filter`, so each facet aggregation can apply all but its own.
 */
export function elasticsearchRequest(
  index: string,
  query: StoreLocatorQuery,
  settings: ScoreSettings,
  storeTypes: StoreTypeBoost[],
): Record<string, unknown> {
  const geo = query.geo;
  const filter: unknown[] = [
    { term: { company_id: query.companyId } },
    { term: { sending_leads: true } },
    { term: { receiving_leads: true } },
    { exists: { field: 'location' } },
  ];
  let centre: LatLng;
  if (geo.kind === 'point') {
    centre = geo.origin;
    if (geo.radius < MAX_DISTANCE_M) {
      // The engines refuse a distance of 0 (400 "distance must be greater than zero"): a radius of 0 is
      // the stores at the point itself, within the centimetre a geo_point is stored to.
      filter.push({ geo_distance: { distance: metres(Math.max(geo.radius, MIN_RADIUS_M)), distance_type: 'arc', location: geoPoint(geo.origin) } });
    }
  } else {
    centre = boxCentre(geo.box);
    filter.push({
      geo_bounding_box: {
        location: { top_left: { lat: geo.box.north, lon: geo.box.west }, bottom_right: { lat: geo.box.south, lon: geo.box.east } },
      },
    });
  }
  if (query.ids) filter.push(query.ids.length ? { ids: { values: query.ids } } : { match_none: {} });
  for (const p of query.products) {
    filter.push(p.values.length ? { terms: { [productField(p)]: p.values } } : { match_none: {} });
  }
  const facetFilter = (except?: Facet) =>
    FACETS.filter((f) => f !== except && query.facets[f]).map((f) => ({ terms: { [f]: query.facets[f] } }));
  const base = { bool: { filter } };
  const from = (query.page - 1) * query.perPage;
  const size = Math.max(0, Math.min(query.perPage, MAX_RESULT_WINDOW - from));
  const distanceSort = { _geo_distance: { location: geoPoint(centre), order: 'asc', unit: 'm', distance_type: 'arc' } };
  const request: Record<string, unknown> = {
    index,
    from: size ? from : 0,
    size,
    track_total_hits: true,
    _source: false,
    query:
      geo.kind === 'point'
        ? {
            function_score: {
              query: base,
              functions: [
                {
                  gauss: {
                    location: {
                      origin: geoPoint(geo.origin),
                      scale: metres(settings.scaleMeters),
                      offset: metres(settings.offsetMeters),
                      decay: settings.decay,
                    },
                  },
                },
                ...storeTypes.filter((t) => t.boost > 0).map((t) => ({ filter: { term: { store_type_id: t.id } }, weight: t.boost })),
              ],
              score_mode: 'sum',
              boost_mode: 'replace',
            },
          }
        : base,
    sort: geo.kind === 'point' ? [{ _score: { order: 'desc' } }, distanceSort, { id: { order: 'asc' } }] : [distanceSort, { id: { order: 'asc' } }],
    aggs: Object.fromEntries(
      FACETS.map((f) => [
        f,
        {
          filter: { bool: { filter: facetFilter(f) } },
          aggs: { values: { terms: { field: f, size: FACET_LIMIT, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
        },
      ]),
    ),
  };
  const all = facetFilter();
  if (all.length) request.post_filter = { bool: { filter: all } };
  return request;
}

/** The store locator on Elasticsearch (`SEARCH_BACKEND=elasticsearch`); documents come from `StoreLocatorIndexer`. */
export class ElasticsearchStoreLocatorSearch implements StoreLocatorSearch {
  constructor(
    private readonly client: EsClient,
    private readonly execute: Execute,
    private readonly settings: ScoreSettings,
    private readonly index: string,
  ) {}

  async search(query: StoreLocatorQuery): Promise<StoreLocatorHits> {
    // The boosts are read at query time, so a boost change needs no reindex.
    const storeTypes = query.geo.kind === 'point' ? await storeTypeBoosts(this.execute, query.companyId) : [];
    const response = await engineSearch(() => this.client.search(elasticsearchRequest(this.index, query, this.settings, storeTypes)));
    return parseResponse(response);
  }
}

export function parseResponse(response: any): StoreLocatorHits {
  const aggs = {} as Record<Facet, AggResult>;
  for (const f of FACETS) {
    const terms = response.aggregations?.[f]?.values ?? { buckets: [], sum_other_doc_count: 0 };
    aggs[f] = {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: terms.sum_other_doc_count ?? 0,
      buckets: terms.buckets.map((b: any) => ({ key: b.key, doc_count: b.doc_count })),
    };
  }
  const total = response.hits.total;
  return {
    ids: response.hits.hits.map((h: any) => h._id as string),
    total: typeof total === 'number' ? total : total.value,
    aggs,
  };
}

/**
 * The documents of the stores the locator lists among these CRLs (both lead flags on and a real position,
 * as `store_locator_entries` in PostgreSQL), by id. The others are left out, so the outbox indexer
 * deletes them from the index.
 */
export async function storeDocuments(execute: Execute, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (!ids.length) return out;
  for (const row of await documentRows(execute, ids)) {
    const doc = toDocument(row);
    if (doc.sending_leads === true && doc.receiving_leads === true && doc.location) out.set(row.id, doc);
  }
  return out;
}

/**
 * Writes store documents straight to one index (the Elasticsearch conformance suite, one-off tools).
 * The running system keeps the index in step through the search outbox instead (`storeLocatorSearch`
 * in `store-locator.search.ts`, `src/search/elasticsearch/`).
 */
export class StoreLocatorIndexer {
  constructor(
    private readonly client: EsClient,
    private readonly execute: Execute,
    private readonly index: string,
  ) {}

  async ensureIndex(): Promise<void> {
    if (await this.client.indices.exists({ index: this.index })) return;
    // Durable like every index the service creates (the definition's version leaves it out).
    const definition = { ...STORE_LOCATOR_INDEX, settings: { ...STORE_LOCATOR_INDEX.settings, ...DURABLE } };
    await createIndexOnce(() => this.client.indices.create({ index: this.index, ...definition }));
  }

  /** Indexes the given CRLs and removes the documents of those that no longer exist. */
  async sync(ids: string[], refresh: boolean | 'wait_for' = false): Promise<void> {
    if (!ids.length) return;
    const rows = await documentRows(this.execute, ids);
    const found = new Set(rows.map((r) => r.id as string));
    await this.write(rows, ids.filter((id) => !found.has(id)), refresh);
  }

  async reindexCompany(companyId: string, refresh: boolean | 'wait_for' = false): Promise<void> {
    await this.write(await companyDocumentRows(this.execute, companyId), [], refresh);
  }

  private async write(rows: any[], deleted: string[], refresh: boolean | 'wait_for'): Promise<void> {
    const operations: unknown[] = [];
    for (const row of rows) operations.push({ index: { _index: this.index, _id: row.id } }, toDocument(row));
    for (const id of deleted) operations.push({ delete: { _index: this.index, _id: id } });
    if (!operations.length) return;
    const response = await this.client.bulk({ operations, refresh });
    if (response.errors) {
      const failed = response.items.find((i: any) => (i.index ?? i.delete)?.error && (i.delete?.status !== 404));
      if (failed) throw new Error(`Store locator indexing failed: ${JSON.stringify(failed)}`);
    }
  }
}

export function toDocument(row: any): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    id: row.id,
    company_id: row.company_id,
    sending_leads: row.sending_leads,
    receiving_leads: row.receiving_leads,
    city: row.city ?? null,
    province: row.province ?? null,
    country: row.country ?? null,
    store_type: row.store_type ?? null,
    store_type_id: row.store_type_id ?? null,
  };
  const lat = row.latitude === null || row.latitude === undefined ? NaN : Number(row.latitude);
  const lon = row.longitude === null || row.longitude === undefined ? NaN : Number(row.longitude);
  // As in PostgreSQL's read model, only a real position places a store.
  if (Math.abs(lat) <= 90 && Math.abs(lon) <= 180) doc.location = { lat, lon };
  for (const f of PRODUCT_FIELDS) doc[f] = row[f] ?? [];
  return doc;
}

/** Adapts the official client (`@elastic/elasticsearch`) to `EsClient`. */
export function esClient(client: {
  search(r: any): Promise<any>;
  bulk(r: any): Promise<any>;
  indices: { exists(r: any): Promise<boolean>; create(r: any): Promise<any>; delete(r: any): Promise<any>; refresh(r: any): Promise<any> };
}): EsClient {
  return {
    search: (r) => client.search(r),
    bulk: (r) => client.bulk(r),
    indices: {
      exists: (r) => client.indices.exists(r),
      create: (r) => client.indices.create(r),
      delete: (r) => client.indices.delete(r),
      refresh: (r) => client.indices.refresh(r),
    },
  };
}
