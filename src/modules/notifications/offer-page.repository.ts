import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import { FREQUENCY_SQL } from './notification.defaults';
import { contactWithdrawnSql } from '../lead/lead-consent.repository';

/** An offer as the lead's page reads it, with its store's facts (who answers for it) and name. */
export interface OfferPageRow {
  id: string;
  lead_id: string;
  store_id: string;
  state: 'open' | 'accepted' | 'declined' | 'expired' | 'withdrawn';
  respond_by: Date | string | null;
  answered_at: Date | string | null;
  decline_reason: string | null;
  retailer_location_id: string | null;
  retailer_id: string | null;
  store_name: string | null;
  /** Its decline or lapse escalated the lead, which is still waiting at that store to be reassigned. */
  escalated: boolean;
}

/** The offer `offerId` of lead `leadId`, or nothing (another lead's offer, or gone with its lead). */
export async function offerPageRow(em: EntityManager, offerId: string, leadId: string): Promise<OfferPageRow | undefined> {
  const [row] = await query<OfferPageRow>(
    em,
    `select o.id, o.lead_id, o.store_id, o.state, o.respond_by, o.answered_at, o.decline_reason,
            a.retailer_location_id, a.retailer_id, coalesce(a.name, rl.name) as store_name,
            (o.escalation is not null and exists (select 1 from leads l where l.id = o.lead_id and l.assignee_id = o.store_id and l.escalated_at is not null)) as escalated
       from lead_offers o
       join company_retailer_locations a on a.id = o.store_id
       left join retailer_locations rl on rl.id = a.retailer_location_id
      where o.id = ? and o.lead_id = ?`,
    [offerId, leadId],
  );
  return row;
}

/** A user as a caller (role, organisation, scope assignments), with its address and language. */
export interface UserCallerRow {
  id: string;
  email: string;
  locale: string;
  role: string;
  company_id: string | null;
  retailer_id: string | null;
  territory_id: string | null;
  cr_ids: string[] | null;
  crl_ids: string[] | null;
  rl_ids: string[] | null;
}

/** The user `userId` as it is now (its scope assignments read in the same statement), or nothing when deleted. */
export async function userCallerRow(em: EntityManager, userId: string): Promise<UserCallerRow | undefined> {
  const [row] = await query<UserCallerRow>(
    em,
    `select u.id, u.email, u.locale, u.role, u.company_id, u.retailer_id, u.territory_id,
            array(select company_retailer_id from user_company_retailers where user_id = u.id) as cr_ids,
            array(select company_retailer_location_id from user_company_retailer_locations where user_id = u.id) as crl_ids,
            array(select retailer_location_id from user_retailer_locations where user_id = u.id) as rl_ids
       from users u where u.id = ?`,
    [userId],
  );
  return row;
}

/** What the page shows of its lead: the mail's fields and the customer's latest request note. */
export interface OfferLeadRow {
  id: string;
  name: string | null;
  emails: string[] | null;
  phones: string[] | null;
  address: string | null;
  products: unknown;
  notes: string | null;
}

export async function offerLeadRow(em: EntityManager, leadId: string): Promise<OfferLeadRow | undefined> {
  const [row] = await query<OfferLeadRow>(
    em,
    `select l.id, l.name,
            array(select e.email from emails e where e.lead_id = l.id order by e.seq limit 10) as emails,
            array(select p.phone_number from phone_numbers p where p.lead_id = l.id order by p.seq limit 10) as phones,
            concat_ws(', ', nullif(loc.street_line_one, ''), nullif(loc.street_line_two, ''), nullif(concat_ws(' ', nullif(loc.postal_code, ''), nullif(loc.city, '')), ''),
                      nullif(loc.province, ''), nullif(loc.country, '')) as address,
            (select jsonb_agg(la.data->'products' order by la.created_at) from lead_activities la
              where la.lead_id = l.id and la.type = 'LeadActivity::QuoteRequest') as products,
            (select la.data->>'notes' from lead_activities la
              where la.lead_id = l.id and la.type = 'LeadActivity::QuoteRequest' and coalesce(la.data->>'notes', '') <> ''
              order by la.created_at desc limit 1) as notes
       from leads l left join locations loc on loc.id = l.location_id
      where l.id = ?`,
    [leadId],
  );
  return row;
}

