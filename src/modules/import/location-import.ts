import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Geocoder } from '../../geo/geocoder';
import { flushTiny } from '../../limits';
import { formatPhone } from '../contact/phone';
import { isSupportedCountry } from 'libphonenumber-js';
import { normalizeEmail, parsePhone } from '../lead/lead.rules';
import { WEEKDAYS } from '../retailer-location/hour.entity';
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
] as const;
const REQUIRED = ['external_id', 'retailer', 'name'] as const;
const MAX_TEXT = 255;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Hour {
  day: string;
  open: boolean;
  open_at_hour: number | null;
  open_at_minute: number | null;
  close_at_hour: number | null;
  close_at_minute: number | null;
}

/** One store as the CSV row gives it, validated and normalized: what the database should hold. */
interface Store {
  line: number;
  external_id: string;
  retailer: string;
  name: string;
  address: {
    street_line_one: string | null;
    street_line_two: string | null;
    city: string | null;
    province: string | null;
    postal_code: string | null;
    country: string | null;
    latitude: number | null;
    longitude: number | null;
    coordinates_source: 'explicit' | 'geocoder' | null;
  } | null;
  phone: { phone_number: string; country_code: string } | null;
  email: string | null;
  website: string | null;
  store_type_id: string | null;
  territory_id: string | null;
  hours: Hour[];
  sending_leads: boolean;
  receiving_leads: boolean;
  delivery_radius: number | null;
  delivery_areas: Array<{ postal_code: string; country: string | null }>;
}

/** What is stored for a CRL the import manages (its external id), in the shape of `Store` for comparison. */
const STORED_SQL = `
  select crl.external_id, crl.id as crl_id, crl.retailer_location_id as rl_id, coalesce(nullif(btrim(cr.name), ''), r.name) as retailer_name,
         rl.physical_address_id as location_id, rl.general_email_id as email_id, rl.general_phone_number_id as phone_id,
         json_build_object(
           'retailer', lower(coalesce(nullif(btrim(cr.name), ''), r.name)), 'name', rl.name,
           'address', case when l.id is null then null else json_build_object('street_line_one', l.street_line_one, 'street_line_two', l.street_line_two,
             'city', l.city, 'province', l.province, 'postal_code', l.postal_code, 'country', l.country, 'latitude', l.latitude,
             'longitude', l.longitude, 'coordinates_source', l.coordinates_source) end,
           'phone', case when p.id is null then null else json_build_object('phone_number', p.phone_number, 'country_code', p.country_code) end,
           'email', e.email, 'website', rl.website, 'store_type_id', crl.company_store_type_id, 'territory_id', crl.territory_id,
           'hours', (select coalesce(json_agg(json_build_object('day', h.day, 'open', h.open, 'open_at_hour', h.open_at_hour,
                      'open_at_minute', h.open_at_minute, 'close_at_hour', h.close_at_hour, 'close_at_minute', h.close_at_minute)
                      order by array_position(array['monday','tuesday','wednesday','thursday','friday','saturday','sunday']::text[], h.day::text)), '[]')
                     from hours h where h.retailer_location_id = rl.id),
           'sending_leads', crl.sending_leads, 'receiving_leads', crl.receiving_leads, 'delivery_radius', crl.delivery_radius,
           'delivery_areas', (select coalesce(json_agg(json_build_object('postal_code', d.postal_code, 'country', d.country)), '[]')
                               from delivery_areas d where d.company_retailer_location_id = crl.id)
         ) as stored
    from company_retailer_locations crl
    join company_retailers cr on cr.id = crl.company_retailer_id
    join retailers r on r.id = cr.retailer_id
    left join retailer_locations rl on rl.id = crl.retailer_location_id
    left join locations l on l.id = rl.physical_address_id
    left join emails e on e.id = rl.general_email_id
    left join phone_numbers p on p.id = rl.general_phone_number_id
   where crl.company_id = ? and crl.external_id = any(?::text[])`;

const byArea = (a: { postal_code: string; country: string | null }, b: { postal_code: string; country: string | null }) =>
  a.postal_code < b.postal_code ? -1 : a.postal_code > b.postal_code ? 1 : String(a.country) < String(b.country) ? -1 : String(a.country) > String(b.country) ? 1 : 0;

/** What `STORED_SQL` answers, with its delivery areas in `comparable`'s order. */
function storedComparable(stored: any): string {
  return JSON.stringify({ ...stored, delivery_areas: [...stored.delivery_areas].sort(byArea) });
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
  return inImportTransaction(em, companyId, options, (tx) => run(tx, geocoder, companyId, input, options));
}

