import type { ResourcePolicy } from '../../access/policy';
import { networkUser } from '../../access/audience';

/** Notification settings: every company and retailer user has its own (it reads and writes only those); the operator none (403). */
export const notificationPolicy: ResourcePolicy = {
  name: 'notifications',
  graphql: {
    audience: networkUser,
    Query: ['notificationPreferences'],
    Mutation: ['updateNotificationPreferences'],
    types: ['NotificationPreferences'],
  },
};
