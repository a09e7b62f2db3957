import {
  ElasticsearchStoreLocatorSearch,
  elasticsearchRequest,
  parseResponse,
  STORE_LOCATOR_INDEX,
  StoreLocatorIndexer,
  type EsClient,
} from '../../src/modules/store-locator/store-locator.elasticsearch';
import type { StoreLocatorQuery } from '../../src/modules/store-locator/store-locator.types';

const settings = { scaleMeters: 8046.72, offsetMeters: 0, decay: 0.5 };
const company = '11111111-1111-4111-8111-111111111111';
const base: StoreLocatorQuery = {
  companyId: company,
  geo: { kind: 'point', origin: { latitude: 45.5, longitude: -122.6 }, radius: 80467.2 },
  facets: {},
  products: [],
  page: 1,
  perPage: 15,
};
const agg = (field: string, filter: unknown[] = []) => ({
  filter: { bool: { filter } },
  aggs: { values: { terms: { field, size: 1000, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
});
const fixed = [
  { term: { company_id: company } },
  { term: { sending_leads: true } },
  { term: { receiving_leads: true } },
  { exists: { field: 'location' } },
];

describe('elasticsearchRequest', () => {
  test('point search: geo_distance filter, gauss plus store type weights summed, score then distance then id', () => {
    const body = elasticsearchRequest('stores', base, settings, [
      { id: 'flag', boost: 2 },
      { id: 'dealer', boost: 1 },
      { id: 'plain', boost: 0 },
    ]);
    expect(body).toEqual({
      index: 'stores',
      from: 0,
      size: 15,
      track_total_hits: true,
      _source: false,
      query: {
        function_score: {
          query: { bool: { filter: [...fixed, { geo_distance: { distance: '80467.2m', distance_type: 'arc', location: { lat: 45.5, lon: -122.6 } } }] } },
          functions: [
            { gauss: { location: { origin: { lat: 45.5, lon: -122.6 }, scale: '8046.72m', offset: '0m', decay: 0.5 } } },
            { filter: { term: { store_type_id: 'flag' } }, weight: 2 },
            { filter: { term: { store_type_id: 'dealer' } }, weight: 1 },
          ],
          score_mode: 'sum',
          boost_mode: 'replace',
        },
      },
      sort: [
        { _score: { order: 'desc' } },
        { _geo_distance: { location: { lat: 45.5, lon: -122.6 }, order: 'asc', unit: 'm', distance_type: 'arc' } },
        { id: { order: 'asc' } },
      ],
      aggs: { city: agg('city'), province: agg('province'), country: agg('country'), store_type: agg('store_type') },
    });
  });

  test('box search: geo_bounding_box, ordered by distance from the centre (across the antimeridian too)', () => {
    const body = elasticsearchRequest('stores', { ...base, geo: { kind: 'box', box: { north: 11, south: 9, west: 179, east: -179 } }, perPage: 500, page: 2 }, settings, []);
    expect(body.query).toEqual({
      bool: {
        filter: [...fixed, { geo_bounding_box: { location: { top_left: { lat: 11, lon: 179 }, bottom_right: { lat: 9, lon: -179 } } } }],
      },
    });
    expect(body.sort).toEqual([
      { _geo_distance: { location: { lat: 10, lon: 180 }, order: 'asc', unit: 'm', distance_type: 'arc' } },
      { id: { order: 'asc' } },
    ]);
    expect(body).toMatchObject({ from: 500, size: 500 });
  });

  test('facet filters go to post_filter; each aggregation applies all but its own', () => {
    const body = elasticsearchRequest('stores', { ...base, facets: { city: ['Portland'], store_type: ['Dealer', 'Flagship'] } }, settings, []);
    const city = { terms: { city: ['Portland'] } };
    const type = { terms: { store_type: ['Dealer', 'Flagship'] } };
    expect(body.post_filter).toEqual({ bool: { filter: [city, type] } });
    expect(body.aggs).toEqual({
      city: agg('city', [type]),
      province: agg('province', [city, type]),
      country: agg('country', [city, type]),
      store_type: agg('store_type', [city]),
    });
  });

  test('product filters are terms on per-kind fields, ANDed; an empty one matches nothing', () => {
    const body: any = elasticsearchRequest(
      'stores',
      {
        ...base,
        geo: { ...base.geo, radius: Number.MAX_VALUE } as any,
        products: [
          { kind: 'stocked', key: 'collection_id', values: ['c1', 'c2'] },
          { kind: 'available', key: 'sku', values: ['S-1'] },
          { kind: 'available', key: 'id', values: [] },
        ],
      },
      settings,
      [],
    );
    expect(body.query.function_score.query.bool.filter).toEqual([
      ...fixed,
      { terms: { stocked_product_collection_ids: ['c1', 'c2'] } },
      { terms: { available_product_skus: ['S-1'] } },
      { match_none: {} },
    ]);
  });

  test('an ids restriction (the open-now filter) is an ids query; an empty one matches nothing', () => {
    const filterOf = (body: any) => body.query.function_score.query.bool.filter;
    expect(filterOf(elasticsearchRequest('stores', { ...base, ids: ['a', 'b'] }, settings, []))).toContainEqual({ ids: { values: ['a', 'b'] } });
    expect(filterOf(elasticsearchRequest('stores', { ...base, ids: [] }, settings, []))).toContainEqual({ match_none: {} });
    expect(JSON.stringify(elasticsearchRequest('stores', base, settings, []))).not.toContain('"ids"');
  });

  test('pages beyond the result window ask for no hits (totals and facets still count)', () => {
    expect(elasticsearchRequest('stores', { ...base, page: 100_000 }, settings, [])).toMatchObject({ from: 0, size: 0 });
  });

  test('every product field is mapped as a keyword', () => {
    const props = STORE_LOCATOR_INDEX.mappings.properties as Record<string, { type: string }>;
    for (const kind of ['stocked', 'available']) {
      for (const key of ['ids', 'skus', 'external_ids', 'collection_ids']) expect(props[`${kind}_product_${key}`]).toEqual({ type: 'keyword' });
    }
    expect(props.location).toEqual({ type: 'geo_point' });
  });
});

describe('ElasticsearchStoreLocatorSearch', () => {
  const response = {
    hits: { total: { value: 42, relation: 'eq' }, hits: [{ _id: 'a' }, { _id: 'b' }] },
    aggregations: {
      city: { doc_count: 42, values: { doc_count_error_upper_bound: 0, sum_other_doc_count: 3, buckets: [{ key: 'Portland', doc_count: 39 }] } },
      province: { doc_count: 0, values: { buckets: [] } },
      country: { doc_count: 42, values: { sum_other_doc_count: 0, buckets: [{ key: 'US', doc_count: 42 }] } },
      store_type: { doc_count: 0, values: { buckets: [] } },
    },
  };

  test('reads boosts from the database, sends one search, maps the answer', async () => {
    const sent: any[] = [];
    const client = { search: async (r: any) => (sent.push(r), response) } as unknown as EsClient;
    const sql: unknown[][] = [];
    const execute = async (s: string, b: unknown[]) => (sql.push([s, b]), [{ id: 'flag', boost: '2' }]);
    const hits = await new ElasticsearchStoreLocatorSearch(client, execute, settings, 'stores').search(base);
    expect(sql).toHaveLength(1);
    expect(sent).toHaveLength(1);
    expect(sent[0].query.function_score.functions[1]).toEqual({ filter: { term: { store_type_id: 'flag' } }, weight: 2 });
    expect(hits).toEqual(parseResponse(response));
    expect(hits).toEqual({
      ids: ['a', 'b'],
      total: 42,
      aggs: {
        city: { doc_count_error_upper_bound: 0, sum_other_doc_count: 3, buckets: [{ key: 'Portland', doc_count: 39 }] },
        province: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
        country: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'US', doc_count: 42 }] },
        store_type: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
      },
    });
  });

  test('a box search needs no boosts', async () => {
    const execute = jest.fn(async () => []);
    const client = { search: async () => response } as unknown as EsClient;
    await new ElasticsearchStoreLocatorSearch(client, execute, settings, 'stores').search({ ...base, geo: { kind: 'box', box: { north: 1, south: 0, west: 0, east: 1 } } });
    expect(execute).not.toHaveBeenCalled();
  });
});

