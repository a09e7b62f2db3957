export { defaultFrequency, FREQUENCY_SQL, STORE_ROLES } from './notification.policy';
import type { Frequency } from './notification.policy';

/** How a user hears about leads assigned to its stores. */
export const FREQUENCIES = ['immediate', 'daily_digest', 'off'] as const satisfies readonly Frequency[];
export type { Frequency };

/** Breaches of the first-response time go to company admins and the store's territory manager, on by default. */
export const SLA_FREQUENCY_SQL = `coalesce(p.sla_breached, 'immediate')`;

/** What an unsubscribe link turns off: lead mails (`lead_assigned`) or breach mails (`sla_breached`). */
export type Topic = 'lead_assigned' | 'sla_breached';
