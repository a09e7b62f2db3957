import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isNetworkUser } from '../../graphql/rules';

/** First-response settings: network users may ask; the service admits company admins (403 otherwise). */
export const responseTimePermissions = {
  Query: { responseTimeSettings: isNetworkUser, leadResponseStats: isNetworkUser },
  Mutation: { updateResponseTimeSettings: isNetworkUser },
  ResponseTimeSettings: allow,
  LeadResponseStatsRow: allow,
};

/** Who reaches the first-response settings and stats (the service scopes the stats as the lead list). */
export const responseTimePolicy: ResourcePolicy = {
  rules: responseTimePermissions,
};
