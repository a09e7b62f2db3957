import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isNetworkUser } from '../../graphql/rules';

/** Notification settings: every company and retailer user has its own; the platform operator gets none (403). */
export const notificationPermissions = {
  Query: { notificationPreferences: isNetworkUser },
  Mutation: { updateNotificationPreferences: isNetworkUser },
  NotificationPreferences: allow,
};

/** Who reaches the notification settings (each user reads and writes only its own). */
export const notificationPolicy: ResourcePolicy = {
  rules: notificationPermissions,
};
