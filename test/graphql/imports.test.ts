import request from 'supertest';
import { Client } from 'pg';
import { createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { collection } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';

/** The abuse cases of the GraphQL imports (docs/import-export.md), over HTTP. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const PRODUCTS = `mutation($c: ID!, $csv: String!, $dry: Boolean) {
  importProducts(companyId: $c, csv: $csv, dryRun: $dry) { rows created updated unchanged invalid dryRun errorsOmitted ignoredColumns errors { row column reason } } }`;
const LOCATIONS = `mutation($c: ID!, $csv: String!) { importLocations(companyId: $c, csv: $csv) { rows created invalid errors { row column reason } } }`;

const products = async (companyId: string) =>
  (await t.em().execute(`select sku, name, collection_id from products where company_id = ? order by sku`, [companyId])) as any[];

/** An error a client can act on: its code, a message naming the place, no SQL, never an internal error. */
function refused(res: request.Response, code: string, message: RegExp) {
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code } });
  expect(JSON.stringify(res.body)).not.toMatch(/INTERNAL_SERVER_ERROR|\b(select|insert|update)\b.*\b(from|into|set)\b/i);
}

test('malformed CSV text is BAD_USER_INPUT naming the line and column, for both imports, and writes nothing', async () => {
  const brand = await f.company(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, brand);
  const good = Array.from({ length: 1200 }, (_, i) => `G-${i},Good\n`).join('');
  const cases: Array<[string, RegExp]> = [
    [`sku,name\n${good}A,ab"cd\n`, /^CSV: line 1202, column "name": a quote inside a field that does not start with one/],
    [`sku,name\n${good}A,ab\u0000cd\n`, /^CSV: line 1202, column 5: a NUL character \(U\+0000\)/],
    [`sku,name\n${good}A,Caf\uFFFD\n`, /^CSV: line 1202, column 6: U\+FFFD \(the replacement character\): the file was decoded with the wrong encoding before it was sent/],
    [`sku,name\n${good}A,x\u001b[31m\n`, /^CSV: line 1202, column 4: control character U\+001B/],
    [`sku,name\n${good}A,"open\n`, /^CSV: line 1202: the file ends inside a quoted field opened after line 1201/],
    [`sku,name\n${good}A,B,C\n`, /^CSV: line 1202: 3 fields, but the header has 2 columns/],
    ['sku,name,Name\nA,B,C\n', /^CSV: line 1, columns 2 and 3: the header names "name" twice/],
    [`sku,name,${Array.from({ length: 300 }, (_, i) => `c${i}`).join(',')}\n`, /^CSV: line 1: the header has 302 columns; an import reads at most 200/],
    ['', /^CSV: the file is empty: it has no header row/],
    ['title\n', /^CSV: the header has no sku, name column/],
  ];
  for (const [csv, message] of cases) refused(await gql(t, admin.key, PRODUCTS, { c: brand.id, csv }), 'BAD_USER_INPUT', message);
  // A lone surrogate cannot reach the import: the argument is refused as it arrives.
  refused(await gql(t, admin.key, PRODUCTS, { c: brand.id, csv: 'sku,name\nA,x\ud800y\n' }), 'BAD_USER_INPUT', /not valid Unicode text/);
  refused(
    await gql(t, admin.key, LOCATIONS, { c: brand.id, csv: `external_id,retailer,name\nX-1,Shop,"Stray " quote\n` }),
    'BAD_USER_INPUT',
    /^CSV: line 2, column "name": a quoted field goes on after its closing quote/,
  );
  expect(await products(brand.id)).toEqual([]);
  const [{ n }] = await t.em().execute(`select count(*)::int as n from company_retailer_locations where company_id = ?`, [brand.id]);
  expect(n).toBe(0);
});

