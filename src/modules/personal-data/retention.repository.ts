import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';

/**
 * The SQL of retention (docs/personal-data.md "Retention"): a company's periods, and what is due under
 * them, found by index in bounded batches. Each "due" statement is written once and either listed (a
 * dry run) or deleted with its condition checked again in the deleting statement.
 */

export interface RetentionSettingsRow {
  company_id: string;
  inactive_lead_months: number | null;
  delivery_log_days: number;
}

export async function retentionSettingsRow(em: EntityManager, companyId: string): Promise<RetentionSettingsRow | undefined> {
  const [row] = await query<RetentionSettingsRow>(em, `select company_id, inactive_lead_months, delivery_log_days from company_retention_settings where company_id = ?`, [companyId]);
  return row;
}

/** The company's periods (created or replaced). */
export async function saveRetentionSettings(em: EntityManager, companyId: string, s: { inactiveLeadMonths: number | null; deliveryLogDays: number }): Promise<void> {
  await query(
    em,
    `insert into company_retention_settings (company_id, inactive_lead_months, delivery_log_days) values (?, ?, ?)
     on conflict (company_id) do update set inactive_lead_months = excluded.inactive_lead_months, delivery_log_days = excluded.delivery_log_days, updated_at = now()`,
    [companyId, s.inactiveLeadMonths, s.deliveryLogDays],
  );
}

/** A page of company ids after `after` (id order), each with its periods (null columns: no row, the defaults). */
export async function companiesPage(
  em: EntityManager,
  after: string | null,
  limit: number,
): Promise<Array<{ id: string; has_settings: boolean; inactive_lead_months: number | null; delivery_log_days: number | null }>> {
  return query(
    em,
    `select c.id, s.company_id is not null as has_settings, s.inactive_lead_months, s.delivery_log_days
       from companies c left join company_retention_settings s on s.company_id = c.id
      where c.id > coalesce(?::uuid, '00000000-0000-0000-0000-000000000000') order by c.id limit ?`,
    [after, limit],
  );
}

/**
 * The company's leads inactive for `months`: not updated since, no activity written or changed since,
 * and neither erased already nor in a running erasure (the partial index `leads_retention_index`, oldest update first).
 */
export async function dueLeads(em: EntityManager, companyId: string, months: number, limit: number): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select l.id from leads l
      where l.owner_company_id = ? and l.erased_at is null and l.updated_at < now() - make_interval(months => ?)
        and not exists (select 1 from lead_activities a where a.lead_id = l.id and a.updated_at >= now() - make_interval(months => ?))
        and not exists (select 1 from erasure_jobs j where j.status = 'running' and j.company_id = l.owner_company_id and l.id = any(j.lead_ids))
      order by l.updated_at, l.id limit ?`,
    [companyId, months, months, limit],
  );
  return rows.map((r) => r.id);
}

/** What a delivery log kind is: its table and the condition that makes one of its rows the company's and due. */
const DUE_LOGS = {
  // Webhook deliveries to the company's endpoints, finished (a pending one is still to be sent).
  webhook_deliveries: `select d.id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
      where w.owner_company_id = ? and d.status <> 'pending' and d.created_at < now() - make_interval(days => ?)
      order by d.created_at, d.id limit ?`,
  // Mails to the network's users about the company's leads (and digests to its users), no longer waiting.
  notification_deliveries: `select n.id from notification_deliveries n
      where n.created_at < now() - make_interval(days => ?) and n.status in ('sent', 'failed', 'skipped', 'digested')
        and (exists (select 1 from leads l where l.id = n.lead_id and l.owner_company_id = ?)
             or (n.lead_id is null and exists (select 1 from users u where u.id = n.user_id and u.company_id = ?)))
      order by n.created_at, n.id limit ?`,
  // Confirmations mailed to the visitors of the company's contact forms (their address): long sent or given up.
  visitor_confirmations: `select v.id from visitor_confirmations v
      where v.created_at < now() - make_interval(days => ?)
        and exists (select 1 from leads l where l.id = v.lead_id and l.owner_company_id = ?)
      order by v.created_at, v.id limit ?`,
} as const;

export type DeliveryLog = keyof typeof DUE_LOGS;
export const DELIVERY_LOGS = Object.keys(DUE_LOGS) as DeliveryLog[];

const dueBindings = (log: DeliveryLog, companyId: string, days: number, limit: number): unknown[] =>
  log === 'webhook_deliveries' ? [companyId, days, limit] : log === 'notification_deliveries' ? [days, companyId, companyId, limit] : [days, companyId, limit];

/** Up to `limit` ids of the company's rows of `log` older than `days` (a dry run). */
export async function dueLogIds(em: EntityManager, log: DeliveryLog, companyId: string, days: number, limit: number): Promise<string[]> {
  const rows = await query<{ id: string }>(em, DUE_LOGS[log], dueBindings(log, companyId, days, limit));
  return rows.map((r) => r.id);
}

/** Deletes up to `limit` of them (their attempts and logs by cascade); returns how many went. */
export async function deleteDueLogs(em: EntityManager, log: DeliveryLog, companyId: string, days: number, limit: number): Promise<number> {
  const rows = await query(em, `delete from ${log} where id in (${DUE_LOGS[log]}) returning id`, dueBindings(log, companyId, days, limit));
  return rows.length;
}
