import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { api, createTestApp, type TestApp } from '../support/app';
import { runLeadnet, type CliRun } from '../support/cli';
import * as f from '../support/factories';
import { collection } from '../support/locator-factories';
import { createLead, quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';

/** The real `leadnet` bin on the test database (each start costs a second or more: few runs, each checking much). */
let t: TestApp;
let dir: string;
// Several starts of the bin per test, each a few seconds (more on a busy machine).
jest.setTimeout(300_000);

function leadnet(args: string[]): Promise<CliRun> {
  return runLeadnet(args, { DATABASE_URL: t.config.databaseUrl });
}

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-import-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const products = async (companyId: string) =>
  (await t.em().execute(`select sku, name, category, url, external_id, collection_id from products where company_id = ? order by sku`, [companyId])) as any[];

test('import products: dry run, row errors, batches, and a re-import that updates instead of duplicating', async () => {
  const brand = await f.company(t.em());
  const anvils = await collection(t.em(), brand, 'Anvils');
  const csv =
    '\uFEFFSKU,Name,Category,URL,External_ID,Collection\r\n' +
    'ANV-1,"Anvil, large",Tools,https://example.com/a,EXT-1,anvils\r\n' +
    'ANV-2,"Anvil ""mini""\nwith a two-line name",Tools,,,\r\n' +
    'ANV-3,,Tools,,,\r\n' + // line 5: no name
    'ANV-1,Again,,,,\r\n' + // line 6: repeated SKU
    'ANV-4,Bad link,,ftp://example.com,,\r\n' + // line 7
    'ANV-5,Lost,,,,Nowhere\r\n' + // line 8
    '\r\n' +
    'ANV-6,Fine,,,,\r\n';
  const path1 = file('products.csv', csv);

  const dry = await leadnet(['import', 'products', path1, '--company', brand.id, '--dry-run', '--json']);
  expect(dry).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(dry.stdout)).toEqual({
    rows: 7,
    created: 3,
    updated: 0,
    unchanged: 0,
    invalid: 4,
    dry_run: true,
    errors: [
      { row: 5, column: 'name', reason: "can't be blank" },
      { row: 6, column: 'sku', reason: 'repeats the SKU of line 2' },
      { row: 7, column: 'url', reason: 'must be an http or https URL' },
      { row: 8, column: 'collection', reason: 'no collection named "Nowhere" in this company' },
    ],
    errors_omitted: 0,
    ignored_columns: [],
  });
  expect(await products(brand.id)).toEqual([]);

  const real = await leadnet(['import', 'products', path1, '--company', brand.id]);
  expect(real.code).toBe(0);
  expect(real.stdout).toContain('Imported 7 product rows: 3 created, 0 updated, 0 unchanged, 4 invalid (skipped).');
  expect(real.stdout).toContain('line 6, sku: repeats the SKU of line 2');
  expect(await products(brand.id)).toEqual([
    { sku: 'ANV-1', name: 'Anvil, large', category: 'Tools', url: 'https://example.com/a', external_id: 'EXT-1', collection_id: anvils.id },
    { sku: 'ANV-2', name: 'Anvil "mini"\nwith a two-line name', category: 'Tools', url: null, external_id: null, collection_id: null },
    { sku: 'ANV-6', name: 'Fine', category: null, url: null, external_id: null, collection_id: null },
  ]);

  // Matched on the SKU: one changed row updates, the others are left as they are.
  const again = await leadnet(['import', 'products', file('again.csv', 'sku,name,category\nANV-1,Anvil XL,Tools\nANV-6,Fine,\nANV-7,New,\n'), '--company', brand.id, '--json']);
  expect(JSON.parse(again.stdout)).toMatchObject({ rows: 3, created: 1, updated: 1, unchanged: 1, invalid: 0 });
  expect((await products(brand.id)).map((p) => [p.sku, p.name])).toEqual([
    ['ANV-1', 'Anvil XL'],
    ['ANV-2', 'Anvil "mini"\nwith a two-line name'],
    ['ANV-6', 'Fine'],
    ['ANV-7', 'New'],
  ]);
  // ANV-1 lost its url, external id and collection: the row is the whole product.
  expect((await products(brand.id))[0]).toMatchObject({ url: null, external_id: null, collection_id: null });
});

