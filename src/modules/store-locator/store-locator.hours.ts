import { DateTime, IANAZone, Zone } from 'luxon';
import { WEEKDAYS, type Weekday } from '../retailer-location/hour.entity';
import { timezoneAt } from '../../geo/timezone';
import type { LatLng } from '../../geo/distance';
import { BudgetedCache, stringBytes } from '../../memory';

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

function isZone(name: string): boolean {
  return knownZone(name) !== null;
}

/**
 * PRODUCT.md section 7: the CRL's zone, else the retailer location's, else the zone at the coordinates.
 * A stored name that is not an IANA zone is skipped.
 */
export function resolveZone(stored: Array<string | null | undefined>, coordinates: LatLng | null): string {
  for (const zone of stored) if (zone && isZone(zone)) return zone;
  return (coordinates && timezoneAt(coordinates)) ?? FALLBACK_ZONE;
}

/**
 * An IANA zone whose offsets at given instants are remembered: luxon asks `Intl` for each one (about
 * 10 µs), and a store search asks for the same instants again and again (the wall-clock times of the
 * next eight days' openings). Everything else is the IANA zone's own.
 */
class RememberingZone extends Zone {
  private readonly offsets = new Map<number, number>();

  constructor(private readonly iana: IANAZone) {
    super();
  }

  get type(): string {
    return this.iana.type;
  }

  get name(): string {
    return this.iana.name;
  }

  get isUniversal(): boolean {
    return this.iana.isUniversal;
  }

  get isValid(): boolean {
    return this.iana.isValid;
  }

  offsetName(ts: number, opts: Parameters<Zone['offsetName']>[1]): string | null {
    return this.iana.offsetName(ts, opts);
  }

  formatOffset(ts: number, format: Parameters<Zone['formatOffset']>[1]): string {
    return this.iana.formatOffset(ts, format);
  }

  offset(ts: number): number {
    let offset = this.offsets.get(ts);
    if (offset === undefined) {
      offset = this.iana.offset(ts);
      if (this.offsets.size >= OFFSETS_KEPT) this.offsets.clear();
      this.offsets.set(ts, offset);
    }
    return offset;
  }

  equals(other: Zone): boolean {
    return this.iana.equals(other);
  }
}

/** Offsets a zone remembers at most (a store search asks for a few dozen instants). */
const OFFSETS_KEPT = 1024;
/** A remembering zone at its fullest: its offsets (a Map entry of two numbers each) and luxon's zone. */
const ZONE_BYTES = OFFSETS_KEPT * 48 + 2048;

/** Zones by name, false for a name that is not an IANA zone (stored names are written by clients). */
const ZONES = new BudgetedCache<string, RememberingZone | false>('time_zones', {
  sizeOf: (zone, name) => stringBytes(name) + (zone ? ZONE_BYTES : 0),
});

/** The remembering zone of a valid IANA name; null for any other name. */
function knownZone(name: string): RememberingZone | null {
  let zone = ZONES.get(name);
  if (zone === undefined) {
    zone = IANAZone.isValidZone(name) && new RememberingZone(IANAZone.create(name));
    ZONES.set(name, zone);
  }
  return zone || null;
}

function zoneNamed(name: string): Zone {
  return knownZone(name) ?? IANAZone.create(name);
}

interface LocalDay {
  year: number;
  month: number;
  day: number;
  weekday: number;
}

/** One zone as seen at `now`: its offset and the next eight local dates. */
class ZoneView {
  readonly offset: number;
  readonly now: DateTime;
  readonly days: LocalDay[];
  private readonly openings = new Map<number, string | null>();

  constructor(
    readonly zone: Zone,
    now: Date,
  ) {
    this.now = DateTime.fromJSDate(now, { zone });
    this.offset = this.now.offset;
    const today = Date.UTC(this.now.year, this.now.month - 1, this.now.day);
    this.days = Array.from({ length: 8 }, (_, i) => {
      const d = new Date(today + i * 86_400_000);
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: ((d.getUTCDay() + 6) % 7) + 1 };
    });
  }

  /** The first opening at `hour:minute` on `weekday` (1 = Monday) at or after now, as ISO 8601 with offset. */
  nextOpening(weekday: number, hour: number, minute: number): string | null {
    const key = weekday * 10_000 + hour * 100 + minute;
    if (!this.openings.has(key)) this.openings.set(key, this.compute(weekday, hour, minute));
    return this.openings.get(key)!;
  }

  private compute(weekday: number, hour: number, minute: number): string | null {
    for (const d of this.days) {
      if (d.weekday !== weekday) continue;
      const opening = this.wallClock(d, hour, minute);
      if (opening >= this.now) return opening.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
    }
    return null;
  }

  /**
   * The instant a wall-clock time first occurs in the zone: the earlier one when clocks fall back and the
   * time repeats; shifted forward by the gap when clocks spring forward over it.
   */
  private wallClock(d: LocalDay, hour: number, minute: number): DateTime {
    const wall = Date.UTC(d.year, d.month - 1, d.day, hour, minute);
    const zone = this.zone;
    const offsets = new Set([zone.offset(wall - 86_400_000), zone.offset(wall), zone.offset(wall + 86_400_000)]);
    const valid = [...offsets].map((o) => wall - o * 60_000).filter((ts) => zone.offset(ts) * 60_000 === wall - ts);
    if (valid.length) return DateTime.fromMillis(Math.min(...valid), { zone });
    return DateTime.fromObject({ year: d.year, month: d.month, day: d.day, hour, minute }, { zone });
  }
}

