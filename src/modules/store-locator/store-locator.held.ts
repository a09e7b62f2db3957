import { EARTH_RADIUS_M, type LatLng } from '../../geo/distance';
import type { AggBucket, AggResult } from '../../search/types';
import type { CellRange, CircleCells } from './store-locator.cells';
import { FACET_LIMIT, FACETS, type Execute, type Facet } from './store-locator.types';
import { heldKeys, heldStoresPage } from './store-locator.repository';
import { registerCache, type CacheStats, type MeasuredCache } from '../../memory';

/** A copy is read again no sooner than this many times its last read's duration after it (writes in a burst cost one read). */
const RELOAD_SPACING = 10;
/** After a failed read, the copy is not tried again for this long. */
const RETRY_MS = 60_000;
/**
 * Metres within which a store is too close to the circle's edge to trust a distance computed here (the
 * database's sin, cos and asin may round differently in the last bit): the search's statement decides it.
 */
export const EDGE_BAND_M = 0.001;

/** Facet index in FACETS of the store types (counted by type id; the total counts every store here). */
const TYPE = FACETS.indexOf('store_type');

const RAD = Math.PI / 180;

/** Key numbers of one facet: every key in `C` order (a null key last). */
interface Keys {
  values: Array<string | null>;
  number: Map<string | null, number>;
}

/** Memory a copy's keys take, roughly: per key a string, a Map entry and an array slot. */
function keysBytes(keys: Keys[]): number {
  let bytes = 0;
  for (const k of keys) for (const v of k.values) bytes += 72 + 2 * (v?.length ?? 0);
  return bytes;
}

/** Bytes a copy being read takes per store (`HeldBuilder`'s arrays: cells, from, pairFrom, pairs, latitude, longitude, storeKeys). */
const BUILD_BYTES_PER_STORE = 4 + 4 + 4 + 32 + 8 + 8 + 16;

/** The keys of one facet, its non-null ones given in `C` order. */
function keysOf(ordered: string[]): Keys {
  const values: Array<string | null> = [...ordered, null];
  return { values, number: new Map(values.map((v, i) => [v, i])) };
}

/** The count sums of one circle, and its stores too near the edge to decide here. */
export interface CircleSums {
  counts: Int32Array;
  /** Indexes (into the held stores) of the stores within EDGE_BAND_M of the circle's edge. */
  near: number[];
  nearPoints: LatLng[];
}

/** The arrays of a copy, as `HeldBuilder` fills them (see the fields of `HeldStores`). */
interface HeldArrays {
  cells: Int32Array;
  from: Int32Array;
  pairFrom: Int32Array;
  pairs: Int32Array;
  latitude: Float64Array;
  longitude: Float64Array;
  storeKeys: Int32Array;
}

/**
 * A company's listed stores (`store_locator_entries`), all read at the company's version `version`
 * (`store_locator_versions`), so as one snapshot saw them. Held by cell: per cell its stores (position and
 * the key number of each facet) and its counts per key. Key numbers are global: facet by facet, each
 * facet's keys in `C` order then null.
 */
export class HeldStores {
  private readonly cells: Int32Array;
  /** Stores of `cells[i]`: `from[i]..from[i + 1]`; its count pairs (key, n): `pairs[2 * pairFrom[i]..2 * pairFrom[i + 1])`. */
  private readonly from: Int32Array;
  private readonly pairFrom: Int32Array;
  private readonly pairs: Int32Array;
  private readonly latitude: Float64Array;
  private readonly longitude: Float64Array;
  /** Per store, its key number of each facet: `storeKeys[4 * store + f]`. */
  private readonly storeKeys: Int32Array;
  /** First global key number of each facet. */
  private readonly first: number[];
  readonly size: number;
  /** Memory the copy takes: its arrays, and its keys roughly. */
  readonly bytes: number;

  constructor(
    readonly version: string,
    private readonly keys: Keys[],
    arrays: HeldArrays,
  ) {
    ({ cells: this.cells, from: this.from, pairFrom: this.pairFrom, pairs: this.pairs } = arrays);
    ({ latitude: this.latitude, longitude: this.longitude, storeKeys: this.storeKeys } = arrays);
    this.size = arrays.latitude.length;
    this.first = firstKeys(keys);
    this.bytes = Object.values(arrays).reduce((sum: number, a: Int32Array | Float64Array) => sum + a.byteLength, 0) + keysBytes(keys);
  }

