import { addBusinessMinutes } from '../../src/modules/response-times/business-time';
import type { HourRow } from '../../src/modules/store-locator/store-locator.hours';

const open = (day: string, from: number, to: number, minute = 0): HourRow => ({
  day,
  open: true,
  open_at_hour: from,
  open_at_minute: minute,
  close_at_hour: to,
  close_at_minute: 0,
});
const WEEKDAYS_9_TO_17 = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((d) => open(d, 9, 17));
const NY = 'America/New_York';

describe('business time', () => {
  test('4 business hours from Friday 15:00 end Monday 11:00 across the weekend', () => {
    // Friday 2026-11-20 15:00 EST = 20:00 UTC.
    expect(addBusinessMinutes(new Date('2026-11-20T20:00:00Z'), 240, WEEKDAYS_9_TO_17, NY).toISOString()).toBe('2026-11-23T16:00:00.000Z');
  });

  test('across the spring-forward weekend the due time keeps the wall clock (EDT on Monday)', () => {
    // Friday 2026-03-06 15:00 EST = 20:00 UTC; clocks spring forward Sunday 2026-03-08; Monday 11:00 EDT = 15:00 UTC.
    expect(addBusinessMinutes(new Date('2026-03-06T20:00:00Z'), 240, WEEKDAYS_9_TO_17, NY).toISOString()).toBe('2026-03-09T15:00:00.000Z');
  });

  test('before opening, time starts at the opening; after closing, at the next one', () => {
    expect(addBusinessMinutes(new Date('2026-11-23T12:00:00Z'), 60, WEEKDAYS_9_TO_17, NY).toISOString()).toBe('2026-11-23T15:00:00.000Z');
    expect(addBusinessMinutes(new Date('2026-11-23T23:00:00Z'), 60, WEEKDAYS_9_TO_17, NY).toISOString()).toBe('2026-11-24T15:00:00.000Z');
  });

  test('an opening that spans the fall-back night lasts as long as it really does', () => {
    // Saturday 2026-10-31 22:00 to Sunday 06:00 EDT->EST: 9 real hours (the 01:00 hour happens twice).
    const night = [open('saturday', 22, 6)];
    const start = new Date('2026-11-01T02:00:00Z'); // Saturday 22:00 EDT
    expect(addBusinessMinutes(start, 9 * 60, night, NY).toISOString()).toBe('2026-11-01T11:00:00.000Z'); // Sunday 06:00 EST
    expect(addBusinessMinutes(start, 9 * 60 + 1, night, NY).toISOString()).toBe('2026-11-08T03:01:00.000Z'); // the minute left: next Saturday 22:01 EST
  });

  test('a store with no hours counts every hour', () => {
    expect(addBusinessMinutes(new Date('2026-11-20T20:00:00Z'), 240, [], NY).toISOString()).toBe('2026-11-21T00:00:00.000Z');
  });
});
