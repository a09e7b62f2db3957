import type { DayOfWeek, LocalBusiness, OpeningHoursSpecification, WithContext } from 'schema-dts';
import type { HourExceptionRow, HourRow } from '../store-locator/store-locator.hours';

const DAYS: Record<string, DayOfWeek> = {
  monday: 'https://schema.org/Monday',
  tuesday: 'https://schema.org/Tuesday',
  wednesday: 'https://schema.org/Wednesday',
  thursday: 'https://schema.org/Thursday',
  friday: 'https://schema.org/Friday',
  saturday: 'https://schema.org/Saturday',
  sunday: 'https://schema.org/Sunday',
};

export const hhmm = (hour: number | null, minute: number | null) => `${String(hour ?? 0).padStart(2, '0')}:${String(minute ?? 0).padStart(2, '0')}`;

/** What the JSON-LD of a store says. */
export interface StoreFacts {
  url: string;
  name: string;
  company: string;
  description: string;
  telephone: string | null;
  email: string | null;
  website: string | null;
  street: string | null;
  city: string | null;
  region: string | null;
  postalCode: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  map: string | null;
  hours: HourRow[];
  exceptions: HourExceptionRow[];
}

/**
 * The weekly rows (one specification per open weekday) and the dated exceptions (`validFrom` and
 * `validThrough`; a closed one opens and closes at 00:00, as schema.org and search engines read a closed day).
 */
export function openingHours(hours: HourRow[], exceptions: HourExceptionRow[]): OpeningHoursSpecification[] {
  const weekly: OpeningHoursSpecification[] = hours
    .filter((h) => h.open && DAYS[h.day] && h.open_at_hour !== null && h.close_at_hour !== null)
    .sort((a, b) => Object.keys(DAYS).indexOf(a.day) - Object.keys(DAYS).indexOf(b.day))
    .map((h) => ({
      '@type': 'OpeningHoursSpecification',
      dayOfWeek: DAYS[h.day],
      opens: hhmm(h.open_at_hour, h.open_at_minute),
      closes: hhmm(h.close_at_hour, h.close_at_minute),
    }));
  const dated: OpeningHoursSpecification[] = exceptions.flatMap((e) => {
    const spans = e.closed || !e.hours.length ? [{ opens: '00:00', closes: '00:00' }] : e.hours.map((s) => ({ opens: hhmm(s.open_at_hour, s.open_at_minute), closes: hhmm(s.close_at_hour, s.close_at_minute) }));
    return spans.map((s) => ({
      '@type': 'OpeningHoursSpecification' as const,
      ...(e.label ? { name: e.label } : {}),
      validFrom: e.starts_on,
      validThrough: e.ends_on,
      opens: s.opens,
      closes: s.closes,
    }));
  });
  return [...weekly, ...dated];
}

/** schema.org `LocalBusiness` of a store page (typed with schema-dts). */
export function localBusiness(f: StoreFacts): WithContext<LocalBusiness> {
  return {
    '@context': 'https://schema.org',
    '@type': 'LocalBusiness',
    '@id': `${f.url}#store`,
    name: f.name,
    url: f.url,
    description: f.description,
    brand: { '@type': 'Brand', name: f.company },
    ...(f.telephone ? { telephone: f.telephone } : {}),
    ...(f.email ? { email: f.email } : {}),
    ...(f.website ? { sameAs: f.website } : {}),
    address: {
      '@type': 'PostalAddress',
      ...(f.street ? { streetAddress: f.street } : {}),
      ...(f.city ? { addressLocality: f.city } : {}),
      ...(f.region ? { addressRegion: f.region } : {}),
      ...(f.postalCode ? { postalCode: f.postalCode } : {}),
      ...(f.country ? { addressCountry: f.country } : {}),
    },
    ...(f.latitude !== null && f.longitude !== null ? { geo: { '@type': 'GeoCoordinates', latitude: f.latitude, longitude: f.longitude } } : {}),
    ...(f.map ? { hasMap: f.map } : {}),
    openingHoursSpecification: openingHours(f.hours, f.exceptions),
  };
}

/** JSON for a `<script type="application/ld+json">`: nothing in it can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
