import type { AppModule } from '../module';
import { LeadTimerResolver } from './lead-timer.resolver';
import { LeadConsentResolver } from './lead-consent.resolver';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';
import { LeadResolver } from './lead.resolver';
import { LeadActivityResolver } from './lead-activity.resolver';
import { LeadOfferResolver } from './lead-offer.resolver';
import { leadPolicy } from './lead.policy';
import { leadRest } from './lead.rest';
import { leadActivityRest } from './lead-activity.rest';
import { leadActivitySearch, leadSearch } from './lead.search';
import { leadDemo } from './lead.demo';

export const leadModule: AppModule = {
  name: 'lead',
  entities: [Lead, LeadActivity],
  resolvers: [LeadResolver, LeadActivityResolver, LeadOfferResolver, LeadTimerResolver, LeadConsentResolver],
  policies: [leadPolicy],
  connections: { leads: 'Lead', leadActivities: 'LeadActivity' },
  rest: [leadRest, leadActivityRest],
  openApiLists: { '/leads': leadSearch, '/lead_activities': leadActivitySearch },
  search: [leadSearch, leadActivitySearch],
  demo: [leadDemo],
};
