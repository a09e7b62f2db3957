import { DateTime } from 'luxon';
import { WEEKDAYS } from '../retailer-location/hour.entity';
import type { HourRow } from '../store-locator/store-locator.hours';

/** How far ahead a due time is looked for (a store open one hour a year still gets one). */
const MAX_DAYS = 400;

interface Span {
  opens: number;
  closes: number;
}

/** A weekday's opening as wall-clock minutes, `closes` past 1440 when it closes after midnight; null when closed or invalid. */
function spanOf(row: HourRow | undefined): Span | null {
  if (!row?.open) return null;
  const { open_at_hour: oh, open_at_minute: om, close_at_hour: ch, close_at_minute: cm } = row;
  const valid = (h: number | null, m: number | null) => h !== null && m !== null && h >= 0 && h <= 23 && m >= 0 && m <= 59;
  if (!valid(oh, om) || !valid(ch, cm)) return null;
  const opens = oh! * 60 + om!;
  const closes = ch! * 60 + cm!;
  // PRODUCT.md 1: a close time at or before the open time closes the next day.
  return { opens, closes: closes <= opens ? closes + 1440 : closes };
}

/** The instant of a wall-clock time (`minutes` from the local midnight of `day`, may pass 1440) in `zone`. */
function instant(day: DateTime, minutes: number): number {
  const d = minutes >= 1440 ? day.plus({ days: 1 }) : day;
  const m = minutes % 1440;
  // A wall-clock time skipped by a DST change (02:30 when clocks spring to 03:00) is the instant after the gap.
  return d.set({ hour: Math.floor(m / 60), minute: m % 60, second: 0, millisecond: 0 }).toMillis();
}

/**
 * The instant `minutes` of the store's open time after `start`: time counts only while the store is open
 * by the wall clock of its zone (its weekly hours; a day that closes after midnight runs into the next),
 * measured in real elapsed time, so across a DST change an opening from 09:00 to 17:00 is 8 hours as the
 * clock on the wall says and a night opening spanning the change is as long as it really lasts. A store
 * with no valid open day counts every hour (a due time must exist).
 */
export function addBusinessMinutes(start: Date, minutes: number, rows: HourRow[], zone: string): Date {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const spans = WEEKDAYS.map((day) => spanOf(byDay.get(day)));
  if (!spans.some(Boolean)) return new Date(start.getTime() + minutes * 60_000);
  let left = minutes * 60_000;
  const from = start.getTime();
  // Yesterday's opening may run past midnight into today: begin a day early.
  let day = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 });
  for (let i = 0; i < MAX_DAYS; i++, day = day.plus({ days: 1 })) {
    const span = spans[day.weekday - 1];
    if (!span) continue;
    const opensAt = Math.max(from, instant(day, span.opens));
    const closesAt = instant(day, span.closes);
    if (closesAt <= opensAt) continue;
    if (closesAt - opensAt >= left) return new Date(opensAt + left);
    left -= closesAt - opensAt;
  }
  return new Date(from + minutes * 60_000);
}
