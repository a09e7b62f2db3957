import type { ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf, platformOperator } from '../../access/audience';
import type { Caller } from '../../auth/caller';
import { Role } from '../user/role';

/** What a decision about a person's data reads: the company the data is held for. */
export interface PersonalDataFacts {
  companyId: string;
}

/**
 * Personal data (docs/personal-data.md "Access", "Erasure" and "Retention"): any user reaches the fields; `manage`
 * (export, erase, read and change retention) is the platform operator's for every company and a company admin's for its own
 * company. Every other role is FORBIDDEN; another company is NOT_FOUND to a company admin (`visible`),
 * as if it did not exist.
 */
export const personalDataPolicy: ResourcePolicy<'manage' | 'visible', PersonalDataFacts> = {
  name: 'personal-data',
  graphql: {
    audience: anyUser,
    Query: ['personalData', 'retentionSettings', 'retentionDryRun'],
    Mutation: ['erasePersonalData', 'updateRetentionSettings'],
    types: ['ErasureJob', 'RetentionSettings', 'RetentionDryRun'],
  },
  decide: (caller, action, facts) => {
    if (platformOperator(caller)) return true;
    const ownCompany = !!caller.companyId && (!facts || facts.companyId === caller.companyId);
    if (action === 'visible') return ownCompany;
    return oneOf(Role.CompanyAdmin)(caller) && ownCompany;
  },
};

/** The company a request is about when it names none: the caller's own (null for the platform operator, who names one). */
export function defaultPersonalDataCompany(caller: Caller): string | null {
  return platformOperator(caller) ? null : caller.companyId;
}
