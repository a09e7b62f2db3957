import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { anyUser, companyUser, platformOperator, retailerUser } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';

/** Companies are managed by the platform operator; everyone else reads the ones it sees. */
export const companyActions = actionTable(READ, { [Role.PlatformOperator]: ALL });

/** The operator sees every company; company users their own; retailer users the companies their retailer works with. */
export function companyScope(caller: Caller): Where {
  if (platformOperator(caller)) return {};
  if (companyUser(caller)) return { id: caller.companyId ?? [] };
  if (retailerUser(caller)) return { retailer_ids: caller.retailerId ?? [] };
  return { id: [] };
}

/** Who reaches a company, what each role may do with one it sees, and which ones it sees. */
export const companyPolicy: ResourcePolicy = {
  name: 'company',
  graphql: {
    audience: anyUser,
    Query: ['companies', 'company'],
    Mutation: ['createCompany', 'updateCompany', 'deleteCompany'],
    types: ['Company', 'CompanyPage'],
  },
  actions: companyActions,
  scope: companyScope,
};
