import { EARTH_RADIUS_M, haversine, type LatLng } from '../../geo/distance';

/** Cells a degree per axis: half-degree cells, as the generated `store_locator_entries.cell`. */
const PER_DEGREE = 2;
/** Longitude indexes per latitude row in a cell number. */
const ROW = 1024;
/** Metres of slack on every cell test, far above the rounding of a distance on earth. */
const SLACK_M = 1;

/** The cell number of a point, as the column `store_locator_entries.cell` computes it. */
export function cellOf(point: LatLng): number {
  return Math.floor((point.latitude + 90) * PER_DEGREE) * ROW + Math.floor((point.longitude + 180) * PER_DEGREE);
}

/** Consecutive cell numbers `lo..hi` of one latitude row. */
export interface CellRange {
  lo: number;
  hi: number;
}

export interface CircleCells {
  /** Every store in these cells is within the circle. */
  inside: CellRange[];
  /** The cells the circle's edge may cut: their stores are checked one by one. */
  cut: CellRange[];
}

/**
 * The cells of the circle of `radius` metres around `origin`: those wholly inside it and those its edge
 * may cut (every other cell lies wholly outside). Null when the circle reaches a pole or the antimeridian,
 * or is too wide for corner tests (a cell's farthest point from the origin is one of its corners when the
 * cell is far from the antipode).
 */
export function circleCells(origin: LatLng, radius: number, maxRadius: number): CircleCells | null {
  if (!(radius <= maxRadius)) return null;
  const angle = radius / EARTH_RADIUS_M;
  const spanLat = (angle * 180) / Math.PI;
  if (Math.abs(origin.latitude) + spanLat >= 89) return null;
  const spanLng = (Math.asin(Math.min(1, Math.sin(angle) / Math.cos((origin.latitude * Math.PI) / 180))) * 180) / Math.PI;
  const west = origin.longitude - spanLng - 1 / PER_DEGREE;
  const east = origin.longitude + spanLng + 1 / PER_DEGREE;
  if (west <= -180 || east >= 180) return null;

  const row0 = Math.floor((origin.latitude - spanLat + 90) * PER_DEGREE) - 1;
  const row1 = Math.floor((origin.latitude + spanLat + 90) * PER_DEGREE) + 1;
  const col0 = Math.floor((west + 180) * PER_DEGREE);
  const col1 = Math.floor((east + 180) * PER_DEGREE);
  const lat = (row: number) => row / PER_DEGREE - 90;
  const lng = (col: number) => col / PER_DEGREE - 180;
  // Distances from the origin to the grid's corners, one row of corners at a time.
  const cornerRow = (row: number) => Array.from({ length: col1 - col0 + 2 }, (_, k) => haversine(origin, { latitude: lat(row), longitude: lng(col0 + k) }));
  const inside: CellRange[] = [];
  const cut: CellRange[] = [];
  let south = cornerRow(row0);
  for (let row = row0; row <= row1; row++) {
    const north = cornerRow(row + 1);
    const centreLat = lat(row) + 0.5 / PER_DEGREE;
    // The farthest point of a cell from its centre is a corner, the same for every cell of the row.
    const reach = Math.max(
      haversine({ latitude: centreLat, longitude: 0 }, { latitude: lat(row), longitude: 0.5 / PER_DEGREE }),
      haversine({ latitude: centreLat, longitude: 0 }, { latitude: lat(row + 1), longitude: 0.5 / PER_DEGREE }),
    );
    const kinds = Array.from({ length: col1 - col0 + 1 }, (_, k): 'inside' | 'cut' | null => {
      const farthest = Math.max(south[k], south[k + 1], north[k], north[k + 1]);
      if (farthest <= radius - SLACK_M) return 'inside';
      const centre = { latitude: centreLat, longitude: lng(col0 + k) + 0.5 / PER_DEGREE };
      return haversine(origin, centre) - reach > radius + SLACK_M ? null : 'cut';
    });
    // Runs of one kind become ranges of cell numbers.
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[k];
      if (!kind) continue;
      let end = k;
      while (end + 1 < kinds.length && kinds[end + 1] === kind) end++;
      (kind === 'inside' ? inside : cut).push({ lo: row * ROW + col0 + k, hi: row * ROW + col0 + end });
      k = end;
    }
    south = north;
  }
  return { inside, cut };
}
