import { boxCentre, boxWidth, type GeoBox, type LatLng } from '../../geo/distance';

/**
 * The coarse cells searches are kept in: a grid of 0.1 degree per axis (about 11 km north-south, and
 * 11 km times the cosine of the latitude east-west: 7.8 km at Lyon, 6.4 km at Oslo). A cell is a town
 * or a city's district; no kept row says more of where a visitor looked (docs/locator-demand.md).
 */
export const CELLS_PER_DEGREE = 10;
export const CELL_DEGREES = 1 / CELLS_PER_DEGREE;
const LAT_CELLS = 180 * CELLS_PER_DEGREE;
const LNG_CELLS = 360 * CELLS_PER_DEGREE;

/** A cell by its row (south to north) and column (west to east). */
export interface Cell {
  lat: number;
  lng: number;
}

/** The cell holding a point (the north pole and the antimeridian's east side fall in the last row or column). */
export function cellOf(point: LatLng): Cell {
  const clamp = (v: number, n: number) => Math.min(n - 1, Math.max(0, v));
  return {
    lat: clamp(Math.floor((point.latitude + 90) * CELLS_PER_DEGREE), LAT_CELLS),
    lng: clamp(Math.floor((point.longitude + 180) * CELLS_PER_DEGREE), LNG_CELLS),
  };
}

/** The cell's bounds and centre, in degrees. */
export function cellBounds(cell: Cell): { south: number; west: number; north: number; east: number; centre: LatLng } {
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  const south = round(cell.lat / CELLS_PER_DEGREE - 90);
  const west = round(cell.lng / CELLS_PER_DEGREE - 180);
  const north = round(south + CELL_DEGREES);
  const east = round(west + CELL_DEGREES);
  return { south, west, north, east, centre: { latitude: round(south + CELL_DEGREES / 2), longitude: round(west + CELL_DEGREES / 2) } };
}

/** The cell rows and columns a box reaches (a box across the antimeridian: west > east). */
export function cellRange(box: { south: number; west: number; north: number; east: number }): { lat: [number, number]; lng: [number, number]; wraps: boolean } {
  const sw = cellOf({ latitude: box.south, longitude: box.west });
  const ne = cellOf({ latitude: box.north, longitude: box.east });
  return { lat: [sw.lat, ne.lat], lng: [sw.lng, ne.lng], wraps: box.west > box.east };
}

/**
 * A box search is kept at its centre only when it looks like a place: at most this many degrees across
 * either axis (about 110 km). Wider boxes (the finder's first look at the whole network, a map zoomed out
 * over a country) say nothing of where a visitor is, and are not counted.
 */
export const MAX_BOX_DEGREES = 1;

/** The point a box search is kept at, or null when it is too wide to say anything. */
export function boxPlace(box: GeoBox): LatLng | null {
  if (!(box.north - box.south <= MAX_BOX_DEGREES) || !(boxWidth(box) <= MAX_BOX_DEGREES)) return null;
  return boxCentre(box);
}

/** The nearest-result distance buckets, upper bounds in metres; beyond the last is `over_100km`. */
export const NEAREST_BUCKETS = [5_000, 10_000, 25_000, 50_000, 100_000] as const;

/** The bucket index of a nearest distance (0..5). */
export function nearestBucket(metres: number): number {
  const i = NEAREST_BUCKETS.findIndex((b) => metres < b);
  return i === -1 ? NEAREST_BUCKETS.length : i;
}
