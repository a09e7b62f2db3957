import { boxCentre, boxRadius, haversine, inBox, MAX_DISTANCE_M, parseDistance } from '../../src/geo/distance';
import { InvalidSearchParameters, parseStoreLocatorParams } from '../../src/modules/store-locator/store-locator.params';

describe('parseDistance', () => {
  test.each([
    ['50mi', 50 * 1609.344],
    ['2 miles', 2 * 1609.344],
    ['25km', 25_000],
    ['300m', 300],
    ['100yd', 91.44],
    ['1000ft', 304.8],
    ['12in', 0.3048],
    ['3NM', 5556],
    ['3nmi', 5556],
    ['1200', 1200],
    ['0.5km', 500],
    ['.5km', 500],
    [' 7 km ', 7000],
  ])('%s', (text, metres) => {
    expect(parseDistance(text)).toBeCloseTo(metres, 9);
  });

  test.each(['', 'km', '-5km', '5 parsecs', '5KM', '5Mi', '1e3', '5km5', '0x10m', 'Infinity', 'NaN', '5 km km', 'constructor', '5constructor', '5toString'])(
    '%p is not a distance',
    (text) => {
      expect(parseDistance(text)).toBeNull();
    },
  );

  test('not a string', () => {
    expect(parseDistance(5)).toBeNull();
    expect(parseDistance(['5km'])).toBeNull();
  });
});

describe('box geometry', () => {
  const box = { north: 46, south: 44, west: -124, east: -120 };
  test('centre and covering radius', () => {
    expect(boxCentre(box)).toEqual({ latitude: 45, longitude: -122 });
    const r = boxRadius(box);
    for (const corner of [{ latitude: 46, longitude: -124 }, { latitude: 44, longitude: -120 }]) {
      expect(haversine(boxCentre(box), corner)).toBeLessThanOrEqual(r);
    }
  });
  test('the covering radius holds every point of the box, also when the farthest is mid-edge', () => {
    for (const b of [box, { north: 80, south: -80, west: -85, east: 85 }, { north: 10, south: -70, west: 170, east: -100 }]) {
      const c = boxCentre(b);
      const r = boxRadius(b, c);
      const width = b.west <= b.east ? b.east - b.west : 360 - b.west + b.east;
      for (let i = 0; i <= 40; i++) {
        for (let j = 0; j <= 40; j++) {
          const p = { latitude: b.south + ((b.north - b.south) * i) / 40, longitude: ((b.west + (width * j) / 40 + 540) % 360) - 180 };
          expect(inBox(b, p)).toBe(true);
          expect(haversine(c, p)).toBeLessThanOrEqual(r + 1e-6);
        }
      }
    }
  });
  test('across the antimeridian', () => {
    const pacific = { north: 11, south: 9, west: 179, east: -179 };
    expect(boxCentre(pacific).longitude).toBeCloseTo(180, 9);
    expect(inBox(pacific, { latitude: 10, longitude: -179.5 })).toBe(true);
    expect(inBox(pacific, { latitude: 10, longitude: 0 })).toBe(false);
    expect(boxRadius({ north: 10, south: -10, west: -100, east: 100 })).toBe(MAX_DISTANCE_M);
  });
});

