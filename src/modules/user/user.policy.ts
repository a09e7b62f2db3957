import type { ResourcePolicy } from '../../access/policy';
import { allow, rule } from 'graphql-shield';
import type { Context } from '../../context';
import { forbidden, unauthenticated } from '../../errors';
import type { Where } from '../../search/types';
import { Role } from '../../auth/role';
import type { UserManager } from './user.search';

/** The platform operator and company or retailer admins; which users each reaches is UserService's. */
export const isUserManager = rule({ cache: 'contextual' })((_parent, _args, ctx: Context) => {
  if (!ctx.caller) return unauthenticated();
  return USER_MANAGER_ROLES.includes(ctx.caller.role) ? true : forbidden();
});

export const userPermissions = {
  Query: { users: isUserManager, user: isUserManager, apiKeys: isUserManager },
  Mutation: { createUser: isUserManager, updateUser: isUserManager, generateApiKey: isUserManager, revokeApiKey: isUserManager },
  User: allow,
  UserPage: allow,
  ApiKey: allow,
  GeneratedApiKey: allow,
};

export const USER_MANAGER_ROLES: readonly Role[] = [Role.PlatformOperator, Role.CompanyAdmin, Role.RetailerAdmin];

/**
 * Who reaches users and API keys: the user managers. The users a manager reaches (`scope`): every user
 * for the platform operator, the users of its own company or retailer for an admin, nobody for anyone
 * else; outside it a user (and its keys) is 404 (UserService, the command line as the operator).
 */
export const userPolicy = {
  rules: userPermissions,
  scope: (manager: UserManager): Where => {
    switch (manager.role) {
      case Role.PlatformOperator:
        return {};
      case Role.CompanyAdmin:
        return { company_id: manager.companyId ?? [] };
      case Role.RetailerAdmin:
        return { retailer_id: manager.retailerId ?? [] };
      default:
        return { id: [] };
    }
  },
} satisfies ResourcePolicy;
