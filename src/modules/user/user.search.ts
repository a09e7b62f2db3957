import type { Caller } from '../../auth/caller';
import type { SearchDocument, Where } from '../../search/types';
import { Role } from './role';

/** Who manages users: the platform operator, or an admin of a company or retailer. */
export type UserManager = Pick<Caller, 'role' | 'companyId' | 'retailerId'>;

export const USER_MANAGER_ROLES: readonly Role[] = [Role.PlatformOperator, Role.CompanyAdmin, Role.RetailerAdmin];

/** What a user list can search, filter, order and aggregate on. */
export const userSearch: SearchDocument = {
  name: 'users',
  from: 'users u',
  alias: 'u',
  fields: {
    id: { sql: 'u.id', type: 'uuid' },
    email: { sql: 'u.email', type: 'string', text: true },
    name: { sql: 'u.name', type: 'string', text: true },
    role: { sql: 'u.role', type: 'string' },
    company_id: { sql: 'u.company_id', type: 'uuid' },
    retailer_id: { sql: 'u.retailer_id', type: 'uuid' },
    territory_id: { sql: 'u.territory_id', type: 'uuid' },
    created_at: { sql: 'u.created_at', type: 'date' },
    updated_at: { sql: 'u.updated_at', type: 'date' },
  },
};

/**
 * The users a manager reaches: every user for the platform operator, the users of its own company or
 * retailer for an admin, nobody for anyone else. Outside it a user (and its keys) is 404.
 */
export function userScope(manager: UserManager): Where {
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
}
