import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import type { Sql } from '../../search/types';
import type { HourRow } from '../store-locator/store-locator.hours';

/** Activities that are not the store answering: the assignment itself, the customer's request, a merge's note. */
const NOT_AN_ANSWER = `la.type in ('LeadActivity::Assignment', 'LeadActivity::QuoteRequest') or (la.type = 'LeadActivity::Note' and la.data->'merge' is not null)`;

/**
 * A company set or changed its first-response time (docs/response-times.md, "Setting or changing the
 * time"): every lead of its stores still waiting for a first answer gets the new time counted from now.
 * Waiting timers start again from now; open, assigned, unanswered leads with no timer (assigned before
 * the company had one, or while it was off) get one, with their real assignment time kept for the
 * statistics. Turning timers off stops the waiting ones. Answered and breached timers are history and
 * stay as they are. Set-based, in the settings' transaction.
 */
export async function restartTimers(em: Pick<EntityManager, 'execute'>, companyId: string, on: boolean): Promise<void> {
  await query(
    em as EntityManager,
    `update lead_response_timers t set counted_from = now(), computed = ?, due_at = null
       from company_retailer_locations a
      where a.id = t.store_id and a.company_id = ? and t.answered_at is null and t.breached_at is null
        and exists (select 1 from leads l where l.id = t.lead_id and lower(l.status) not in ('won', 'lost'))`,
    [!on, companyId],
  );
  if (!on) return;
  await query(
    em as EntityManager,
    `insert into lead_response_timers (lead_id, store_id, first_assigned_at, assigned_at, counted_from)
     select l.id, l.assignee_id, w.at, w.at, now()
       from leads l
       join company_retailer_locations a on a.id = l.assignee_id
       cross join lateral (
         select coalesce(greatest(
                  (select max(la.created_at) from lead_activities la
                    where la.lead_id = l.id and la.type = 'LeadActivity::Assignment' and la.data->>'to_id' = l.assignee_id::text),
                  (select max(e.occurred_at) from lead_events e
                    where e.lead_id = l.id and e.type = 'lead.assigned' and e.data->>'to_id' = l.assignee_id::text)),
                l.created_at) as at) w
      where a.company_id = ? and lower(l.status) not in ('won', 'lost')
        and not exists (select 1 from lead_response_timers t where t.lead_id = l.id)
        -- Activities stamped by the writing process may trail the transaction's time by a little: those of the
        -- assignment's own write (a create's notes) are not an answer.
        and not exists (select 1 from lead_activities la where la.lead_id = l.id and la.created_at > w.at + interval '1 second' and not (${NOT_AN_ANSWER}))
     on conflict (lead_id) do nothing`,
    [companyId],
  );
}

/** A `company_response_settings` row. */
export interface ResponseSettingsRow {
  company_id: string;
  first_response_minutes: number | null;
  business_hours: boolean;
  reassign: boolean;
  accept_minutes: number | null;
  max_handovers: number;
}

/** The company's saved settings, if it ever saved any. */
export async function responseSettingsRow(em: EntityManager, companyId: string): Promise<ResponseSettingsRow | undefined> {
  const [row] = await query<ResponseSettingsRow>(em, `select * from company_response_settings where company_id = ?`, [companyId]);
  return row;
}

/** Waits for the transaction-scoped advisory lock `key` (the response-time worker's steps hold it). */
export async function lockResponseTimes(em: EntityManager, key: number): Promise<void> {
  await query(em, 'select pg_advisory_xact_lock(?)', [key]);
}

/** Saves the company's settings (created or replaced). */
export async function saveResponseSettings(
  em: EntityManager,
  companyId: string,
  settings: { firstResponseMinutes: number | null; businessHours: boolean; reassign: boolean; acceptMinutes: number | null; maxHandovers: number },
): Promise<void> {
  await query(
    em,
    `insert into company_response_settings (company_id, first_response_minutes, business_hours, reassign, accept_minutes, max_handovers) values (?, ?, ?, ?, ?, ?)
         on conflict (company_id) do update set first_response_minutes = excluded.first_response_minutes, business_hours = excluded.business_hours,
           reassign = excluded.reassign, accept_minutes = excluded.accept_minutes, max_handovers = excluded.max_handovers, updated_at = now()`,
    [companyId, settings.firstResponseMinutes, settings.businessHours, settings.reassign, settings.acceptMinutes, settings.maxHandovers],
  );
}

/** A timer without its due time yet, with what computing it reads: the company's settings and the store's zone inputs. */
export interface UncomputedTimer {
  lead_id: string;
  store_id: string;
  counts_from: Date | string;
  first_response_minutes: number | null;
  business_hours: boolean;
  retailer_location_id: string | null;
  crl_zone: string | null;
  rl_zone: string | null;
  latitude: string | number | null;
  longitude: string | number | null;
}

