import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import request from 'supertest';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { runLeadnet, type CliRun } from '../support/cli';
import * as f from '../support/factories';
import * as lf from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { parseHourExceptions, parseHours } from '../../src/modules/import/location-import';
import { progressBar } from '../../src/cli/progress';

/** `leadnet import locations` through the real bin, checked through the REST API and the store locator. */
let t: TestApp;
let dir: string;
jest.setTimeout(300_000);

function leadnet(args: string[]): Promise<CliRun> {
  return runLeadnet(args, { DATABASE_URL: t.config.databaseUrl, GEOCODER: 'offline' });
}

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-import-locations-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const HEADER = 'external_id,retailer,name,street_line_one,city,province,postal_code,country,latitude,longitude,phone,email,website,store_type,territory,hours,sending_leads,receiving_leads,delivery_radius,delivery_areas\r\n';

test('import locations: dry run, row errors, geocoding, and a re-import that updates instead of duplicating', async () => {
  const brand = await f.company(t.em());
  await lf.storeType(t.em(), brand, 'Flagship', 2);
  await f.territory(t.em(), brand, 'West');
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, brand);
  const csv =
    '\uFEFF' +
    HEADER +
    'PDX-1,Rose City Bikes,Pearl District,1 NW 10th Ave,Portland,OR,97209,US,45.5265,-122.6815,(503) 555-0142,Pearl@Example.com,https://rosecity.example.com,Flagship,West,mon-fri 09:00-18:00; sat 10:00-16:00; sun closed,yes,yes,15,97209 US; 97210\r\n' +
    'PDX-2,Rose City Bikes,Downtown,800 SW Broadway,Portland,OR,97205,US,,,503-555-0143,,,,,,true,false,,\r\n' + // geocoded from its ZIP
    'SEA-1,"Emerald Cycles, Inc.",Capitol Hill,,Seattle,WA,98102,US,,,,,,,,,,,,\r\n' +
    'BAD-1,Rose City Bikes,,,,,,,,,,,,,,,,,,\r\n' + // line 5: no name
    'BAD-2,Rose City Bikes,Nowhere,,,,,,91,,,,,Kiosk,East,mon 25:00-26:00,maybe,,,\r\n' + // line 6: many errors
    'PDX-1,Rose City Bikes,Twice,,,,,,,,,,,,,,,,,\r\n'; // line 7: repeated external id
  const path1 = file('stores.csv', csv);

  const dry = await leadnet(['import', 'locations', path1, '--company', brand.id, '--dry-run', '--json']);
  expect(dry).toMatchObject({ code: 0, stderr: '' });
  const dryReport = JSON.parse(dry.stdout);
  expect(dryReport).toMatchObject({ rows: 6, created: 3, updated: 0, unchanged: 0, invalid: 3, dry_run: true });
  expect(dryReport.errors).toEqual(
    expect.arrayContaining([
      { row: 5, column: 'name', reason: "can't be blank" },
      { row: 6, column: 'latitude', reason: 'must be a number from -90 to 90' },
      { row: 6, column: 'store_type', reason: 'no store type named "Kiosk" in this company' },
      { row: 6, column: 'territory', reason: 'no territory named "East" in this company' },
      { row: 6, column: 'hours', reason: '"mon 25:00-26:00" is not "mon-fri 09:00-18:00" or "sun closed"' },
      { row: 6, column: 'sending_leads', reason: 'must be true or false (yes/no, 1/0)' },
      { row: 7, column: 'external_id', reason: 'repeats the external id of line 2' },
    ]),
  );
  const crls = async () => (await t.em().execute(`select external_id from company_retailer_locations where company_id = ? order by external_id`, [brand.id])).map((r: any) => r.external_id);
  expect(await crls()).toEqual([]);

  const real = await leadnet(['import', 'locations', path1, '--company', brand.id, '--json']);
  expect(real.code).toBe(0);
  expect(JSON.parse(real.stdout)).toMatchObject({ rows: 6, created: 3, updated: 0, unchanged: 0, invalid: 3, dry_run: false });
  expect(await crls()).toEqual(['PDX-1', 'PDX-2', 'SEA-1']);

  // Through the API, as a partner sees them.
  const list = await api(t, 'get', '/v1/company_retailer_locations?opts[per_page]=50', { key: admin.key });
  expect(list.status).toBe(200);
  const byName = new Map(list.body.company_retailer_locations.map((c: any) => [c.name ?? c.retailer_location?.name, c]));
  expect([...byName.keys()].sort()).toEqual(['Capitol Hill', 'Downtown', 'Pearl District']);
  const retailers = await api(t, 'get', '/v1/company_retailers', { key: admin.key });
  expect(retailers.body.company_retailers.map((r: any) => r.name ?? r.retailer?.name).sort()).toEqual(['Emerald Cycles, Inc.', 'Rose City Bikes']);

  // In the store locator (PDX-2 receives no leads, so only PDX-1 is listed near Portland), with its hours and phone.
  const near = await request(t.app).get(`/v1/store_locator?cc_id=${brand.id}&latitude=45.52&longitude=-122.68&radius=20mi`);
  expect(near.status).toBe(200);
  expect(near.body.results.map((r: any) => r.name)).toEqual(['Pearl District']);
  const pearl = near.body.results[0];
  expect(pearl).toMatchObject({ store_type: 'Flagship', retailer_name: 'Rose City Bikes', website: 'https://rosecity.example.com' });
  expect(pearl.email.email).toBe('pearl@example.com');
  expect(pearl.phone_number).toMatchObject({ phone_number: '+15035550142', formatted: '+1 503 555 0142' });
  expect(pearl.retailer_location_hours.find((h: any) => h.day === 'saturday')).toMatchObject({ open: true, open_at_hour: 10, close_at_hour: 16 });
  expect(pearl.retailer_location_hours.find((h: any) => h.day === 'sunday')).toMatchObject({ open: false });

  const [downtown] = await t.em().execute(
    `select l.latitude, l.longitude, l.coordinates_source, crl.receiving_leads from company_retailer_locations crl
       join retailer_locations rl on rl.id = crl.retailer_location_id join locations l on l.id = rl.physical_address_id
      where crl.company_id = ? and crl.external_id = 'PDX-2'`,
    [brand.id],
  );
  expect(downtown).toMatchObject({ coordinates_source: 'geocoder', receiving_leads: false });
  expect(downtown.latitude).toBeCloseTo(45.52, 1);
  const [areas] = await t.em().execute(
    `select array_agg(d.postal_code || ' ' || d.country order by d.postal_code) as areas, max(crl.delivery_radius) as radius
       from delivery_areas d join company_retailer_locations crl on crl.id = d.company_retailer_location_id where crl.external_id = 'PDX-1' and crl.company_id = ?`,
    [brand.id],
  );
  expect(areas).toEqual({ areas: ['97209 US', '97210 US'], radius: 15 });

  // The same file again changes nothing; an edited row updates that store in place.
  const again = await leadnet(['import', 'locations', path1, '--company', brand.id, '--json']);
  expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 3, invalid: 3 });
  const [{ id: pearlId }] = await t.em().execute(`select id from company_retailer_locations where company_id = ? and external_id = 'PDX-1'`, [brand.id]);
  const edited = file('edited.csv', HEADER + 'PDX-1,Rose City Bikes,Pearl District,2 NW 10th Ave,Portland,OR,97209,US,45.5265,-122.6815,(503) 555-0199,,,,,sat-sun closed,yes,no,,\r\n');
  const update = await leadnet(['import', 'locations', edited, '--company', brand.id]);
  expect(update.code).toBe(0);
  expect(update.stdout).toMatch(/Imported 1 location rows: 0 created, 1 updated, 0 unchanged, 0 invalid/);
  expect(await crls()).toEqual(['PDX-1', 'PDX-2', 'SEA-1']);
  const [after] = await t.em().execute(
    `select crl.id, crl.receiving_leads, crl.company_store_type_id, l.street_line_one, p.phone_number, rl.general_email_id,
            (select count(*) from hours h where h.retailer_location_id = rl.id)::int as hours,
            (select count(*) from delivery_areas d where d.company_retailer_location_id = crl.id)::int as areas
       from company_retailer_locations crl join retailer_locations rl on rl.id = crl.retailer_location_id
       left join locations l on l.id = rl.physical_address_id left join phone_numbers p on p.id = rl.general_phone_number_id
      where crl.company_id = ? and crl.external_id = 'PDX-1'`,
    [brand.id],
  );
  expect(after).toEqual({ id: pearlId, receiving_leads: false, company_store_type_id: null, street_line_one: '2 NW 10th Ave', phone_number: '+15035550199', general_email_id: null, hours: 2, areas: 0 });
  // Replaced address, email and phone rows are gone, not orphaned.
  const [{ orphans }] = await t.em().execute(
    `select count(*)::int as orphans from emails e where e.lead_id is null and e.email = 'pearl@example.com'`,
  );
  expect(orphans).toBe(0);
});

