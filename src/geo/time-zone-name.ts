const ZONES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('timeZone'));
const AREA_ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+$/;

/** The tzdb names without an area part (ICU also accepts legacy abbreviations such as `PST`, which are not zones). */
const SINGLE_NAMES: ReadonlySet<string> = new Set(
  ('UTC UCT GMT GMT0 GMT+0 GMT-0 Greenwich Universal Zulu EST MST HST EST5EDT CST6CDT MST7MDT PST8PDT CET EET MET WET ' +
    'Cuba Egypt Eire GB GB-Eire Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya NZ NZ-CHAT Navajo PRC ' +
    'Poland Portugal ROC ROK Singapore Turkey W-SU').split(' '),
);

/**
 * True for an IANA time zone name (`America/Chicago`, `UTC`, and tzdb aliases such as `US/Eastern`);
 * false for offsets (`+05:00`), abbreviations (`PST`) and anything else.
 */
export function isTimeZone(name: string): boolean {
  if (ZONES.has(name)) return true;
  if (!SINGLE_NAMES.has(name) && !AREA_ZONE.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
