import type { AppModule } from '../module';
import { NotificationResolver } from './notification.resolver';
import { notificationPolicy } from './notification.policy';

/** E-mail about leads assigned to a user's stores: settings in GraphQL, sent from the event outbox (docs/notifications.md). */
export const notificationsModule: AppModule = {
  name: 'notifications',
  resolvers: [NotificationResolver],
  policies: [notificationPolicy],
};
