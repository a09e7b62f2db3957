import type { AppModule } from '../module';
import { ResponseTimeResolver } from './response-time.resolver';
import { responseTimePolicy } from './response-time.policy';
import { ResponseTimeWorker, RESPONSE_TIME_WORKER_LEADER } from './response-time.worker';
import { LeadOfferWorker, LEAD_OFFER_WORKER_LEADER } from './offer-lapse.worker';

/** First-response timers, escalation and response-time stats (docs/response-times.md). */
export const responseTimesModule: AppModule = {
  name: 'response-times',
  resolvers: [ResponseTimeResolver],
  policies: [responseTimePolicy],
  // Started with the notification worker (NOTIFICATION_WORKER), whether or not SMTP is configured.
  jobs: [
    {
      name: 'response-time-worker',
      leader: RESPONSE_TIME_WORKER_LEADER,
      enabled: (config) => config.notifications.worker,
      create: ({ deps }) => new ResponseTimeWorker(deps.orm),
    },
    // Offers that lapse (docs/lead-loop.md), on the same switch.
    {
      name: 'lead-offer-worker',
      leader: LEAD_OFFER_WORKER_LEADER,
      enabled: (config) => config.notifications.worker,
      create: ({ deps }) => new LeadOfferWorker(deps.orm),
    },
  ],
};