  /** The store type ids held (for their names, read with each search). */
  get typeIds(): string[] {
    return this.keys[TYPE].values.filter((v): v is string => v !== null);
  }

  /** Index in `cells` of the first cell at or after `lo`. */
  private firstCell(lo: number): number {
    let i = 0;
    let j = this.cells.length;
    while (i < j) {
      const mid = (i + j) >> 1;
      if (this.cells[mid] < lo) i = mid + 1;
      else j = mid;
    }
    return i;
  }

  /**
   * The counts by key of the stores within `radius` metres of `origin`: the kept sums of the cells wholly
   * inside, and each store of the cells the edge cuts checked by the full scoring's haversine (the same
   * operations); a store within EDGE_BAND_M of the edge is left to the caller (`near`).
   */
  sum(cells: CircleCells, origin: LatLng, radius: number): CircleSums {
    const counts = new Int32Array(this.first[3] + this.keys[3].values.length);
    const { cells: list, from, pairFrom, pairs } = this;
    const each = (ranges: CellRange[], visit: (cellIndex: number) => void) => {
      for (const { lo, hi } of ranges) for (let i = this.firstCell(lo); i < list.length && list[i] <= hi; i++) visit(i);
    };
    each(cells.inside, (i) => {
      for (let p = 2 * pairFrom[i]; p < 2 * pairFrom[i + 1]; p += 2) counts[pairs[p]] += pairs[p + 1];
    });
    const near: number[] = [];
    const nearPoints: LatLng[] = [];
    const cosOrigin = Math.cos(origin.latitude * RAD);
    each(cells.cut, (i) => {
      for (let s = from[i]; s < from[i + 1]; s++) {
        const lat = this.latitude[s];
        const lng = this.longitude[s];
        // As haversineSql: 2 R asin(sqrt(least(1, sin²(Δlat/2) + cos(lat0) cos(lat) sin²(Δlng/2)))).
        const a = Math.sin(((lat - origin.latitude) * RAD) / 2);
        const b = Math.sin(((lng - origin.longitude) * RAD) / 2);
        const d = 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, a * a + cosOrigin * Math.cos(lat * RAD) * (b * b))));
        if (Math.abs(d - radius) <= EDGE_BAND_M) {
          near.push(s);
          nearPoints.push({ latitude: lat, longitude: lng });
        } else if (d <= radius) this.count(counts, s);
      }
    });
    return { counts, near, nearPoints };
  }

  /** Adds store `s` to `counts`. */
  count(counts: Int32Array, s: number): void {
    for (let f = 0; f < 4; f++) counts[this.storeKeys[4 * s + f]]++;
  }

  /**
   * The total and the facets of `counts`, as the full scoring gives them: buckets of the non-null keys
   * with a count, by count desc then key asc in `C` order, at most FACET_LIMIT; store types by name
   * (`typeNames`: id -> name; a type not named there has no bucket but counts in the total).
   */
  answer(counts: Int32Array, typeNames: Record<string, string>): { total: number; aggs: Record<Facet, AggResult> } {
    const aggs = {} as Record<Facet, AggResult>;
    const facet = (buckets: AggBucket[], all: number): AggResult => {
      const shown = buckets.reduce((sum, b) => sum + b.doc_count, 0);
      return { doc_count_error_upper_bound: 0, sum_other_doc_count: all - shown, buckets };
    };
    for (let f = 0; f < 3; f++) {
      const { values } = this.keys[f];
      const first = this.first[f];
      // The last key number is the null key: no bucket, not in `all`. Keys with a count, by count (a histogram).
      let all = 0;
      let top = 0;
      for (let k = 0; k < values.length - 1; k++) {
        all += counts[first + k];
        if (counts[first + k] > top) top = counts[first + k];
      }
      const histogram = new Int32Array(top + 1);
      for (let k = 0; k < values.length - 1; k++) histogram[counts[first + k]]++;
      // The smallest count a shown bucket can have: the FACET_LIMIT-th largest.
      let floor = top;
      for (let shown = histogram[top]; floor > 1 && shown < FACET_LIMIT; ) shown += histogram[--floor];
      const found: number[] = [];
      for (let k = 0; k < values.length - 1; k++) if (counts[first + k] >= Math.max(1, floor)) found.push(k);
      // Key numbers follow `C` order: count desc, then key number asc.
      found.sort((x, y) => counts[first + y] - counts[first + x] || x - y);
      aggs[FACETS[f]] = facet(
        found.slice(0, FACET_LIMIT).map((k) => ({ key: values[k] as string, doc_count: counts[first + k] })),
        all,
      );
    }
    let total = 0;
    const byName = new Map<string, number>();
    const { values } = this.keys[TYPE];
    for (let k = 0; k < values.length; k++) {
      const c = counts[this.first[TYPE] + k];
      total += c;
      const name = values[k] === null ? undefined : typeNames[values[k]!];
      if (name !== undefined && name !== null && c > 0) byName.set(name, (byName.get(name) ?? 0) + c);
    }
    const types = [...byName].sort(([a, x], [b, y]) => y - x || Buffer.compare(Buffer.from(a), Buffer.from(b)));
    aggs.store_type = facet(
      types.slice(0, FACET_LIMIT).map(([key, doc_count]) => ({ key, doc_count })),
      types.reduce((sum, [, c]) => sum + c, 0),
    );
    return { total, aggs };
  }
}

