import { type ResourcePolicy } from '../../access/policy';
import { oneOf, platformOperator } from '../../access/audience';
import type { Where } from '../../search/types';
import { organisationOf, Role } from '../../auth/role';
import type { UserManager } from './user.search';

export const USER_MANAGER_ROLES: readonly Role[] = [Role.PlatformOperator, Role.CompanyAdmin, Role.RetailerAdmin];

/** What a `grant` decision reads: the role a user is given and the organisation the write names for it. */
export interface UserGrant {
  role: Role;
  companyId?: string | null;
  retailerId?: string | null;
}

/**
 * `manage`: users and their API keys, the user managers' (the platform operator and company or retailer
 * admins; anyone else is 403). `grant`: give a user a role in an organisation: an admin gives only roles
 * of its own kind in its own organisation (anything else is 403); the operator any. `bootstrap`: make
 * platform operators (`leadnet bootstrap`), the operator's only.
 */
export type UserAction = 'manage' | 'grant' | 'bootstrap';

/** A user of this role is a platform operator. */
export const isOperatorRole = (role: Role): boolean => role === Role.PlatformOperator;

function mayGrant(manager: UserManager, grant: UserGrant | undefined): boolean {
  if (!grant) return true;
  if (manager.role === Role.CompanyAdmin) {
    return organisationOf(grant.role) === 'company' && (!grant.companyId || grant.companyId === manager.companyId) && !grant.retailerId;
  }
  if (manager.role === Role.RetailerAdmin) {
    return organisationOf(grant.role) === 'retailer' && (!grant.retailerId || grant.retailerId === manager.retailerId) && !grant.companyId;
  }
  return true;
}

/**
 * Who reaches users and API keys (the user managers), what each may do (`UserAction`), and which users a
 * manager reaches (`scope`): every user for the platform operator, the users of its own company or
 * retailer for an admin, nobody for anyone else; outside it a user (and its keys) is 404 (UserService,
 * the command line as the operator).
 */
export const userPolicy = {
  name: 'user',
  graphql: {
    audience: oneOf(...USER_MANAGER_ROLES),
    Query: ['users', 'user', 'apiKeys'],
    Mutation: ['createUser', 'updateUser', 'generateApiKey', 'revokeApiKey'],
    types: ['User', 'UserPage', 'ApiKey', 'GeneratedApiKey'],
  },
  decide: (manager: UserManager, action: UserAction, grant: UserGrant | undefined) => {
    if (!USER_MANAGER_ROLES.includes(manager.role)) return false;
    if (action === 'bootstrap') return platformOperator(manager);
    if (action === 'grant') return mayGrant(manager, grant);
    return true;
  },
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
} satisfies ResourcePolicy<UserAction, UserGrant, UserManager>;
