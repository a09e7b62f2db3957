import { AppError, notFound } from '../../errors';
import { logger } from '../../logger';
import { boxCentre, haversine, type LatLng } from '../../geo/distance';
import { NullGeocoder, type Geocoder } from '../../geo/geocoder';
import { countryCode } from '../../geo/offline-geocoder';
import { geocodeText } from './store-locator.address';
import { HoursCalendar, resolveZone, type HourExceptionRow, type HourRow } from './store-locator.hours';
import { companyId as existingCompany, openCandidates, storeCountries } from './store-locator.repository';
import { backendQuery, InvalidSearchParameters, isUuid, type ParsedParams } from './store-locator.params';
import { StoreLocatorReader, type StoreLocatorResult } from './store-locator.reader';
import type { Execute, Facet, GeoQuery, SearchObserver, StoreLocatorSearch } from './store-locator.types';
import type { AggResult } from '../../search/types';

/** A search result: the SPEC 2.7 result plus its distance from the search point. */
export interface StoreLocatorHit extends StoreLocatorResult {
  /** Addition: from the search point (a box's centre), in `meta.distance_unit`, to 0.01. */
  distance: number;
}

export interface StoreLocatorPage {
  results: StoreLocatorHit[];
  meta: {
    total: number;
    page: number;
    per_page: number;
    total_pages: number;
    aggs: Record<Facet, AggResult>;
    /** Addition: the unit of every result's `distance` (the radius's; `mi` by default). */
    distance_unit: string;
    /** Addition: the point distances are measured from (the given or geocoded point, or the box's centre). */
    origin: LatLng;
  };
}

export interface StoreLocatorServiceOptions {
  /** Places the `address` parameter (the configured geocoder). */
  geocoder?: Geocoder;
  /** Told of each answered search (locator demand, docs/locator-demand.md). */
  observe?: SearchObserver;
}

/** SPEC 4.5 and 4.6: the public store locator. No API key, no role scope. */
export class StoreLocatorService {
  private readonly geocoder: Geocoder;
  private readonly observe?: SearchObserver;

  constructor(
    private readonly execute: Execute,
    private readonly backend: StoreLocatorSearch,
    private readonly reader: StoreLocatorReader,
    options: StoreLocatorServiceOptions = {},
  ) {
    this.geocoder = options.geocoder ?? new NullGeocoder();
    this.observe = options.observe;
  }

  /** The company a search runs for: a UUID of an existing company, else 404 (saying one is needed when none was sent). */
  async company(id: string | undefined): Promise<string> {
    if (id === undefined) throw new AppError('NOT_FOUND', "Couldn't find Company without an 'id': send X-Cc-Id or cc_id");
    if (isUuid(id)) {
      const found = await existingCompany(this.execute, id);
      if (found) return found;
    }
    throw notFound('Company', id);
  }

  async search(companyId: string, params: ParsedParams): Promise<StoreLocatorPage> {
    const now = this.reader.now();
    const geo = params.geo.kind === 'address' ? await this.place(companyId, params.geo.text, params.geo.radius) : params.geo;
    const ids = params.openNow ? await this.openStores(companyId, geo, now) : undefined;
    const hits = await this.backend.search(backendQuery(companyId, params, geo, ids));
    const origin = geo.kind === 'point' ? geo.origin : boxCentre(geo.box);
    let nearestMetres: number | null = null;
    const results = (await this.reader.load(hits.ids, now)).map((r) => {
      if (r.address?.latitude == null || r.address.longitude == null) return { ...r, distance: 0 };
      const metres = haversine(origin, { latitude: r.address.latitude, longitude: r.address.longitude });
      nearestMetres = nearestMetres === null ? metres : Math.min(nearestMetres, metres);
      return { ...r, distance: Math.round((metres / params.unit.metres) * 100) / 100 };
    });
    this.told({ companyId, at: now, geo, page: params.page, products: params.products, total: hits.total, nearestMetres });
    return {
      results,
      meta: {
        total: hits.total,
        page: params.page,
        per_page: params.perPage,
        total_pages: Math.ceil(hits.total / params.perPage),
        aggs: hits.aggs,
        distance_unit: params.unit.name,
        origin,
      },
    };
  }

  /** The observer is told, and a fault of its own never fails the search. */
  private told(search: Parameters<SearchObserver>[0]): void {
    try {
      this.observe?.(search);
    } catch (err) {
      logger.warn({ err }, 'the store locator search observer failed');
    }
  }

  /** Any CRL by id, whatever its lead flags (SPEC 4.6); 404 when unknown or not a UUID. */
  async show(id: string): Promise<StoreLocatorResult> {
    const [result] = isUuid(id) ? await this.reader.load([id.toLowerCase()]) : [];
    if (!result) throw notFound('CompanyRetailerLocation', id);
    return result;
  }

  /**
   * The `address` parameter as a point search: geocoded by the configured geocoder; text naming no
   * country is tried in the countries of the company's stores, most stores first. No place is a 400.
   */
  private async place(companyId: string, text: string, radius: number): Promise<GeoQuery> {
    const countries = [...new Set((await storeCountries(this.execute, companyId)).map((c) => countryCode(c)).filter((c): c is string => c !== null))];
    const found = await geocodeText(this.geocoder, text, countries);
    if (!found) throw new InvalidSearchParameters(`no place found for address '${text}'`, 'address');
    return { kind: 'point', origin: found, radius };
  }

  /**
   * The stores open at `now` among those that can be in the search area, for the open-now filter. Open
   * or not is decided by the hours logic in JavaScript (zones may come from coordinates), so it works the
   * same for every search backend, which then only restricts to these ids.
   */
  private async openStores(companyId: string, geo: GeoQuery, now: Date): Promise<string[]> {
    const rows = await openCandidates(this.execute, companyId, geo, now);
    const calendar = new HoursCalendar(now);
    const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
    return rows
      .filter((r) => {
        const coordinates = { latitude: Number(r.latitude), longitude: Number(r.longitude) };
        const hours = json(r.hours) as HourRow[];
        return calendar.openNow(hours, resolveZone([r.crl_timezone, r.rl_timezone], coordinates), json(r.exceptions) as HourExceptionRow[]);
      })
      .map((r) => r.id as string);
  }
}
