import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isNetworkUser } from '../../graphql/rules';

/** Network users subscribe; each event is checked against the lead scope before it is sent. */
export const leadEventPermissions = {
  Subscription: { leadEvents: isNetworkUser },
  LeadEvent: allow,
};

/** Who subscribes to lead events (each event is checked against the lead scope). */
export const leadEventPolicy: ResourcePolicy = {
  rules: leadEventPermissions,
};