/** The offer an assignment event opened (its lead, its store, offered when the event happened), if any. */
export async function offerOfEvent(em: EntityManager, eventId: string): Promise<string | null> {
  const [row] = await query<{ id: string }>(
    em,
    `select o.id from lead_events e
       join lead_offers o on o.lead_id = e.lead_id and o.store_id = coalesce(e.data->>'to_id', e.data->>'store_id')::uuid and o.offered_at <= e.occurred_at
      where e.id = ? order by o.offered_at desc limit 1`,
    [eventId],
  );
  return row?.id ?? null;
}

/** Each lead's open offer, else its latest (one statement for a digest's leads). */
export async function latestOfferIds(em: EntityManager, leadIds: string[]): Promise<Map<string, string>> {
  if (!leadIds.length) return new Map();
  const rows = await query<{ id: string; lead_id: string }>(
    em,
    `select distinct on (o.lead_id) o.id, o.lead_id from lead_offers o where o.lead_id = any(?::uuid[])
      order by o.lead_id, (o.state = 'open') desc, o.offered_at desc, o.id`,
    [leadIds],
  );
  return new Map(rows.map((r) => [r.lead_id, r.id]));
}

/**
 * The lost-lead notices of assignment events that moved a lead away from a store (`from_id`): for each,
 * one `lead_lost` delivery, due `now`, for every user who was sent a mail of its own about the lead's
 * assignment to that store (a delivery of kind `lead_assigned`, status `sent`), whose lead mails are still
 * on, and who is not the user whose write made the move (the event's actor). A user already told of the
 * event (it sees the new store too, so it lost nothing) is left: unique per event and user. Each starts
 * its delivery log (`queued`). None about a person who withdrew their contact consent. Returns how many were written.
 */
export async function insertLostDeliveries(em: EntityManager, events: Array<{ eventId: string; lane: string; actorId: string | null }>, now: Date): Promise<number> {
  if (!events.length) return 0;
  const rows = await query(
    em,
    `with made as (
     insert into notification_deliveries (kind, event_id, lead_id, user_id, lane, status, next_attempt_at)
     select 'lead_lost', e.id, e.lead_id, u.id, x.lane, 'pending', ?::timestamptz
       from unnest(?::uuid[], ?::text[], ?::uuid[]) as x(event_id, lane, actor_id)
       join lead_events e on e.id = x.event_id
       join lateral (
         select distinct d.user_id from notification_deliveries d join lead_events pe on pe.id = d.event_id
          where d.lead_id = e.lead_id and d.kind = 'lead_assigned' and d.status = 'sent'
            and pe.type = 'lead.assigned' and pe.data->>'to_id' = e.data->>'from_id' and pe.seq < e.seq) m on true
       join users u on u.id = m.user_id
       left join notification_preferences p on p.user_id = u.id
      where e.type = 'lead.assigned' and e.data->>'from_id' is not null
        and e.data->>'from_id' is distinct from e.data->>'to_id'
        and u.id is distinct from x.actor_id and ${FREQUENCY_SQL} <> 'off'
        and not ${contactWithdrawnSql('e.lead_id')}
     on conflict (event_id, user_id) do nothing
     returning id),
     logged as (insert into notification_delivery_log (delivery_id, status) select id, 'queued' from made)
     select id from made`,
    [now, events.map((e) => e.eventId), events.map((e) => e.lane), events.map((e) => e.actorId)],
  );
  return rows.length;
}

/** What a lost-lead mail says: the lead's name, the store that lost it, when, and why (the assignment's activity reason). */
export interface LostRow {
  lead_name: string | null;
  store_id: string | null;
  store_name: string | null;
  occurred_at: Date | string;
  reason: string | null;
}

export async function lostRow(em: EntityManager, eventId: string): Promise<LostRow | undefined> {
  const [row] = await query<LostRow>(
    em,
    `select l.name as lead_name, e.data->>'from_id' as store_id, coalesce(a.name, rl.name) as store_name, e.occurred_at, act.data->>'reason' as reason
       from lead_events e
       join leads l on l.id = e.lead_id
       left join company_retailer_locations a on a.id = (e.data->>'from_id')::uuid
       left join retailer_locations rl on rl.id = a.retailer_location_id
       left join lateral (
         select la.data from lead_activities la
          where la.lead_id = e.lead_id and la.type = 'LeadActivity::Assignment' and la.data->>'to_id' = e.data->>'to_id'
            and la.created_at <= e.occurred_at + interval '1 minute'
          order by la.created_at desc limit 1) act on true
      where e.id = ?`,
    [eventId],
  );
  return row;
}