test('import locations: a file without the key columns or malformed CSV is a clear error, nothing written', async () => {
  const brand = await f.company(t.em());
  const noKey = await leadnet(['import', 'locations', file('nokey.csv', 'name,city\r\nA,Portland\r\n'), '--company', brand.id]);
  expect(noKey.code).not.toBe(0);
  expect(noKey.stderr).toMatch(/the header has no external_id, retailer column/);
  const broken = await leadnet(['import', 'locations', file('broken.csv', HEADER + 'X-1,"Unclosed,Name\r\n'), '--company', brand.id]);
  expect(broken.code).not.toBe(0);
  expect(broken.stderr).toMatch(/broken\.csv/);
  expect(await t.em().execute(`select 1 from company_retailer_locations where company_id = ?`, [brand.id])).toEqual([]);
});

test('hours: day ranges, closed days, after-midnight closing; anything else is refused', () => {
  const errors: string[] = [];
  expect(parseHours('Mon-Wed 09:00-17:30; friday 18:00-02:00; sun closed', (e) => errors.push(e))).toEqual([
    { day: 'monday', open: true, open_at_hour: 9, open_at_minute: 0, close_at_hour: 17, close_at_minute: 30 },
    { day: 'tuesday', open: true, open_at_hour: 9, open_at_minute: 0, close_at_hour: 17, close_at_minute: 30 },
    { day: 'wednesday', open: true, open_at_hour: 9, open_at_minute: 0, close_at_hour: 17, close_at_minute: 30 },
    { day: 'friday', open: true, open_at_hour: 18, open_at_minute: 0, close_at_hour: 2, close_at_minute: 0 },
    { day: 'sunday', open: false, open_at_hour: null, open_at_minute: null, close_at_hour: null, close_at_minute: null },
  ]);
  expect(errors).toEqual([]);
  for (const bad of ['fri-mon 09:00-10:00', 'mon 9-5', 'someday closed', 'mon 09:00-18:00; mon closed']) {
    const got: string[] = [];
    parseHours(bad, (e) => got.push(e));
    expect([bad, got.length > 0]).toEqual([bad, true]);
  }
});

