import { readFileSync } from 'node:fs';

/**
 * The centroids of US ZIP codes and Canadian forward sortation areas that the `zipcodes` package ships,
 * read from its data files as JSON on first use. Requiring the package compiles its 5 MB object literal
 * (about 80 MB of the process's memory, kept); parsing the same data as JSON costs a third of that and
 * keeps only the coordinates. The package's own module is the fallback should its files change shape.
 */
let centroids: Map<string, { latitude: number; longitude: number }> | undefined;

function load(): Map<string, { latitude: number; longitude: number }> {
  const map = new Map<string, { latitude: number; longitude: number }>();
  let codes: Record<string, { latitude: number; longitude: number }>[];
  try {
    codes = ['zipcodes/lib/codes.js', 'zipcodes/lib/codesCanada.js'].map((file) => {
      // Each file is `exports.codes = {...};` then `exports.stateMap = {...};`, both JSON literals.
      const text = readFileSync(require.resolve(file), 'utf8');
      const end = text.lastIndexOf('}', text.indexOf('exports.stateMap')) + 1;
      return JSON.parse(text.slice(text.indexOf('{'), end));
    });
  } catch {
    codes = [(require('zipcodes') as typeof import('zipcodes')).codes];
  }
  for (const byCode of codes) for (const [code, place] of Object.entries(byCode)) map.set(code, { latitude: place.latitude, longitude: place.longitude });
  return map;
}

/**
 * Reads the centroids now (about 6 MB kept, some 25 MB while the files are parsed): the offline geocoder
 * does it when it is made, at start, so that the first postal code of some request never pays for it.
 */
export function loadPostalCentroids(): void {
  centroids ??= load();
}

/** Whether the centroids were read (for tests). */
export function postalCentroidsLoaded(): boolean {
  return centroids !== undefined;
}

/** The centroid of a 5-digit US ZIP code or a 3-character Canadian FSA (`zipcodes.lookup`). */
export function postalCentroid(code: string): { latitude: number; longitude: number } | undefined {
  centroids ??= load();
  return centroids.get(/^\d/.test(code) ? code : code.slice(0, 3));
}
