import type { Caller } from '../../auth/caller';
import type { SearchField, Where } from '../../search/types';
import { Role } from '../user/role';

const NOTHING: unknown[] = [];

/**
 * PRODUCT.md section 3: the company retailer locations a caller sees, as a `Where` over a document's
 * CRL fields named `<prefix>id`, `<prefix>company_id`, `<prefix>territory_id`, `<prefix>company_retailer_id`,
 * `<prefix>retailer_id` (the retailer of its retailer location) and `<prefix>retailer_location_id`.
 * The CRL list uses it with no prefix; leads use it on their assignee (`assignee_`); company retailers
 * on array fields of the CRLs under them (`crl_`). `crlScopeFields` gives those fields' SQL.
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

/**
 * The SQL of the fields `crlScope` reads, for a document whose FROM clause holds a CRL under alias `crl`
 * followed by `joins`. A CRL's territory is its own, else its company retailer's: a store without a
 * territory of its own is in its retailer's territory (the serialized `territory_id` says the same).
 */
export function crlScopeFields(crl: string, prefix = ''): { joins: string; fields: Record<string, SearchField> } {
  const cr = `${crl}_cr`;
  const rl = `${crl}_rl`;
  return {
    joins:
      `left join company_retailers ${cr} on ${cr}.id = ${crl}.company_retailer_id ` +
      `left join retailer_locations ${rl} on ${rl}.id = ${crl}.retailer_location_id`,
    fields: {
      [`${prefix}id`]: { sql: `${crl}.id`, type: 'uuid' },
      [`${prefix}company_id`]: { sql: `${crl}.company_id`, type: 'uuid' },
      [`${prefix}territory_id`]: { sql: `coalesce(${crl}.territory_id, ${cr}.territory_id)`, type: 'uuid' },
      [`${prefix}company_retailer_id`]: { sql: `${crl}.company_retailer_id`, type: 'uuid' },
      // Kept on the CRL row by triggers (Migration20261124162000_crl_retailer_key): its retailer location's.
      [`${prefix}retailer_id`]: { sql: `${crl}.retailer_id`, type: 'uuid' },
      [`${prefix}retailer_location_id`]: { sql: `${crl}.retailer_location_id`, type: 'uuid' },
    },
  };
}
