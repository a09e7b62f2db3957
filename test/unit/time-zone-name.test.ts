import { isTimeZone } from '../../src/geo/time-zone-name';

test.each(['America/Chicago', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'UTC', 'Etc/GMT+5', 'US/Eastern', 'EST5EDT'])('%s is an IANA zone', (zone) => {
  expect(isTimeZone(zone)).toBe(true);
});

test.each(['PST', '+05:00', 'GMT+5', 'Mars/Olympus', 'america/chicago ', '', 'America/Chicago\u0000', '../etc/passwd'])('%j is not', (zone) => {
  expect(isTimeZone(zone)).toBe(false);
});
