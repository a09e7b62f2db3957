// A plain page's plan is kept per document, scope, hidden fields, order and page (src/search/postgres.ts):
// a kept plan must be the plan the request would get anew, for every caller, in any order of requests.
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { PostgresSearchBackend } from '../../src/search/postgres.queries';
import { productSearch } from '../../src/modules/product/product.search';
import type { SearchRequest, Where } from '../../src/search/types';

let t: TestApp;
let a: string;
let b: string;
beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  const acme = await f.company(em, 'Kept A');
  const other = await f.company(em, 'Kept B');
  for (let i = 0; i < 3; i++) await f.product(em, acme);
  for (let i = 0; i < 2; i++) await f.product(em, other);
  [a, b] = [acme.id, other.id];
});
afterAll(() => t.close());

/** The answer, or the error's message: what a caller gets. */
async function outcome(req: SearchRequest): Promise<unknown> {
  const backend = new PostgresSearchBackend(() => t.em());
  return backend.search(productSearch, req).then(
    (r) => ({ ids: [...r.ids].sort(), total: r.total }),
    (e: Error) => e.message,
  );
}

test('every scope gets its own plan: the same answers kept as planned anew (an empty where is planned anew)', async () => {
  const scopes: Where[] = [{ company_id: a }, { company_id: b }, {}, { company_id: undefined } as unknown as Where, { company_id: null } as unknown as Where, { company_id: [a, b] }, { id: [] }];
  const answers: unknown[] = [];
  for (const order of [scopes, [...scopes].reverse()]) {
    for (const scope of order) {
      for (const page of [1, 2]) {
        const req: SearchRequest = { scope, page, perPage: 2 };
        const kept = await outcome(req);
        expect([scope, page, kept]).toEqual([scope, page, await outcome({ ...req, where: {} })]);
        answers.push(kept);
      }
    }
  }
  // The scopes do differ: a company's products, the other's, everything.
  expect(await outcome({ scope: { company_id: a }, page: 1, perPage: 10 })).toMatchObject({ total: 3 });
  expect(await outcome({ scope: { company_id: b }, page: 1, perPage: 10 })).toMatchObject({ total: 2 });
  expect(await outcome({ scope: {}, page: 1, perPage: 10 })).toMatchObject({ total: 5 });
});
