import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { leaderLocked, type Worker } from '../../db/leader';
import { logger } from '../../logger';
import { NotificationWorker, NOTIFICATION_WORKER_LEADER, type NotificationWorkerOptions } from './notification.worker';

/**
 * Starts the notification worker under the leader lock (one process at a time sends, a standby takes
 * over when it dies) when SMTP is configured and NOTIFICATION_WORKER is on; says at start-up when no
 * e-mail will be sent. Returns what stops it.
 */
export function startNotifications(orm: MikroORM, config: Config, options: NotificationWorkerOptions = {}): Worker {
  const n = config.notifications;
  if (!n.smtpUrl) {
    logger.info('notifications: SMTP_URL is not set, so no e-mail is sent (docs/notifications.md)');
    return { start() {}, stop: async () => undefined };
  }
  if (!n.worker) {
    logger.info('notifications: NOTIFICATION_WORKER=false, e-mail is sent by another process');
    return { start() {}, stop: async () => undefined };
  }
  const lock = leaderLocked(orm, NOTIFICATION_WORKER_LEADER, new NotificationWorker(orm, config, options), 'notification-worker', config.workerLockRetryMs);
  lock.start();
  logger.info({ smtp: redactedUrl(n.smtpUrl) }, 'notifications: e-mail is sent through SMTP');
  return { start() {}, stop: () => lock.stop() };
}

/** The SMTP URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'smtp://?';
  }
}
