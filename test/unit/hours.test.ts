import { closesNextDay, hourErrors, type HourValues } from '../../src/modules/retailer-location/hours';

const open = (day: string, oh: number | null, om: number | null, ch: number | null, cm: number | null): HourValues => ({
  day,
  open: true,
  openAtHour: oh,
  openAtMinute: om,
  closeAtHour: ch,
  closeAtMinute: cm,
});
const codes = (hours: HourValues[]) => hourErrors(hours).map((d) => `${d.field}:${d.code}`);

describe('hourErrors (PRODUCT.md section 1)', () => {
  test('a valid week has no errors; closed days need no times', () => {
    expect(codes([open('monday', 9, 0, 17, 30), { day: 'sunday', open: false }, open('friday', 0, 0, 23, 59)])).toEqual([]);
  });

  test('a day is a lower-case weekday, at most once', () => {
    expect(codes([{ day: 'Monday', open: false }])).toEqual(['retailer_location_hours.day:invalid']);
    expect(codes([{ day: '', open: false }])).toEqual(['retailer_location_hours.day:blank']);
    expect(codes([{ day: 'monday', open: false }, { day: 'monday', open: false }])).toEqual(['retailer_location_hours.day:taken']);
  });

  test('when open, each time part is required and in range', () => {
    expect(codes([open('monday', null, 0, 17, 0)])).toEqual(['retailer_location_hours.open_at_hour:blank']);
    expect(codes([open('monday', 24, 60, -1, 1.5)])).toEqual([
      'retailer_location_hours.open_at_hour:invalid',
      'retailer_location_hours.open_at_minute:invalid',
      'retailer_location_hours.close_at_hour:invalid',
      'retailer_location_hours.close_at_minute:invalid',
    ]);
  });

  test('the same problem on several items is reported once, under the given field', () => {
    expect(hourErrors([open('monday', null, 0, 1, 0), open('tuesday', null, 0, 1, 0)], 'hours').map((d) => d.field)).toEqual(['hours.open_at_hour']);
  });
});

describe('closesNextDay', () => {
  test('a close time at or before the open time closes after midnight', () => {
    expect(closesNextDay(open('friday', 18, 0, 2, 0))).toBe(true);
    expect(closesNextDay(open('friday', 9, 0, 9, 0))).toBe(true);
    expect(closesNextDay(open('friday', 9, 0, 9, 1))).toBe(false);
    expect(closesNextDay({ day: 'friday', open: false })).toBe(false);
  });
});
