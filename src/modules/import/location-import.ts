import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Geocoder } from '../../geo/geocoder';
import { flushTiny } from '../../limits';
import { isSupportedCountry } from 'libphonenumber-js';
import { normalizeEmail, parsePhone } from '../lead/lead.rules';
import { WEEKDAYS } from '../retailer-location/hour.entity';
import { hourExceptionErrors } from '../company-retailer-location/hour-exceptions';
import { ImportError, readCsv, type RowError } from './csv';
import {
  addRowErrors,
  checkAborted,
  IMPORT_BATCH,
  ignoredColumns,
  inImportTransaction,
  newReport,
  type ImportInput,
  type ImportOptions,
  type ImportReport,
} from './transaction';
import {
  companyRetailersByName,
  idsByName,
  insertRetailers,
  storedStores,
  writeStores,
  type Hour,
  type ImportedException,
  type Store,
  type Stored,
  type StoreWrite,
} from './import.queries';

export const LOCATION_COLUMNS = [
  'external_id',
  'retailer',
  'name',
  'street_line_one',
  'street_line_two',
  'city',
  'province',
  'postal_code',
  'country',
  'latitude',
  'longitude',
  'phone',
  'email',
  'website',
  'store_type',
  'territory',
  'hours',
  'sending_leads',
  'receiving_leads',
  'delivery_radius',
  'delivery_areas',
  'hour_exceptions',
] as const;
const REQUIRED = ['external_id', 'retailer', 'name'] as const;
const MAX_TEXT = 255;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const byArea = (a: { postal_code: string; country: string | null }, b: { postal_code: string; country: string | null }) =>
  a.postal_code < b.postal_code ? -1 : a.postal_code > b.postal_code ? 1 : String(a.country) < String(b.country) ? -1 : String(a.country) > String(b.country) ? 1 : 0;

/** Exceptions with their spans' keys in one order (jsonb keeps its own), by date. */
function sameOrder(exceptions: ImportedException[]): ImportedException[] {
  return [...exceptions]
    .sort((a, b) => (a.starts_on < b.starts_on ? -1 : a.starts_on > b.starts_on ? 1 : 0))
    .map((e) => ({
      starts_on: e.starts_on,
      ends_on: e.ends_on,
      closed: e.closed,
      hours: e.hours.map((h) => ({ open_at_hour: h.open_at_hour, open_at_minute: h.open_at_minute, close_at_hour: h.close_at_hour, close_at_minute: h.close_at_minute })),
      label: e.label,
    }));
}

/**
 * What `STORED_SQL` answers, with its delivery areas in `comparable`'s order; its exceptions only when
 * the file has an `hour_exceptions` column (`withExceptions`).
 */
function storedComparable(stored: any, withExceptions: boolean): string {
  const { hour_exceptions, ...rest } = stored;
  return JSON.stringify({ ...rest, delivery_areas: [...stored.delivery_areas].sort(byArea), ...(withExceptions ? { hour_exceptions: sameOrder(hour_exceptions) } : {}) });
}

/** The fields `STORED_SQL` compares, in its order. */
function comparable(s: Store): string {
  return JSON.stringify({
    retailer: s.retailer.toLowerCase(),
    name: s.name,
    address: s.address,
    phone: s.phone,
    email: s.email,
    website: s.website,
    store_type_id: s.store_type_id,
    territory_id: s.territory_id,
    hours: s.hours,
    sending_leads: s.sending_leads,
    receiving_leads: s.receiving_leads,
    delivery_radius: s.delivery_radius,
    delivery_areas: [...s.delivery_areas].sort(byArea),
    ...(s.hour_exceptions ? { hour_exceptions: sameOrder(s.hour_exceptions) } : {}),
  });
}

/**
 * `leadnet import locations`: one store per CSV row of a company's network (the retailer, its retailer
 * location with address, phone, email, website and hours, and the company's CRL with store type,
 * territory, lead flags, delivery radius and areas), matched on the CRL's `external_id` so a re-import
 * updates instead of duplicating. Rows without coordinates are geocoded (PRODUCT.md 8). Invalid rows are
 * reported (line, column, reason) and skipped; valid rows are written in batches of `IMPORT_BATCH`
 * set-based statements (the read models follow by their triggers), all in one transaction under the
 * company's import lock (`inImportTransaction`). A store is never moved to another retailer: its
 * retailer location is the retailer's (its users, leads and other companies' links go with it). A dry
 * run compares and writes nothing.
 */
export async function importLocations(
  em: EntityManager,
  geocoder: Geocoder,
  companyId: string,
  input: ImportInput,
  options: ImportOptions,
): Promise<ImportReport> {
  return inImportTransaction(em, companyId, 'locations', options, (tx) => run(tx, geocoder, companyId, input, options));
}