/** The first global key number of each facet. */
function firstKeys(keys: Keys[]): number[] {
  const first: number[] = [];
  let count = 0;
  for (const k of keys) {
    first.push(count);
    count += k.values.length;
  }
  return first;
}

/**
 * Stores read per statement of a copy. Each page is added to the copy as it arrives (a few milliseconds
 * of work), and the event loop turns while the next one is read: building a copy never holds it for long.
 */
export const HELD_PAGE = 2000;

type StoreRow = [number, number, number, string | null, string | null, string | null, string | null, string];

/**
 * A copy built page by page from stores in cell order: each store's position and key numbers go in place,
 * and a cell's count pairs are written when the next cell starts. Every array is sized from the count read
 * with the keys, so a page costs no allocation.
 */
class HeldBuilder {
  private readonly arrays: HeldArrays;
  private readonly first: number[];
  /** Counts of the current cell by key, and the keys it has so far. */
  private readonly tally: Int32Array;
  private readonly touched: number[] = [];
  private stores = 0;
  private cellCount = 0;
  private pairCount = 0;

  constructor(
    private readonly version: string,
    private readonly keys: Keys[],
    private readonly size: number,
  ) {
    this.first = firstKeys(keys);
    this.tally = new Int32Array(this.first[3] + keys[3].values.length);
    this.arrays = {
      cells: new Int32Array(size),
      from: new Int32Array(size + 1),
      pairFrom: new Int32Array(size + 1),
      // At most one pair per facet and store.
      pairs: new Int32Array(2 * 4 * size),
      latitude: new Float64Array(size),
      longitude: new Float64Array(size),
      storeKeys: new Int32Array(4 * size),
    };
  }

  /** Adds the next stores; false when they are not the stores the keys were read with (the copy is then thrown away). */
  add(rows: StoreRow[]): boolean {
    const { cells, from, pairFrom, latitude, longitude, storeKeys } = this.arrays;
    for (const row of rows) {
      if (this.stores === this.size) return false;
      const cell = row[0];
      if (this.cellCount === 0 || cells[this.cellCount - 1] !== cell) {
        if (this.cellCount > 0 && cell < cells[this.cellCount - 1]) return false;
        this.closeCell();
        cells[this.cellCount] = cell;
        from[this.cellCount] = this.stores;
        pairFrom[this.cellCount] = this.pairCount;
        this.cellCount++;
      }
      const s = this.stores++;
      latitude[s] = row[1];
      longitude[s] = row[2];
      for (let f = 0; f < 4; f++) {
        const k = this.keys[f].number.get(row[3 + f] as string | null);
        if (k === undefined) return false;
        const key = this.first[f] + k;
        storeKeys[4 * s + f] = key;
        if (this.tally[key]++ === 0) this.touched.push(key);
      }
    }
    return true;
  }

