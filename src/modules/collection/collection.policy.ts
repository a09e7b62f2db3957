import { companyOwnedPolicy } from '../company/company-owned.policy';

/** Who reaches a collection: a company's own record (src/modules/company/company-owned.policy.ts). */
export const collectionPolicy = companyOwnedPolicy('collection', 'Collection', 'collections', 'collection');
