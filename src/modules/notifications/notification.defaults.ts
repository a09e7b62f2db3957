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

/**
 * Immediate breach mails, and escalation mails, one recipient gets per clock hour at most (each kind
 * counted alone); the rest are gathered into one digest of that kind at the hour's end.
 */
export const SLA_MAILS_PER_HOUR = 5;

/**
 * Escalated leads go to the territory manager of the store (else the company admins): on by default
 * (`immediate`; escalations are rare and someone must act on each), `off` when the user turns them off.
 */
export const ESCALATION_FREQUENCIES = ['immediate', 'off'] as const;
export const ESCALATION_FREQUENCY_SQL = `coalesce(p.lead_escalated, 'immediate')`;

/** What an unsubscribe link turns off: lead mails (`lead_assigned`), breach mails (`sla_breached`) or escalation mails (`lead_escalated`). */
export type Topic = 'lead_assigned' | 'sla_breached' | 'lead_escalated';
