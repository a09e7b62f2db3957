import type { Caller } from '../../auth/caller';
import type { SearchDocument, Where } from '../../search/types';
import { isCompanyRole, isRetailerRole, Role } from '../user/role';

export const retailerSearch: SearchDocument = {
  name: 'retailers',
  from: 'retailers r',
  alias: 'r',
  fields: {
    id: { sql: 'r.id', type: 'uuid' },
    name: { sql: 'r.name', type: 'string', text: true },
    company_ids: { sql: 'array(select x.company_id from company_retailers x where x.retailer_id = r.id)', type: 'uuid', array: true, scopeOnly: true },
    created_at: { sql: 'r.created_at', type: 'date' },
    updated_at: { sql: 'r.updated_at', type: 'date' },
  },
};

/** The operator sees every retailer; retailer users their own; company users the retailers their company works with. */
export function retailerScope(caller: Caller): Where {
  if (caller.role === Role.PlatformOperator) return {};
  if (isRetailerRole(caller.role)) return { id: caller.retailerId ?? [] };
  if (isCompanyRole(caller.role)) return { company_ids: caller.companyId ?? [] };
  return { id: [] };
}