test('a large product import is searchable by q at once, with exact totals (the trigram index takes new rows into its pending list)', async () => {
  expect((await t.em().execute(`select reloptions from pg_class where relname = 'products_search_text_trgm_index'`))[0].reloptions).toEqual([
    'fastupdate=on',
    'gin_pending_list_limit=256',
  ]);
  const brand = await f.company(t.em());
  const other = await f.company(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, brand);
  // 2,500 rows: three batches, far more trigrams than the 256 kB list holds, so some are merged, some wait.
  const rows = Array.from({ length: 2500 }, (_, i) => `BULK-${i},${i % 5 ? 'Hammer' : 'Wrench'} ${i},Tools`);
  const res = await leadnet(['import', 'products', file('bulk.csv', ['sku,name,category', ...rows].join('\n')), '--company', brand.id, '--json']);
  expect(JSON.parse(res.stdout)).toMatchObject({ rows: 2500, created: 2500, invalid: 0 });
  // Another company's product of the same words is not counted.
  await leadnet(['import', 'products', file('other.csv', 'sku,name\nBULK-1,Wrench 1\n'), '--company', other.id, '--json']);
  const wrench = await api(t, 'get', '/v1/products?q=wrench&opts[per_page]=10', { key: admin.key });
  expect(wrench.status).toBe(200);
  expect(wrench.body.meta.total).toBe(500);
  const one = await api(t, 'get', '/v1/products?q=bulk-2499', { key: admin.key });
  expect(one.body.products[0].sku).toBe('BULK-2499');
  // Updated names are found by their new words, not their old ones.
  await leadnet(['import', 'products', file('renamed.csv', 'sku,name,category\nBULK-0,Chisel 0,Tools\n'), '--company', brand.id, '--json']);
  expect((await api(t, 'get', '/v1/products?q=chisel', { key: admin.key })).body.meta.total).toBe(1);
  expect((await api(t, 'get', '/v1/products?q=wrench', { key: admin.key })).body.meta.total).toBe(499);
});

test('import refuses malformed CSV, a header without the key, an unknown company and a missing file', async () => {
  const brand = await f.company(t.em());
  const broken = await leadnet(['import', 'products', file('broken.csv', 'sku,name\nA,"open quote\n'), '--company', brand.id, '--json']);
  expect(broken.code).toBe(1);
  expect(JSON.parse(broken.stderr).error.code).toBe('INVALID_CSV');
  const header = await leadnet(['import', 'products', file('header.csv', 'code,title\nA,B\n'), '--company', brand.id]);
  expect(header.code).toBe(1);
  expect(header.stderr).toMatch(/no sku, name column/);
  const nobody = await leadnet(['import', 'products', file('ok.csv', 'sku,name\nA,B\n'), '--company', '00000000-0000-0000-0000-0000000000ff', '--json']);
  expect(JSON.parse(nobody.stderr).error).toMatchObject({ code: 'NOT_FOUND' });
  const missing = await leadnet(['import', 'products', path.join(dir, 'nope.csv'), '--company', brand.id]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/no such file/);
  expect(await products(brand.id)).toEqual([]);
});

test('export leads streams the leads the company sees, as CSV or JSON lines, since a date', async () => {
  const net = await f.network(t.em());
  const other = await f.network(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, net.company);
  const otherAdmin = await f.userWithKey(t.em(), Role.CompanyAdmin, other.company);
  const mine = [];
  for (let i = 0; i < 3; i++) mine.push(await createLead(t, admin.key, quoteRequest({ phone_numbers: [{ phone_number: `503-555-01${10 + i}` }] })));
  await createLead(t, otherAdmin.key);
  const csv = await leadnet(['export', 'leads', '--company', net.company.id]);
  expect(csv).toMatchObject({ code: 0 });
  const rows = parse(csv.stdout, { columns: true }) as any[];
  expect(rows.map((r) => r.id)).toEqual(mine.map((l) => l.id));
  expect(rows[0]).toMatchObject({ name: mine[0].name, status: 'New', owner_type: 'Company', owner_id: net.company.id, emails: mine[0].emails[0].email });
  expect(rows[0].phone_numbers).toMatch(/^\+1503555011\d$/);

  const lines = await leadnet(['export', 'leads', '--company', net.company.id, '--format', 'jsonl', '--since', mine[1].created_at]);
  const records = lines.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(records.map((r) => r.id)).toEqual([mine[1].id, mine[2].id]);
  expect(records[0].emails).toEqual([mine[1].emails[0].email]);

  const bad = await leadnet(['export', 'leads', '--company', net.company.id, '--since', 'yesterday-ish']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/is not a date/);
});
