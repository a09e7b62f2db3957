import { actionTable, ALL, authorize, may, NONE, READ } from '../../src/auth/policy';
import type { Caller } from '../../src/auth/caller';
import { Role } from '../../src/modules/user/role';
import { crlActions, crlWritable } from '../../src/modules/company-retailer-location/company-retailer-location.permissions';

const caller = (role: Role): Caller => ({
  userId: 'u',
  role,
  companyId: null,
  retailerId: null,
  territoryId: null,
  companyRetailerIds: [],
  companyRetailerLocationIds: [],
  retailerLocationIds: [],
});

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
