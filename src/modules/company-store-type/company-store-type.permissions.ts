import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';

/** Who reaches the store type fields; scope and rights (`companyOwnedActions`) are applied in the service. */
export const companyStoreTypePermissions = {
  Query: { companyStoreTypes: isAuthenticated, companyStoreType: isAuthenticated },
  Mutation: { createCompanyStoreType: isAuthenticated, updateCompanyStoreType: isAuthenticated, deleteCompanyStoreType: isAuthenticated },
  CompanyStoreType: allow,
  CompanyStoreTypePage: allow,
};
