export { defaultFrequency, FREQUENCY_SQL, STORE_ROLES } from './notification.policy';
import type { Frequency } from './notification.policy';

/** How a user hears about leads assigned to its stores. */
export const FREQUENCIES = ['immediate', 'daily_digest', 'off'] as const satisfies readonly Frequency[];
export type { Frequency };

/**
 * Breaches of the first-response time may go to company admins and the store's territory manager: opt-in
 * (a user who never chose gets none), `immediate` or `daily_digest`.
 */
export const SLA_FREQUENCY_SQL = `coalesce(p.sla_breached, 'off')`;

/** Immediate breach mails one recipient gets per clock hour at most; the rest are gathered into one digest at the hour's end. */
export const SLA_MAILS_PER_HOUR = 5;

/** What an unsubscribe link turns off: lead mails (`lead_assigned`) or breach mails (`sla_breached`). */
export type Topic = 'lead_assigned' | 'sla_breached';
