import { about, actionTable, ALL, authorize, can, NONE, READ, type ResourcePolicy } from '../../src/access/policy';
import { Role } from '../../src/modules/user/role';
import { callerOf } from '../support/caller';
import fs from 'node:fs';
import path from 'node:path';
import { crlPolicy, crlScope, crlWritable } from '../../src/modules/company-retailer-location/company-retailer-location.policy';
import { productScope } from '../../src/modules/product/product.policy';
import { productImagePolicy } from '../../src/modules/product/product-image.policy';
import { stockPolicy } from '../../src/modules/product/stock.policy';
import { userPolicy } from '../../src/modules/user/user.policy';

const caller = (role: Role) => callerOf(role, { userId: 'u' });

const policy = (extra: Partial<ResourcePolicy<any, any>> = {}): ResourcePolicy<any, any> => ({
  name: 'test',
  actions: actionTable(READ, { [Role.CompanyAdmin]: ALL, [Role.PlatformOperator]: NONE }),
  ...extra,
});

test('actionTable gives every role the base, then the exceptions; can asks it for the contract actions', () => {
  const table = actionTable(READ, { [Role.CompanyAdmin]: ALL, [Role.PlatformOperator]: NONE });
  expect(Object.keys(table).sort()).toEqual(Object.values(Role).sort());
  expect(can(caller(Role.CompanyAdmin), 'destroy', policy())).toBe(true);
  expect(can(caller(Role.RetailerAdmin), 'show', policy())).toBe(true);
  expect(can(caller(Role.RetailerAdmin), 'update', policy())).toBe(false);
  expect(can(caller(Role.PlatformOperator), 'list', policy())).toBe(false);
  expect(can(null, 'show', policy())).toBe(false);
});

test('can: the table first, then decide with the facts; an action of its own by decide alone, else denied', () => {
  const decided = policy({ decide: (c: any, action: string, facts?: { companyId: string }) => action !== 'create' || !facts || facts.companyId === c.companyId });
  const admin = callerOf(Role.CompanyAdmin, { companyId: 'c1' });
  expect(can(admin, 'create', decided)).toBe(true);
  expect(can(admin, 'create', about(decided, { companyId: 'c1' }))).toBe(true);
  expect(can(admin, 'create', about(decided, { companyId: 'c2' }))).toBe(false);
  expect(can(caller(Role.RetailerAdmin), 'create', about(decided, { companyId: 'c1' }))).toBe(false); // the table says no first
  expect(can(admin, 'export', policy())).toBe(false);
  expect(can(admin, 'export', policy({ decide: () => true }))).toBe(true);
  expect(can(admin, 'reach', policy())).toBe(false);
  expect(can(admin, 'reach', policy({ graphql: { audience: () => true } }))).toBe(true);
});

test('authorize throws FORBIDDEN', () => {
  expect(() => authorize(caller(Role.RetailerAdmin), 'create', policy())).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  expect(() => authorize(caller(Role.RetailerAdmin), 'show', policy())).not.toThrow();
});

test('a sales associate may neither write CRL attributes nor update at all', () => {
  expect(crlWritable[Role.CompanySalesAssociate]).toEqual([]);
  expect(can(caller(Role.CompanySalesAssociate), 'update', crlPolicy)).toBe(false);
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
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.policy.ts'))
    .filter((f) => /function \w*Scope\s*\(\s*\w+\s*:\s*(Caller|UserManager)\b/.test(fs.readFileSync(f, 'utf8')))
    .map((f) => path.relative(root, f));
  expect(declaring).toEqual([]);
});
