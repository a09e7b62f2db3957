import type { ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf, platformOperator } from '../../access/audience';
import { Role } from '../user/role';

/** What a routing decision reads: the company whose routing it is. */
export interface RoutingFacts {
  companyId: string;
}

/**
 * Routing: any caller reaches the fields; `configure` (read or change a company's routing, route an
 * address for it) is the platform operator's for any company and a company admin's for its own (403;
 * a company the caller does not see is 404 before this is asked).
 */
export const routingPolicy: ResourcePolicy<'configure', RoutingFacts> = {
  name: 'routing',
  graphql: {
    audience: anyUser,
    Query: ['routingSettings', 'routeAddress'],
    Mutation: ['updateRoutingSettings'],
    types: ['RoutingSettings', 'RoutingDecision'],
  },
  decide: (caller, _action, company) => platformOperator(caller) || (oneOf(Role.CompanyAdmin)(caller) && caller.companyId === company?.companyId),
};
