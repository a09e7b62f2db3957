import type { AddressQuery, Coordinates, Geocoder } from '../../geo/geocoder';
import { countryCode, provinceCountry } from '../../geo/offline-geocoder';

const US_ZIP = /\b(\d{5})(?:-\d{4})?\b/;
const CA_POSTAL = /\b([A-Za-z]\d[A-Za-z])\s?(\d[A-Za-z]\d)?\b/;

/**
 * What a shopper typed in the `address` parameter, as the structured queries a geocoder takes, most
 * specific first:
 * - a US ZIP or Canadian postal code anywhere in the text (`97205`, `V6E 3P3`, `Portland, OR 97205`);
 * - else comma-separated parts read from the end: `city`, `city, province` (or `city, country` when the
 *   last part names a country and no province), `city, province, country`; a leading street is kept.
 * A text naming neither a country nor a US state or Canadian province is tried in each of `countries`
 * (the company's), since the offline gazetteer needs a country; the first place found wins.
 */
export function addressQueries(text: string, countries: string[]): AddressQuery[] {
  const queries: AddressQuery[] = [];
  const zip = US_ZIP.exec(text);
  const postal = CA_POSTAL.exec(text);
  let rest = text;
  if (zip) {
    queries.push({ postalCode: zip[1], country: 'US' });
    rest = rest.replace(zip[0], '');
  } else if (postal && /\d/.test(postal[0])) {
    queries.push({ postalCode: postal[0].toUpperCase(), country: 'CA' });
    rest = rest.replace(postal[0], '');
  }

  const parts = rest
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (!parts.length) return queries;
  let country: string | null = null;
  const last = parts[parts.length - 1];
  // `..., BC, CA`: after a province the last part is a country even when it also reads as one (CA).
  const afterProvince = parts.length >= 3 && provinceCountry(parts[parts.length - 2]) !== null;
  if (parts.length >= 2 && (afterProvince || !provinceCountry(last)) && countryCode(last)) {
    country = countryCode(last);
    parts.pop();
  }
  const province = parts.length >= 2 ? parts.pop()! : null;
  const city = parts.pop()!;
  const base: AddressQuery = { city, province, streetLineOne: parts.length ? parts.join(', ') : null };
  // A US state or Canadian province says the country; otherwise try the company's.
  const implied = province ? provinceCountry(province) : null;
  if (country || implied) queries.push({ ...base, country: country ?? implied });
  else for (const c of countries) queries.push({ ...base, country: c });
  return queries;
}

/** The first place the geocoder finds for the queries of `text`; null when none. */
export async function geocodeText(geocoder: Geocoder, text: string, countries: string[]): Promise<Coordinates | null> {
  for (const query of addressQueries(text, countries)) {
    const found = await geocoder.geocode(query);
    if (found) return found;
  }
  return null;
}
