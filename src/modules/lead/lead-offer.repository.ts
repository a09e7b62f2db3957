import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import type { Context } from '../../context';
import type { LeadOfferRow } from './lead-offer.types';

const OFFER_COLUMNS = `o.id, o.lead_id, o.store_id, o.company_id, o.offered_at, o.respond_by, o.state, o.answered_at, o.answered_by_id,
  o.decline_reason, o.decline_note, o.handovers, o.escalation`;

/** The latest offer first: the open one, then by time offered, then by time answered (withdrawn ones of one instant before). */
const LATEST_FIRST = `(o.state = 'open') desc, o.offered_at desc, o.answered_at desc nulls first, o.id`;

/** An offer with the store facts the lead policy's `answerOffer` reads. */
export interface OfferWithStore extends LeadOfferRow {
  retailer_location_id: string | null;
  retailer_id: string | null;
}

/**
 * The lead's row lock, then every offer of the lead with its store's facts, latest first, the open one
 * locked: two answers at once wait here for each other, and the second reads what the first wrote.
 * Empty when the lead is gone.
 */
export async function lockOffers(tx: EntityManager, leadId: string): Promise<OfferWithStore[]> {
  const [lead] = await query<{ id: string }>(tx, `select id from leads where id = ? for update`, [leadId]);
  if (!lead) return [];
  await query(tx, `select id from lead_offers where lead_id = ? and state = 'open' for update`, [leadId]);
  return query<OfferWithStore>(
    tx,
    `select ${OFFER_COLUMNS}, s.retailer_location_id, s.retailer_id
       from lead_offers o join company_retailer_locations s on s.id = o.store_id
      where o.lead_id = ? order by ${LATEST_FIRST}`,
    [leadId],
  );
}

/** The open offer is answered: accepted, declined (with reason and note) or expired, by `userId` (null: the system). */
export async function closeOffer(
  tx: EntityManager,
  offerId: string,
  state: 'accepted' | 'declined' | 'expired',
  userId: string | null,
  at: Date | null,
  decline: { reason: string; note: string | null } | null = null,
): Promise<void> {
  await query(
    tx,
    `update lead_offers set state = ?, answered_at = coalesce(?::timestamptz, now()), answered_by_id = ?, decline_reason = ?, decline_note = ?
      where id = ? and state = 'open'`,
    [state, at, userId, decline?.reason ?? null, decline?.note ?? null, offerId],
  );
}

/**
 * The lead is escalated (docs/lead-loop.md "Escalation"): the offer whose decline or lapse left no hand-over
 * says why, and the lead is marked escalated `at` (null: now) until its store changes (a row trigger clears it).
 */
export async function escalate(tx: EntityManager, leadId: string, offerId: string, escalation: string, at: Date | null): Promise<void> {
  await query(tx, `update lead_offers set escalation = ? where id = ?`, [escalation, offerId]);
  await query(tx, `update leads set escalated_at = coalesce(?::timestamptz, now()) where id = ?`, [at, leadId]);
}

/** One offer by id. */
export async function offerRow(tx: EntityManager, offerId: string): Promise<LeadOfferRow | null> {
  const [row] = await query<LeadOfferRow>(tx, `select ${OFFER_COLUMNS} from lead_offers o where o.id = ?`, [offerId]);
  return row ?? null;
}

/** Appends a lead event of the loop (`lead.accepted`, `lead.declined`, `lead.offer_expired`), happened `at` (null: now). */
export async function recordOfferEvent(tx: EntityManager, type: string, leadId: string, at: Date | null, data: Record<string, unknown>): Promise<void> {
  await query(
    tx,
    `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, occurred_at, data)
       select ?, l.id, l.owner_company_id, l.owner_retailer_id, coalesce(?::timestamptz, now()), ?::jsonb from leads l where l.id = ?`,
    [type, at, JSON.stringify(data), leadId],
  );
}

/** Appends a system activity to the lead's timeline (its `lead_activity.created` event follows by trigger). */
export async function recordOfferActivity(tx: EntityManager, leadId: string, type: string, data: Record<string, unknown>, storeId: string): Promise<void> {
  await query(tx, `insert into lead_activities (lead_id, type, data, source_type, source_id) values (?, ?, ?::jsonb, 'CompanyRetailerLocation', ?)`, [
    leadId,
    type,
    JSON.stringify(data),
    storeId,
  ]);
}

/** The company's hand-over limit (3 when it never saved settings). */
export async function maxHandovers(tx: EntityManager, companyId: string): Promise<number> {
  const [row] = await query<{ max_handovers: number }>(tx, `select max_handovers from company_response_settings where company_id = ?`, [companyId]);
  return row?.max_handovers ?? 3;
}

