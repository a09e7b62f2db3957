import { addressString, directionsUrl, formatPhone, fullName } from './store-locator.format';
import { addDays, exceptionsBetween, HoursCalendar, resolveZone, type HourEntry, type HourExceptionRow, type HourRow, type SpanRow } from './store-locator.hours';
import type { Weekday } from '../retailer-location/hour.entity';
import type { Execute } from './store-locator.types';
import { resultRows } from './store-locator.repository';

export interface StoreLocatorAddress {
  id: string;
  address_name: string | null;
  street_line_one: string | null;
  street_line_two: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  /** The formatted single line (`addressString`). */
  string: string;
}

export interface StoreLocatorProduct {
  product_id: string;
  sku: string;
  name: string;
  category: string | null;
  url: string | null;
  external_id: string | null;
  collection_id: string | null;
  stocked: boolean;
  available: boolean;
  images: Array<{ id: string; url: string; thumbnail_url: string | null }>;
}

/** SPEC 2.7 store locator result. */
export interface StoreLocatorResult {
  id: string;
  name: string | null;
  full_name: string | null;
  retailer_name: string | null;
  store_type: string | null;
  website: string | null;
  place_id: string | null;
  address: StoreLocatorAddress | null;
  email: { id: string; email: string } | null;
  phone_number: { id: string; phone_number: string; country_code: string; formatted: string } | null;
  retailer_location_hours: HourEntry[];
  retailer_location_products: StoreLocatorProduct[];
  /** Addition (PRODUCT.md 11): open at the response's instant, by the store's hours in its own zone. */
  open_now: boolean;
  /** Addition: the store's weekday at the response's instant, in its zone (which hour entry is today). */
  local_weekday: Weekday;
  /** Addition: a maps directions link to the store (`directionsUrl`), null without address and coordinates. */
  directions_url: string | null;
  /** Addition: the store's day at the response's instant, in its zone, with the dated exception in force (`hoursOn`). */
  hours_today: StoreLocatorDay;
  /** Addition: the dated exceptions in force on any of the store's next eight local dates (today first), by date. */
  hour_exceptions: StoreLocatorHourException[];
}

/** Addition: a store's hours on one local date. */
export interface StoreLocatorDay {
  /** `YYYY-MM-DD`, the store's local date. */
  date: string;
  closed: boolean;
  /** The opening spans, earliest first: the exception's when one is in force, else the weekday's. */
  hours: SpanRow[];
  /** The exception's label (`Public holiday`); null without one. */
  label: string | null;
  /** A dated exception decides the day. */
  exception: boolean;
}

/** Addition: a dated exception as the locator shows it. */
export type StoreLocatorHourException = HourExceptionRow;

/**
 * Turns CRL ids into SPEC 2.7 results with one set-based statement, whatever the number of ids. Hours are computed for the clock's `now`.
 */
export class StoreLocatorReader {
  constructor(
    private readonly execute: Execute,
    /** The clock results are computed for (tests fix it). */
    readonly now: () => Date = () => new Date(),
  ) {}

  /** Results in the order of `ids` at the instant `at`; unknown ids are left out. */
  async load(ids: string[], at: Date = this.now()): Promise<StoreLocatorResult[]> {
    if (!ids.length) return [];
    const stores = await resultRows(this.execute, ids, at);
    const calendar = new HoursCalendar(at);
    const byId = new Map(stores.map((s) => [s.id as string, s]));
    return ids.flatMap((id) => {
      const s = byId.get(id);
      if (!s) return [];
      const coordinates = s.latitude !== null && s.longitude !== null ? { latitude: Number(s.latitude), longitude: Number(s.longitude) } : null;
      const zone = resolveZone([s.crl_timezone, s.rl_timezone], coordinates);
      const rows = s.hours as HourRow[];
      const exceptions = s.exceptions as HourExceptionRow[];
      const today = calendar.hoursToday(rows, zone, exceptions);
      const line = s.address_id ? addressString(s) : null;
      return [
        {
          id: s.id,
          name: s.name ?? null,
          full_name: fullName(s.retailer_name, s.name),
          retailer_name: s.retailer_name ?? null,
          store_type: s.store_type ?? null,
          website: s.website ?? null,
          place_id: s.place_id ?? null,
          address: s.address_id
            ? {
                id: s.address_id,
                address_name: s.address_name,
                street_line_one: s.street_line_one,
                street_line_two: s.street_line_two,
                postal_code: s.postal_code,
                city: s.city,
                province: s.province,
                country: s.country,
                latitude: coordinates?.latitude ?? null,
                longitude: coordinates?.longitude ?? null,
                string: line!,
              }
            : null,
          email: s.email_id ? { id: s.email_id, email: s.email } : null,
          phone_number: s.phone_id
            ? { id: s.phone_id, phone_number: s.phone_number, country_code: s.country_code, formatted: s.formatted_international ?? formatPhone(s.phone_number, s.country_code) }
            : null,
          retailer_location_hours: calendar.week(rows, zone),
          retailer_location_products: s.products as StoreLocatorProduct[],
          open_now: calendar.openNow(rows, zone, exceptions),
          local_weekday: calendar.weekday(zone),
          directions_url: directionsUrl(coordinates, line, s.place_id ?? null),
          hours_today: { date: today.date, closed: today.closed, hours: today.hours, label: today.label, exception: today.exception !== null },
          hour_exceptions: exceptionsBetween(exceptions, today.date, addDays(today.date, 7)),
        },
      ];
    });
  }
}
