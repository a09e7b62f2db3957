import type { ResourcePolicy } from '../../access/policy';
import { networkUser, oneOf } from '../../access/audience';
import { Role } from '../user/role';

/**
 * First-response settings and stats: network users reach them; `configure` (read and change a
 * company's first-response time) is a company admin's, for its company (403 otherwise). The stats are
 * scoped as the lead list. A lead's own timer (`Lead.respondBy`, `Lead.breached`) is part of the lead:
 * whoever may show the lead reads it, the store's own staff included (lead-timer.resolver.ts).
 */
export const responseTimePolicy: ResourcePolicy<'configure'> = {
  name: 'response-times',
  graphql: {
    audience: networkUser,
    Query: ['responseTimeSettings', 'leadResponseStats'],
    Mutation: ['updateResponseTimeSettings'],
    types: ['ResponseTimeSettings', 'LeadResponseStatsRow'],
  },
  decide: (caller) => oneOf(Role.CompanyAdmin)(caller) && !!caller.companyId,
};
