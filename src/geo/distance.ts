/** Mean earth radius in metres, the one Elasticsearch's `arc` distance uses (PRODUCT.md section 7). */
export const EARTH_RADIUS_M = 6_371_008.7714;

/** Half the circumference: no two points on earth are farther apart. */
export const MAX_DISTANCE_M = Math.PI * EARTH_RADIUS_M;

/** Metres per unit of the distance suffixes PRODUCT.md section 7 accepts. */
export const DISTANCE_UNITS: Readonly<Record<string, number>> = {
  mi: 1609.344,
  miles: 1609.344,
  km: 1000,
  m: 1,
  yd: 0.9144,
  ft: 0.3048,
  in: 0.0254,
  NM: 1852,
  nmi: 1852,
};

const DISTANCE = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*$/;

/**
 * `50mi`, `25 km`, `1200` (a bare number is metres) -> metres (Infinity when the number overflows); null for
 * anything else (negative, unknown unit, exponent, empty). Units are case-sensitive, as in Elasticsearch.
 */
export function parseDistance(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const match = DISTANCE.exec(text);
  if (!match) return null;
  const [, amount, unit] = match;
  if (unit !== '' && !Object.hasOwn(DISTANCE_UNITS, unit)) return null;
  return Number(amount) * (unit === '' ? 1 : DISTANCE_UNITS[unit]);
}

export interface LatLng {
  latitude: number;
  longitude: number;
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in metres (haversine on the mean radius). */
export function haversine(a: LatLng, b: LatLng): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLng = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** A latitude/longitude rectangle; `west > east` means it crosses the antimeridian. */
export interface GeoBox {
  north: number;
  south: number;
  west: number;
  east: number;
}

/** Longitude span of a box in degrees, 0..360. */
export function boxWidth(box: GeoBox): number {
  return box.west <= box.east ? box.east - box.west : 360 - box.west + box.east;
}

/** The centre of a box: mid latitude, mid longitude along the box (across the antimeridian if it does). */
export function boxCentre(box: GeoBox): LatLng {
  let longitude = box.west + boxWidth(box) / 2;
  if (longitude > 180) longitude -= 360;
  return { latitude: (box.north + box.south) / 2, longitude };
}

/**
 * The radius of a circle around `centre` holding the whole box: the largest distance to any of its points.
 * On a parallel the distance grows with the longitude difference, so the farthest point of the box lies on
 * one of its two meridian edges: at a corner, or where the distance along that meridian peaks.
 */
export function boxRadius(box: GeoBox, centre: LatLng = boxCentre(box)): number {
  if (boxWidth(box) >= 180) return MAX_DISTANCE_M;
  const phiC = rad(centre.latitude);
  let max = 0;
  for (const longitude of [box.west, box.east]) {
    const dLng = rad(longitude - centre.longitude);
    const candidates = [box.north, box.south];
    // cos d = sin(phiC) sin(phi) + cos(phiC) cos(phi) cos(dLng) is smallest (d largest) at this phi.
    const a = Math.sin(phiC);
    const b = Math.cos(phiC) * Math.cos(dLng);
    const peak = (Math.atan2(-a, -b) * 180) / Math.PI;
    for (const p of [peak, peak + 360, peak - 360]) if (p > box.south && p < box.north) candidates.push(p);
    for (const latitude of candidates) max = Math.max(max, haversine(centre, { latitude, longitude }));
  }
  return max;
}

/** Whether a point lies in the box (edges included). */
export function inBox(box: GeoBox, p: LatLng): boolean {
  if (p.latitude > box.north || p.latitude < box.south) return false;
  return box.west <= box.east ? p.longitude >= box.west && p.longitude <= box.east : p.longitude >= box.west || p.longitude <= box.east;
}
