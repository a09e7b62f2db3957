import { DateTime, IANAZone, type Zone } from 'luxon';
import { WEEKDAYS, type Weekday } from '../retailer-location/hour.entity';
import { timezoneAt } from '../../geo/timezone';
import type { LatLng } from '../../geo/distance';

/** A stored hours row (one weekday). */
export interface HourRow {
  day: string;
  open: boolean;
  open_at_hour: number | null;
  open_at_minute: number | null;
  close_at_hour: number | null;
  close_at_minute: number | null;
}

/** SPEC 2.7 hour entry. */
export interface HourEntry extends HourRow {
  day: Weekday;
  utc_offset_minute: number;
  open_at: string | null;
  timezone: string;
}

/** Used when a store has no valid zone and no coordinates to derive one from. */
export const FALLBACK_ZONE = 'UTC';

/**
 * PRODUCT.md section 7: the CRL's zone, else the retailer location's, else the zone at the coordinates.
 * A stored name that is not an IANA zone is skipped.
 */
export function resolveZone(stored: Array<string | null | undefined>, coordinates: LatLng | null): string {
  for (const zone of stored) if (zone && IANAZone.isValidZone(zone)) return zone;
  return (coordinates && timezoneAt(coordinates)) ?? FALLBACK_ZONE;
}

/**
 * The seven SPEC 2.7 entries, Monday first; a day without a row is closed.
 * `utc_offset_minute` is the zone's offset at `now`. `open_at` is the first opening on that weekday at or
 * after `now`, with the offset in force then (so it can differ from `utc_offset_minute` across a DST
 * change). An opening time that falls in a DST gap is moved forward by the gap, as clocks do.
 * A close time at or before the open time closes after midnight; it does not change `open_at`.
 */
export function weekHours(rows: HourRow[], zone: string, now: Date): HourEntry[] {
  const local = DateTime.fromJSDate(now, { zone });
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return WEEKDAYS.map((day) => {
    const row = byDay.get(day);
    const open = row?.open ?? false;
    return {
      day,
      open,
      open_at_hour: open ? (row?.open_at_hour ?? null) : null,
      open_at_minute: open ? (row?.open_at_minute ?? null) : null,
      close_at_hour: open ? (row?.close_at_hour ?? null) : null,
      close_at_minute: open ? (row?.close_at_minute ?? null) : null,
      utc_offset_minute: local.offset,
      open_at: open && row ? nextOpening(local, day, row.open_at_hour, row.open_at_minute ?? 0) : null,
      timezone: zone,
    };
  });
}

function nextOpening(local: DateTime, day: Weekday, hour: number | null, minute: number): string | null {
  if (hour === null || hour < 0 || hour > 23 || minute < 0 || minute > 59) return null;
  const weekday = WEEKDAYS.indexOf(day) + 1;
  const today = local.startOf('day');
  for (let i = 0; i <= 7; i++) {
    const date = today.plus({ days: i });
    if (date.weekday !== weekday) continue;
    const opening = wallClock(local.zone, date.year, date.month, date.day, hour, minute);
    if (opening >= local) return opening.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
  }
  return null;
}

/**
 * The instant a wall-clock time first occurs in a zone: the earlier one when clocks fall back and the time
 * repeats; shifted forward by the gap when clocks spring forward over it.
 */
function wallClock(zone: Zone, year: number, month: number, day: number, hour: number, minute: number): DateTime {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const day_ = 86_400_000;
  const offsets = new Set([zone.offset(wall - day_), zone.offset(wall), zone.offset(wall + day_)]);
  const valid = [...offsets].map((o) => wall - o * 60_000).filter((ts) => zone.offset(ts) * 60_000 === wall - ts);
  if (valid.length) return DateTime.fromMillis(Math.min(...valid), { zone });
  return DateTime.fromObject({ year, month, day, hour, minute }, { zone });
}