  /** The copy, or null when fewer stores came than were counted. */
  finish(): HeldStores | null {
    if (this.stores !== this.size) return null;
    this.closeCell();
    const { cells, from, pairFrom, pairs } = this.arrays;
    from[this.cellCount] = this.stores;
    pairFrom[this.cellCount] = this.pairCount;
    return new HeldStores(this.version, this.keys, {
      ...this.arrays,
      cells: cells.slice(0, this.cellCount),
      from: from.slice(0, this.cellCount + 1),
      pairFrom: pairFrom.slice(0, this.cellCount + 1),
      pairs: pairs.slice(0, 2 * this.pairCount),
    });
  }

  /** Writes the count pairs of the current cell. */
  private closeCell(): void {
    const { pairs } = this.arrays;
    for (const key of this.touched) {
      pairs[2 * this.pairCount] = key;
      pairs[2 * this.pairCount + 1] = this.tally[key];
      this.tally[key] = 0;
      this.pairCount++;
    }
    this.touched.length = 0;
  }
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Reads a copy of the company's stores: its keys, then its stores a page at a time, each page added as it
 * comes; null when a write changed them in between (the versions differ), to be read again later.
 * `admit` is asked, once the stores are counted and before anything is allocated for them, whether the
 * memory the copy needs while it is read may be taken; `'refused'` when not.
 */
export async function readHeldStores(
  execute: Execute,
  companyId: string,
  pageSize = HELD_PAGE,
  admit: (bytes: number) => boolean = () => true,
): Promise<HeldStores | null | 'refused'> {
  const head = await heldKeys(execute, companyId);
  const version = String(head.version);
  const keys = FACETS.map((f) => keysOf(JSON.parse(head[f]) as string[]));
  const size = Number(head.stores);
  if (!admit(size * BUILD_BYTES_PER_STORE + keysBytes(keys))) return 'refused';
  const builder = new HeldBuilder(version, keys, size);
  let after: [number, string] = [-1, NIL_UUID];
  for (;;) {
    const page = await heldStoresPage(execute, companyId, after, pageSize);
    if (String(page.version) !== version) return null;
    const rows = JSON.parse(page.stores) as StoreRow[];
    if (!builder.add(rows)) return null;
    if (rows.length < pageSize) return builder.finish();
    const last = rows[rows.length - 1];
    after = [last[0], last[7]];
  }
}

/** Copies read at once by a process (each a company's; a copy being read is a second one of its company). */
const MAX_READS = 2;

interface Slot {
  held?: HeldStores;
  /** No read starts before this time (ms). */
  notBefore: number;
}

/**
 * The held copies, per company, at most `maxCompanies` (STORE_LOCATOR_HELD_COMPANIES; the least recently
 * searched is dropped first; 0: none, the kept counts always answer) and at most `maxBytes` of memory
 * together with the reads under way (STORE_LOCATOR_HELD_MB). A search asks for a company's copy (`get`):
 * it has one only once it was read; meanwhile, and whenever the search's statement reads another version
 * than the copy's, the statement's own counts answer (`seen` then reads the copy again, spaced out). At
 * most one read per company is under way, and at most MAX_READS in all. A read takes its memory before
 * it allocates any: the least recently searched copies are dropped to make room, and a company whose copy
 * cannot fit is not read (its searches are answered from the kept counts; tried again after RETRY_MS). A
 * read that fails, or finds the stores changed, leaves the copy held as it was.
 */
export class HeldStoresCache implements MeasuredCache {
  private readonly slots = new Map<string, Slot>();
  /** Reads under way by company (also of a company dropped from `slots` meanwhile). */
  private readonly reading = new Map<string, Promise<void>>();
  /** Memory taken by the reads under way, by company. */
  private readonly reserved = new Map<string, number>();
  /** How many reads of a copy were started, how many failed, and how many found no room (observable by tests). */
  loads = 0;
  failures = 0;
  refusals = 0;
  /** Searches that found the company's copy held, and those that did not (`/metrics`). */
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly execute: Execute,
    private readonly maxCompanies: number,
    private readonly maxBytes = Infinity,
  ) {
    registerCache('store_locator_held', this);
  }

