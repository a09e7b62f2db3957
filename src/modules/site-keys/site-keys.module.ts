import type { AppModule } from '../module';
import { siteKeyPolicy } from './site-key.policy';
import { SiteKeyResolver } from './site-key.resolver';
import { storeContactRouter } from './store-contact.router';
import { VISITOR_CONFIRMATION_LEADER, VisitorConfirmationWorker } from './visitor-confirmation.worker';

/**
 * Visitors ask a store (docs/lead-loop.md): publishable site keys (GraphQL), the proof-of-work challenge
 * and the public contact form under /v1/store_locator (listed before the store locator, whose routes
 * would take `challenge` for a store id), and the visitors' confirmation mails (sent when SMTP is set).
 */
export const siteKeysModule: AppModule = {
  name: 'site-keys',
  resolvers: [SiteKeyResolver],
  policies: [siteKeyPolicy],
  restRoutes: (deps) => storeContactRouter(deps),
  jobs: [
    {
      name: 'visitor-confirmations',
      leader: VISITOR_CONFIRMATION_LEADER,
      enabled: (config) => !!config.notifications.smtpUrl && config.notifications.worker,
      create: ({ deps }) => new VisitorConfirmationWorker(deps.orm, deps.config),
    },
  ],
};
