import { companyOwnedPolicy } from '../company/company-owned.policy';

/** Who reaches a territory: a company's own record (src/modules/company/company-owned.policy.ts). */
export const territoryPolicy = companyOwnedPolicy('territory', 'Territory', 'territories', 'territory');