  /** The company's copy if held (and a read of it started if not). */
  get(companyId: string): HeldStores | undefined {
    if (this.maxCompanies === 0) return undefined;
    const slot = this.slots.get(companyId);
    if (slot) {
      // Most recently used last.
      this.slots.delete(companyId);
      this.slots.set(companyId, slot);
      if (slot.held) this.hits++;
      else this.misses++;
      return slot.held;
    }
    this.misses++;
    this.load(companyId);
    return undefined;
  }

  stats(): CacheStats {
    return { name: 'store_locator_held', bytes: this.bytes, budget: this.maxBytes, entries: this.copies, hits: this.hits, misses: this.misses };
  }

  /** A search's statement read `version`: a copy at another version is read again (a newer one only). */
  seen(companyId: string, version: string): void {
    if (this.maxCompanies === 0) return;
    const held = this.slots.get(companyId)?.held;
    if (!held || BigInt(version) > BigInt(held.version)) this.load(companyId);
  }

  /** Resolves once no read of the company is under way (for tests). */
  async settled(companyId: string): Promise<void> {
    await this.reading.get(companyId);
  }

  /** The company's copy if held, with no other effect (for tests). */
  peek(companyId: string): HeldStores | undefined {
    return this.slots.get(companyId)?.held;
  }

  /** Copies held now (for tests). */
  get copies(): number {
    let n = 0;
    for (const slot of this.slots.values()) if (slot.held) n++;
    return n;
  }

  /** Memory the held copies and the reads under way take now. */
  get bytes(): number {
    let n = 0;
    for (const slot of this.slots.values()) n += slot.held?.bytes ?? 0;
    for (const r of this.reserved.values()) n += r;
    return n;
  }

  /** Reads under way now (for tests). */
  get readsUnderWay(): number {
    return this.reading.size;
  }

  /**
   * Whether a read of the company may take `bytes` more. To make room, the company's own copy goes first
   * (a copy is only read again once a search saw a newer version, so the old one answers nothing any
   * more), then the least recently searched copies of other companies; false, with nothing dropped, when
   * it cannot fit.
   */
  private admit(companyId: string, bytes: number): boolean {
    let free = this.maxBytes - this.bytes;
    if (free >= bytes) return true;
    const own = this.slots.get(companyId);
    const others = [...this.slots].filter(([id, slot]) => id !== companyId && slot.held);
    const dropped: string[] = [];
    free += own?.held?.bytes ?? 0;
    for (const [id, slot] of others) {
      if (free >= bytes) break;
      dropped.push(id);
      free += slot.held!.bytes;
    }
    if (free < bytes) return false;
    if (own) own.held = undefined;
    for (const id of dropped) this.slots.delete(id);
    return true;
  }

  private load(companyId: string): void {
    let slot = this.slots.get(companyId);
    if (!slot) {
      slot = { notBefore: 0 };
      this.slots.set(companyId, slot);
      while (this.slots.size > this.maxCompanies) this.slots.delete(this.slots.keys().next().value!);
    }
    if (this.reading.has(companyId) || this.reading.size >= MAX_READS || Date.now() < slot.notBefore) return;
    const started = Date.now();
    this.loads++;
    const admit = (bytes: number) => {
      if (!this.admit(companyId, bytes)) return false;
      this.reserved.set(companyId, bytes);
      return true;
    };
    const read = readHeldStores(this.execute, companyId, HELD_PAGE, admit)
      .then((held) => {
        // The company may have been dropped meanwhile; a read finishing after a newer one keeps the newer copy.
        const current = this.slots.get(companyId);
        if (held === 'refused') {
          this.refusals++;
          if (current) current.notBefore = Date.now() + RETRY_MS;
          return;
        }
        if (!current) return;
        if (held && (!current.held || BigInt(held.version) >= BigInt(current.held.version))) current.held = held;
        current.notBefore = Date.now() + RELOAD_SPACING * (Date.now() - started);
      })
      .catch(() => {
        this.failures++;
        const current = this.slots.get(companyId);
        if (current) current.notBefore = Date.now() + RETRY_MS;
      })
      .finally(() => {
        this.reading.delete(companyId);
        this.reserved.delete(companyId);
      });
    this.reading.set(companyId, read);
  }
}