async function run(em: EntityManager, geocoder: Geocoder, companyId: string, input: ImportInput, options: ImportOptions): Promise<ImportReport> {
  const report = newReport(options.dryRun);
  const storeTypes = await idsByName(em, 'company_store_types', companyId);
  const territories = await idsByName(em, 'territories', companyId);
  const seen = new Map<string, number>();
  let withExceptions = false;
  const geocoded = new Map<string, { latitude: number; longitude: number } | null>();
  let batch: Store[] = [];
  const flush = async () => {
    if (!batch.length) return;
    checkAborted(options.signal);
    const { counts, errors } = await writeBatch(em, companyId, batch, options.dryRun, withExceptions);
    report.created += counts.created;
    report.updated += counts.updated;
    report.unchanged += counts.unchanged;
    for (const e of errors) addRowErrors(report, [e]);
    batch = [];
    options.onProgress?.(report.rows);
  };
  const onHeader = (header: string[]) => {
    const missing = REQUIRED.filter((c) => !header.includes(c));
    if (missing.length) throw new ImportError(`the header has no ${missing.join(', ')} column (columns: ${LOCATION_COLUMNS.join(', ')})`);
    report.ignored_columns = ignoredColumns(header, LOCATION_COLUMNS);
    withExceptions = header.includes('hour_exceptions');
  };
  for await (const { line, values } of readCsv(input, { encoding: options.encoding, source: options.source, onHeader })) {
    checkAborted(options.signal);
    report.rows++;
    const errors: RowError[] = [];
    const store = parseRow(line, values, errors, { storeTypes, territories }, withExceptions);
    if (store && seen.has(store.external_id)) errors.push({ row: line, column: 'external_id', reason: `repeats the external id of line ${seen.get(store.external_id)}` });
    if (!store || errors.length) {
      addRowErrors(report, errors);
      continue;
    }
    seen.set(store.external_id, line);
    if (store.address && store.address.latitude === null) {
      const a = store.address;
      const key = JSON.stringify([a.street_line_one, a.street_line_two, a.postal_code, a.city, a.province, a.country]);
      if (!geocoded.has(key)) {
        geocoded.set(
          key,
          await geocoder
            .geocode({ streetLineOne: a.street_line_one, streetLineTwo: a.street_line_two, postalCode: a.postal_code, city: a.city, province: a.province, country: a.country })
            .catch(() => null),
        );
      }
      const at = geocoded.get(key);
      if (at) Object.assign(a, { latitude: at.latitude, longitude: at.longitude, coordinates_source: 'geocoder' });
    }
    batch.push(store);
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return report;
}

function parseRow(
  line: number,
  values: Record<string, string>,
  errors: RowError[],
  names: { storeTypes: Map<string, string>; territories: Map<string, string> },
  withExceptions: boolean,
): Store | null {
  const fail = (column: string, reason: string) => errors.push({ row: line, column, reason });
  const text = (column: string, required = false): string | null => {
    const v = (values[column] ?? '').trim();
    if (!v) {
      if (required) fail(column, "can't be blank");
      return null;
    }
    if (v.length > MAX_TEXT) fail(column, `is longer than ${MAX_TEXT} characters`);
    if (v.includes('\u0000')) fail(column, 'contains a NUL character');
    return v;
  };
  const flag = (column: string): boolean => {
    const v = (values[column] ?? '').trim().toLowerCase();
    if (!v) return true;
    if (['true', 'yes', 'y', '1'].includes(v)) return true;
    if (['false', 'no', 'n', '0'].includes(v)) return false;
    fail(column, 'must be true or false (yes/no, 1/0)');
    return true;
  };
  const number = (column: string, min: number, max: number): number | null => {
    const v = text(column);
    if (v === null) return null;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) {
      fail(column, `must be a number from ${min} to ${max}`);
      return null;
    }
    return flushTiny(n);
  };
  const byName = (column: string, map: Map<string, string>, what: string): string | null => {
    const v = text(column);
    if (v === null) return null;
    const id = map.get(v.toLowerCase());
    if (!id) fail(column, `no ${what} named "${v}" in this company`);
    return id ?? null;
  };

  const externalId = text('external_id', true);
  const retailer = text('retailer', true);
  const name = text('name', true);
  let country = text('country');
  if (country) {
    country = country.toUpperCase();
    if (!isSupportedCountry(country)) fail('country', 'is not a supported ISO 3166 country code');
  }
  const latitude = number('latitude', -90, 90);
  const longitude = number('longitude', -180, 180);
  if ((latitude === null) !== (longitude === null)) fail(latitude === null ? 'latitude' : 'longitude', 'latitude and longitude go together');
  const address = {
    street_line_one: text('street_line_one'),
    street_line_two: text('street_line_two'),
    city: text('city'),
    province: text('province'),
    postal_code: text('postal_code'),
    country,
    latitude: latitude !== null && longitude !== null ? latitude : null,
    longitude: latitude !== null && longitude !== null ? longitude : null,
    coordinates_source: latitude !== null && longitude !== null ? ('explicit' as const) : null,
  };
  const hasAddress = Object.values(address).some((v) => v !== null);
  const phoneText = text('phone');
  const parsedPhone = phoneText ? parsePhone(phoneText, country ?? 'US') : null;
  if (phoneText && !parsedPhone) fail('phone', `is not a valid phone number${country ? ` in ${country}` : ''}`);
  const emailText = text('email');
  const email = emailText ? normalizeEmail(emailText) : null;
  if (email && !EMAIL_RE.test(email)) fail('email', 'is not an email address');
  const website = text('website');
  if (website && !/^https?:\/\/\S+$/i.test(website)) fail('website', 'must be an http or https URL');
  const areas = (text('delivery_areas') ?? '')
    .split(';')
    .map((a) => a.trim())
    .filter(Boolean)
    .map((a) => {
      const [postal, areaCountry, ...rest] = a.split(/\s+/);
      const code = areaCountry?.toUpperCase() ?? null;
      if (rest.length || (code && !isSupportedCountry(code))) fail('delivery_areas', `"${a}" is not "POSTAL_CODE [COUNTRY]"`);
      return { postal_code: postal, country: code ?? country ?? null };
    });
  const store: Store = {
    line,
    external_id: externalId ?? '',
    retailer: retailer ?? '',
    name: name ?? '',
    address: hasAddress ? address : null,
    phone: parsedPhone ? { phone_number: parsedPhone.e164, country_code: parsedPhone.country } : null,
    email,
    website,
    store_type_id: byName('store_type', names.storeTypes, 'store type'),
    territory_id: byName('territory', names.territories, 'territory'),
    hours: parseHours(text('hours'), (reason) => fail('hours', reason)),
    sending_leads: flag('sending_leads'),
    receiving_leads: flag('receiving_leads'),
    delivery_radius: number('delivery_radius', 0, 10000),
    delivery_areas: areas,
    hour_exceptions: withExceptions ? parseHourExceptions(values.hour_exceptions ?? '', (reason) => fail('hour_exceptions', reason)) : null,
  };
  return errors.length ? null : store;
}

