import type { ResourcePolicy } from '../../access/policy';
import { networkUser, oneOf } from '../../access/audience';
import type { Caller } from '../../auth/caller';
import { Role } from '../user/role';

/**
 * Notification settings: every company and retailer user has its own (it reads and writes them); the
 * operator none (403). A company admin also reads and changes those of its team (`member`: a user of the
 * caller's own company, seen; `manage`: the company admin's). `deliveries`: the delivery log of the mails
 * to a company's users is its company admin's (`deliveryCompany` names the company; 403 for everyone else).
 */
export const notificationPolicy: ResourcePolicy<'deliveries' | 'member' | 'manage', { companyId: string | null }> = {
  name: 'notifications',
  graphql: {
    audience: networkUser,
    Query: ['notificationPreferences', 'notificationDeliveries'],
    Mutation: ['updateNotificationPreferences'],
    types: ['NotificationPreferences', 'NotificationDelivery', 'NotificationDeliveryLogEntry'],
  },
  decide: (caller, action, facts) => {
    const admin = oneOf(Role.CompanyAdmin)(caller) && !!caller.companyId;
    if (action === 'deliveries') return admin;
    // Another user's settings: seen when it is of the caller's own company, changed by its company admin.
    const ownCompany = !!caller.companyId && facts?.companyId === caller.companyId;
    if (action === 'member') return ownCompany;
    if (action === 'manage') return admin && ownCompany;
    return false;
  },
};

/** The company whose users' deliveries the caller reads (after `can(caller, 'deliveries', notificationPolicy)`): its own. */
export function deliveryCompany(caller: Caller): string {
  return caller.companyId!;
}

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

/**
 * Who hears of an escalated lead at the store (docs/notifications.md "The escalation mail"), in SQL over a
 * `users` row `u` of the store's company, the store `store` and its company retailer `cr`: the territory
 * managers of the store's territory (its own, else its company retailer's); when it has none (no
 * territory, or no manager for it), the company's admins. They are the ones who reassign it.
 */
export function escalationRecipientSql(u: string, store: string, cr: string): string {
  const territory = `coalesce(${store}.territory_id, ${cr}.territory_id)`;
  const manager = (x: string) => `(${x}.role = '${Role.CompanyTerritoryManager}' and ${x}.territory_id = ${territory})`;
  return `(case when exists (select 1 from users m where m.company_id = ${store}.company_id and ${manager('m')})
            then ${manager(u)} else ${u}.role = '${Role.CompanyAdmin}' end)`;
}
