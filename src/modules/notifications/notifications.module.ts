import type { AppModule } from '../module';
import { NotificationResolver } from './notification.resolver';
import { notificationPolicy } from './notification.policy';
import { startNotifications } from './notification.start';
import { notificationRouter } from './notification.router';
import { offerPageRouter } from './offer-page.router';
import { Router } from 'express';

/** E-mail about leads assigned to a user's stores: settings in GraphQL, sent from the event outbox (docs/notifications.md). */
export const notificationsModule: AppModule = {
  name: 'notifications',
  resolvers: [NotificationResolver],
  policies: [notificationPolicy],
  // Not a plain job: it says at start-up why no e-mail will be sent (no SMTP_URL, NOTIFICATION_WORKER=false).
  start: ({ deps }) => startNotifications(deps.orm, deps.config),
  // The unsubscribe page and the page a lead mail's link opens (Accept / Decline without logging in).
  routes: ({ deps }) => Router().use(notificationRouter(deps.orm, deps.config), offerPageRouter(deps)),
};
