import { AppError, notFound } from '../../errors';
import { boxCentre, haversine, type LatLng } from '../../geo/distance';
import { NullGeocoder, type Geocoder } from '../../geo/geocoder';
import { countryCode } from '../../geo/offline-geocoder';
import { geocodeText } from './store-locator.address';
import { HoursCalendar, resolveZone, type HourRow } from './store-locator.hours';
import { areaPrefilter } from './store-locator.postgres';
import { backendQuery, InvalidSearchParameters, isUuid, type ParsedParams } from './store-locator.params';
import { StoreLocatorReader, type StoreLocatorResult } from './store-locator.reader';
import type { Execute, Facet, GeoQuery, StoreLocatorSearch } from './store-locator.types';
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
}

/** The stores of a company in (a cube around) the search area that have open hours, with their zone inputs. */
const OPEN_CANDIDATES_SQL = (prefilter: string) => `
  select e.crl_id as id, crl.timezone as crl_timezone, rl.timezone as rl_timezone, e.latitude, e.longitude, hh.hours
    from store_locator_entries e
    join company_retailer_locations crl on crl.id = e.crl_id
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    cross join lateral (
      select json_agg(json_build_object('day', h.day, 'open', h.open, 'open_at_hour', h.open_at_hour, 'open_at_minute', h.open_at_minute,
                                        'close_at_hour', h.close_at_hour, 'close_at_minute', h.close_at_minute)) as hours
        from hours h
       where h.open and (h.retailer_location_id = crl.retailer_location_id
                         or (crl.retailer_location_id is null and h.company_retailer_location_id = crl.id))
    ) hh
   where e.company_id = ?::uuid and hh.hours is not null and ${prefilter}`;

/** SPEC 4.5 and 4.6: the public store locator. No API key, no role scope. */
export class StoreLocatorService {
  private readonly geocoder: Geocoder;

  constructor(
    private readonly execute: Execute,
    private readonly backend: StoreLocatorSearch,
    private readonly reader: StoreLocatorReader,
    options: StoreLocatorServiceOptions = {},
  ) {
    this.geocoder = options.geocoder ?? new NullGeocoder();
  }

  /** The company a search runs for: a UUID of an existing company, else 404 (saying one is needed when none was sent). */
  async company(id: string | undefined): Promise<string> {
    if (id === undefined) throw new AppError('NOT_FOUND', "Couldn't find Company without an 'id': send X-Cc-Id or cc_id");
    if (isUuid(id)) {
      const [row] = await this.execute('select id from companies where id = ?::uuid', [id]);
      if (row) return row.id;
    }
    throw notFound('Company', id);
  }

  async search(companyId: string, params: ParsedParams): Promise<StoreLocatorPage> {
    const now = this.reader.now();
    const geo = params.geo.kind === 'address' ? await this.place(companyId, params.geo.text, params.geo.radius) : params.geo;
    const ids = params.openNow ? await this.openStores(companyId, geo, now) : undefined;
    const hits = await this.backend.search(backendQuery(companyId, params, geo, ids));
    const origin = geo.kind === 'point' ? geo.origin : boxCentre(geo.box);
    const results = (await this.reader.load(hits.ids, now)).map((r) => ({
      ...r,
      distance: r.address?.latitude != null && r.address.longitude != null
        ? Math.round((haversine(origin, { latitude: r.address.latitude, longitude: r.address.longitude }) / params.unit.metres) * 100) / 100
        : 0,
    }));
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
    const rows = await this.execute(
      `select country from store_locator_entries where company_id = ?::uuid and country is not null group by country order by count(*) desc, country limit 20`,
      [companyId],
    );
    const countries = [...new Set(rows.map((r) => countryCode(String(r.country))).filter((c): c is string => c !== null))];
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
    const prefilter = areaPrefilter(geo);
    const rows = await this.execute(OPEN_CANDIDATES_SQL(prefilter.sql), [companyId, ...prefilter.bindings]);
    const calendar = new HoursCalendar(now);
    return rows
      .filter((r) => {
        const coordinates = { latitude: Number(r.latitude), longitude: Number(r.longitude) };
        const hours = (typeof r.hours === 'string' ? JSON.parse(r.hours) : r.hours) as HourRow[];
        return calendar.openNow(hours, resolveZone([r.crl_timezone, r.rl_timezone], coordinates));
      })
      .map((r) => r.id as string);
  }
}
