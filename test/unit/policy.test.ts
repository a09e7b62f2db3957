import { actionTable, ALL, authorize, may, NONE, READ } from '../../src/auth/policy';
import { Role } from '../../src/modules/user/role';
import { callerOf } from '../support/caller';
import { crlActions, crlWritable } from '../../src/modules/company-retailer-location/company-retailer-location.permissions';

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