test('hour_exceptions: imported, compared on re-import, kept by a file without the column; bad cells are row errors', async () => {
  const brand = await f.company(t.em());
  const withColumn = HEADER.replace('\r\n', ',hour_exceptions\r\n');
  const row = (exceptions: string) => `HX-1,Shop,Holiday,,Paris,,75001,FR,48.85,2.35,,,,,,mon-sun 09:00-18:00,,,,,"${exceptions}"\r\n`;
  const cell = '2026-12-25 closed Public holiday; 2026-12-24 10:00-12:00, 14:00-16:00 Christmas Eve; 2027-08-01..2027-08-15 closed';
  const first = await leadnet(['import', 'locations', file('hx.csv', withColumn + row(cell) + row('2026-12-25 closed').replace('HX-1', 'HX-2') + row('2026-12-20..2026-12-25 closed; 2026-12-25 closed').replace('HX-1', 'HX-3')), '--company', brand.id, '--json']);
  const report = JSON.parse(first.stdout);
  expect(report).toMatchObject({ created: 2, invalid: 1 });
  expect(report.errors).toEqual([{ row: 4, column: 'hour_exceptions', reason: expect.stringContaining('must not share a date') }]);
  const stored = () =>
    t.em().execute(
      `select x.starts_on::text, x.ends_on::text, x.closed, x.hours, x.label from hour_exceptions x
         join company_retailer_locations crl on crl.retailer_location_id = x.retailer_location_id
        where crl.company_id = ? and crl.external_id = 'HX-1' order by x.starts_on`,
      [brand.id],
    );
  expect(await stored()).toEqual([
    { starts_on: '2026-12-24', ends_on: '2026-12-24', closed: false, label: 'Christmas Eve', hours: [
      { open_at_hour: 10, open_at_minute: 0, close_at_hour: 12, close_at_minute: 0 },
      { open_at_hour: 14, open_at_minute: 0, close_at_hour: 16, close_at_minute: 0 },
    ] },
    { starts_on: '2026-12-25', ends_on: '2026-12-25', closed: true, label: 'Public holiday', hours: [] },
    { starts_on: '2027-08-01', ends_on: '2027-08-15', closed: true, label: null, hours: [] },
  ]);
  // The same cell again is unchanged while another cell replaces a store's; a file without the column leaves them alone.
  const stored2 = async () =>
    (await t.em().execute(
      `select x.starts_on::text, x.label from hour_exceptions x join company_retailer_locations crl on crl.retailer_location_id = x.retailer_location_id
        where crl.company_id = ? and crl.external_id = 'HX-2'`,
      [brand.id],
    )).map((e: any) => [e.starts_on, e.label]);
  const again = file('hx2.csv', withColumn + row(cell) + row('2027-01-01 closed New Year').replace('HX-1', 'HX-2'));
  expect(JSON.parse((await leadnet(['import', 'locations', again, '--company', brand.id, '--json'])).stdout)).toMatchObject({ unchanged: 1, updated: 1 });
  expect(await stored2()).toEqual([['2027-01-01', 'New Year']]);
  const plain = HEADER + 'HX-1,Shop,Holiday,,Paris,,75001,FR,48.85,2.35,,,,,,mon-sun 09:00-18:00,,,,\r\n';
  expect(JSON.parse((await leadnet(['import', 'locations', file('hx3.csv', plain), '--company', brand.id, '--json'])).stdout)).toMatchObject({ unchanged: 1 });
  expect(await stored()).toHaveLength(3);
});

