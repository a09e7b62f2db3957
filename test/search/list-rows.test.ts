// A list's page rows (RowReader) come from the search's own statement on PostgreSQL; a backend that returns
// ids only (a search engine) gets the same rows read by id. Both roads must give the same page.
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { callerOf } from '../support/caller';
import { Role } from '../../src/modules/user/role';
import { Loaders } from '../../src/db/loaders';
import { DIRECT_ROWS, PostgresSearchBackend } from '../../src/search/postgres.queries';
import { query } from '../../src/db/sql';
import type { Context } from '../../src/context';
import type { SearchBackend } from '../../src/search/types';
import { ProductService } from '../../src/modules/product/product.service';
import { CompanyRetailerService } from '../../src/modules/company-retailer/company-retailer.service';
import { Product } from '../../src/modules/product/product.entity';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The PostgreSQL backend as a search engine answers: ids and totals, never rows. */
function idsOnly(inner: SearchBackend): SearchBackend {
  return { ...inner, search: async (doc, req) => ({ ...(await inner.search(doc, { ...req, rows: undefined, rowColumns: undefined })), rows: undefined }) } as SearchBackend;
}

/** The PostgreSQL backend reading every page's ids first, then its rows by id (JSON) in the same statement. */
function idsThenRows(inner: SearchBackend): SearchBackend {
  return { ...inner, search: (doc, req) => inner.search(doc, { ...req, rowColumns: undefined }) } as SearchBackend;
}

type Road = 'range' | 'ids' | 'engine';

function contextFor(caller: ReturnType<typeof callerOf>, road: Road | boolean): { ctx: Context } {
  const em = t.em();
  const postgres = new PostgresSearchBackend(() => em);
  const which = road === true ? 'engine' : road === false ? 'range' : road;
  const search = which === 'engine' ? idsOnly(postgres) : which === 'ids' ? idsThenRows(postgres) : postgres;
  const ctx = { em, caller, loaders: new Loaders(em), config: t.config, search, geocoder: null } as unknown as Context;
  return { ctx };
}

/** A node's own enumerable fields and its embeds, dates as ISO strings (comparable across the two roads). */
const plain = (x: unknown): unknown => (x === undefined ? null : JSON.parse(JSON.stringify(x)));
const shape = (nodes: object[]) => nodes.map((n) => plain(n));

test('products: the same page, as instances of the type, from the search statement and read by id', async () => {
  const em = t.em();
  const acme = await f.company(em, 'Rows Inc');
  for (let i = 0; i < 12; i++) await f.product(em, acme, { category: i % 2 ? 'Tools' : null });
  const caller = callerOf(Role.CompanyAdmin, { companyId: acme.id });
  const [inline, engine] = await Promise.all(
    [false, true].map((e) => new ProductService(contextFor(caller, e).ctx).list({ page: 2, perPage: 5 } as any)),
  );
  expect(inline.meta.total).toBe(12);
  expect(inline.nodes).toHaveLength(5);
  expect(inline.nodes[0]).toBeInstanceOf(Product);
  expect(inline.nodes[0].companyId).toBe(acme.id);
  expect(inline.nodes[0].createdAt).toBeInstanceOf(Date);
  expect(shape(engine.nodes)).toEqual(shape(inline.nodes));
  expect(engine.meta).toEqual(inline.meta);
});

test('products: a page read by its own range scan, one read by its ids first and one read by id are the same, deep, empty and stamped pages included', async () => {
  const em = t.em();
  const big = await f.company(em, 'Many Products');
  // More products than a page reads in its own range (DIRECT_ROWS), some created in the same instant.
  await query(
    em,
    `insert into products (id, company_id, sku, name, category, created_at, updated_at)
     select gen_random_uuid(), ?, 'BIG-' || n, 'Big ' || n, case when n % 3 = 0 then null else 'C' || (n % 5) end,
            timestamptz '2026-01-01' + (n / 4) * interval '1 minute', now()
       from generate_series(1, ?) n`,
    [big.id, DIRECT_ROWS + 10],
  );
  const caller = callerOf(Role.CompanyAdmin, { companyId: big.id });
  const pages: Array<[number, number]> = [[1, 50], [2, 5], [5, 200], [3, 500], [21, 50], [30, 50]];
  for (const [page, perPage] of pages) {
    for (const stamps of [false, true]) {
      const read = (road: Road) => new ProductService(contextFor(caller, road).ctx).list({ page, perPage } as any, stamps);
      const [range, ids, engine] = await Promise.all([read('range'), read('ids'), read('engine')]);
      expect([page, perPage, range.meta.total]).toEqual([page, perPage, DIRECT_ROWS + 10]);
      expect(range.nodes).toHaveLength(Math.max(0, Math.min(perPage, DIRECT_ROWS + 10 - (page - 1) * perPage)));
      for (const other of [ids, engine]) {
        expect(shape(other.nodes)).toEqual(shape(range.nodes));
        expect(other.meta).toEqual(range.meta);
      }
      if (stamps && range.nodes.length) expect(range.nodes[0].createdAt).toBeInstanceOf(Date);
    }
  }
});

test('another company admin sees none of them on either road', async () => {
  const em = t.em();
  const other = await f.company(em, 'Elsewhere');
  const caller = callerOf(Role.CompanyAdmin, { companyId: other.id });
  for (const engine of [false, true]) {
    const page = await new CompanyRetailerService(contextFor(caller, engine).ctx).list({ page: 1, perPage: 50 } as any);
    expect(page.nodes).toEqual([]);
    expect(page.meta.total).toBe(0);
  }
});
