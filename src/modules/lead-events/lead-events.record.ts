import type { EntityManager } from '@mikro-orm/postgresql';
import type { LeadEventType } from './lead-events.hub';

/**
 * Writes a lead event in the transaction of `tx`, for what only the service knows (a merge, an
 * update); creations, status and assignee changes and new activities are written by row triggers
 * (Migration20261123151000_lead_events).
 */
export async function recordLeadEvent(tx: EntityManager, type: Extract<LeadEventType, 'lead.merged' | 'lead.updated'>, leadId: string): Promise<void> {
  await tx.execute('select leadnet_lead_event(?, l, null) from leads l where l.id = ?', [type, leadId]);
}
