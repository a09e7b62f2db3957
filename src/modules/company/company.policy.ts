import { allow } from 'graphql-shield';
import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { isCompanyRole, isRetailerRole } from '../user/role';
import { Company } from './company.entity';
import { companySearch } from './company.search';

/** Companies are managed by the platform operator; everyone else reads the ones it sees. */
export const companyActions = actionTable(READ, { [Role.PlatformOperator]: ALL });

export const companyPermissions = {
  Query: { companies: isAuthenticated, company: isAuthenticated },
  Mutation: { createCompany: isAuthenticated, updateCompany: isAuthenticated, deleteCompany: isAuthenticated },
  Company: allow,
  CompanyPage: allow,
};

/** The operator sees every company; company users their own; retailer users the companies their retailer works with. */
export function companyScope(caller: Caller): Where {
  if (caller.role === Role.PlatformOperator) return {};
  if (isCompanyRole(caller.role)) return { id: caller.companyId ?? [] };
  if (isRetailerRole(caller.role)) return { retailer_ids: caller.retailerId ?? [] };
  return { id: [] };
}

/** Who reaches a company, what each role may do with one it sees, and which ones it sees. */
export const companyPolicy: ResourcePolicy = {
  rules: companyPermissions,
  actions: companyActions,
  scope: companyScope,
  visible: { type: 'Company', entity: Company, doc: companySearch },
};
