import type { Action, ResourcePolicy } from '../../access/policy';
import { anyUser } from '../../access/audience';
import { companyOwnedActions, companyOwnedDecision, companyOwnedScope, type CompanyOwnedFacts } from '../company/company-owned.policy';

/**
 * Who reaches a company store type: any user reaches the fields; a company's own record, written by the operator and the
 * company's admin (`companyOwnedActions`, src/modules/company/company-owned.policy.ts), seen by the company's users.
 */
export const companyStoreTypePolicy: ResourcePolicy<Action, CompanyOwnedFacts> = {
  name: 'company-store-type',
  graphql: {
    audience: anyUser,
    Query: ['companyStoreTypes', 'companyStoreType'],
    Mutation: ['createCompanyStoreType', 'updateCompanyStoreType', 'deleteCompanyStoreType'],
    types: ['CompanyStoreType', 'CompanyStoreTypePage'],
  },
  actions: companyOwnedActions,
  decide: companyOwnedDecision,
  scope: companyOwnedScope,
};