/** Every store the lead was ever offered or assigned to (its offers, its timeline's assignments, the outbox's). */
export async function storesHad(tx: EntityManager, leadId: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    tx,
    `select distinct id from (
         select o.store_id::text as id from lead_offers o where o.lead_id = ?
         union all select la.data->>'from_id' from lead_activities la where la.lead_id = ? and la.type = 'LeadActivity::Assignment'
         union all select la.data->>'to_id' from lead_activities la where la.lead_id = ? and la.type = 'LeadActivity::Assignment'
         union all select e.data->>'to_id' from lead_events e where e.lead_id = ? and e.type = 'lead.assigned'
         union all select l.assignee_id::text from leads l where l.id = ?) s
      where id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`,
    [leadId, leadId, leadId, leadId, leadId],
  );
  return rows.map((r) => r.id);
}

/**
 * The lead handed to store `toId`: its assignee changes (the outbox trigger opens the new offer with its
 * `lead.offered` event) and an `Assignment` activity says why.
 */
export async function handLeadTo(tx: EntityManager, leadId: string, toId: string, activity: Record<string, unknown>): Promise<void> {
  await query(tx, `update leads set assignee_id = ?, updated_at = now() where id = ?`, [toId, leadId]);
  await query(tx, `insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::Assignment', ?::jsonb)`, [leadId, JSON.stringify(activity)]);
}

/** Takes the transaction-scoped advisory lock named `key` if free; false, at once, when another holds it. */
export async function tryNamedLock(tx: EntityManager, key: string): Promise<boolean> {
  const [{ locked }] = await query<{ locked: boolean }>(tx, `select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked`, [key]);
  return locked;
}

/** An open offer without its respond-by time yet, with what computing it reads. */
export interface UncomputedOffer {
  id: string;
  store_id: string;
  counts_from: Date | string;
  accept_minutes: number | null;
  business_hours: boolean;
  retailer_location_id: string | null;
  crl_zone: string | null;
  rl_zone: string | null;
  latitude: string | number | null;
  longitude: string | number | null;
}

/** Up to `limit` open offers without a respond-by time, oldest first, locked (others' locked ones skipped). */
export function lockUncomputedOffers(tx: EntityManager, limit: number): Promise<UncomputedOffer[]> {
  return query<UncomputedOffer>(
    tx,
    `select o.id, o.store_id, coalesce(o.counted_from, o.offered_at) as counts_from, s.accept_minutes, coalesce(s.business_hours, true) as business_hours,
            a.retailer_location_id, a.timezone as crl_zone, rl.timezone as rl_zone, loc.latitude, loc.longitude
       from lead_offers o
       join company_retailer_locations a on a.id = o.store_id
       left join retailer_locations rl on rl.id = a.retailer_location_id
       left join locations loc on loc.id = coalesce(rl.physical_address_id, a.physical_address_id)
       left join company_response_settings s on s.company_id = o.company_id
      where o.state = 'open' and not o.computed order by o.offered_at limit ? for update of o skip locked`,
    [limit],
  );
}

/** The offer's respond-by time is computed: `at`, or null when the company's offers do not lapse. */
export async function setRespondBy(tx: EntityManager, offerId: string, at: Date | null): Promise<void> {
  await query(tx, `update lead_offers set computed = true, respond_by = ? where id = ?`, [at, offerId]);
}

/** An open offer past its respond-by time, of a lead still at its store. */
export interface LapsedOffer {
  id: string;
  lead_id: string;
  store_id: string;
  company_id: string;
  respond_by: Date | string;
  handovers: number;
}

/** Up to `limit` open offers past `now`, soonest first, locked with their leads (others' locked ones skipped). */
export function lockLapsedOffers(tx: EntityManager, now: Date, limit: number): Promise<LapsedOffer[]> {
  return query<LapsedOffer>(
    tx,
    `select o.id, o.lead_id, o.store_id, o.company_id, o.respond_by, o.handovers
       from lead_offers o join leads l on l.id = o.lead_id and l.assignee_id = o.store_id
      where o.state = 'open' and o.respond_by <= ? order by o.respond_by limit ? for update of o, l skip locked`,
    [now, limit],
  );
}

/**
 * A company changed its acceptance window: its open offers count the new one from now (the backlog does
 * not lapse at once), or stop lapsing when it is off. In the settings' transaction.
 */
export async function restartOffers(em: Pick<EntityManager, 'execute'>, companyId: string, on: boolean): Promise<void> {
  await query(
    em as EntityManager,
    `update lead_offers set counted_from = now(), computed = ?, respond_by = null where company_id = ? and state = 'open'`,
    [!on, companyId],
  );
}

/** The open or else the latest offer of each lead (one statement for a page's leads). */
export async function latestOffers(ctx: Context, leadIds: readonly string[]): Promise<Array<LeadOfferRow | null>> {
  const rows = await query<LeadOfferRow>(
    ctx.em,
    `select distinct on (o.lead_id) ${OFFER_COLUMNS} from lead_offers o where o.lead_id = any(?::uuid[]) order by o.lead_id, ${LATEST_FIRST}`,
    [[...leadIds]],
  );
  const byLead = new Map(rows.map((r) => [r.lead_id, r]));
  return leadIds.map((id) => byLead.get(id) ?? null);
}
