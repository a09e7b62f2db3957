// A list's page rows (RowReader) come from the search's own statement on PostgreSQL; a backend that returns
// ids only (a search engine) gets the same rows read by id. Both roads must give the same page.
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { callerOf } from '../support/caller';
import { Role } from '../../src/modules/user/role';
import { Loaders } from '../../src/db/loaders';
import { PostgresSearchBackend } from '../../src/search/postgres';
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
  return { ...inner, search: async (doc, req) => ({ ...(await inner.search(doc, { ...req, rows: undefined })), rows: undefined }) } as SearchBackend;
}

function contextFor(caller: ReturnType<typeof callerOf>, engine: boolean): { ctx: Context } {
  const em = t.em();
  const postgres = new PostgresSearchBackend(() => em);
  const ctx = { em, caller, loaders: new Loaders(em), config: t.config, search: engine ? idsOnly(postgres) : postgres, geocoder: null } as unknown as Context;
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
