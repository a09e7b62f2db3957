import {
  addDays,
  dayNumber,
  exceptionOn,
  exceptionsBetween,
  HoursCalendar,
  hoursOn,
  hoursToday,
  isOpenOn,
  isoWeekday,
  localDate,
  type HourExceptionRow,
  type HourRow,
} from '../../src/modules/store-locator/store-locator.hours';
import { hourExceptionErrors, type HourExceptionValues } from '../../src/modules/company-retailer-location/hour-exceptions';

const row = (day: string, open: [number, number], close: [number, number]): HourRow => ({
  day,
  open: true,
  open_at_hour: open[0],
  open_at_minute: open[1],
  close_at_hour: close[0],
  close_at_minute: close[1],
});
const span = (open: [number, number], close: [number, number]) => ({ open_at_hour: open[0], open_at_minute: open[1], close_at_hour: close[0], close_at_minute: close[1] });
const closed = (starts_on: string, ends_on = starts_on, label: string | null = 'Public holiday'): HourExceptionRow => ({ starts_on, ends_on, closed: true, hours: [], label });
const special = (starts_on: string, spans: ReturnType<typeof span>[], label: string | null = null, ends_on = starts_on): HourExceptionRow => ({
  starts_on,
  ends_on,
  closed: false,
  hours: spans,
  label,
});
const everyDay = (open: [number, number], close: [number, number]) =>
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => row(d, open, close));

describe('dates', () => {
  test('valid dates only, weekdays and day arithmetic across months, years and leap days', () => {
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(dayNumber('2026-02-30')).toBeNull();
    expect(dayNumber('2026-2-3')).toBeNull();
    expect(dayNumber('2028-02-29')).not.toBeNull();
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(isoWeekday('2026-12-25')).toBe(5); // a Friday
    expect(isoWeekday('2026-12-27')).toBe(7);
  });

  test("the local date is the store's, not UTC's", () => {
    const at = new Date('2026-12-25T03:00:00Z');
    expect(localDate('Europe/Paris', at)).toBe('2026-12-25');
    expect(localDate('America/Los_Angeles', at)).toBe('2026-12-24');
    expect(localDate('Pacific/Kiritimati', new Date('2026-12-24T11:00:00Z'))).toBe('2026-12-25');
  });
});

describe('exceptionOn / hoursOn', () => {
  const rows = everyDay([9, 0], [18, 0]);
  const exceptions = [closed('2026-12-25'), special('2026-12-24', [span([10, 0], [14, 0])], 'Christmas Eve'), closed('2026-08-03', '2026-08-16', 'Summer break')];

  test('range ends are inclusive', () => {
    expect(exceptionOn(exceptions, '2026-08-02')).toBeNull();
    expect(exceptionOn(exceptions, '2026-08-03')?.label).toBe('Summer break');
    expect(exceptionOn(exceptions, '2026-08-16')?.label).toBe('Summer break');
    expect(exceptionOn(exceptions, '2026-08-17')).toBeNull();
  });

  test("a closed exception, other hours with a label, else the weekday's row", () => {
    expect(hoursOn(rows, exceptions, '2026-12-25')).toMatchObject({ weekday: 'friday', closed: true, hours: [], label: 'Public holiday' });
    expect(hoursOn(rows, exceptions, '2026-12-24')).toMatchObject({ closed: false, hours: [span([10, 0], [14, 0])], label: 'Christmas Eve' });
    expect(hoursOn(rows, exceptions, '2026-12-23')).toEqual({ date: '2026-12-23', weekday: 'wednesday', closed: false, hours: [span([9, 0], [18, 0])], label: null, exception: null });
    expect(hoursOn([], null, '2026-12-23')).toMatchObject({ closed: true, exception: null });
  });

  test('exceptionsBetween: those touching the window, by date', () => {
    expect(exceptionsBetween(exceptions, '2026-12-20', '2026-12-27').map((e) => e.starts_on)).toEqual(['2026-12-24', '2026-12-25']);
    expect(exceptionsBetween(exceptions, '2026-08-16', '2026-08-20').map((e) => e.label)).toEqual(['Summer break']);
  });
});

