import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import type { LeadOutcomeFacts } from './lead-outcome.policy';

/** The lead, locked for the write, with what the outcome's policy decides on; undefined when it is gone. */
export async function lockedLead(em: EntityManager, leadId: string): Promise<(LeadOutcomeFacts & { status: string }) | undefined> {
  const [row] = await query<any>(
    em,
    `select l.status, l.owner_company_id, l.owner_retailer_id, l.assignee_id, l.assignee_retailer_id, l.assignee_retailer_location_id
       from leads l where l.id = ? for update`,
    [leadId],
  );
  if (!row) return undefined;
  return {
    status: row.status,
    ownerCompanyId: row.owner_company_id,
    ownerRetailerId: row.owner_retailer_id,
    store: row.assignee_id
      ? { id: row.assignee_id, retailerId: row.assignee_retailer_id, retailerLocationId: row.assignee_retailer_location_id }
      : null,
  };
}

/** The outcome as sent: replaces the lead's outcome, if any. */
export interface OutcomeWrite {
  result: 'won' | 'lost';
  amountMinor: number | null;
  currency: string | null;
  lostReason: string | null;
  closedOn: string;
  recordedById: string | null;
}

/**
 * Stores the outcome (replacing the lead's), its `LeadActivity::Outcome` (whose insert the outbox trigger
 * records as `lead_activity.created`) and its `lead.outcome_recorded` event, in the caller's transaction.
 */
export async function saveOutcome(em: EntityManager, leadId: string, o: OutcomeWrite): Promise<void> {
  await query(
    em,
    `insert into lead_outcomes (lead_id, result, amount_minor, currency, lost_reason, closed_on, recorded_at, recorded_by_id)
     values (?, ?, ?, ?, ?, ?::date, now(), ?)
     on conflict (lead_id) do update set result = excluded.result, amount_minor = excluded.amount_minor, currency = excluded.currency,
       lost_reason = excluded.lost_reason, closed_on = excluded.closed_on, recorded_at = excluded.recorded_at, recorded_by_id = excluded.recorded_by_id`,
    [leadId, o.result, o.amountMinor === null ? null : String(o.amountMinor), o.currency, o.lostReason, o.closedOn, o.recordedById],
  );
  const data = JSON.stringify({ result: o.result, amount_minor: o.amountMinor, currency: o.currency, lost_reason: o.lostReason, closed_on: o.closedOn });
  await query(em, `insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::Outcome', ?::jsonb)`, [leadId, data]);
  await query(
    em,
    `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, data)
     select 'lead.outcome_recorded', l.id, l.owner_company_id, l.owner_retailer_id, ?::jsonb from leads l where l.id = ?`,
    [data, leadId],
  );
}

/**
 * A status change as an API update makes it: the lead's status, its automatic `LeadActivity::StatusChange`
 * and a `lead.updated` event (the outbox trigger adds `lead.status_changed` and the activity's event).
 */
export async function changeStatus(em: EntityManager, leadId: string, from: string, to: string): Promise<void> {
  await query(em, `update leads set status = ?, updated_at = now() where id = ?`, [to, leadId]);
  await query(em, `insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::StatusChange', ?::jsonb)`, [
    leadId,
    JSON.stringify({ from, to }),
  ]);
  await query(
    em,
    `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id)
     select 'lead.updated', l.id, l.owner_company_id, l.owner_retailer_id from leads l where l.id = ?`,
    [leadId],
  );
}
