import { allow } from 'graphql-shield';
import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { isCompanyRole, isRetailerRole } from '../user/role';
import { Retailer } from './retailer.entity';
import { retailerSearch } from './retailer.search';

/** Retailers are managed by the platform operator; everyone else reads the ones it sees. */
export const retailerActions = actionTable(READ, { [Role.PlatformOperator]: ALL });

export const retailerPermissions = {
  Query: { retailers: isAuthenticated, retailer: isAuthenticated },
  Mutation: { createRetailer: isAuthenticated, updateRetailer: isAuthenticated, deleteRetailer: isAuthenticated },
  Retailer: allow,
  RetailerPage: allow,
};

/** The operator sees every retailer; retailer users their own; company users the retailers their company works with. */
export function retailerScope(caller: Caller): Where {
  if (caller.role === Role.PlatformOperator) return {};
  if (isRetailerRole(caller.role)) return { id: caller.retailerId ?? [] };
  if (isCompanyRole(caller.role)) return { company_ids: caller.companyId ?? [] };
  return { id: [] };
}

/** Who reaches a retailer, what each role may do with one it sees, and which ones it sees. */
export const retailerPolicy: ResourcePolicy = {
  rules: retailerPermissions,
  actions: retailerActions,
  scope: retailerScope,
  visible: { type: 'Retailer', entity: Retailer, doc: retailerSearch },
};