describe('open now with exceptions', () => {
  const rows = everyDay([9, 0], [18, 0]);

  test('closed-today exception at a store whose weekly hours say open', () => {
    const calendar = new HoursCalendar(new Date('2026-12-25T11:00:00Z')); // 12:00 in Paris
    expect(calendar.openNow(rows, 'Europe/Paris')).toBe(true);
    expect(calendar.openNow(rows, 'Europe/Paris', [closed('2026-12-25')])).toBe(false);
    expect(calendar.openNow(rows, 'Europe/Paris', [closed('2026-12-24')])).toBe(true);
    expect(calendar.hoursToday(rows, 'Europe/Paris', [closed('2026-12-25')]).label).toBe('Public holiday');
  });

  test("the exception of the store's local date applies, across the date line from UTC", () => {
    // 2026-12-25T02:00Z is Dec 24 18:00 in Los Angeles: Christmas Day's closure is not yet in force.
    const calendar = new HoursCalendar(new Date('2026-12-25T02:00:00Z'));
    const ex = [closed('2026-12-25'), special('2026-12-24', [span([10, 0], [19, 0])])];
    expect(calendar.today('America/Los_Angeles')).toBe('2026-12-24');
    expect(calendar.openNow(rows, 'America/Los_Angeles', ex)).toBe(true);
    expect(calendar.openNow(rows, 'Europe/Paris', ex)).toBe(false);
    expect(hoursToday(rows, ex, 'America/Los_Angeles', new Date('2026-12-25T02:00:00Z')).date).toBe('2026-12-24');
  });

  test('special hours replace the weekly row: several spans, and after midnight', () => {
    const ex = [special('2026-12-31', [span([14, 0], [16, 0]), span([10, 0], [12, 0]), span([20, 0], [2, 0])], 'New Year')];
    const at = (minutes: number, date = '2026-12-31') => isOpenOn(rows, ex, { date, minutes });
    expect(hoursOn(rows, ex, '2026-12-31').hours.map((s) => s.open_at_hour)).toEqual([10, 14, 20]);
    expect(at(9 * 60)).toBe(false);
    expect(at(11 * 60)).toBe(true);
    expect(at(13 * 60)).toBe(false);
    expect(at(15 * 60)).toBe(true);
    expect(at(21 * 60)).toBe(true);
    // New Year's Eve's last span runs into January 1st (whose weekly row opens at 09:00).
    expect(at(60, '2027-01-01')).toBe(true);
    expect(at(2 * 60, '2027-01-01')).toBe(false);
    expect(at(9 * 60, '2027-01-01')).toBe(true);
  });

  test("yesterday's weekly shift past midnight still ends on a closed day; a closed yesterday cuts it", () => {
    const night = [row('thursday', [18, 0], [2, 0]), row('friday', [18, 0], [2, 0])];
    // Friday 2026-12-25 01:00: Thursday's shift runs to 02:00 even though Christmas Day is closed.
    expect(isOpenOn(night, [closed('2026-12-25')], { date: '2026-12-25', minutes: 60 })).toBe(true);
    expect(isOpenOn(night, [closed('2026-12-25')], { date: '2026-12-25', minutes: 19 * 60 })).toBe(false);
    // Saturday 01:00: Friday was closed, so nothing runs over.
    expect(isOpenOn(night, [closed('2026-12-25')], { date: '2026-12-26', minutes: 60 })).toBe(false);
    expect(isOpenOn(night, [], { date: '2026-12-26', minutes: 60 })).toBe(true);
  });

  test('DST: the wall clock decides on the day clocks change', () => {
    // Sunday 2026-03-29, Paris springs forward at 02:00 -> 03:00. Special hours 01:00-04:00.
    const ex = [special('2026-03-29', [span([1, 0], [4, 0])], 'Easter market')];
    const at = (iso: string) => new HoursCalendar(new Date(iso)).openNow([], 'Europe/Paris', ex);
    expect(at('2026-03-29T00:30:00Z')).toBe(true); // 01:30 CET
    expect(at('2026-03-29T01:30:00Z')).toBe(true); // 03:30 CEST
    expect(at('2026-03-29T02:30:00Z')).toBe(false); // 04:30 CEST
    // Sunday 2026-10-25, clocks fall back 03:00 -> 02:00: a day closed by exception is closed in both 02:xx hours.
    const shut = [closed('2026-10-25')];
    const rows24 = everyDay([0, 0], [0, 0]);
    expect(new HoursCalendar(new Date('2026-10-25T00:30:00Z')).openNow(rows24, 'Europe/Paris', shut)).toBe(false); // 02:30 CEST
    expect(new HoursCalendar(new Date('2026-10-25T01:30:00Z')).openNow(rows24, 'Europe/Paris', shut)).toBe(false); // 02:30 CET
    expect(new HoursCalendar(new Date('2026-10-25T23:30:00Z')).openNow(rows24, 'Europe/Paris', shut)).toBe(true); // Monday 00:30
  });

  test('without exceptions the answer is the weekly one', () => {
    const night = [row('friday', [18, 0], [2, 0])];
    for (const minutes of [0, 60, 119, 120, 17 * 60, 18 * 60, 23 * 60]) {
      for (const date of ['2026-12-25', '2026-12-26']) {
        const weekday = isoWeekday(date);
        const calendarLess = isOpenOn(night, [], { date, minutes });
        const weekly = new HoursCalendar(new Date(`${date}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00Z`)).openNow(night, 'UTC');
        expect([weekday, minutes, calendarLess]).toEqual([weekday, minutes, weekly]);
      }
    }
  });
});

