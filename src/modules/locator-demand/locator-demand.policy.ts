import type { ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf, platformOperator } from '../../access/audience';
import type { Caller } from '../../auth/caller';
import { Role } from '../user/role';

/** What a decision about locator demand reads: the company whose searches they are. */
export interface LocatorDemandFacts {
  companyId: string;
}

/**
 * What visitors searched for (docs/locator-demand.md): any user reaches the field; `read` is a company
 * admin's for its own company and the platform operator's for any. Every other role is 403; another
 * company is 404 (`visible`), as if it did not exist.
 */
export const locatorDemandPolicy: ResourcePolicy<'read' | 'visible', LocatorDemandFacts> = {
  name: 'locator-demand',
  graphql: {
    audience: anyUser,
    Query: ['locatorDemand'],
    types: ['LocatorDemandReport', 'LocatorDemandGroup', 'LocatorDemandCell', 'LocatorDemandNearest'],
  },
  decide: (caller, action, facts) => {
    if (platformOperator(caller)) return true;
    const ownCompany = !!caller.companyId && (!facts || facts.companyId === caller.companyId);
    if (action === 'visible') return ownCompany;
    return oneOf(Role.CompanyAdmin)(caller) && ownCompany;
  },
};

/** The company read when the caller names none: its own (none for the operator, who must name one). */
export function defaultDemandCompany(caller: Caller): string | null {
  return platformOperator(caller) ? null : caller.companyId;
}
