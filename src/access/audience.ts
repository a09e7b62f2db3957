import { isCompanyRole, isRetailerRole, Role } from '../auth/role';
import type { PolicyCaller } from './policy';

/**
 * The groups of roles policies are written with (PRODUCT.md section 2). Only policies read them: a
 * service asks its resource's policy (`can`), never a caller's role (docs/roles.md, "One way in").
 */
export const anyUser = (_caller: PolicyCaller): boolean => true;

/** A company or retailer user: the callers of the /v1 resources (the platform operator is not one). */
export const networkUser = (caller: PolicyCaller): boolean => caller.role !== Role.PlatformOperator;

export const platformOperator = (caller: PolicyCaller): boolean => caller.role === Role.PlatformOperator;

/** A user of a company (PRODUCT.md's company roles), whatever its place in the company. */
export const companyUser = (caller: PolicyCaller): boolean => isCompanyRole(caller.role);

/** A user of a retailer. */
export const retailerUser = (caller: PolicyCaller): boolean => isRetailerRole(caller.role);

/** A caller whose role is one of these. */
export const oneOf =
  (...roles: Role[]) =>
  (caller: PolicyCaller): boolean =>
    roles.includes(caller.role);

