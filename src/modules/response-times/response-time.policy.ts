import type { ResourcePolicy } from '../../access/policy';
import { networkUser, oneOf } from '../../access/audience';
import { Role } from '../user/role';

/**
 * First-response settings and stats: network users reach them; `configure` (read and change a
 * company's first-response time) is a company admin's, for its company (403 otherwise). The stats are
 * scoped as the lead list. `readTimer`: a lead's own timer (`respondBy`, `breached`) is read by every
 * network user who sees the lead, the store's own staff included.
 */
export const responseTimePolicy: ResourcePolicy<'configure' | 'readTimer'> = {
  name: 'response-times',
  graphql: {
    audience: networkUser,
    Query: ['responseTimeSettings', 'leadResponseStats'],
    Mutation: ['updateResponseTimeSettings'],
    types: ['ResponseTimeSettings', 'LeadResponseStatsRow'],
  },
  decide: (caller, action) => (action === 'readTimer' ? networkUser(caller) : oneOf(Role.CompanyAdmin)(caller) && !!caller.companyId),
};
