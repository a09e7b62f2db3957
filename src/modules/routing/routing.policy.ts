import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';

/** Routing: any caller may ask; the service admits the operator and the company's admins (404/403 otherwise). */
export const routingPermissions = {
  Query: { routingSettings: isAuthenticated, routeAddress: isAuthenticated },
  Mutation: { updateRoutingSettings: isAuthenticated },
  RoutingSettings: allow,
  RoutingDecision: allow,
};

/** Who reaches routing (the service admits the operator and the company's admins). */
export const routingPolicy: ResourcePolicy = {
  rules: routingPermissions,
};