async function run(em: EntityManager, geocoder: Geocoder, companyId: string, input: ImportInput, options: ImportOptions): Promise<ImportReport> {
  const report = newReport(options.dryRun);
  const byName = async (table: string) =>
    new Map<string, string>((await em.execute(`select id, name from ${table} where company_id = ?`, [companyId])).map((r: any) => [r.name.toLowerCase(), r.id]));
  const storeTypes = await byName('company_store_types');
  const territories = await byName('territories');
  const seen = new Map<string, number>();
  const geocoded = new Map<string, { latitude: number; longitude: number } | null>();
  let batch: Store[] = [];
  const flush = async () => {
    if (!batch.length) return;
    checkAborted(options.signal);
    const { counts, errors } = await writeBatch(em, companyId, batch, options.dryRun);
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
  };
  for await (const { line, values } of readCsv(input, { encoding: options.encoding, source: options.source, onHeader })) {
    checkAborted(options.signal);
    report.rows++;
    const errors: RowError[] = [];
    const store = parseRow(line, values, errors, { storeTypes, territories });
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

interface Stored {
  external_id: string;
  retailer_name: string;
  crl_id: string;
  rl_id: string | null;
  location_id: string | null;
  email_id: string | null;
  phone_id: string | null;
  stored: unknown;
}

/**
 * Compares a batch with what is stored and, unless a dry run, writes the new and changed stores (in the
 * import's transaction). A store whose row names another retailer is a row error, not a move.
 */
async function writeBatch(sql: EntityManager, companyId: string, batch: Store[], dryRun: boolean): Promise<{ counts: { created: number; updated: number; unchanged: number }; errors: RowError[] }> {
  const stored = new Map<string, Stored>(
    (await sql.execute(STORED_SQL, [companyId, `{${batch.map((s) => `"${s.external_id.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`])).map(
      (r: any) => [r.external_id, r],
    ),
  );
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
  const changed = stores.filter((s) => stored.has(s.external_id) && storedComparable(stored.get(s.external_id)!.stored) !== comparable(s));
  const counts = { created: created.length, updated: changed.length, unchanged: stores.length - created.length - changed.length };
  if (dryRun || (!created.length && !changed.length)) return { counts, errors };

  const retailers = await ensureRetailers(sql, companyId, [...created, ...changed]);
  // Every written store gets fresh address, email and phone rows; a changed store's old ones go last.
  const rows = [...created, ...changed].map((s) => {
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
  const json = (items: unknown[]) => JSON.stringify(items);
  await sql.execute(
    `insert into locations (id, street_line_one, street_line_two, city, province, postal_code, country, latitude, longitude, coordinates_source)
     select r.id, r.street_line_one, r.street_line_two, r.city, r.province, r.postal_code, r.country, r.latitude, r.longitude, r.coordinates_source
       from json_to_recordset(?::json) as r(id uuid, street_line_one text, street_line_two text, city text, province text, postal_code text,
                                            country text, latitude float8, longitude float8, coordinates_source text)`,
    [json(rows.filter((r) => r.location_id).map((r) => ({ id: r.location_id, ...r.s.address })))],
  );
  await sql.execute(`insert into emails (id, email) select r.id, r.email from json_to_recordset(?::json) as r(id uuid, email text)`, [
    json(rows.filter((r) => r.email_id).map((r) => ({ id: r.email_id, email: r.s.email }))),
  ]);
  await sql.execute(
    `insert into phone_numbers (id, phone_number, country_code, formatted_international)
     select r.id, r.phone_number, r.country_code, r.formatted from json_to_recordset(?::json) as r(id uuid, phone_number text, country_code text, formatted text)`,
    [json(rows.filter((r) => r.phone_id).map((r) => ({ id: r.phone_id, ...r.s.phone, formatted: formatPhone(r.s.phone!.phone_number, r.s.phone!.country_code) })))],
  );
  const rl = rows.map((r) => ({
    id: r.rl_id,
    retailer_id: r.retailer.retailer_id,
    name: r.s.name,
    website: r.s.website,
    physical_address_id: r.location_id,
    general_email_id: r.email_id,
    general_phone_number_id: r.phone_id,
  }));
  const RL_RECORD = `json_to_recordset(?::json) as r(id uuid, retailer_id uuid, name text, website text, physical_address_id uuid, general_email_id uuid, general_phone_number_id uuid)`;
  await sql.execute(
    `insert into retailer_locations (id, retailer_id, name, website, physical_address_id, general_email_id, general_phone_number_id)
     select r.id, r.retailer_id, r.name, r.website, r.physical_address_id, r.general_email_id, r.general_phone_number_id from ${RL_RECORD}
     on conflict (id) do update set name = excluded.name, website = excluded.website,
       physical_address_id = excluded.physical_address_id, general_email_id = excluded.general_email_id,
       general_phone_number_id = excluded.general_phone_number_id, updated_at = now()`,
    [json(rl)],
  );
  const crl = rows.map((r) => ({
    id: r.crl_id,
    company_retailer_id: r.retailer.company_retailer_id,
    retailer_location_id: r.rl_id,
    external_id: r.s.external_id,
    sending_leads: r.s.sending_leads,
    receiving_leads: r.s.receiving_leads,
    delivery_radius: r.s.delivery_radius,
    territory_id: r.s.territory_id,
    company_store_type_id: r.s.store_type_id,
  }));
  await sql.execute(
    `insert into company_retailer_locations (id, company_id, company_retailer_id, retailer_location_id, external_id, sending_leads, receiving_leads,
                                             delivery_radius, territory_id, company_store_type_id)
     select r.id, ?, r.company_retailer_id, r.retailer_location_id, r.external_id, r.sending_leads, r.receiving_leads, r.delivery_radius,
            r.territory_id, r.company_store_type_id
       from json_to_recordset(?::json) as r(id uuid, company_retailer_id uuid, retailer_location_id uuid, external_id text, sending_leads boolean,
                                            receiving_leads boolean, delivery_radius float8, territory_id uuid, company_store_type_id uuid)
     on conflict (id) do update set company_retailer_id = excluded.company_retailer_id, retailer_location_id = excluded.retailer_location_id,
       sending_leads = excluded.sending_leads, receiving_leads = excluded.receiving_leads, delivery_radius = excluded.delivery_radius,
       territory_id = excluded.territory_id, company_store_type_id = excluded.company_store_type_id, updated_at = now()`,
    [companyId, json(crl)],
  );
  const rlIds = `{${rows.map((r) => r.rl_id).join(',')}}`;
  const crlIds = `{${rows.map((r) => r.crl_id).join(',')}}`;
  await sql.execute(`delete from hours where retailer_location_id = any(?::uuid[])`, [rlIds]);
  await sql.execute(
    `insert into hours (retailer_location_id, day, open, open_at_hour, open_at_minute, close_at_hour, close_at_minute)
     select r.rl, r.day, r.open, r.open_at_hour, r.open_at_minute, r.close_at_hour, r.close_at_minute
       from json_to_recordset(?::json) as r(rl uuid, day text, open boolean, open_at_hour int, open_at_minute int, close_at_hour int, close_at_minute int)`,
    [json(rows.flatMap((r) => r.s.hours.map((h) => ({ rl: r.rl_id, ...h }))))],
  );
  await sql.execute(`delete from delivery_areas where company_retailer_location_id = any(?::uuid[])`, [crlIds]);
  await sql.execute(
    `insert into delivery_areas (company_retailer_location_id, postal_code, country)
     select r.crl, r.postal_code, r.country from json_to_recordset(?::json) as r(crl uuid, postal_code text, country text)`,
    [json(rows.flatMap((r) => r.s.delivery_areas.map((a) => ({ crl: r.crl_id, ...a }))))],
  );
  const replaced = (key: 'location_id' | 'email_id' | 'phone_id') => `{${rows.flatMap((r) => (r.old?.[key] ? [r.old[key]] : [])).join(',')}}`;
  await sql.execute(`delete from locations where id = any(?::uuid[])`, [replaced('location_id')]);
  await sql.execute(`delete from emails where id = any(?::uuid[])`, [replaced('email_id')]);
  await sql.execute(`delete from phone_numbers where id = any(?::uuid[])`, [replaced('phone_id')]);
  return { counts, errors };
}

/** The company's retailer (and its company-retailer link) for every retailer name, created when missing. */
async function ensureRetailers(em: EntityManager, companyId: string, stores: Store[]) {
  const known = new Map<string, { retailer_id: string; company_retailer_id: string }>(
    (
      await em.execute(
        `select lower(coalesce(nullif(btrim(cr.name), ''), r.name)) as name, r.id as retailer_id, cr.id as company_retailer_id
           from company_retailers cr join retailers r on r.id = cr.retailer_id where cr.company_id = ?`,
        [companyId],
      )
    ).map((r: any) => [r.name, { retailer_id: r.retailer_id, company_retailer_id: r.company_retailer_id }]),
  );
  const missing = new Map<string, { name: string; retailer_id: string; company_retailer_id: string }>();
  for (const s of stores) {
    const key = s.retailer.toLowerCase();
    if (!known.has(key) && !missing.has(key)) missing.set(key, { name: s.retailer, retailer_id: randomUUID(), company_retailer_id: randomUUID() });
  }
  if (missing.size) {
    const items = JSON.stringify([...missing.values()]);
    await em.execute(`insert into retailers (id, name) select r.retailer_id, r.name from json_to_recordset(?::json) as r(retailer_id uuid, name text)`, [items]);
    await em.execute(
      `insert into company_retailers (id, company_id, retailer_id) select r.company_retailer_id, ?, r.retailer_id
         from json_to_recordset(?::json) as r(retailer_id uuid, company_retailer_id uuid)`,
      [companyId, items],
    );
    for (const [key, m] of missing) known.set(key, m);
  }
  return known;
}
