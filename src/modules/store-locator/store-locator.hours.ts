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

/** One opening span of a day with special hours (an exception's `hours` item). */
export interface SpanRow {
  open_at_hour: number;
  open_at_minute: number;
  close_at_hour: number;
  close_at_minute: number;
}

/**
 * A stored dated exception (docs/store-locator.md "Holiday and special hours"): closed, or open at
 * `hours` instead of the weekly row, on each local date from `starts_on` to `ends_on`, both inclusive.
 */
export interface HourExceptionRow {
  /** `YYYY-MM-DD`, the store's local date. */
  starts_on: string;
  /** `YYYY-MM-DD`, inclusive. */
  ends_on: string;
  closed: boolean;
  hours: SpanRow[];
  label: string | null;
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

  /**
   * Whether a store with these rows in this zone is open now (`isOpenAt`); with exceptions, by the
   * exceptions in force on its local dates today and yesterday (`isOpenOn`).
   */
  openNow(rows: HourRow[], zone: string, exceptions?: readonly HourExceptionRow[] | null): boolean {
    const now = this.view(zone).now;
    const minutes = now.hour * 60 + now.minute;
    if (!exceptions?.length) return isOpenAt(rows, { weekday: now.weekday, minutes });
    return isOpenOn(rows, exceptions, { date: this.today(zone), minutes });
  }

  /** The store's local date now, in its zone (`YYYY-MM-DD`). */
  today(zone: string): string {
    const d = this.view(zone).days[0];
    return isoDate(d.year, d.month, d.day);
  }

  /** The store's day today (`hoursOn` at its local date). */
  hoursToday(rows: HourRow[], zone: string, exceptions?: readonly HourExceptionRow[] | null): DayHours {
    return hoursOn(rows, exceptions, this.today(zone));
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

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function isoDate(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a valid `YYYY-MM-DD` date; null for anything else (`2026-02-30`, `26-1-1`). */
export function dayNumber(date: string): number | null {
  const m = DATE.exec(date);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (y < 1 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return Math.round(ms / 86_400_000);
}

/** The date `days` after a valid `YYYY-MM-DD` date (negative: before). */
export function addDays(date: string, days: number): string {
  const d = new Date((dayNumber(date)! + days) * 86_400_000);
  return isoDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** The weekday (1 = Monday) of a valid `YYYY-MM-DD` date. */
export function isoWeekday(date: string): number {
  return ((((dayNumber(date)! + 3) % 7) + 7) % 7) + 1;
}

/** A store's local date at an instant, in its zone (`YYYY-MM-DD`). */
export function localDate(zone: string, at: Date): string {
  const now = DateTime.fromJSDate(at, { zone: zoneNamed(zone) });
  return isoDate(now.year, now.month, now.day);
}

/** The exception in force on a local date (ends inclusive), or null. Exceptions never overlap; the first wins if they do. */
export function exceptionOn(exceptions: readonly HourExceptionRow[] | null | undefined, date: string): HourExceptionRow | null {
  if (!exceptions) return null;
  for (const e of exceptions) if (e.starts_on <= date && date <= e.ends_on) return e;
  return null;
}

/** The exceptions in force on any date from `from` to `to` (inclusive), earliest first. */
export function exceptionsBetween(exceptions: readonly HourExceptionRow[] | null | undefined, from: string, to: string): HourExceptionRow[] {
  if (!exceptions) return [];
  return exceptions.filter((e) => e.starts_on <= to && e.ends_on >= from).sort((a, b) => (a.starts_on < b.starts_on ? -1 : a.starts_on > b.starts_on ? 1 : 0));
}

/** What a store's day is: the exception's when one is in force, else its weekly row for that weekday. */
export interface DayHours {
  /** `YYYY-MM-DD`. */
  date: string;
  weekday: Weekday;
  /** Not open at all that day. */
  closed: boolean;
  /** The opening spans, earliest first (one for a weekly row); empty when closed. */
  hours: SpanRow[];
  /** The exception's label; null without an exception or without a label. */
  label: string | null;
  /** The exception in force that day, or null when the weekly hours apply. */
  exception: HourExceptionRow | null;
}

function validSpan(s: Partial<SpanRow> | null | undefined): s is SpanRow {
  const ok = (v: unknown, max: number) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;
  return Boolean(s) && ok(s!.open_at_hour, 23) && ok(s!.open_at_minute, 59) && ok(s!.close_at_hour, 23) && ok(s!.close_at_minute, 59);
}

/** The opening spans of a weekly row (none when closed or its times are out of range). */
function rowSpans(row: HourRow | undefined): SpanRow[] {
  if (!row?.open) return [];
  const span = { open_at_hour: row.open_at_hour!, open_at_minute: row.open_at_minute!, close_at_hour: row.close_at_hour!, close_at_minute: row.close_at_minute! };
  return validSpan(span) ? [span] : [];
}

/**
 * A store's hours on one local date (`YYYY-MM-DD`): the exception in force that date (closed, or its
 * spans), else the weekly row of its weekday. This is what pages and the widget show for a day.
 */
export function hoursOn(rows: HourRow[], exceptions: readonly HourExceptionRow[] | null | undefined, date: string): DayHours {
  const weekday = WEEKDAYS[isoWeekday(date) - 1];
  const exception = exceptionOn(exceptions, date);
  const spans = exception
    ? exception.closed
      ? []
      : exception.hours.filter(validSpan).sort((a, b) => a.open_at_hour * 60 + a.open_at_minute - (b.open_at_hour * 60 + b.open_at_minute))
    : rowSpans(rows.find((r) => r.day === weekday));
  return { date, weekday, closed: spans.length === 0, hours: spans, label: exception?.label ?? null, exception };
}

/**
 * Whether a store is open at `minutes` after local midnight of `date`, by the day's hours (`hoursOn`): a
 * span of that day from its opening to its closing (or to midnight when it closes after midnight), and
 * the part after midnight of the previous day's spans that close after midnight. The previous day's hours
 * are its own: a store whose Christmas Eve hours run to 01:00 is open at 00:30 on a closed Christmas Day.
 * With no exception on either day this is `isOpenAt`.
 */
export function isOpenOn(rows: HourRow[], exceptions: readonly HourExceptionRow[] | null | undefined, local: { date: string; minutes: number }): boolean {
  const m = local.minutes;
  for (const s of hoursOn(rows, exceptions, local.date).hours) {
    const opens = s.open_at_hour * 60 + s.open_at_minute;
    const closes = s.close_at_hour * 60 + s.close_at_minute;
    if (m >= opens && (closes <= opens || m < closes)) return true;
  }
  for (const s of hoursOn(rows, exceptions, addDays(local.date, -1)).hours) {
    const opens = s.open_at_hour * 60 + s.open_at_minute;
    const closes = s.close_at_hour * 60 + s.close_at_minute;
    if (closes <= opens && m < closes) return true;
  }
  return false;
}

/** A store's hours on its local date at `now` (`hoursOn` at `localDate`). */
export function hoursToday(rows: HourRow[], exceptions: readonly HourExceptionRow[] | null | undefined, zone: string, now: Date = new Date()): DayHours {
  return hoursOn(rows, exceptions, localDate(zone, now));
}
