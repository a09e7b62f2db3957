import type { Caller } from '../../src/auth/caller';
import type { Role } from '../../src/modules/user/role';

/** A caller of this role with no organisation or assignments but those given (no database needed). */
export function callerOf(role: Role, extra: Partial<Caller> = {}): Caller {
  return {
    userId: '00000000-0000-4000-8000-000000000001',
    role,
    companyId: null,
    retailerId: null,
    territoryId: null,
    companyRetailerIds: [],
    companyRetailerLocationIds: [],
    retailerLocationIds: [],
    ...extra,
  };
}