/**
 * Hours of many stores at one instant. Zone arithmetic is the costly part, so each zone is looked at once
 * and each (zone, weekday, time) opening computed once: use one calendar per request.
 */
export class HoursCalendar {
  private readonly zones = new Map<string, ZoneView>();

  constructor(readonly now: Date = new Date()) {}

  private view(zone: string): ZoneView {
    let view = this.zones.get(zone);
    if (!view) this.zones.set(zone, (view = new ZoneView(zoneNamed(zone), this.now)));
    return view;
  }

  /** Whether a store with these rows in this zone is open now (`isOpenAt`). */
  openNow(rows: HourRow[], zone: string): boolean {
    const now = this.view(zone).now;
    return isOpenAt(rows, { weekday: now.weekday, minutes: now.hour * 60 + now.minute });
  }

  /** The store's weekday now, in its zone (`monday`...). */
  weekday(zone: string): Weekday {
    return WEEKDAYS[this.view(zone).now.weekday - 1];
  }

  /**
   * The seven SPEC 2.7 entries, Monday first; a day without a row is closed.
   * `utc_offset_minute` is the zone's offset now. `open_at` is the first opening on that weekday at or
   * after now, with the offset in force then (it can differ from `utc_offset_minute` across a DST change).
   * A close time at or before the open time closes after midnight; it does not change `open_at`.
   */
  week(rows: HourRow[], zone: string): HourEntry[] {
    const view = this.view(zone);
    const byDay = new Map(rows.map((r) => [r.day, r]));
    return WEEKDAYS.map((day, i) => {
      const row = byDay.get(day);
      const open = row?.open ?? false;
      const hour = row?.open_at_hour ?? null;
      const minute = row?.open_at_minute ?? 0;
      const valid = open && hour !== null && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59;
      return {
        day,
        open,
        open_at_hour: open ? (row?.open_at_hour ?? null) : null,
        open_at_minute: open ? (row?.open_at_minute ?? null) : null,
        close_at_hour: open ? (row?.close_at_hour ?? null) : null,
        close_at_minute: open ? (row?.close_at_minute ?? null) : null,
        utc_offset_minute: view.offset,
        open_at: valid ? view.nextOpening(i + 1, hour!, minute) : null,
        timezone: zone,
      };
    });
  }
}

/**
 * Whether a store is open at the calendar's instant, by the wall clock of its zone: today's row from its
 * opening to its closing (or to midnight when it closes after midnight), and the part after midnight of
 * yesterday's row when that one closes after midnight. A close time at or before the open time closes the
 * next day (`closesNextDay`), so equal times mean open round the clock. Rows with hours out of range never
 * count. Across DST changes the wall clock decides: a store closing at 02:30 on the night clocks spring
 * from 02:00 to 03:00 is closed at 03:05; on the night they fall back it is open during both 01:xx hours.
 */
export function isOpenAt(rows: HourRow[], local: { weekday: number; minutes: number }): boolean {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const today = byDay.get(WEEKDAYS[local.weekday - 1]);
  const yesterday = byDay.get(WEEKDAYS[(local.weekday + 5) % 7]);
  const span = (row: HourRow | undefined) => {
    if (!row?.open) return null;
    const { open_at_hour: oh, open_at_minute: om, close_at_hour: ch, close_at_minute: cm } = row;
    const valid = (h: number | null, m: number | null, maxH: number) => h !== null && m !== null && h >= 0 && h <= maxH && m >= 0 && m <= 59;
    if (!valid(oh, om, 23) || !valid(ch, cm, 23)) return null;
    const opens = oh! * 60 + om!;
    const closes = ch! * 60 + cm!;
    return { opens, closes, overnight: closes <= opens };
  };
  const t = span(today);
  if (t && local.minutes >= t.opens && (t.overnight || local.minutes < t.closes)) return true;
  const y = span(yesterday);
  return Boolean(y?.overnight && local.minutes < y.closes);
}

/** The week of one store at `now` (see `HoursCalendar.week`). */
export function weekHours(rows: HourRow[], zone: string, now: Date): HourEntry[] {
  return new HoursCalendar(now).week(rows, zone);
}
