import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClientBase } from 'pg';
import { pgArray } from '../../db/sql';
import type { LeadEventType } from './lead-events.record';

/** One row of `lead_events` (Migration20261123141000_webhooks), as subscriptions read it. */
export interface LeadEventRow {
  id: string;
  seq: string;
  type: LeadEventType;
  leadId: string;
  leadActivityId: string | null;
  ownerCompanyId: string | null;
  ownerRetailerId: string | null;
  occurredAt: Date;
}

/**
 * Appends an event the database triggers cannot see (an API update, a merge) to `lead_events`, in the
 * caller's transaction. Inserts, assignee and status changes and new activities are recorded by triggers
 * (Migration20261123141000_webhooks), whoever writes them.
 */
export function recordLeadEvent(
  tx: Pick<EntityManager, 'execute'>,
  type: Extract<LeadEventType, 'lead.updated' | 'lead.merged'>,
  leadId: string,
  data: Record<string, unknown> | null = null,
): Promise<void> {
  return recordLeadEvents(tx, type, [leadId], data);
}

/** `recordLeadEvent` for each of `leadIds`, in their order, in one statement. */
export async function recordLeadEvents(
  tx: Pick<EntityManager, 'execute'>,
  type: Extract<LeadEventType, 'lead.updated' | 'lead.merged'>,
  leadIds: readonly string[],
  data: Record<string, unknown> | null = null,
): Promise<void> {
  if (!leadIds.length) return;
  await tx.execute(
    `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, data)
     select ?, l.id, l.owner_company_id, l.owner_retailer_id, ?::jsonb
       from unnest(?::uuid[]) with ordinality as u(id, n) join leads l on l.id = u.id
      order by u.n`,
    [type, data === null ? null : JSON.stringify(data), pgArray(leadIds)],
  );
}

const LAST_SEQ = 'select coalesce(max(seq), 0)::text as seq from lead_events';

/** The newest event's `seq` (`'0'` with none), on the hub's connection. */
export async function lastLeadEventSeq(client: ClientBase): Promise<string> {
  const { rows } = await client.query(LAST_SEQ);
  return rows[0].seq;
}

/** The events `ids` and, with `catchUp`, every event after `afterSeq`, in `seq` order, on the hub's connection. */
export async function readLeadEvents(client: ClientBase, ids: string[], catchUp: boolean, afterSeq: string | null): Promise<LeadEventRow[]> {
  const { rows } = await client.query(
      `select id, seq::text as seq, type, lead_id as "leadId", lead_activity_id as "leadActivityId",
              owner_company_id as "ownerCompanyId", owner_retailer_id as "ownerRetailerId", occurred_at as "occurredAt"
         from lead_events where id = any($1::uuid[]) or ($2 and seq > $3::bigint) order by seq`,
    [ids, catchUp, afterSeq],
  );
  return rows;
}