test('hour_exceptions cells: dates, ranges, spans and labels; anything else is refused', () => {
  const errors: string[] = [];
  expect(parseHourExceptions('2026-12-31 20:00-02:00 New Year\'s Eve; 2026-07-14 CLOSED', (e) => errors.push(e))).toEqual([
    { starts_on: '2026-12-31', ends_on: '2026-12-31', closed: false, hours: [{ open_at_hour: 20, open_at_minute: 0, close_at_hour: 2, close_at_minute: 0 }], label: "New Year's Eve" },
    { starts_on: '2026-07-14', ends_on: '2026-07-14', closed: true, hours: [], label: null },
  ]);
  expect(errors).toEqual([]);
  for (const bad of ['25/12/2026 closed', '2026-12-25', '2026-12-25 open', '2026-02-30 closed', '2026-12-26..2026-12-25 closed', '2026-12-25 25:00-26:00', '2026-01-01..2027-06-01 closed']) {
    const got: string[] = [];
    parseHourExceptions(bad, (e) => got.push(e));
    expect([bad, got.length > 0]).toEqual([bad, true]);
  }
});

test('import products with stocked_at / available_at sets each product\'s stock by store external id', async () => {
  const brand = await f.company(t.em());
  const stores = file('two-stores.csv', HEADER + 'S-1,Shop,One,,Portland,OR,97205,US,45.52,-122.68,,,,,,,,,,\r\nS-2,Shop,Two,,Portland,OR,97209,US,45.53,-122.69,,,,,,,,,,\r\n');
  expect((await leadnet(['import', 'locations', stores, '--company', brand.id])).code).toBe(0);
  const stock = async () =>
    (
      await t.em().execute(
        `select p.sku, crl.external_id as store, s.stocked, s.available from stocks s join products p on p.id = s.product_id
           join company_retailer_locations crl on crl.id = s.company_retailer_location_id where p.company_id = ? order by 1, 2`,
        [brand.id],
      )
    ).map((r: any) => `${r.sku}@${r.store}:${r.stocked ? 'S' : '-'}${r.available ? 'A' : '-'}`);

  const first = file('stock.csv', 'sku,name,stocked_at,available_at\r\nA-1,Anvil,S-1; S-2,S-1\r\nA-2,Bolt,,S-2\r\nA-3,Chain,S-9,\r\n');
  const run1 = await leadnet(['import', 'products', first, '--company', brand.id, '--json']);
  expect(JSON.parse(run1.stdout)).toMatchObject({
    created: 2,
    invalid: 1,
    errors: [{ row: 4, column: 'stocked_at', reason: 'no store with external id "S-9" in this company' }],
  });
  expect(await stock()).toEqual(['A-1@S-1:SA', 'A-1@S-2:S-', 'A-2@S-2:-A']);

  expect(JSON.parse((await leadnet(['import', 'products', first, '--company', brand.id, '--json'])).stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
  const second = file('stock2.csv', 'sku,name,stocked_at,available_at\r\nA-1,Anvil,S-2,\r\nA-2,Bolt,,S-2\r\n');
  expect(JSON.parse((await leadnet(['import', 'products', second, '--company', brand.id, '--json'])).stdout)).toMatchObject({ updated: 1, unchanged: 1 });
  expect(await stock()).toEqual(['A-1@S-2:S-', 'A-2@S-2:-A']);
  // Without the columns, stock is left as it is.
  expect(JSON.parse((await leadnet(['import', 'products', file('nostock.csv', 'sku,name\r\nA-1,Anvil\r\n'), '--company', brand.id, '--json'])).stdout)).toMatchObject({ unchanged: 1 });
  expect(await stock()).toEqual(['A-1@S-2:S-', 'A-2@S-2:-A']);
});

test('the imports over GraphQL take CSV text: the same report; another company or a retailer user is refused', async () => {
  const brand = await f.company(t.em());
  const other = await f.company(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, brand);
  const foreign = await f.userWithKey(t.em(), Role.CompanyAdmin, other);
  const mutation = `mutation($companyId: ID!, $csv: String!, $dryRun: Boolean) {
    importLocations(companyId: $companyId, csv: $csv, dryRun: $dryRun) { rows created updated unchanged invalid dryRun errors { row column reason } } }`;
  const csv = HEADER + 'G-1,Gql Bikes,Over GraphQL,,Portland,OR,97205,US,,,,,,,,,,,,\r\nG-2,Gql Bikes,,,,,,,,,,,,,,,,,,\r\n';
  const dry = await gql(t, admin.key, mutation, { companyId: brand.id, csv, dryRun: true });
  expect(dry.body.data.importLocations).toEqual({ rows: 2, created: 1, updated: 0, unchanged: 0, invalid: 1, dryRun: true, errors: [{ row: 3, column: 'name', reason: "can't be blank" }] });
  expect(await t.em().execute(`select 1 from company_retailer_locations where company_id = ?`, [brand.id])).toEqual([]);
  const real = await gql(t, admin.key, mutation, { companyId: brand.id, csv });
  expect(real.body.data.importLocations).toMatchObject({ created: 1, invalid: 1, dryRun: false });
  const products = await gql(t, admin.key, `mutation($c: ID!, $csv: String!) { importProducts(companyId: $c, csv: $csv) { created errors { reason } } }`, {
    c: brand.id,
    csv: 'sku,name,available_at\r\nGQ-1,Pump,G-1\r\n',
  });
  expect(products.body.data.importProducts).toEqual({ created: 1, errors: [] });

  const refused = await gql(t, foreign.key, mutation, { companyId: brand.id, csv });
  expect(refused.body.errors[0].extensions.code).toMatch(/^(NOT_FOUND|FORBIDDEN)$/);
  const bad = await gql(t, admin.key, mutation, { companyId: brand.id, csv: 'name\r\nA\r\n' });
  expect(bad.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^CSV: the header has no external_id, retailer column/), extensions: { code: 'BAD_USER_INPUT' } });
});