describe('StoreLocatorIndexer', () => {
  test('indexes found CRLs and deletes the documents of the missing ones, in one bulk request', async () => {
    const bulk: any[] = [];
    const client = { bulk: async (r: any) => (bulk.push(r), { errors: false, items: [] }) } as unknown as EsClient;
    const row = {
      id: 'a', company_id: 'c', sending_leads: true, receiving_leads: false, latitude: 45.5, longitude: -122.6, city: 'Portland', province: 'OR',
      country: 'US', store_type: 'Dealer', store_type_id: 't', stocked_product_ids: ['p1'], stocked_product_skus: ['S-1'],
      stocked_product_external_ids: [], stocked_product_collection_ids: ['c1'], available_product_ids: [], available_product_skus: [],
      available_product_external_ids: [], available_product_collection_ids: [],
    };
    const noPlace = { ...row, id: 'b', latitude: null, longitude: null };
    const impossible = { ...row, id: 'c', latitude: 95 };
    await new StoreLocatorIndexer(client, async () => [row, noPlace, impossible], 'stores').sync(['a', 'b', 'c', 'gone']);
    expect(bulk).toHaveLength(1);
    const [indexA, docA, indexB, docB, , docC, del] = bulk[0].operations;
    expect(docC).not.toHaveProperty('location');
    expect(indexA).toEqual({ index: { _index: 'stores', _id: 'a' } });
    expect(docA).toMatchObject({ id: 'a', location: { lat: 45.5, lon: -122.6 }, store_type: 'Dealer', stocked_product_ids: ['p1'], receiving_leads: false });
    expect(indexB).toEqual({ index: { _index: 'stores', _id: 'b' } });
    expect(docB).not.toHaveProperty('location');
    expect(del).toEqual({ delete: { _index: 'stores', _id: 'gone' } });
  });

  test('ensureIndex creates a missing index with the definition, durable (a translog synced per request)', async () => {
    const created: any[] = [];
    const client = {
      indices: { exists: async () => created.length > 0, create: async (r: any) => (created.push(r), { acknowledged: true }) },
    } as unknown as EsClient;
    const indexer = new StoreLocatorIndexer(client, async () => [], 'stores');
    await indexer.ensureIndex();
    await indexer.ensureIndex();
    expect(created).toEqual([
      { index: 'stores', mappings: STORE_LOCATOR_INDEX.mappings, settings: { ...STORE_LOCATOR_INDEX.settings, translog: { durability: 'request' } } },
    ]);
  });

  test('a failed bulk item is an error', async () => {
    const client = {
      bulk: async () => ({ errors: true, items: [{ index: { _id: 'a', status: 400, error: { type: 'mapper_parsing_exception' } } }] }),
    } as unknown as EsClient;
    await expect(new StoreLocatorIndexer(client, async () => [{ id: 'a' }], 'stores').sync(['a'])).rejects.toThrow(/indexing failed/);
  });
});