const DAY = new Map<string, number>(WEEKDAYS.flatMap((d, i) => [[d, i] as [string, number], [d.slice(0, 3), i] as [string, number]]));

/**
 * `mon-fri 09:00-18:00; sat 10:00-16:00; sun closed`: day or day range (3-letter or full English
 * weekday names), then `HH:MM-HH:MM` or `closed`; a closing time at or before the opening one closes
 * after midnight (PRODUCT.md 1). Days not named have no hours row. Blank: no hours.
 */
export function parseHours(text: string | null, fail: (reason: string) => void): Hour[] {
  if (!text) return [];
  const hours = new Map<number, Hour>();
  for (const part of text.split(';').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z]+)(?:\s*-\s*([a-z]+))?\s+(?:(closed)|(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2}))$/i.exec(part);
    const from = m ? DAY.get(m[1].toLowerCase()) : undefined;
    const to = m?.[2] ? DAY.get(m[2].toLowerCase()) : from;
    const times = m && !m[3] ? [m[4], m[5], m[6], m[7]].map(Number) : null;
    if (!m || from === undefined || to === undefined || to < from || (times && (times[0] > 23 || times[1] > 59 || times[2] > 23 || times[3] > 59))) {
      fail(`"${part}" is not "mon-fri 09:00-18:00" or "sun closed"`);
      continue;
    }
    for (let d = from; d <= to; d++) {
      if (hours.has(d)) fail(`${WEEKDAYS[d]} is given twice`);
      hours.set(d, {
        day: WEEKDAYS[d],
        open: times !== null,
        open_at_hour: times ? times[0] : null,
        open_at_minute: times ? times[1] : null,
        close_at_hour: times ? times[2] : null,
        close_at_minute: times ? times[3] : null,
      });
    }
  }
  return [...hours.entries()].sort(([a], [b]) => a - b).map(([, h]) => h);
}

/** The longest `hour_exceptions` cell (a year of days with labels); other columns stop at 255 characters. */
const MAX_EXCEPTIONS_TEXT = 40_000;
const EXCEPTION_PART = /^(\d{4}-\d{2}-\d{2})(?:\s*\.\.\s*(\d{4}-\d{2}-\d{2}))?\s+(closed|\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}(?:\s*,\s*\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2})*)(?:\s+(.*))?$/i;

/**
 * `2026-12-25 closed Public holiday; 2026-12-24 10:00-14:00 Christmas Eve; 2027-08-01..2027-08-15 closed;
 * 2026-12-31 10:00-12:00,14:00-18:00`: a date or an inclusive range `FROM..TO` (the store's local dates),
 * then `closed` or opening spans `HH:MM-HH:MM` separated by commas, then an optional label (no `;`). The
 * rules of the API apply (docs/store-locator.md): at most 366 a store, a year a range, 4 spans a day, no
 * two sharing a date. Blank: none.
 */