test('the progress bar draws on a terminal only: share of the file, rows, rate', () => {
  const written: string[] = [];
  const terminal = { isTTY: true, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
  const reading = { bytesRead: 0 } as unknown as fs.ReadStream;
  const bar = progressBar(reading, 1000, terminal);
  (reading as any).bytesRead = 500;
  bar.update(1000);
  (reading as any).bytesRead = 1000;
  bar.update(2000);
  bar.done();
  expect(written[0]).toMatch(/^\r\[#{14}-{14}\]  50%  1,000 rows  [\d,]+ rows\/s$/);
  expect(written[1]).toMatch(/^\r\[#{28}\] 100%  2,000 rows/);
  expect(written[2]).toBe('\r\x1b[K');
  const pipe: string[] = [];
  const quiet = progressBar(reading, 1000, { isTTY: false, write: (s: string) => pipe.push(s) } as unknown as NodeJS.WriteStream);
  quiet.update(10);
  quiet.done();
  expect(pipe).toEqual([]);
});

test('a file in UTF-16 (with its byte-order mark) or in Latin-1 (--encoding latin1) reads as its text', async () => {
  const brand = await f.company(t.em());
  const utf16 = path.join(dir, 'utf16.csv');
  fs.writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sku,name\r\nU-1,Crème brûlée\r\n', 'utf16le')]));
  expect(JSON.parse((await leadnet(['import', 'products', utf16, '--company', brand.id, '--json'])).stdout)).toMatchObject({ created: 1, invalid: 0 });
  const latin1 = path.join(dir, 'latin1.csv');
  fs.writeFileSync(latin1, Buffer.from('sku,name\r\nL-1,Señor Café\r\n', 'latin1'));
  expect(JSON.parse((await leadnet(['import', 'products', latin1, '--company', brand.id, '--encoding', 'latin1', '--json'])).stdout)).toMatchObject({ created: 1 });
  const names = (await t.em().execute(`select name from products where company_id = ? order by sku`, [brand.id])).map((r: any) => r.name);
  expect(names).toEqual(['Señor Café', 'Crème brûlée']);
  const unknown = await leadnet(['import', 'products', latin1, '--company', brand.id, '--encoding', 'ebcdic']);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toMatch(/ebcdic/);
});
