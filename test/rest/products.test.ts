import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test('smoke: list products', async () => {
  const em = t.em();
  const acme = await f.company(em, 'Acme');
  await f.product(em, acme, { sku: 'A-1', name: 'Anvil' });
  const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
  const res = await api(t, 'get', '/v1/products', { key: admin.key });
  expect(res.status).toBe(200);
  expect(res.body.products).toHaveLength(1);
  expect(res.body.meta).toEqual({ total: 1, page: 1, per_page: 50, total_pages: 1, aggs: {} });
});