describe('hourExceptionErrors', () => {
  const ok = (startsOn: string, endsOn = startsOn): HourExceptionValues => ({ startsOn, endsOn, closed: true, hours: [] });
  const codes = (items: HourExceptionValues[]) => hourExceptionErrors(items).map((d) => `${d.field}:${d.code}`);

  test('valid sets pass, adjacent ranges included', () => {
    expect(codes([ok('2026-12-24'), ok('2026-12-25', '2026-12-26'), ok('2026-12-27', '2027-12-26')])).toEqual([]);
  });

  test('overlap is refused, ends inclusive, with both ranges named', () => {
    const details = hourExceptionErrors([ok('2026-12-20', '2026-12-25'), ok('2026-12-25')]);
    expect(details.map((d) => `${d.field}:${d.code}`)).toEqual(['hour_exceptions.starts_on:overlap']);
    expect(details[0].message).toContain('2026-12-20 to 2026-12-25 and 2026-12-25 to 2026-12-25');
  });

  test('bad dates, reversed or over-long ranges, spans and labels', () => {
    expect(codes([ok('2026-02-30', '2026-03-01')])).toEqual(['hour_exceptions.starts_on:invalid']);
    expect(codes([ok('', '2026-03-01')])).toEqual(['hour_exceptions.starts_on:blank']);
    expect(codes([ok('1999-12-31', '2000-01-01')])).toEqual(['hour_exceptions.starts_on:invalid']);
    expect(codes([ok('2026-12-25', '2026-12-24')])).toEqual(['hour_exceptions.ends_on:invalid']);
    expect(codes([ok('2028-01-01', '2028-12-31')])).toEqual([]); // 366 dates of a leap year
    expect(codes([ok('2026-01-01', '2027-01-02')])).toEqual(['hour_exceptions.ends_on:invalid']);
    expect(codes([{ ...ok('2026-12-24'), closed: false }])).toEqual(['hour_exceptions.hours:blank']);
    expect(codes([{ ...ok('2026-12-24'), closed: false, hours: [{ open_at_hour: 24, open_at_minute: 0, close_at_hour: 2 }] }])).toEqual([
      'hour_exceptions.hours.open_at_hour:invalid',
      'hour_exceptions.hours.close_at_minute:blank',
    ]);
    expect(codes([{ ...ok('2026-12-24'), closed: false, hours: Array(5).fill(span([9, 0], [10, 0])) }])).toEqual(['hour_exceptions.hours:invalid']);
    expect(codes([{ ...ok('2026-12-24'), label: 'x'.repeat(101) }])).toEqual(['hour_exceptions.label:invalid']);
  });

  test('at most 366 exceptions a store', () => {
    const days = Array.from({ length: 367 }, (_, i) => ok(addDays('2026-01-01', i)));
    expect(codes(days.slice(0, 366))).toEqual([]);
    expect(codes(days)).toEqual(['hour_exceptions:invalid']);
  });
});
