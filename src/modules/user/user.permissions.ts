import { allow, rule } from 'graphql-shield';
import type { Context } from '../../context';
import { forbidden, unauthenticated } from '../../errors';
import { USER_MANAGER_ROLES } from './user.search';

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
