import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';
import { companyOwnedActions, companyOwnedScope } from '../company/company-owned';
import { CompanyStoreType } from './company-store-type.entity';
import { companyStoreTypeSearch } from './company-store-type.service';

/** Who reaches the store type fields; scope and rights (`companyOwnedActions`) are applied in the service. */
export const companyStoreTypePermissions = {
  Query: { companyStoreTypes: isAuthenticated, companyStoreType: isAuthenticated },
  Mutation: { createCompanyStoreType: isAuthenticated, updateCompanyStoreType: isAuthenticated, deleteCompanyStoreType: isAuthenticated },
  CompanyStoreType: allow,
  CompanyStoreTypePage: allow,
};

/** Who reaches a company store type; a company's own record: `companyOwnedActions` and `companyOwnedScope` (src/modules/company/company-owned.ts). */
export const companyStoreTypePolicy: ResourcePolicy = {
  rules: companyStoreTypePermissions,
  actions: companyOwnedActions,
  scope: companyOwnedScope,
  visible: { type: 'CompanyStoreType', entity: CompanyStoreType, doc: companyStoreTypeSearch },
};
