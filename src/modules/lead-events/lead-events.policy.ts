import type { ResourcePolicy } from '../../access/policy';
import { networkUser } from '../../access/audience';

/**
 * Network users subscribe to lead events; the subscription asks the lead policy whether the caller
 * lists leads at all, and each event is checked against the lead scope before it is sent.
 */
export const leadEventPolicy: ResourcePolicy = {
  name: 'lead-events',
  graphql: { audience: networkUser, Subscription: ['leadEvents'], types: ['LeadEvent'] },
};
