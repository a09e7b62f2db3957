import { formatPhone as formatContactPhone } from '../contact/phone';

export interface AddressParts {
  street_line_one?: string | null;
  street_line_two?: string | null;
  city?: string | null;
  province?: string | null;
  postal_code?: string | null;
  country?: string | null;
}

const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/**
 * The single-line address of SPEC 2.7 (`address.string`): `street one, street two, city, province postal,
 * country`, blank parts left out, e.g. `1 Main St, Suite 2, Portland, OR 97205, US`.
 */
export function addressString(a: AddressParts): string {
  const region = [a.province, a.postal_code].filter(present).map((s) => s.trim()).join(' ');
  return [a.street_line_one, a.street_line_two, a.city, region, a.country]
    .filter(present)
    .map((s) => s.trim())
    .join(', ');
}

/**
 * `full_name`: the retailer's name and the store's, `Retailer - Store`. Just the store's name when it already
 * starts with the retailer's (or they are equal), and whichever is present when one is blank.
 */
export function fullName(retailerName: string | null | undefined, name: string | null | undefined): string | null {
  const r = present(retailerName) ? retailerName.trim() : '';
  const n = present(name) ? name.trim() : '';
  if (!r) return n || null;
  if (!n) return r;
  return n.toLowerCase().startsWith(r.toLowerCase()) ? n : `${r} - ${n}`;
}

/** International format of a stored (E.164) number; the stored text when it cannot be parsed. */
export function formatPhone(phoneNumber: string, countryCode: string | null | undefined): string {
  return formatContactPhone(phoneNumber, (countryCode || 'US').toUpperCase());
}

/**
 * A directions link for shoppers (Google Maps URLs, which open the app on phones): to the coordinates
 * when the store has them (exact), else to its formatted address; the place id pins the listing when
 * known. Null when there is neither.
 */
export function directionsUrl(
  coordinates: { latitude: number; longitude: number } | null,
  address: string | null,
  placeId: string | null,
): string | null {
  const destination = coordinates ? `${coordinates.latitude},${coordinates.longitude}` : present(address) ? address.trim() : null;
  if (!destination) return null;
  const params = new URLSearchParams({ api: '1', destination });
  if (present(placeId)) params.set('destination_place_id', placeId.trim());
  return `https://www.google.com/maps/dir/?${params}`;
}
