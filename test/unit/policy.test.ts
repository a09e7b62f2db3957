import { actionTable, ALL, authorize, may, NONE, READ } from '../../src/access/policy';
import { Role } from '../../src/modules/user/role';
import { callerOf } from '../support/caller';
import fs from 'node:fs';
import path from 'node:path';
import { crlActions, crlScope, crlWritable } from '../../src/modules/company-retailer-location/company-retailer-location.policy';
import { productScope } from '../../src/modules/product/product.policy';
import { productImagePolicy } from '../../src/modules/product/product-image.policy';
import { stockPolicy } from '../../src/modules/product/stock.policy';
import { userPolicy } from '../../src/modules/user/user.policy';

const caller = (role: Role) => callerOf(role, { userId: 'u' });

test('actionTable gives every role the base, then the exceptions', () => {
  const table = actionTable(READ, { [Role.CompanyAdmin]: ALL, [Role.PlatformOperator]: NONE });
  expect(Object.keys(table).sort()).toEqual(Object.values(Role).sort());
  expect(may(table, caller(Role.CompanyAdmin), 'destroy')).toBe(true);
  expect(may(table, caller(Role.RetailerAdmin), 'show')).toBe(true);
  expect(may(table, caller(Role.RetailerAdmin), 'update')).toBe(false);
  expect(may(table, caller(Role.PlatformOperator), 'list')).toBe(false);
});

test('authorize throws FORBIDDEN', () => {
  const table = actionTable(READ, {});
  expect(() => authorize(table, caller(Role.CompanyAdmin), 'create')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  expect(() => authorize(table, caller(Role.CompanyAdmin), 'show')).not.toThrow();
});

test('a sales associate may neither write CRL attributes nor update at all', () => {
  expect(crlWritable[Role.CompanySalesAssociate]).toEqual([]);
  expect(may(crlActions, caller(Role.CompanySalesAssociate), 'update')).toBe(false);
});

test('resources seen through another carry that scope in their own policy', () => {
  const operator = caller(Role.PlatformOperator);
  const admin = callerOf(Role.CompanyAdmin, { companyId: 'c1' });
  const storeManager = callerOf(Role.RetailerStoreManager, { retailerId: 'r1', retailerLocationIds: ['rl1'] });
  // An image is seen through its product, a stock level through its store: every one for the operator.
  expect(productImagePolicy.scope(operator)).toEqual({});
  expect(productImagePolicy.scope(admin)).toEqual(productScope(admin));
  expect(stockPolicy.scope(operator)).toEqual({});
  expect(stockPolicy.scope(storeManager)).toEqual(crlScope(storeManager));
  expect(userPolicy.scope(operator)).toEqual({});
  expect(userPolicy.scope(admin)).toEqual({ company_id: 'c1' });
  expect(userPolicy.scope(storeManager)).toEqual({ id: [] });
});

test('scopes are written in policies only: no other module file declares one', () => {
  const root = path.join(__dirname, '..', '..', 'src', 'modules');
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  const declaring = files(root)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.policy.ts') && !f.endsWith(path.join('company', 'company-owned.ts')))
    .filter((f) => /function \w*Scope\s*\(/.test(fs.readFileSync(f, 'utf8')))
    .map((f) => path.relative(root, f));
  expect(declaring).toEqual([]);
});
