/**
 * What became of the notification mails this process tried (src/modules/notifications/notification.worker.ts),
 * counted by outcome for `/metrics` (`leadnet_notification_mails_total{outcome}`): `sent`, `retried` (a
 * failure tried again later), `failed` (given up), `bounced` (refused for good by the SMTP server, a 5xx),
 * `skipped` (nothing left to tell).
 */
export type MailOutcome = 'sent' | 'retried' | 'failed' | 'bounced' | 'skipped';
export const MAIL_OUTCOMES: readonly MailOutcome[] = ['sent', 'retried', 'failed', 'bounced', 'skipped'];

const counts = new Map<MailOutcome, number>(MAIL_OUTCOMES.map((o) => [o, 0]));

export function countMail(outcome: MailOutcome): void {
  counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
}

export function mailCounts(): ReadonlyMap<MailOutcome, number> {
  return counts;
}
