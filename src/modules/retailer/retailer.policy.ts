import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { anyUser, companyUser, platformOperator, retailerUser } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';

/** Retailers are managed by the platform operator; everyone else reads the ones it sees. */
export const retailerActions = actionTable(READ, { [Role.PlatformOperator]: ALL });

/** The operator sees every retailer; retailer users their own; company users the retailers their company works with. */
export function retailerScope(caller: Caller): Where {
  if (platformOperator(caller)) return {};
  if (retailerUser(caller)) return { id: caller.retailerId ?? [] };
  if (companyUser(caller)) return { company_ids: caller.companyId ?? [] };
  return { id: [] };
}

/** Who reaches a retailer, what each role may do with one it sees, and which ones it sees. */
export const retailerPolicy: ResourcePolicy = {
  name: 'retailer',
  graphql: {
    audience: anyUser,
    Query: ['retailers', 'retailer'],
    Mutation: ['createRetailer', 'updateRetailer', 'deleteRetailer'],
    types: ['Retailer', 'RetailerPage'],
  },
  actions: retailerActions,
  scope: retailerScope,
};
