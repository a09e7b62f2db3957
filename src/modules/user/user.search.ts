import type { Caller } from '../../auth/caller';
import type { SearchDocument } from '../../search/types';

/** Who manages users: the platform operator, or an admin of a company or retailer. */
export type UserManager = Pick<Caller, 'role' | 'companyId' | 'retailerId'>;

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