/** Up to `limit` timers without a due time, oldest assignment first, locked (others' locked ones skipped). */
export function lockUncomputedTimers(em: EntityManager, limit: number): Promise<UncomputedTimer[]> {
  return query<UncomputedTimer>(
    em,
    `select t.lead_id, t.store_id, coalesce(t.counted_from, t.assigned_at) as counts_from, s.first_response_minutes, coalesce(s.business_hours, true) as business_hours,
              a.retailer_location_id, a.timezone as crl_zone, rl.timezone as rl_zone, loc.latitude, loc.longitude
         from lead_response_timers t
         join company_retailer_locations a on a.id = t.store_id
         left join retailer_locations rl on rl.id = a.retailer_location_id
         left join locations loc on loc.id = coalesce(rl.physical_address_id, a.physical_address_id)
         left join company_response_settings s on s.company_id = a.company_id
        where not t.computed order by t.assigned_at limit ? for update of t skip locked`,
    [limit],
  );
}

/** The opening hours of a store: its retailer location's when it has one, else its own. */
export function storeHours(em: EntityManager, retailerLocationId: string | null, storeId: string): Promise<HourRow[]> {
  return query<HourRow>(
    em,
    `select day, open, open_at_hour, open_at_minute, close_at_hour, close_at_minute from hours
              where (?::uuid is not null and retailer_location_id = ?::uuid) or (?::uuid is null and company_retailer_location_id = ?::uuid)`,
    [retailerLocationId, retailerLocationId, retailerLocationId, storeId],
  );
}

/** The timer's due time is computed: `due`, or null when the company has no first-response time; `remind` its reminder's time. */
export async function setDueAt(em: EntityManager, leadId: string, due: Date | null, remind: Date | null = null): Promise<void> {
  await query(em, `update lead_response_timers set computed = true, due_at = ?, remind_at = ? where lead_id = ?`, [due, remind, leadId]);
}

/** A timer past its due time, unanswered, of a lead still at its store. */
export interface DueTimer {
  lead_id: string;
  store_id: string;
  assigned_at: Date | string;
  due_at: Date | string;
  first_response_minutes: number;
  reassign: boolean;
  /** The lead was escalated (docs/lead-loop.md "Escalation"): it waits at its store for a person, never moved by a breach. */
  escalated: boolean;
  company_id: string;
}

/** Up to `limit` timers due at `now`, soonest first, locked with their leads (others' locked ones skipped). */
export function lockDueTimers(em: EntityManager, now: Date, limit: number): Promise<DueTimer[]> {
  return query<DueTimer>(
    em,
    `select t.lead_id, t.store_id, t.assigned_at, t.due_at, s.first_response_minutes, coalesce(s.reassign, false) as reassign, l.escalated_at is not null as escalated, a.company_id
         from lead_response_timers t
         join leads l on l.id = t.lead_id and l.assignee_id = t.store_id
         join company_retailer_locations a on a.id = t.store_id
         left join company_response_settings s on s.company_id = a.company_id
        where t.due_at <= ? and t.answered_at is null and t.breached_at is null and s.first_response_minutes is not null
        order by t.due_at limit ? for update of t, l skip locked`,
    [now, limit],
  );
}

/** Takes the transaction-scoped advisory lock named `key` if free; false, at once, when another holds it. */
export async function tryNamedLock(em: EntityManager, key: string): Promise<boolean> {
  const [{ locked }] = await query<{ locked: boolean }>(em, `select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked`, [key]);
  return locked;
}

/** The timer breached `at`; its count of breaches (kept across reassignments, the statistics' figure) goes up by one. */
export async function markBreached(em: EntityManager, leadId: string, at: Date): Promise<void> {
  await query(em, `update lead_response_timers set breached_at = ?, breaches = breaches + 1 where lead_id = ?`, [at, leadId]);
}

/** Appends the lead's `lead.sla_breached` event, happened `at`. */
export async function recordBreachEvent(em: EntityManager, leadId: string, at: Date, data: Record<string, unknown>): Promise<void> {
  await query(
    em,
    `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, occurred_at, data)
         select 'lead.sla_breached', l.id, l.owner_company_id, l.owner_retailer_id, ?, ?::jsonb from leads l where l.id = ?`,
    [at, JSON.stringify(data), leadId],
  );
}

/** The stores the lead was ever assigned to by its timeline's assignments and the outbox's (ids only). */
export async function assignedStoreIds(em: EntityManager, leadId: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select distinct id from (
         select la.data->>'from_id' as id from lead_activities la where la.lead_id = ? and la.type = 'LeadActivity::Assignment'
         union all select la.data->>'to_id' from lead_activities la where la.lead_id = ? and la.type = 'LeadActivity::Assignment'
         union all select e.data->>'to_id' from lead_events e where e.lead_id = ? and e.type = 'lead.assigned') s
        where id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`,
    [leadId, leadId, leadId],
  );
  return rows.map((r) => r.id);
}

/** The lead to store `toId`, with its `Assignment` activity holding `activity`. */
export async function reassignLead(em: EntityManager, leadId: string, toId: string, activity: Record<string, unknown>): Promise<void> {
  await query(em, `update leads set assignee_id = ?, updated_at = now() where id = ?`, [toId, leadId]);
  await query(em, `insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::Assignment', ?::jsonb)`, [
    leadId,
    JSON.stringify(activity),
  ]);
}

/** The rows of a statement of response-stats.ts, sent unprepared: each is built for its request's filter. */
export function statsRows(em: EntityManager, statement: Sql): Promise<any[]> {
  return query<any>(em, statement.sql, statement.bindings, { prepare: false });
}
