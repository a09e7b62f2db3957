import type { ResourcePolicy } from '../../access/policy';
import { networkUser } from '../../access/audience';
import { Role } from '../user/role';

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

/** How a user hears about leads assigned to its stores (`FREQUENCIES`, notification.defaults.ts). */
export type Frequency = 'immediate' | 'daily_digest' | 'off';

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

/**
 * Who hears of a store's breached first-response time, in SQL over a `users` row `u` of the store's
 * company, the store `store` and its company retailer `cr`: the company's admins and the manager of the
 * store's territory (its own, else its company retailer's).
 */
export function slaRecipientSql(u: string, store: string, cr: string): string {
  return `(${u}.role = '${Role.CompanyAdmin}' or (${u}.role = '${Role.CompanyTerritoryManager}' and ${u}.territory_id = coalesce(${store}.territory_id, ${cr}.territory_id)))`;
}
