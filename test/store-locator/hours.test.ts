import { HoursCalendar, isOpenAt, resolveZone, weekHours, type HourRow } from '../../src/modules/store-locator/store-locator.hours';

const row = (day: string, open: [number, number], close: [number, number]): HourRow => ({
  day,
  open: true,
  open_at_hour: open[0],
  open_at_minute: open[1],
  close_at_hour: close[0],
  close_at_minute: close[1],
});
const summary = (rows: HourRow[], zone: string, now: string) =>
  Object.fromEntries(weekHours(rows, zone, new Date(now)).map((h) => [h.day, [h.utc_offset_minute, h.open_at]]));

describe('weekHours', () => {
  test('seven entries Monday first; days without a row or closed have null times', () => {
    const hours = weekHours([row('wednesday', [9, 0], [17, 0]), { ...row('friday', [9, 0], [17, 0]), open: false }], 'America/Phoenix', new Date('2026-06-01T12:00:00Z'));
    expect(hours.map((h) => h.day)).toEqual(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
    expect(hours[2]).toEqual({
      day: 'wednesday',
      open: true,
      open_at_hour: 9,
      open_at_minute: 0,
      close_at_hour: 17,
      close_at_minute: 0,
      utc_offset_minute: -420,
      open_at: '2026-06-03T09:00:00-07:00',
      timezone: 'America/Phoenix',
    });
    expect(hours[4]).toMatchObject({ open: false, open_at_hour: null, open_at_minute: null, close_at_hour: null, close_at_minute: null, open_at: null });
    expect(hours[0]).toMatchObject({ open: false, open_at: null, utc_offset_minute: -420, timezone: 'America/Phoenix' });
  });

  test('America/New_York, the Saturday before clocks spring forward', () => {
    // Saturday 2026-03-07 10:00 EST. DST starts Sunday 2026-03-08 at 02:00.
    const rows = [row('saturday', [9, 0], [17, 0]), row('sunday', [2, 30], [18, 0]), row('monday', [10, 0], [19, 0]), row('friday', [18, 0], [2, 0])];
    expect(summary(rows, 'America/New_York', '2026-03-07T15:00:00Z')).toEqual({
      monday: [-300, '2026-03-09T10:00:00-04:00'],
      tuesday: [-300, null],
      wednesday: [-300, null],
      thursday: [-300, null],
      friday: [-300, '2026-03-13T18:00:00-04:00'],
      // Opened an hour ago: the next Saturday opening is next week.
      saturday: [-300, '2026-03-14T09:00:00-04:00'],
      // 02:30 does not exist that night: the opening moves forward with the clocks.
      sunday: [-300, '2026-03-08T03:30:00-04:00'],
    });
  });

  test('America/New_York, clocks fall back: a repeated time opens at its first occurrence', () => {
    // Saturday 2026-10-31 11:00 EDT. DST ends Sunday 2026-11-01 at 02:00 (01:00-02:00 happens twice).
    const rows = [row('sunday', [1, 30], [12, 0]), row('monday', [9, 0], [17, 0])];
    expect(summary(rows, 'America/New_York', '2026-10-31T15:00:00Z')).toMatchObject({
      sunday: [-240, '2026-11-01T01:30:00-04:00'],
      monday: [-240, '2026-11-02T09:00:00-05:00'],
    });
  });

  test('a store closing after midnight: the shift under way does not count as the next opening', () => {
    // Saturday 2026-07-04 01:00 in Chicago, inside Friday's 18:00-02:00 shift.
    const rows = [row('friday', [18, 0], [2, 0]), row('saturday', [10, 0], [1, 30])];
    const hours = weekHours(rows, 'America/Chicago', new Date('2026-07-04T06:00:00Z'));
    expect(hours[4]).toMatchObject({ day: 'friday', close_at_hour: 2, close_at_minute: 0, open_at: '2026-07-10T18:00:00-05:00' });
    expect(hours[5]).toMatchObject({ day: 'saturday', close_at_hour: 1, close_at_minute: 30, open_at: '2026-07-04T10:00:00-05:00' });
  });

  test('Australia/Sydney (southern hemisphere): DST starts in October', () => {
    // Saturday 2026-10-03 12:00 AEST (+10:00). DST starts Sunday 2026-10-04 at 02:00 -> 03:00.
    const rows = [row('sunday', [10, 0], [16, 0]), row('saturday', [12, 0], [17, 0])];
    expect(summary(rows, 'Australia/Sydney', '2026-10-03T02:00:00Z')).toMatchObject({
      saturday: [600, '2026-10-03T12:00:00+10:00'],
      sunday: [600, '2026-10-04T10:00:00+11:00'],
    });
  });

  test('America/Phoenix and Asia/Kolkata keep one offset all year', () => {
    const rows = [row('sunday', [2, 30], [18, 0])];
    for (const now of ['2026-03-07T15:00:00Z', '2026-10-31T15:00:00Z']) {
      expect(summary(rows, 'America/Phoenix', now).sunday[0]).toBe(-420);
      expect(summary(rows, 'America/Phoenix', now).sunday[1]).toMatch(/T02:30:00-07:00$/);
      expect(summary(rows, 'Asia/Kolkata', now).sunday[0]).toBe(330);
      expect(summary(rows, 'Asia/Kolkata', now).sunday[1]).toMatch(/T02:30:00\+05:30$/);
    }
  });

  test('UTC offsets are written +00:00', () => {
    expect(summary([row('monday', [8, 0], [9, 0])], 'UTC', '2026-06-01T12:00:00Z').monday).toEqual([0, '2026-06-08T08:00:00+00:00']);
  });

  test('an open day with no opening hour has no open_at', () => {
    const hours = weekHours([{ day: 'monday', open: true, open_at_hour: null, open_at_minute: null, close_at_hour: null, close_at_minute: null }], 'UTC', new Date());
    expect(hours[0]).toMatchObject({ open: true, open_at: null });
  });
});

describe('resolveZone', () => {
  const portland = { latitude: 45.52, longitude: -122.68 };
  test('the CRL zone, else the retailer location zone, else the coordinates', () => {
    expect(resolveZone(['America/Chicago', 'America/Denver'], portland)).toBe('America/Chicago');
    expect(resolveZone([null, 'America/Denver'], portland)).toBe('America/Denver');
    expect(resolveZone([null, null], portland)).toBe('America/Los_Angeles');
    expect(resolveZone([undefined, ''], { latitude: 43.65, longitude: -79.38 })).toBe('America/Toronto');
  });
  test('a stored name that is not a zone is skipped; nothing known is UTC', () => {
    expect(resolveZone(['Mars/Olympus', 'EST5EDT-nope'], portland)).toBe('America/Los_Angeles');
    expect(resolveZone([null, null], null)).toBe('UTC');
  });
});

describe('isOpenAt (open_now)', () => {
  const local = (weekday: number, hh: number, mm = 0) => ({ weekday, minutes: hh * 60 + mm });
  const day = row('tuesday', [9, 30], [17, 0]);
  const night = row('friday', [18, 0], [2, 0]);
  test.each([
    ['before opening', [day], local(2, 9, 29), false],
    ['at opening', [day], local(2, 9, 30), true],
    ['a minute before closing', [day], local(2, 16, 59), true],
    ['at closing', [day], local(2, 17, 0), false],
    ['another day', [day], local(3, 12), false],
    ['overnight: evening', [night], local(5, 23, 59), true],
    ['overnight: after midnight, the next day', [night], local(6, 1, 59), true],
    ['overnight: at closing the next day', [night], local(6, 2, 0), false],
    ['overnight: early the same day is not the shift of the day before', [night], local(5, 1, 0), false],
    ['Sunday night into Monday', [row('sunday', [20, 0], [1, 0])], local(1, 0, 30), true],
    ['equal times: round the clock', [row('monday', [6, 0], [6, 0])], local(2, 5, 59), true],
    ['a closed row', [{ ...day, open: false }], local(2, 12), false],
    ['a row with missing times', [{ ...day, close_at_hour: null }], local(2, 12), false],
    ['a row with times out of range', [row('tuesday', [9, 0], [25, 0])], local(2, 12), false],
  ])('%s', (_label, rows, at, open) => {
    expect(isOpenAt(rows as HourRow[], at)).toBe(open);
  });

  test('HoursCalendar.openNow reads the wall clock of the zone', () => {
    // 2026-03-08 07:30Z is 03:30 EDT (clocks sprang forward at 02:00) and 23:30 PST on Saturday.
    const calendar = new HoursCalendar(new Date('2026-03-08T07:30:00Z'));
    expect(calendar.openNow([row('sunday', [3, 0], [4, 0])], 'America/New_York')).toBe(true);
    expect(calendar.openNow([row('sunday', [3, 0], [4, 0])], 'America/Los_Angeles')).toBe(false);
    expect(calendar.openNow([row('saturday', [23, 0], [23, 45])], 'America/Los_Angeles')).toBe(true);
    expect(calendar.weekday('America/Los_Angeles')).toBe('saturday');
    expect(calendar.weekday('America/New_York')).toBe('sunday');
  });
});
