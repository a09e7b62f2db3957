import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, query } from '../db/sql';
import { gazetteerCities, placeKey } from './city-table';

/** The `geo_city` table: one row per gazetteer place (the migration that fills it: `fillCityTable`). */
export const CREATE_CITY_TABLE = `create table "geo_city" (
  "id" integer primary key,
  "country" text not null,
  "key" text not null,
  "admin_code" text not null,
  "population" integer not null,
  "latitude" double precision not null,
  "longitude" double precision not null,
  "name" text not null
)`;

/** Places inserted per statement: a few hundred kB of parameters, not one statement of 138,000 rows. */
export const CITY_BATCH = 5000;

/**
 * Inserts every gazetteer place into `geo_city` in batches of `batch` rows, each one statement of
 * seven array parameters (`unnest`), then indexes and analyses the table. `id` is the place's position
 * in the file: the lookup's tie-break (of two places as populous, the first) is the in-memory table's.
 * `run` sends one statement with its `?` values. Returns the number of places.
 */
export async function fillCityTable(run: (sql: string, values: unknown[]) => Promise<unknown>, batch = CITY_BATCH): Promise<number> {
  const insert = `insert into "geo_city" ("id", "country", "key", "admin_code", "population", "latitude", "longitude", "name")
    select * from unnest(?::integer[], ?::text[], ?::text[], ?::text[], ?::integer[], ?::float8[], ?::float8[], ?::text[])`;
  let columns = emptyColumns();
  let id = 0;
  const flush = async () => {
    if (!columns.id.length) return;
    const c = columns;
    columns = emptyColumns();
    await run(insert, [numbers(c.id), pgArray(c.country), pgArray(c.key), pgArray(c.adminCode), numbers(c.population), numbers(c.latitude), numbers(c.longitude), pgArray(c.name)]);
  };
  for (const city of gazetteerCities()) {
    columns.id.push(++id);
    columns.country.push(city.country);
    columns.key.push(placeKey(city.name));
    // Matched against an upper-cased province code (`OR`, or `08` for Ontario), as the in-memory table was.
    columns.adminCode.push(city.adminCode.toUpperCase());
    columns.population.push(city.population);
    columns.latitude.push(city.latitude);
    columns.longitude.push(city.longitude);
    columns.name.push(city.name);
    if (columns.id.length >= batch) await flush();
  }
  await flush();
  await run(`create index "geo_city_lookup" on "geo_city" ("country", "key")`, []);
  await run(`analyze "geo_city"`, []);
  return id;
}

const emptyColumns = () => ({
  id: [] as number[],
  country: [] as string[],
  key: [] as string[],
  adminCode: [] as string[],
  population: [] as number[],
  latitude: [] as number[],
  longitude: [] as number[],
  name: [] as string[],
});

/** An integer or float8 array literal; `String` of a double reads back as the same double. */
const numbers = (values: readonly number[]) => `{${values.join(',')}}`;

/** The place a city lookup found, and whether it lies in the province asked for. */
export interface CityMatch {
  latitude: number;
  longitude: number;
  inProvince: boolean;
}

/** `findCity`'s statement; its values: the province's code (or null), the country, the key, the code again. */
export const FIND_CITY = `select "latitude", "longitude", "admin_code" = ?::text as "in_province" from "geo_city"
  where "country" = ? and "key" = ? order by "admin_code" = ?::text desc, "population" desc, "id" limit 1`;

/**
 * The most populous place of `geo_city` named `key` (`placeKey`) in `country`, one indexed statement:
 * with `admin` (an upper-cased province code), one in that province first, else the most populous of
 * any. Of places as populous, the first of the gazetteer. Runs in the transaction of `em`'s context
 * when there is one (a write geocoding its address), else on a pooled connection.
 */
export async function findCity(em: EntityManager, country: string, key: string, admin: string | null): Promise<CityMatch | null> {
  const rows = await query<{ latitude: number; longitude: number; in_province: boolean | null }>(em, FIND_CITY, [admin, country, key, admin]);
  const row = rows[0];
  return row ? { latitude: row.latitude, longitude: row.longitude, inProvince: row.in_province === true } : null;
}
