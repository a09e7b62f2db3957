import { allow } from 'graphql-shield';
import { isNetworkUser } from '../../graphql/rules';

/** Network users subscribe; each event is checked against the lead scope before it is sent. */
export const leadEventPermissions = {
  Subscription: { leadEvents: isNetworkUser },
  LeadEvent: allow,
};
