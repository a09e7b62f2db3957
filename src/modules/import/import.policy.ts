import type { ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf, platformOperator } from '../../access/audience';
import { Role } from '../user/role';

/** What an import decision reads: the company whose stores, products or leads it writes. */
export interface ImportFacts {
  companyId: string;
}

/**
 * Imports: any caller reaches the mutations; the platform operator imports for any company, a company's
 * admin for its own (another company it sees is 403; one it does not see is 404 before this is asked).
 */
export const importPolicy: ResourcePolicy<'import', ImportFacts> = {
  name: 'import',
  graphql: { audience: anyUser, Mutation: ['importLocations', 'importProducts', 'importLeads'], types: ['ImportReport', 'ImportRowError'] },
  decide: (caller, _action, target) => platformOperator(caller) || (oneOf(Role.CompanyAdmin)(caller) && caller.companyId === target?.companyId),
};
