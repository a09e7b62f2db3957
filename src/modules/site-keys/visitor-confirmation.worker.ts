import { createTransport } from 'nodemailer';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { Worker } from '../../db/leader';
import { logger } from '../../logger';
import { claimConfirmations, markConfirmation } from './site-key.repository';
import { visitorConfirmationMail } from './visitor-confirmation.mail';

/** The leader lock of the sender (one process at a time). */
export const VISITOR_CONFIRMATION_LEADER = 7_312_060;
const BATCH = 20;

/**
 * Sends the visitors' confirmation mails queued by the contact form (`visitor_confirmations`) through the
 * notifications' SMTP settings (SMTP_URL, NOTIFICATION_FROM), out of the request's path: each round
 * claims due rows (skip locked), sends them, and marks them sent or retried later (doubling from one
 * minute, at most 8 attempts).
 */
export class VisitorConfirmationWorker implements Worker {
  private readonly transport;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: Config,
  ) {
    const n = config.notifications;
    this.transport = createTransport({
      url: n.smtpUrl,
      connectionTimeout: n.smtpTimeoutMs,
      greetingTimeout: n.smtpTimeoutMs,
      socketTimeout: n.smtpTimeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    } as any);
  }

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .catch((err: unknown) => logger.error({ err }, 'visitor confirmations: round failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.config.notifications.pollMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One round: the mails due now. Returns how many were sent. */
  async tick(): Promise<number> {
    const n = this.config.notifications;
    return (this.orm.em.fork() as EntityManager).transactional(async (tx) => {
      let sent = 0;
      for (const row of await claimConfirmations(tx as EntityManager, BATCH)) {
        const mail = visitorConfirmationMail(row.locale, row.store_name);
        try {
          await this.transport.sendMail({ from: n.from, to: row.email, subject: mail.subject, text: mail.text, html: mail.html, headers: { 'Auto-Submitted': 'auto-generated', 'X-Leadnet-Confirmation-Id': row.id } });
          await markConfirmation(tx as EntityManager, row.id, null, 0);
          sent++;
        } catch (err) {
          const e = err as Error & { code?: string };
          logger.warn({ err, confirmation: row.id }, 'visitor confirmations: sending failed');
          await markConfirmation(tx as EntityManager, row.id, `${e.code ?? 'error'}: ${e.message}`, 60_000 * 2 ** row.attempts);
        }
      }
      return sent;
    });
  }
}
