import { Role } from '../user/role';

/** How a user hears about leads assigned to its stores. */
export const FREQUENCIES = ['immediate', 'daily_digest', 'off'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/**
 * The roles whose scope names stores one by one: their users are the stores' own staff and hear about
 * new leads by default (`immediate`); every other role opts in.
 */
export const STORE_ROLES: readonly Role[] = [Role.CompanyLocationUser, Role.CompanySalesAssociate, Role.RetailerStoreManager];

export function defaultFrequency(role: Role): Frequency {
  return STORE_ROLES.includes(role) ? 'immediate' : 'off';
}

/** `defaultFrequency` in SQL over a `users` row `u` and its `notification_preferences` row `p` (left joined). */
export const FREQUENCY_SQL = `coalesce(p.lead_assigned, case when u.role in (${STORE_ROLES.map((r) => `'${r}'`).join(', ')}) then 'immediate' else 'off' end)`;

/** Breaches of the first-response time go to company admins and the store's territory manager, on by default. */
export const SLA_FREQUENCY_SQL = `coalesce(p.sla_breached, 'immediate')`;

/** What an unsubscribe link turns off: lead mails (`lead_assigned`) or breach mails (`sla_breached`). */
export type Topic = 'lead_assigned' | 'sla_breached';
