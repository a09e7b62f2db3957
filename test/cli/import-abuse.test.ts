import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { Client } from 'pg';
import { parse } from 'csv-parse/sync';
import { api, createTestApp, type TestApp } from '../support/app';
import { LEADNET_BIN, leadnetEnv, runLeadnet } from '../support/cli';
import * as f from '../support/factories';
import { collection } from '../support/locator-factories';
import { createLead, quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';

/**
 * The abuse cases of `leadnet import` and `leadnet export` (docs/import-export.md), each through the real
 * bin as a child process on the test database.
 */
const HEADER = 'external_id,retailer,name,city,postal_code,country,latitude,longitude\r\n';
let t: TestApp;
let dir: string;
jest.setTimeout(300_000);

type Run = { code: number | null; signal?: NodeJS.Signals | null; stdout: string; stderr: string };

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return leadnetEnv({ DATABASE_URL: t.config.databaseUrl, GEOCODER: 'offline', ...extra });
}

function leadnet(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Run> {
  return runLeadnet(args, env(extra), { timeout: 240_000 });
}

/** The bin started in the background: its exit as a promise. */
function start(args: string[]) {
  const child = spawn(process.execPath, [LEADNET_BIN, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

function file(name: string, content: string | Buffer): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const products = async (companyId: string) =>
  (await t.em().execute(`select sku, name, collection_id from products where company_id = ? order by sku`, [companyId])) as Array<{ sku: string; name: string; collection_id: string | null }>;

/** A one-line CLI error: `leadnet: ...` and nothing else, no SQL. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\b(select|insert|update|delete)\b.*\b(from|into|set)\b/i);
  return lines[0];
}

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-abuse-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

test('malformed CSV is one line naming the line and column, and nothing of the file is written, even after a full batch', async () => {
  const brand = await f.company(t.em());
  // 1,500 good rows first: a batch of 1,000 has been written in the import's transaction when line 1502 is read.
  const good = Array.from({ length: 1500 }, (_, i) => `G-${i},Good ${i}\n`).join('');
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['quote.csv', `sku,name\n${good}Q-1,ab"cd\n`, /^leadnet: .*quote\.csv: line 1502, column "name": a quote inside a field/],
    ['nul.csv', `sku,name\n${good}N-1,ab\u0000cd\n`, /^leadnet: .*nul\.csv: line 1502, column 7: a NUL byte/],
    ['latin1.csv', Buffer.concat([Buffer.from(`sku,name\n${good}`), Buffer.from('L-1,Caf\u00e9\n', 'latin1')]), /^leadnet: .*latin1\.csv: line 1502, column 8: byte 0xE9 is not valid UTF-8; .*--encoding/],
    ['mangled.csv', `sku,name\n${good}M-1,Caf\uFFFD\n`, /^leadnet: .*mangled\.csv: line 1502, column 8: U\+FFFD/],
    ['bell.csv', `sku,name\n${good}B-1,ding\u0007\n`, /^leadnet: .*bell\.csv: line 1502, column 9: control character U\+0007/],
    ['unclosed.csv', `sku,name\n${good}U-1,"open\nU-2,x\n`, /^leadnet: .*unclosed\.csv: line 1503: the file ends inside a quoted field opened after line 1501/],
    ['wide.csv', `sku,name\n${good}W-1,x,y\n`, /^leadnet: .*wide\.csv: line 1502: 3 fields, but the header has 2 columns/],
  ];
  for (const [name, content, message] of cases) {
    const run = await leadnet(['import', 'products', file(name, content), '--company', brand.id]);
    expect([name, run.code]).toEqual([name, 1]);
    expect(oneLine(run.stderr)).toMatch(message);
  }
  const json = await leadnet(['import', 'products', path.join(dir, 'quote.csv'), '--company', brand.id, '--json']);
  expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'INVALID_CSV', message: expect.stringMatching(/line 1502, column "name"/) });
  expect(await products(brand.id)).toEqual([]);

  // The file in its own encoding reads as its text: Windows-1252 has the euro sign where Latin-1 has a control character.
  const cp1252 = file('cp1252.csv', Buffer.from('sku,name\r\nE-1,Caf\u00e9 \u0080 5\r\n', 'latin1'));
  const asLatin1 = await leadnet(['import', 'products', cp1252, '--company', brand.id, '--encoding', 'latin1']);
  expect(oneLine(asLatin1.stderr)).toMatch(/line 2, column 10: control character U\+0080: .*--encoding windows-1252/);
  expect(JSON.parse((await leadnet(['import', 'products', cp1252, '--company', brand.id, '--encoding', 'windows-1252', '--json'])).stdout)).toMatchObject({ created: 1 });
  expect(await products(brand.id)).toEqual([{ sku: 'E-1', name: 'Café € 5', collection_id: null }]);
});

test('byte-order marks: UTF-8, UTF-16LE and UTF-16BE are read as such; UTF-16 without one is refused naming --encoding', async () => {
  const brand = await f.company(t.em());
  const text = 'SKU,Name\r\nB-1,Crème\r\n';
  const be = Buffer.from(text, 'utf16le').swap16();
  const withBom = file('be.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
  expect(JSON.parse((await leadnet(['import', 'products', withBom, '--company', brand.id, '--json'])).stdout)).toMatchObject({ created: 1, invalid: 0 });
  const noBom = file('le.csv', Buffer.from(text.replace('B-1', 'B-2'), 'utf16le'));
  const refused = await leadnet(['import', 'products', noBom, '--company', brand.id]);
  expect(refused.code).toBe(1);
  expect(oneLine(refused.stderr)).toMatch(/line 1, column 2: a NUL byte: .*--encoding utf-16le/);
  expect(JSON.parse((await leadnet(['import', 'products', noBom, '--company', brand.id, '--encoding', 'utf-16le', '--json'])).stdout)).toMatchObject({ created: 1 });
  expect(await products(brand.id)).toEqual([
    { sku: 'B-1', name: 'Crème', collection_id: null },
    { sku: 'B-2', name: 'Crème', collection_id: null },
  ]);
});

test('a huge line, a million columns, too many or repeated header names, an empty file: one line each, nothing written', async () => {
  const brand = await f.company(t.em());
  const cases: Array<[string, string, RegExp]> = [
    ['long-line.csv', `sku,name\nL-1,${'x'.repeat(3 * 1024 * 1024)}\n`, /line 2: a record longer than 1 MiB/],
    ['million.csv', `sku,name,${Array.from({ length: 1_000_000 }, (_, i) => `c${i}`).join(',')}\nA,B\n`, /line 1: a record longer than 1 MiB/],
    ['wide-header.csv', `sku,name,${Array.from({ length: 10_000 }, (_, i) => `c${i}`).join(',')}\nA,B\n`, /line 1: the header has 10002 columns; an import reads at most 200/],
    ['twice.csv', 'sku,Name,name\nA,B,C\n', /line 1, columns 2 and 3: the header names "name" twice/],
    ['empty.csv', '', /the file is empty: it has no header row/],
    ['nokey.csv', 'name\n', /the header has no sku column/],
  ];
  for (const [name, content, message] of cases) {
    const run = await leadnet(['import', 'products', file(name, content), '--company', brand.id]);
    expect([name, run.code]).toEqual([name, 1]);
    expect(oneLine(run.stderr)).toMatch(message);
  }
  expect(await products(brand.id)).toEqual([]);
});

test('a huge file of bad rows: memory stays bounded (80 MB heap), the report lists 1,000 errors and counts the rest, and the exit status is 1', async () => {
  const brand = await f.company(t.em());
  const rows = 400_000;
  const big = path.join(dir, 'bad-rows.csv');
  const out = fs.createWriteStream(big);
  out.write('sku,name\n');
  for (let i = 0; i < rows; i++) out.write(`X-${i},\n`);
  await new Promise((r) => out.end(r));
  const run = await leadnet(['import', 'products', big, '--company', brand.id, '--json'], { NODE_OPTIONS: '--max-old-space-size=80' });
  expect(run.signal).toBeNull();
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report).toMatchObject({ rows, invalid: rows, created: 0, errors_omitted: rows - 1000 });
  expect(report.errors).toHaveLength(1000);
  expect(JSON.parse(run.stderr).error).toEqual({ code: 'ALL_ROWS_INVALID', message: `${big}: every row is invalid (${rows} of ${rows}); nothing was imported.` });
  // A file with a valid row among bad ones is a success (the bad rows are listed).
  const mixed = await leadnet(['import', 'products', file('mixed.csv', 'sku,name\nA,\nB,Fine\n'), '--company', brand.id]);
  expect(mixed.code).toBe(0);
  expect(mixed.stdout).toContain('1 created, 0 updated, 0 unchanged, 1 invalid');
});

test('coordinates and a delivery radius too small for PostgreSQL\'s float math (5e-324) are imported as 0, and the store locator answers', async () => {
  const net = await f.network(t.em());
  const csv = file('tiny.csv', `external_id,retailer,name,city,country,latitude,longitude,delivery_radius\r\nT-1,${net.retailer.name},Null Island,Nowhere,US,5e-324,-8.4e-323,1e-200\r\n`);
  const run = await leadnet(['import', 'locations', csv, '--company', net.company.id, '--json']);
  expect([run.code, JSON.parse(run.stdout)]).toEqual([0, expect.objectContaining({ created: 1, invalid: 0 })]);
  const [store] = await t.em().execute(
    `select l.latitude, l.longitude, crl.delivery_radius from company_retailer_locations crl join retailer_locations rl on rl.id = crl.retailer_location_id
       join locations l on l.id = rl.physical_address_id where crl.company_id = ? and crl.external_id = 'T-1'`,
    [net.company.id],
  );
  expect(store).toEqual({ latitude: 0, longitude: 0, delivery_radius: 0 });
  const found = await api(t, 'get', `/v1/store_locator?cc_id=${net.company.id}&latitude=0&longitude=0`);
  expect(found.status).toBe(200);
});

test("another company's ids in a file: names and external ids resolve within the company only; id columns are ignored; a store never changes retailer", async () => {
  const mine = await f.network(t.em());
  const theirs = await f.network(t.em());
  const theirCollection = await collection(t.em(), theirs.company, 'Shared Name');
  const stores = `external_id,retailer,name,city,postal_code,country,latitude,longitude,retailer_location_id,company_id\r\n`;
  // Their network has a store S-1 under their retailer; mine imports S-1 too, naming their retailer and their ids.
  const theirsFile = file('theirs.csv', `${HEADER}S-1,${theirs.retailer.name},Their store,Portland,97205,US,45.52,-122.68\r\n`);
  expect((await leadnet(['import', 'locations', theirsFile, '--company', theirs.company.id])).code).toBe(0);
  const [theirStore] = await t.em().execute(
    `select crl.id, crl.retailer_location_id, rl.retailer_id, rl.name from company_retailer_locations crl join retailer_locations rl on rl.id = crl.retailer_location_id
      where crl.company_id = ? and crl.external_id = 'S-1'`,
    [theirs.company.id],
  );
  const mineFile = file(
    'mine.csv',
    `${stores}S-1,${theirs.retailer.name},My store,Seattle,98102,US,47.62,-122.32,${theirStore.retailer_location_id},${theirs.company.id}\r\n`,
  );
  const run = await leadnet(['import', 'locations', mineFile, '--company', mine.company.id, '--json']);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ created: 1, invalid: 0, ignored_columns: ['retailer_location_id', 'company_id'] });
  const [myStore] = await t.em().execute(
    `select crl.id, crl.retailer_location_id, rl.retailer_id, crl.company_retailer_id, cr.company_id from company_retailer_locations crl
       join retailer_locations rl on rl.id = crl.retailer_location_id join company_retailers cr on cr.id = crl.company_retailer_id
      where crl.company_id = ? and crl.external_id = 'S-1'`,
    [mine.company.id],
  );
  // A retailer of mine by that name (new), not theirs; their store is untouched.
  expect(myStore.retailer_location_id).not.toBe(theirStore.retailer_location_id);
  expect(myStore.retailer_id).not.toBe(theirs.retailer.id);
  expect(myStore.company_id).toBe(mine.company.id);
  const [after] = await t.em().execute(`select rl.name, rl.retailer_id from retailer_locations rl where rl.id = ?`, [theirStore.retailer_location_id]);
  expect(after).toEqual({ name: 'Their store', retailer_id: theirStore.retailer_id });

  // Moving my S-1 to my network's retailer is refused, not done.
  const move = await leadnet(['import', 'locations', file('move.csv', `${HEADER}S-1,${mine.retailer.name},My store,Seattle,98102,US,47.62,-122.32\r\n`), '--company', mine.company.id, '--json']);
  expect(move.code).toBe(1);
  expect(JSON.parse(move.stdout).errors).toEqual([
    { row: 2, column: 'retailer', reason: expect.stringMatching(/^store "S-1" belongs to retailer ".*"; an import does not move a store to another retailer/) },
  ]);
  const [still] = await t.em().execute(`select retailer_id from retailer_locations where id = ?`, [myStore.retailer_location_id]);
  expect(still.retailer_id).toBe(myStore.retailer_id);

  // Products: their collection's name and their store's external id are unknown here; a collection_id column is ignored.
  const catalog = file(
    'catalog.csv',
    `sku,name,collection,collection_id,stocked_at\nP-1,One,Shared Name,,\nP-2,Two,,${theirCollection.id},\nP-3,Three,,,S-1\n`,
  );
  const theirStock = await leadnet(['import', 'products', catalog, '--company', theirs.company.id, '--dry-run', '--json']);
  expect(JSON.parse(theirStock.stdout)).toMatchObject({ created: 3, invalid: 0 });
  const mineRun = await leadnet(['import', 'products', catalog, '--company', mine.company.id, '--json']);
  expect(JSON.parse(mineRun.stdout)).toMatchObject({
    created: 2,
    invalid: 1,
    ignored_columns: ['collection_id'],
    errors: [{ row: 2, column: 'collection', reason: 'no collection named "Shared Name" in this company' }],
  });
  expect(await products(mine.company.id)).toEqual([
    { sku: 'P-2', name: 'Two', collection_id: null },
    { sku: 'P-3', name: 'Three', collection_id: null },
  ]);
  const [{ n }] = await t.em().execute(
    `select count(*)::int as n from stocks s join products p on p.id = s.product_id where p.company_id = ? and s.company_retailer_location_id = ?`,
    [mine.company.id, theirStore.id],
  );
  expect(n).toBe(0);
  // S-1 of mine is the store it stocks.
  const [{ crl }] = await t.em().execute(
    `select s.company_retailer_location_id as crl from stocks s join products p on p.id = s.product_id where p.company_id = ? and p.sku = 'P-3'`,
    [mine.company.id],
  );
  expect(crl).toBe(myStore.id);
});

test('two imports of the same SKUs at once take turns under the company lock: no duplicate, no mix of the files, exact reports', async () => {
  const brand = await f.company(t.em());
  const n = 1500;
  const a = file('race-a.csv', `sku,name\n${Array.from({ length: n }, (_, i) => `R-${i},From A\n`).join('')}`);
  const b = file('race-b.csv', `sku,name\n${Array.from({ length: n }, (_, i) => `R-${i},From B\n`).join('')}`);
  // Hold the company's import lock so that both wait, then let them race for it.
  const holder = new Client({ connectionString: t.config.databaseUrl });
  await holder.connect();
  await holder.query('begin');
  await holder.query(`select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`import:${brand.id}`]);
  const first = start(['import', 'products', a, '--company', brand.id, '--json']);
  const second = start(['import', 'products', b, '--company', brand.id]);
  await until('both imports waiting for the lock', async () => {
    const [{ waiting }] = await t.em().execute(`select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`);
    return waiting === 2;
  });
  expect(second.child.exitCode).toBeNull();
  await holder.query('commit');
  await holder.end();
  const [ra, rb] = await Promise.all([first.done, second.done]);
  expect([ra.code, rb.code]).toEqual([0, 0]);
  expect(rb.stderr).toContain(`Waiting for another import of company ${brand.id} to finish...`);
  const reportA = JSON.parse(ra.stdout);
  const createdB = Number(/(\d+) created/.exec(rb.stdout)![1]);
  const updatedB = Number(/(\d+) updated/.exec(rb.stdout)![1]);
  // One created every SKU, the other updated every one of them.
  expect([reportA.created + createdB, reportA.updated + updatedB]).toEqual([n, n]);
  const rows = await products(brand.id);
  expect(rows).toHaveLength(n);
  const names = new Set(rows.map((r) => r.name));
  expect(names.size).toBe(1);
  expect(names.has(reportA.updated === n ? 'From A' : 'From B')).toBe(true);
});

/** The import's own backend: in a transaction that has written (has a transaction id). */
async function importHasWritten(): Promise<boolean> {
  const rows = await t.em().execute(
    `select 1 from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null`,
  );
  return rows.length > 0;
}

test('Ctrl-C half-way through an import: one line, exit 130, nothing written; a crash (SIGKILL) half-way writes nothing either', async () => {
  const brand = await f.company(t.em());
  const big = file('ctrl-c.csv', `sku,name\n${Array.from({ length: 60_000 }, (_, i) => `C-${i},Product ${i}\n`).join('')}`);
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    const run = start(['import', 'products', big, '--company', brand.id]);
    await until('the import to write its first batch', importHasWritten);
    run.child.kill(signal);
    const done = await run.done;
    if (signal === 'SIGINT') {
      expect(done.code).toBe(130);
      expect(oneLine(done.stderr)).toBe(`leadnet: interrupted (SIGINT): the import of ${big} is rolled back; nothing of it is written.`);
      expect(done.stdout).toBe('');
    } else {
      expect(done.signal).toBe('SIGKILL');
    }
    // The server rolls the transaction back (when the connection closes, for the crash).
    await until('the import to leave the database', async () => !(await importHasWritten()));
    expect(await products(brand.id)).toEqual([]);
  }
});

test('export leads: formula cells are neutralised in CSV (reversibly; phone numbers and coordinates as they are), JSON lines are verbatim, --json, --version', async () => {
  const net = await f.network(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, net.company);
  const names = ['=HYPERLINK("http://evil.example","Click")', '+SUM(1,2)', '-2+3', '@cmd', '\tTabbed', ' =spaced', "'=already quoted", 'Plain Name'];
  const created = [];
  for (const [i, name] of names.entries()) {
    created.push(
      await createLead(
        t,
        admin.key,
        quoteRequest({ name, phone_numbers: [{ phone_number: `+1 503 555 01${10 + i}` }], location: { city: "=cmd|' /C calc'!A0", postal_code: '97205', country: 'US', latitude: 45.52, longitude: -122.68 } }),
      ),
    );
  }
  const csv = await leadnet(['export', 'leads', '--company', net.company.id]);
  expect(csv).toMatchObject({ code: 0, stderr: '' });
  const rows = parse(csv.stdout, { columns: true }) as any[];
  const stored = created.map((l) => l.name as string);
  expect(rows.map((r) => r.id)).toEqual(created.map((l) => l.id));
  expect(rows[0].name).toBe('\'=HYPERLINK("http://evil.example","Click")');
  expect(rows.slice(1, 4).map((r) => r.name)).toEqual(["'+SUM(1,2)", "'-2+3", "'@cmd"]);
  expect(rows[6].name).toBe("''=already quoted");
  expect(rows[7].name).toBe('Plain Name');
  // Every value that starts (after spaces) with = + - @ or a tab is written with one more leading '.
  rows.forEach((r, i) => expect([stored[i], r.name]).toEqual([stored[i], /^'*\s*[=+\-@]|^'*\t/.test(stored[i]) ? `'${stored[i]}` : stored[i]]));
  expect(new Set(rows.map((r) => r.city))).toEqual(new Set(["'=cmd|' /C calc'!A0"]));
  expect(rows[0].phone_numbers).toBe('+15035550110');
  expect(rows[0].longitude).toMatch(/^-122\.\d+$/);
  // docs/import-export.md: drop one leading ' from a cell that starts with ' and then (spaces and) = + - @, or a tab or CR.
  const undo = (v: string) => (/^'+(?:[\s\u00a0\u3000]*[=+\-@\uff1d\uff0b\uff0d\uff20]|[\t\r])/.test(v) ? v.slice(1) : v);
  expect(rows.map((r) => undo(r.name))).toEqual(stored);
  expect(undo(rows[0].city)).toBe("=cmd|' /C calc'!A0");

  const lines = await leadnet(['export', 'leads', '--company', net.company.id, '--json']);
  expect(lines.code).toBe(0);
  const records = lines.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(records.map((r) => r.id)).toEqual(created.map((l) => l.id));
  expect(records.map((r) => r.name)).toEqual(created.map((l) => l.name));
  expect(records[0].city).toBe("=cmd|' /C calc'!A0");

  const unknown = await leadnet(['export', 'leads', '--company', '00000000-0000-0000-0000-0000000000ff', '--json']);
  expect(unknown.code).toBe(1);
  expect(JSON.parse(unknown.stderr)).toEqual({ error: { code: 'NOT_FOUND', message: 'No company with id 00000000-0000-0000-0000-0000000000ff.' } });
  const version = await leadnet(['--version']);
  expect(version).toMatchObject({ code: 0, stdout: `${JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version}\n` });
});

test("export leads is exactly the company admin's lead list: not another company's leads, not a retailer's own", async () => {
  const net = await f.network(t.em());
  const other = await f.network(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, net.company);
  const otherAdmin = await f.userWithKey(t.em(), Role.CompanyAdmin, other.company);
  const retailerAdmin = await f.userWithKey(t.em(), Role.RetailerAdmin, net.retailer);
  const ours = [await createLead(t, admin.key), await createLead(t, admin.key)];
  const theirs = await createLead(t, otherAdmin.key);
  const retailers = await createLead(t, retailerAdmin.key);
  const list = await api(t, 'get', '/v1/leads?opts[per_page]=100', { key: admin.key });
  expect(list.status).toBe(200);
  const visible = list.body.leads.map((l: any) => l.id).sort();
  const exported = await leadnet(['export', 'leads', '--company', net.company.id, '--format', 'jsonl']);
  const ids = exported.stdout.trim().split('\n').map((l) => JSON.parse(l).id).sort();
  expect(ids).toEqual(visible);
  expect(ids).toEqual(expect.arrayContaining(ours.map((l) => l.id)));
  expect(ids).not.toContain(theirs.id);
  expect(visible.includes(retailers.id)).toBe(ids.includes(retailers.id));
});