export function parseHourExceptions(text: string, fail: (reason: string) => void): ImportedException[] {
  const value = text.trim();
  if (!value) return [];
  if (value.length > MAX_EXCEPTIONS_TEXT) {
    fail(`is longer than ${MAX_EXCEPTIONS_TEXT} characters`);
    return [];
  }
  if (value.includes('\u0000')) {
    fail('contains a NUL character');
    return [];
  }
  const exceptions: ImportedException[] = [];
  for (const part of value.split(';').map((p) => p.trim()).filter(Boolean)) {
    const m = EXCEPTION_PART.exec(part);
    if (!m) {
      fail(`"${part}" is not "2026-12-25 closed Public holiday" or "2026-12-24..2026-12-26 10:00-14:00 Label"`);
      continue;
    }
    const closed = m[3].toLowerCase() === 'closed';
    const hours = closed
      ? []
      : m[3].split(',').map((span) => {
          const [oh, om, ch, cm] = span.trim().split(/\s*[-:]\s*/).map(Number);
          return { open_at_hour: oh, open_at_minute: om, close_at_hour: ch, close_at_minute: cm };
        });
    exceptions.push({ starts_on: m[1], ends_on: m[2] ?? m[1], closed, hours, label: m[4]?.trim() || null });
  }
  const errors = hourExceptionErrors(
    exceptions.map((e) => ({ startsOn: e.starts_on, endsOn: e.ends_on, closed: e.closed, hours: e.hours, label: e.label })),
    'hour_exceptions',
  );
  for (const e of errors) fail(`${e.field.replace(/^hour_exceptions\.?/, '') || 'the list'} ${e.message}`.trim());
  return exceptions;
}

/**
 * Compares a batch with what is stored and, unless a dry run, writes the new and changed stores (in the
 * import's transaction). A store whose row names another retailer is a row error, not a move.
 */
async function writeBatch(sql: EntityManager, companyId: string, batch: Store[], dryRun: boolean, withExceptions: boolean): Promise<{ counts: { created: number; updated: number; unchanged: number }; errors: RowError[] }> {
  const stored = new Map<string, Stored>((await storedStores(sql, companyId, batch.map((s) => s.external_id))).map((r) => [r.external_id, r]));
  const errors: RowError[] = [];
  const stores = batch.filter((s) => {
    const old = stored.get(s.external_id);
    if (!old || old.retailer_name.toLowerCase() === s.retailer.toLowerCase()) return true;
    errors.push({
      row: s.line,
      column: 'retailer',
      reason: `store "${s.external_id}" belongs to retailer "${old.retailer_name}"; an import does not move a store to another retailer (remove it and import it again under the new one)`,
    });
    return false;
  });
  const created = stores.filter((s) => !stored.has(s.external_id));
  const changed = stores.filter((s) => stored.has(s.external_id) && storedComparable(stored.get(s.external_id)!.stored, withExceptions) !== comparable(s));
  const counts = { created: created.length, updated: changed.length, unchanged: stores.length - created.length - changed.length };
  if (dryRun || (!created.length && !changed.length)) return { counts, errors };

  const retailers = await ensureRetailers(sql, companyId, [...created, ...changed]);
  // Every written store gets fresh address, email and phone rows; a changed store's old ones go last.
  const rows = [...created, ...changed].map((s): StoreWrite => {
    const old = stored.get(s.external_id);
    return {
      s,
      old,
      crl_id: old?.crl_id ?? randomUUID(),
      rl_id: old?.rl_id ?? randomUUID(),
      location_id: s.address ? randomUUID() : null,
      email_id: s.email ? randomUUID() : null,
      phone_id: s.phone ? randomUUID() : null,
      retailer: retailers.get(s.retailer.toLowerCase())!,
    };
  });
  await writeStores(sql, companyId, rows);
  return { counts, errors };
}

/** The company's retailer (and its company-retailer link) for every retailer name, created when missing. */
async function ensureRetailers(em: EntityManager, companyId: string, stores: Store[]) {
  const known = await companyRetailersByName(em, companyId);
  const missing = new Map<string, { name: string; retailer_id: string; company_retailer_id: string }>();
  for (const s of stores) {
    const key = s.retailer.toLowerCase();
    if (!known.has(key) && !missing.has(key)) missing.set(key, { name: s.retailer, retailer_id: randomUUID(), company_retailer_id: randomUUID() });
  }
  if (missing.size) {
    await insertRetailers(em, companyId, [...missing.values()]);
    for (const [key, m] of missing) known.set(key, m);
  }
  return known;
}
