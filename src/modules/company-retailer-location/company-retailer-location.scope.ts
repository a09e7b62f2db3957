import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { Role } from '../user/role';

const NOTHING: unknown[] = [];

/**
 * PRODUCT.md section 3: the company retailer locations a caller sees, as a `Where` over a document's
 * CRL fields named `<prefix>id`, `<prefix>company_id`, `<prefix>territory_id`, `<prefix>company_retailer_id`,
 * `<prefix>retailer_id` (the retailer of its retailer location) and `<prefix>retailer_location_id`.
 * The CRL list uses it with no prefix; leads use it on their assignee (`assignee_`).
 */
export function crlScope(caller: Caller, prefix = ''): Where {
  const f = (name: string) => `${prefix}${name}`;
  const company = caller.companyId ?? NOTHING;
  switch (caller.role) {
    case Role.CompanyAdmin:
      return { [f('company_id')]: company };
    case Role.CompanyTerritoryManager:
      return { [f('company_id')]: company, [f('territory_id')]: caller.territoryId ?? NOTHING };
    case Role.CompanyRetailerManager:
      return { [f('company_id')]: company, [f('company_retailer_id')]: caller.companyRetailerIds };
    case Role.CompanyLocationUser:
    case Role.CompanySalesAssociate:
      return { [f('company_id')]: company, [f('id')]: caller.companyRetailerLocationIds };
    case Role.RetailerAdmin:
      return { [f('retailer_id')]: caller.retailerId ?? NOTHING };
    case Role.RetailerStoreManager:
      return { [f('retailer_location_id')]: caller.retailerLocationIds };
    default:
      return { [f('id')]: NOTHING };
  }
}
