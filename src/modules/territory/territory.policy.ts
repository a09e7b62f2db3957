import type { Action, ResourcePolicy } from '../../access/policy';
import { anyUser } from '../../access/audience';
import { companyOwnedActions, companyOwnedDecision, companyOwnedScope, type CompanyOwnedFacts } from '../company/company-owned.policy';

/**
 * Who reaches a territory: any user reaches the fields; a company's own record, written by the operator and the
 * company's admin (`companyOwnedActions`, src/modules/company/company-owned.policy.ts), seen by the company's users.
 */
export const territoryPolicy: ResourcePolicy<Action, CompanyOwnedFacts> = {
  name: 'territory',
  graphql: {
    audience: anyUser,
    Query: ['territories', 'territory'],
    Mutation: ['createTerritory', 'updateTerritory', 'deleteTerritory'],
    types: ['Territory', 'TerritoryPage'],
  },
  actions: companyOwnedActions,
  decide: companyOwnedDecision,
  scope: companyOwnedScope,
};
