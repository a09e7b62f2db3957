import tzLookup from '@photostructure/tz-lookup';
import type { LatLng } from './distance';

/** The IANA zone at a point, from the boundary data shipped in `@photostructure/tz-lookup`; null if unknown. */
export function timezoneAt(point: LatLng): string | null {
  try {
    return tzLookup(point.latitude, point.longitude);
  } catch {
    return null;
  }
}
