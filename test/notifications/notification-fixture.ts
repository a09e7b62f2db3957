// The set-up both notification suites share: a real SMTP server, an app that sends mail to it, and a
// notification worker on a clock the tests move. `useNotificationFixture` registers the jest hooks; the
// exported bindings (`t`, `smtp`, `worker`, `now`) are live, set by those hooks and by `setNow`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestApp, type TestApp } from '../support/app';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import { startSmtpReceiver } from './smtp-receiver';

/** The secret that signs the mails' unsubscribe links. */
export const SECRET = 's'.repeat(40);

/** The environment of the app (and of worker processes) besides SMTP_URL. */
export const NOTIFICATION_ENV = {
  NOTIFICATION_SECRET: SECRET,
  PUBLIC_URL: 'https://leadnet.example',
  SMTP_TIMEOUT_MS: '4000',
  NOTIFICATION_POLL_MS: '20',
  GEOCODER: 'none',
};

export let t: TestApp;
export let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
/** The worker under test: it runs only when a test drains or starts it (NOTIFICATION_WORKER=false). */
export let worker: NotificationWorker;
/** The worker's clock. */
export let now = new Date();
export const clock = () => now;
export const setNow = (at: Date) => {
  now = at;
};

/**
 * Starts the SMTP server and the app (with `env` on top of `NOTIFICATION_ENV`) before the suite, stops
 * them after it (`beforeClose` first), and before each test resets the clock, drains the worker and
 * forgets the mails received.
 */
export function useNotificationFixture(env: Record<string, string> = {}, beforeClose?: () => Promise<void>): void {
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await createTestApp({ SMTP_URL: smtp.url, NOTIFICATION_WORKER: 'false', ...NOTIFICATION_ENV, ...env });
    worker = new NotificationWorker(t.orm, t.config, { clock });
  });
  afterAll(async () => {
    await beforeClose?.();
    await worker.stop();
    await t.close();
    await smtp.close();
  });
  beforeEach(async () => {
    now = new Date();
    await worker.drain();
    smtp.received.length = 0;
  });
}

export const em = (): EntityManager => t.em();

/** A header as it arrived (mailparser parses some headers into objects). */
export const header = (m: { mail: any }, name: string): string | undefined =>
  (m.mail.headerLines as Array<{ key: string; line: string }>).find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '').replace(/\r?\n\s+/g, ' ');
