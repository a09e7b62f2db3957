import { companyOwnedPolicy } from '../company/company-owned.policy';

/** Who reaches a company store type: a company's own record (src/modules/company/company-owned.policy.ts). */
export const companyStoreTypePolicy = companyOwnedPolicy('company-store-type', 'CompanyStoreType', 'companyStoreTypes', 'companyStoreType');
