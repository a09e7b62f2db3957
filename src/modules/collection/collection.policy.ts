import type { Action, ResourcePolicy } from '../../access/policy';
import { anyUser } from '../../access/audience';
import { companyOwnedActions, companyOwnedDecision, companyOwnedScope, type CompanyOwnedFacts } from '../company/company-owned.policy';

/**
 * Who reaches a collection: any user reaches the fields; a company's own record, written by the operator and the
 * company's admin (`companyOwnedActions`, src/modules/company/company-owned.policy.ts), seen by the company's users.
 */
export const collectionPolicy: ResourcePolicy<Action, CompanyOwnedFacts> = {
  name: 'collection',
  graphql: {
    audience: anyUser,
    Query: ['collections', 'collection'],
    Mutation: ['createCollection', 'updateCollection', 'deleteCollection'],
    types: ['Collection', 'CollectionPage'],
  },
  actions: companyOwnedActions,
  decide: companyOwnedDecision,
  scope: companyOwnedScope,
};
