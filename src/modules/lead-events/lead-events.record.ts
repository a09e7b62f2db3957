import type { EntityManager } from '@mikro-orm/postgresql';

/** PRODUCT.md section 11: the lead events shared by webhooks and GraphQL subscriptions. */
export const LEAD_EVENT_TYPES = ['lead.created', 'lead.updated', 'lead.assigned', 'lead.status_changed', 'lead.merged', 'lead_activity.created', 'lead.sla_breached'] as const;
export type LeadEventType = (typeof LEAD_EVENT_TYPES)[number];

/**
 * Appends an event the database triggers cannot see (an API update, a merge) to `lead_events`, in the
 * caller's transaction. Inserts, assignee and status changes and new activities are recorded by triggers
 * (Migration20261123141000_webhooks), whoever writes them.
 */
export async function recordLeadEvent(
  tx: Pick<EntityManager, 'execute'>,
  type: Extract<LeadEventType, 'lead.updated' | 'lead.merged'>,
  leadId: string,
  data: Record<string, unknown> | null = null,
): Promise<void> {
  await tx.execute(
    `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, data)
     select ?, l.id, l.owner_company_id, l.owner_retailer_id, ?::jsonb from leads l where l.id = ?`,
    [type, data === null ? null : JSON.stringify(data), leadId],
  );
}