describe('parseStoreLocatorParams', () => {
  const point = { latitude: '45', longitude: '-122' };
  const box = { top_left_latitude: '46', top_left_longitude: '-123', bottom_right_latitude: '45', bottom_right_longitude: '-122' };

  test('point search with defaults', () => {
    expect(parseStoreLocatorParams(point)).toEqual({
      geo: { kind: 'point', origin: { latitude: 45, longitude: -122 }, radius: 1000 * 1609.344 },
      unit: { name: 'mi', metres: 1609.344 },
      openNow: false,
      facets: {},
      products: [],
      page: 1,
      perPage: 15,
    });
  });

  test('additions: address (a point to geocode, wins over a box), open_now, the distance unit', () => {
    expect(parseStoreLocatorParams({ address: ' 97205 ', radius: '10km', ...box }).geo).toEqual({ kind: 'address', text: '97205', radius: 10_000 });
    expect(parseStoreLocatorParams({ address: 'x', ...point }).geo.kind).toBe('point');
    expect(parseStoreLocatorParams({ ...point, open_now: 'TRUE' }).openNow).toBe(true);
    expect(parseStoreLocatorParams({ ...point, open_now: '0' }).openNow).toBe(false);
    expect(() => parseStoreLocatorParams({ ...point, open_now: 'si' })).toThrow(expect.objectContaining({ parameter: 'open_now' }));
    expect(() => parseStoreLocatorParams({ address: ['a', 'b'] })).toThrow(expect.objectContaining({ parameter: 'address' }));
    expect(() => parseStoreLocatorParams({ latitude: '45' })).toThrow(expect.objectContaining({ parameter: undefined }));
    const unit = (radius?: string) => parseStoreLocatorParams({ ...point, ...(radius === undefined ? {} : { radius }) }).unit.name;
    expect([unit(), unit('5mi'), unit('5miles'), unit('5 km'), unit('5'), unit('5NM'), unit('5nmi'), unit('5yd')]).toEqual(['mi', 'mi', 'mi', 'km', 'm', 'nmi', 'nmi', 'yd']);
  });

  test('box search: 500 per page whatever per_page says', () => {
    const parsed = parseStoreLocatorParams({ ...box, per_page: 'junk', page: '2' });
    expect(parsed).toMatchObject({ geo: { kind: 'box', box: { north: 46, west: -123, south: 45, east: -122 } }, perPage: 500, page: 2 });
  });

  test('a full point wins over any box', () => {
    expect(parseStoreLocatorParams({ ...point, ...box }).geo.kind).toBe('point');
    expect(parseStoreLocatorParams({ ...point, top_left_latitude: '1' }).geo.kind).toBe('point');
  });

  test('blank values are absent', () => {
    expect(parseStoreLocatorParams({ ...point, radius: '', per_page: ' ', page: '', city: '' })).toMatchObject({ perPage: 15, page: 1, facets: {} });
    expect(() => parseStoreLocatorParams({ latitude: '', longitude: '' })).toThrow(InvalidSearchParameters);
  });

  test('radius beyond half the earth is the whole earth', () => {
    expect(parseStoreLocatorParams({ ...point, radius: '99999km' }).geo).toMatchObject({ radius: MAX_DISTANCE_M });
  });

  test('facet filters: one or many values, deduplicated, trimmed', () => {
    expect(parseStoreLocatorParams({ ...point, city: ['Portland', ' Portland ', 'Salem'], store_type: 'Dealer', 'country[]': ['US'] }).facets).toEqual({
      city: ['Portland', 'Salem'],
      store_type: ['Dealer'],
      country: ['US'],
    });
  });

  test('product filters: kinds, precedence of collections, non-UUIDs dropped', () => {
    const id = '6f1c1a5e-0d0a-4b8e-9b2e-0c1d2e3f4a5b';
    const parsed = parseStoreLocatorParams({
      ...point,
      stocked_product_ids: [id.toUpperCase(), 'nope'],
      stocked_product_skus: 'S-1',
      stocked_product_external_ids: ['E-1'],
      stocked_product_collection_ids: { 0: id },
      available_product_skus: ['S-2', 'S-3'],
      available_product_external_ids: 'E-2',
      available_product_collection_ids: ['nope'],
    });
    expect(parsed.products).toEqual([
      { kind: 'stocked', key: 'id', values: [id] },
      { kind: 'stocked', key: 'collection_id', values: [id] },
      { kind: 'available', key: 'collection_id', values: [] },
    ]);
    expect(parseStoreLocatorParams({ ...point, available_product_skus: ['S-2', 'S-3'], available_product_external_ids: 'E-2' }).products).toEqual([
      { kind: 'available', key: 'sku', values: ['S-2', 'S-3'] },
      { kind: 'available', key: 'external_id', values: ['E-2'] },
    ]);
  });

  test.each<[string, Record<string, unknown>]>([
    ['nothing', {}],
    ['partial point', { latitude: '45' }],
    ['partial box', { top_left_latitude: '46', top_left_longitude: '-123', bottom_right_latitude: '45' }],
    ['inverted box', { ...box, top_left_latitude: '44' }],
    ['bad radius', { ...point, radius: '5 leagues' }],
    ['array latitude', { latitude: ['45'], longitude: '-122' }],
    ['page 0', { ...point, page: '0' }],
    ['per_page 0', { ...point, per_page: '0' }],
    ['nested filter', { ...point, city: { a: { b: 'c' } } }],
    ['a filter as a keyed object', { ...point, stocked_product_ids: { a: 'x' } }],
    ['a box parameter the point leaves unread, as an object', { ...point, top_left_latitude: { a: '1' } }],
    ['an unread address, repeated', { ...point, address: ['a', 'b'] }],
  ])('%s is invalid', (_label, query) => {
    expect(() => parseStoreLocatorParams(query)).toThrow(InvalidSearchParameters);
  });
});
