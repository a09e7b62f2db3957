import type { AppModule } from '../module';
import { LeadOutcomeResolver } from './lead-outcome.resolver';
import { leadOutcomePolicy } from './lead-outcome.policy';

/** Outcomes of leads and the lead funnel (docs/lead-loop.md); `POST /v1/leads/{id}/outcome` is an action of the lead's REST resource. */
export const leadOutcomesModule: AppModule = {
  name: 'lead-outcomes',
  resolvers: [LeadOutcomeResolver],
  policies: [leadOutcomePolicy],
};
