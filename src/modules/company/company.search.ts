import type { Caller } from '../../auth/caller';
import type { SearchDocument, Where } from '../../search/types';
import { isCompanyRole, isRetailerRole, Role } from '../user/role';

export const companySearch: SearchDocument = {
  name: 'companies',
  from: 'companies c',
  alias: 'c',
  fields: {
    id: { sql: 'c.id', type: 'uuid' },
    name: { sql: 'c.name', type: 'string', text: true },
    retailer_ids: { sql: 'array(select x.retailer_id from company_retailers x where x.company_id = c.id)', type: 'uuid', array: true, scopeOnly: true },
    created_at: { sql: 'c.created_at', type: 'date' },
    updated_at: { sql: 'c.updated_at', type: 'date' },
  },
};

/** The operator sees every company; company users their own; retailer users the companies their retailer works with. */
export function companyScope(caller: Caller): Where {
  if (caller.role === Role.PlatformOperator) return {};
  if (isCompanyRole(caller.role)) return { id: caller.companyId ?? [] };
  if (isRetailerRole(caller.role)) return { retailer_ids: caller.retailerId ?? [] };
  return { id: [] };
}