test('a body over 1 MiB is 413; a million bad rows cannot make a huge answer: 1,000 errors listed, the rest counted', async () => {
  const brand = await f.company(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, brand);
  const huge = await gql(t, admin.key, PRODUCTS, { c: brand.id, csv: `sku,name\nA,${'x'.repeat(2 * 1024 * 1024)}\n` });
  expect(huge.status).toBe(413);
  expect(huge.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');

  const rows = 200_000;
  const csv = `sku,name\n${'X,\n'.repeat(rows)}`;
  const res = await gql(t, admin.key, PRODUCTS, { c: brand.id, csv });
  expect(res.status).toBe(200);
  const report = res.body.data.importProducts;
  expect(report).toMatchObject({ rows, invalid: rows, created: 0, errorsOmitted: rows - 1000 });
  expect(report.errors).toHaveLength(1000);
  expect(res.text.length).toBeLessThan(200_000);
}, 180_000); // 200,000 rows parsed and checked: 6 s alone, over 60 s beside the CLI and engine suites

test('only the company admin (or the operator) imports into a company: other companies, retailers and other roles are refused, nothing written', async () => {
  const net = await f.network(t.em());
  const other = await f.network(t.em());
  const csv = 'sku,name\nZ-1,Zed\n';
  const callers = {
    otherAdmin: await f.userWithKey(t.em(), Role.CompanyAdmin, other.company),
    retailerAdmin: await f.userWithKey(t.em(), Role.RetailerAdmin, net.retailer),
    territoryManager: await f.userWithKey(t.em(), Role.CompanyTerritoryManager, net.company, { territory: net.north }),
    salesAssociate: await f.userWithKey(t.em(), Role.CompanySalesAssociate, net.company, { companyRetailerLocations: [net.storeNorth] }),
  };
  for (const [who, caller] of Object.entries(callers)) {
    const res = await gql(t, caller.key, PRODUCTS, { c: net.company.id, csv });
    expect([who, res.body.errors?.[0]?.extensions?.code]).toEqual([who, expect.stringMatching(/^(NOT_FOUND|FORBIDDEN)$/)]);
  }
  expect((await gql(t, null, PRODUCTS, { c: net.company.id, csv })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  expect(await products(net.company.id)).toEqual([]);
  const operator = await f.userWithKey(t.em(), Role.PlatformOperator, null);
  expect((await gql(t, operator.key, PRODUCTS, { c: net.company.id, csv })).body.data.importProducts).toMatchObject({ created: 1 });
});

test("another company's ids in the text: a collection_id column is ignored and reported, names resolve within the company only", async () => {
  const mine = await f.company(t.em());
  const theirs = await f.company(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, mine);
  const theirCollection = await collection(t.em(), theirs, 'Theirs Only');
  const csv = `sku,name,collection,collection_id,company_id,stocked_at\nA-1,One,,${theirCollection.id},${theirs.id},\nA-2,Two,Theirs Only,,,\nA-3,Three,,,,THEIR-STORE\n`;
  const res = await gql(t, admin.key, PRODUCTS, { c: mine.id, csv });
  expect(res.body.data.importProducts).toMatchObject({
    created: 1,
    invalid: 2,
    ignoredColumns: ['collection_id', 'company_id'],
    errors: [
      { row: 3, column: 'collection', reason: 'no collection named "Theirs Only" in this company' },
      { row: 4, column: 'stocked_at', reason: 'no store with external id "THEIR-STORE" in this company' },
    ],
  });
  expect(await products(mine.id)).toEqual([{ sku: 'A-1', name: 'One', collection_id: null }]);
  expect(await products(theirs.id)).toEqual([]);
});

test('while another import of the company runs, an import waits up to 3 s, then answers SERVICE_UNAVAILABLE (503, Retry-After) and writes nothing', async () => {
  const brand = await f.company(t.em());
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, brand);
  const holder = new Client({ connectionString: t.config.databaseUrl });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query(`select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`import:${brand.id}`]);
    const busy = await gql(t, admin.key, PRODUCTS, { c: brand.id, csv: 'sku,name\nL-1,Locked\n' });
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBeDefined();
    refused(busy, 'SERVICE_UNAVAILABLE', /^CSV: another import of this company's network is running; retry when it has finished$/);
    await holder.query('commit');
  } finally {
    await holder.end();
  }
  expect(await products(brand.id)).toEqual([]);
  expect((await gql(t, admin.key, PRODUCTS, { c: brand.id, csv: 'sku,name\nL-1,Locked\n' })).body.data.importProducts).toMatchObject({ created: 1 });
});
