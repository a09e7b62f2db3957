import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import { fromClause, type Sql } from '../../search/types';
import type { ClaimRequest } from '../../outbox/runner';
import { leadSearch } from '../lead/lead.search';
import { contactWithdrawnSql } from '../lead/lead-consent.repository';
import { ESCALATION_FREQUENCY_SQL, FREQUENCY_SQL, SLA_FREQUENCY_SQL, type Topic } from './notification.defaults';
import { escalationRecipientSql, slaRecipientSql } from './notification.policy';
import { ZONE_COLUMNS, type zoneOf } from './notification.zone';

/** The columns of `zoneOf`'s inputs (`ZONE_COLUMNS`). */
type ZoneColumns = Parameters<typeof zoneOf>[0];

/** A user's settings as stored, with its role's defaults and its zone inputs. */
export interface PreferencesRow extends ZoneColumns {
  email: string;
  locale: string;
  frequency: string;
  is_default: boolean;
  sla: string;
  escalated: string;
}

export async function preferencesRow(em: EntityManager, userId: string): Promise<PreferencesRow | undefined> {
  const [row] = await query<PreferencesRow>(
    em,
    `select u.email, u.locale, ${FREQUENCY_SQL} as frequency, p.lead_assigned is null as is_default, ${SLA_FREQUENCY_SQL} as sla, ${ESCALATION_FREQUENCY_SQL} as escalated, ${ZONE_COLUMNS}
       from users u left join notification_preferences p on p.user_id = u.id where u.id = ?`,
    [userId],
  );
  return row;
}

/** Turns the user's mails of `topic` off; false when the user does not exist. */
export async function turnOff(em: EntityManager, userId: string, topic: Topic): Promise<boolean> {
  const column = topic === 'sla_breached' ? 'sla_breached' : topic === 'lead_escalated' ? 'lead_escalated' : 'lead_assigned';
  const rows = await query(
    em,
    `insert into notification_preferences (user_id, ${column}) select id, 'off' from users where id = ?
     on conflict (user_id) do update set ${column} = 'off', updated_at = now() returning user_id`,
    [userId],
  );
  return rows.length > 0;
}

export async function setLocale(em: EntityManager, userId: string, locale: string): Promise<void> {
  await query(em, `update users set locale = ?, updated_at = now() where id = ?`, [locale, userId]);
}

export async function setTimeZone(em: EntityManager, userId: string, zone: string | null): Promise<void> {
  await query(em, `update users set time_zone = ?, updated_at = now() where id = ?`, [zone, userId]);
}

/** The user's zone inputs (`zoneOf`). */
export async function zoneRow(em: EntityManager, userId: string): Promise<ZoneColumns> {
  const [row] = await query<any>(em, `select ${ZONE_COLUMNS} from users u where u.id = ?`, [userId]);
  return row;
}

/** The user's deliveries waiting for a digest wait until `at`. */
export async function delayQueuedDeliveries(em: EntityManager, userId: string, at: Date): Promise<void> {
  await query(em, `update notification_deliveries set next_attempt_at = ? where user_id = ? and status = 'queued'`, [at, userId]);
}

export async function setLeadAssigned(em: EntityManager, userId: string, frequency: string): Promise<void> {
  await query(
    em,
    `insert into notification_preferences (user_id, lead_assigned) values (?, ?)
           on conflict (user_id) do update set lead_assigned = excluded.lead_assigned, updated_at = now()`,
    [userId, frequency],
  );
}

export async function setSlaBreached(em: EntityManager, userId: string, frequency: string): Promise<void> {
  await query(
    em,
    `insert into notification_preferences (user_id, sla_breached) values (?, ?)
           on conflict (user_id) do update set sla_breached = excluded.sla_breached, updated_at = now()`,
    [userId, frequency],
  );
}

export async function setLeadEscalated(em: EntityManager, userId: string, frequency: string): Promise<void> {
  await query(
    em,
    `insert into notification_preferences (user_id, lead_escalated) values (?, ?)
           on conflict (user_id) do update set lead_escalated = excluded.lead_escalated, updated_at = now()`,
    [userId, frequency],
  );
}

const callerColumns = (frequency: string) => `u.id, u.email, u.locale, u.role, u.company_id, u.retailer_id, u.territory_id,
  array(select company_retailer_id from user_company_retailers where user_id = u.id) as cr_ids,
  array(select company_retailer_location_id from user_company_retailer_locations where user_id = u.id) as crl_ids,
  array(select retailer_location_id from user_retailer_locations where user_id = u.id) as rl_ids,
  ${frequency} as frequency, ${ZONE_COLUMNS}`;
const CALLER_COLUMNS = callerColumns(FREQUENCY_SQL);

/** A user as a recipient: its caller (role, organisation, scope assignments), its frequency and zone inputs. */
export interface RecipientRow extends ZoneColumns {
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
  frequency: string;
}

/** Of the leads in the compiled lead scope `cond`, their ids. */
export async function leadIdsInScope(em: EntityManager, cond: Sql): Promise<string[]> {
  const rows = await query<{ id: string }>(em, `select l.id from ${fromClause(leadSearch, cond.sql)} where ${cond.sql}`, cond.bindings);
  return rows.map((r) => r.id);
}

/** A lead event to fan out: the assignment's or the breach's store, and the lane of its organisation. */
export interface FanOutEvent {
  event_id: string;
  type: string;
  lead_id: string;
  occurred_at: Date | string;
  lane: string;
  store_id: string | null;
  /** The user whose write made the event (null: the system's own). */
  actor_id: string | null;
  /** What the mails of the event say happened, as it was (`About`, notification.mail.ts). */
  about: Record<string, unknown>;
}

/** A store's name over a `company_retailer_locations` row `a` and its retailer location `rl`. */
const storeName = (id: string) =>
  `(select coalesce(a.name, rl.name) from company_retailer_locations a left join retailer_locations rl on rl.id = a.retailer_location_id where a.id = ${id})`;

/**
 * Up to `limit` events of the outbox, oldest first, locked (others' locked ones skipped), with the facts
 * their mails tell: an assignment's store, time, the store it came from and its activity's reason or
 * routing rule; a breach's store, assignment and due times and what became of the lead.
 */
export function lockEventsToFanOut(em: EntityManager, limit: number): Promise<FanOutEvent[]> {
  return query<FanOutEvent>(
    em,
    `select ne.event_id, e.type, e.lead_id, e.occurred_at, coalesce(e.owner_company_id, e.owner_retailer_id)::text as lane,
              coalesce(e.data->>'to_id', e.data->>'store_id')::uuid as store_id, ne.actor_id,
              case when e.type in ('lead.declined', 'lead.offer_expired') then jsonb_build_object(
                     'kind', 'escalation', 'store_id', e.data->>'store_id', 'store_name', ${storeName(`(e.data->>'store_id')::uuid`)}, 'at', e.occurred_at,
                     'escalation', e.data->>'escalation', 'cause', case when e.type = 'lead.declined' then 'declined' else 'offer_expired' end,
                     'max_handovers', (select coalesce((select s.max_handovers from company_response_settings s where s.company_id = o.company_id), 3)
                                         from lead_offers o where o.id = (e.data->>'offer_id')::uuid),
                     'passed', (select jsonb_agg(jsonb_build_object('store_name', ${storeName('o.store_id')}, 'state', o.state) order by o.answered_at, o.offered_at)
                                  from lead_offers o where o.lead_id = e.lead_id and o.state in ('declined', 'expired') and o.answered_at <= e.occurred_at))
                   when e.type = 'lead.sla_breached' then jsonb_build_object(
                     'kind', 'breach', 'store_id', e.data->>'store_id', 'store_name', ${storeName(`(e.data->>'store_id')::uuid`)},
                     'assigned_at', e.data->>'assigned_at', 'due_at', e.data->>'due_at', 'reassignment', e.data->>'reassignment',
                     'to_name', ${storeName(`(e.data->>'reassigned_to_id')::uuid`)})
                   else jsonb_build_object(
                     'kind', 'assignment', 'store_id', e.data->>'to_id', 'store_name', ${storeName(`(e.data->>'to_id')::uuid`)}, 'at', e.occurred_at,
                     'from_id', e.data->>'from_id', 'from_name', ${storeName(`(e.data->>'from_id')::uuid`)},
                     'reason', act.data->>'reason', 'rule', act.data->>'rule') end as about
         from notification_events ne join lead_events e on e.id = ne.event_id
         left join lateral (
           select la.data from lead_activities la
            where e.type = 'lead.assigned' and la.lead_id = e.lead_id and la.type = 'LeadActivity::Assignment'
              and la.data->>'to_id' = e.data->>'to_id' and la.created_at <= e.occurred_at + interval '1 minute'
            order by la.created_at desc limit 1) act on true
        order by ne.seq limit ? for update of ne skip locked`,
    [limit],
  );
}

/** The users of the store's company that `recipient` names, with their `frequency` of a topic, unless off; at most `limit`. */
function companyRecipientsAt(
  em: EntityManager,
  storeId: string | null,
  limit: number,
  frequency: string,
  recipient: (user: string, store: string, companyRetailer: string) => string,
): Promise<RecipientRow[]> {
  return query<RecipientRow>(
    em,
    `select * from (select ${callerColumns(frequency)}
                 from company_retailer_locations a
                 left join company_retailers cr on cr.id = a.company_retailer_id
                 join users u on u.company_id = a.company_id
                  and ${recipient('u', 'a', 'cr')}
                 left join notification_preferences p on p.user_id = u.id
                where a.id = ?) c
                where c.frequency <> 'off' order by c.id limit ?`,
    [storeId, limit],
  );
}

/**
 * Who hears of a breach at the store: the company's admins and the territory manager of the store's
 * territory (`slaRecipientSql`), unless they turned breach mails off; at most `limit`.
 */
export function breachRecipients(em: EntityManager, storeId: string | null, limit: number): Promise<RecipientRow[]> {
  return companyRecipientsAt(em, storeId, limit, SLA_FREQUENCY_SQL, slaRecipientSql);
}

/**
 * Who hears of a lead escalated at the store: its territory's managers, else the company's admins
 * (`escalationRecipientSql`), unless they turned escalation mails off; at most `limit`.
 */
export function escalationRecipients(em: EntityManager, storeId: string | null, limit: number): Promise<RecipientRow[]> {
  return companyRecipientsAt(em, storeId, limit, ESCALATION_FREQUENCY_SQL, escalationRecipientSql);
}

/** Who may hear of an assignment to the store: the users of its company and retailer, unless they turned lead mails off; at most `limit`. */
export function assignmentRecipients(em: EntityManager, storeId: string | null, limit: number): Promise<RecipientRow[]> {
  return query<RecipientRow>(
    em,
    `select * from (select ${CALLER_COLUMNS}
             from company_retailer_locations a
             join users u on u.company_id = a.company_id or u.retailer_id = a.retailer_id
             left join notification_preferences p on p.user_id = u.id
            where a.id = ?) c
            where c.frequency <> 'off' order by c.id limit ?`,
    [storeId, limit],
  );
}

/**
 * One delivery of the event per user: pending now, or queued for a digest at its due time; users already
 * delivered to are left. None when the person withdrew their contact consent (docs/personal-data.md "Consent").
 */
export async function insertDeliveries(
  em: EntityManager,
  event: { kind: 'lead_assigned' | 'sla_breached' | 'sla_reminder' | 'lead_escalated'; eventId: string | null; leadId: string; lane: string; about: Record<string, unknown> },
  users: { ids: string[]; digest: boolean[]; dueAt: string[] },
): Promise<void> {
  await query(
    em,
    `with made as (
       insert into notification_deliveries (kind, event_id, lead_id, user_id, lane, status, next_attempt_at, about)
         select ?, ?, x.lead_id, r.user_id, ?, case when r.digest then 'queued' else 'pending' end, r.due_at, ?::jsonb
           from (select ?::uuid as lead_id) x cross join unnest(?::uuid[], ?::boolean[], ?::timestamptz[]) as r(user_id, digest, due_at)
          where not ${contactWithdrawnSql('x.lead_id')}
         on conflict (event_id, user_id) do nothing returning id)
     insert into notification_delivery_log (delivery_id, status) select id, 'queued' from made`,
    [event.kind, event.eventId, event.lane, JSON.stringify(event.about), event.leadId, users.ids, users.digest, users.dueAt],
  );
}

export async function deleteOutboxEvents(em: EntityManager, eventIds: string[]): Promise<void> {
  await query(em, `delete from notification_events where event_id = any(?::uuid[])`, [eventIds]);
}

/** A delivery's topic over a `notification_deliveries` row `d`: breaches and assignments are digested apart. */
const TOPIC = (d: string) => `(case when ${d}.kind in ('sla_breached', 'lead_escalated') then ${d}.kind else 'lead_assigned' end)`;

/**
 * Each user's deliveries queued until `now` or before become one digest delivery per topic (in its
 * organisation's lane, `about` naming the topic); returns how many were gathered.
 */
export async function gatherDigests(em: EntityManager, now: Date): Promise<number> {
  const rows = await query(
    em,
    `with due as (
         select distinct d.user_id, ${TOPIC('d')} as topic from notification_deliveries d where d.status = 'queued' and d.next_attempt_at <= ?::timestamptz limit 500),
       digests as (
         insert into notification_deliveries (kind, user_id, lane, status, next_attempt_at, about)
         select 'digest', u.id, coalesce(u.company_id, u.retailer_id)::text, 'pending', ?::timestamptz, jsonb_build_object('topic', due.topic)
           from due join users u on u.id = due.user_id
         returning id, user_id, about->>'topic' as topic),
       gathered as (
         update notification_deliveries d set status = 'digested', digest_id = g.id
           from digests g where d.user_id = g.user_id and ${TOPIC('d')} = g.topic and d.status = 'queued' and d.next_attempt_at <= ?::timestamptz
         returning d.id),
       logged as (
         insert into notification_delivery_log (delivery_id, status)
         select id, 'digested' from gathered union all select id, 'queued' from digests)
     select id from gathered`,
    [now, now, now],
  );
  return rows.length;
}

/** Of `userIds`, how many mails of `kind` each was sent (or is being sent) one by one in the clock hour `window`. */
export async function mailsInWindow(em: EntityManager, kind: 'sla_breached' | 'lead_escalated', userIds: string[], window: string): Promise<Map<string, number>> {
  const rows = await query<{ user_id: string; n: number }>(
    em,
    `select user_id, count(*)::int as n from notification_deliveries
      where kind = ? and user_id = any(?::uuid[]) and (about->>'window') = ? and status not in ('queued', 'digested')
      group by user_id`,
    [kind, userIds, window],
  );
  return new Map(rows.map((r) => [r.user_id, r.n]));
}

/** A claimed delivery. */
export interface ClaimedDelivery {
  id: string;
  kind: 'lead_assigned' | 'digest' | 'sla_breached' | 'lead_lost' | 'sla_reminder' | 'lead_escalated';
  event_id: string | null;
  lead_id: string | null;
  user_id: string;
  lane: string;
  attempts: number;
  created_at: Date | string;
  about: Record<string, unknown> | null;
}

/** Every organisation's due deliveries up to its free slots, longest due first, leased for `request.leaseMs`. */
export function claimDeliveries(em: EntityManager, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  return query<ClaimedDelivery>(
    em,
    `with busy as (select * from unnest(?::text[], ?::int[]) as b(lane, n)),
            due as (
              select d.id, row_number() over (partition by d.lane order by d.next_attempt_at, d.created_at) as rank, coalesce(b.n, 0) as in_flight, d.next_attempt_at
                from notification_deliveries d left join busy b on b.lane = d.lane
               where d.status = 'pending' and d.next_attempt_at <= ?::timestamptz),
            claimed as (select id from due where rank <= ? - in_flight order by next_attempt_at limit ?)
       update notification_deliveries d set next_attempt_at = ?::timestamptz + make_interval(secs => ?)
         from claimed c where d.id = c.id and d.status = 'pending'
       returning d.id, d.kind, d.event_id, d.lead_id, d.user_id, d.lane, d.attempts, d.created_at, d.about`,
    [
      request.busy.map(([lane]) => lane),
      request.busy.map(([, n]) => n),
      request.now,
      request.laneConcurrency,
      request.limit,
      request.now,
      request.leaseMs / 1000,
    ],
  );
}

/** The delivery is done: `sent` (at `sentAt`) or `skipped`. */
export async function markFinished(em: EntityManager, id: string, done: { status: 'sent' | 'skipped'; attempt: number; sentAt: Date | null; error: string | null }): Promise<void> {
  await query(
    em,
    `update notification_deliveries set status = ?, attempts = ?, next_attempt_at = null, sent_at = ?, last_error = ? where id = ?`,
    [done.status, done.attempt, done.sentAt, done.error, id],
  );
}

/** The delivery failed: `pending` again at `retryAt`, or `failed`. */
export async function markFailed(em: EntityManager, id: string, failed: { status: 'pending' | 'failed'; attempt: number; retryAt: Date | null; error: string | null }): Promise<void> {
  await query(em, `update notification_deliveries set status = ?, attempts = ?, next_attempt_at = ?, last_error = ? where id = ?`, [
    failed.status,
    failed.attempt,
    failed.retryAt,
    failed.error,
    id,
  ]);
}

/** The user as a recipient of the mails of `topic` (its `frequency` is its setting for them). */
export async function recipientRow(em: EntityManager, userId: string, topic: Topic): Promise<RecipientRow | undefined> {
  const frequency = { lead_assigned: FREQUENCY_SQL, sla_breached: SLA_FREQUENCY_SQL, lead_escalated: ESCALATION_FREQUENCY_SQL }[topic];
  const [user] = await query<RecipientRow>(
    em,
    `select ${callerColumns(frequency)} from users u left join notification_preferences p on p.user_id = u.id where u.id = ?`,
    [userId],
  );
  return user;
}

/** The leads of a digest, in the order they came, at most `limit`, each with what its latest delivery is about. */
export async function digestLeads(em: EntityManager, digestId: string, limit: number): Promise<Array<{ lead_id: string; about: Record<string, unknown> | null }>> {
  return query<{ lead_id: string; about: Record<string, unknown> | null }>(
    em,
    `select lead_id, (array_agg(about order by created_at desc))[1] as about from notification_deliveries
      where digest_id = ? and lead_id is not null group by lead_id order by min(created_at) limit ?`,
    [digestId, limit],
  );
}

/** A breach event's due time and its store's name. */
export async function breachRow(em: EntityManager, eventId: string | null): Promise<{ due_at: string | null; store_name: string | null } | undefined> {
  const [e] = await query<{ due_at: string | null; store_name: string | null }>(
    em,
    `select e.data->>'due_at' as due_at, coalesce(a.name, rl.name) as store_name from lead_events e
         left join company_retailer_locations a on a.id = (e.data->>'store_id')::uuid
         left join retailer_locations rl on rl.id = a.retailer_location_id
        where e.id = ?`,
    [eventId],
  );
  return e;
}

/** What a mail says of a lead, as stored. */
export interface LeadSummaryRow {
  id: string;
  name: string | null;
  emails: string[] | null;
  phones: string[] | null;
  address: string | null;
  store_name: string | null;
  products: unknown;
}

export function leadSummaryRows(em: EntityManager, leadIds: string[]): Promise<LeadSummaryRow[]> {
  return query<LeadSummaryRow>(
    em,
    `select l.id, l.name,
              array(select e.email from emails e where e.lead_id = l.id order by e.seq limit 10) as emails,
              array(select p.phone_number from phone_numbers p where p.lead_id = l.id order by p.seq limit 10) as phones,
              concat_ws(', ', nullif(loc.street_line_one, ''), nullif(loc.street_line_two, ''), nullif(concat_ws(' ', nullif(loc.postal_code, ''), nullif(loc.city, '')), ''),
                        nullif(loc.province, ''), nullif(loc.country, '')) as address,
              coalesce(a.name, rl.name) as store_name,
              (select jsonb_agg(la.data->'products' order by la.created_at) from lead_activities la
                where la.lead_id = l.id and la.type = 'LeadActivity::QuoteRequest') as products
         from leads l
         left join locations loc on loc.id = l.location_id
         left join company_retailer_locations a on a.id = l.assignee_id
         left join retailer_locations rl on rl.id = a.retailer_location_id
        where l.id = any(?::uuid[])`,
    [leadIds],
  );
}

/** A step of a delivery's log (`notification_delivery_log`): what happened, the attempt, the SMTP reply code and a short error. */
export async function logDelivery(
  em: EntityManager,
  id: string,
  entry: { status: 'sent' | 'retried' | 'failed' | 'bounced' | 'skipped'; attempt: number; smtpCode: number | null; error: string | null },
): Promise<void> {
  await query(em, `insert into notification_delivery_log (delivery_id, status, attempt, smtp_code, error) values (?, ?, ?, ?, ?)`, [
    id,
    entry.status,
    entry.attempt,
    entry.smtpCode,
    entry.error,
  ]);
}

/** A delivery as its log lists it. */
export interface DeliveryRow {
  id: string;
  kind: string;
  status: string;
  user_id: string;
  email: string;
  lead_id: string | null;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
  digest_id: string | null;
}

/**
 * The deliveries to users of the company `companyId`, newest first, at most `first`, filtered by status,
 * lead, recipient and creation time (each when given).
 */
export function companyDeliveries(
  em: EntityManager,
  companyId: string,
  where: { status?: string[] | null; leadId?: string | null; userId?: string | null; createdAfter?: Date | null },
  first: number,
): Promise<DeliveryRow[]> {
  return query<DeliveryRow>(
    em,
    `select d.id, d.kind, d.status, d.user_id, u.email, d.lead_id, d.attempts, d.last_error, d.created_at, d.sent_at, d.digest_id
       from notification_deliveries d join users u on u.id = d.user_id
      where u.company_id = ?
        and (?::text[] is null or d.status = any(?::text[]))
        and (?::uuid is null or d.lead_id = ?::uuid)
        and (?::uuid is null or d.user_id = ?::uuid)
        and (?::timestamptz is null or d.created_at > ?::timestamptz)
      order by d.created_at desc, d.id limit ?`,
    [
      companyId,
      where.status ?? null,
      where.status ?? null,
      where.leadId ?? null,
      where.leadId ?? null,
      where.userId ?? null,
      where.userId ?? null,
      where.createdAfter ?? null,
      where.createdAfter ?? null,
      first,
    ],
  );
}

/** The log entries of the deliveries `ids`, in the order they happened (one statement for a page). */
export function deliveryLogs(
  em: EntityManager,
  ids: string[],
): Promise<Array<{ delivery_id: string; status: string; attempt: number; smtp_code: number | null; error: string | null; at: Date }>> {
  if (!ids.length) return Promise.resolve([]);
  return query(em, `select delivery_id, status, attempt, smtp_code, error, at from notification_delivery_log where delivery_id = any(?::uuid[]) order by delivery_id, id`, [ids]);
}

/** A first-response timer whose reminder is due (docs/notifications.md "Reminders"). */
export interface DueReminder {
  lead_id: string;
  store_id: string;
  lane: string;
  due_at: Date | string;
  store_name: string | null;
}

/**
 * Up to `limit` timers past their reminder time and not yet reminded of (this start of theirs), still
 * unanswered, not breached, not due, of leads still at their store; locked (others' locked ones skipped).
 */
export function lockDueReminders(em: EntityManager, now: Date, limit: number): Promise<DueReminder[]> {
  return query<DueReminder>(
    em,
    `select t.lead_id, t.store_id, coalesce(l.owner_company_id, l.owner_retailer_id)::text as lane, t.due_at, ${storeName('t.store_id')} as store_name
       from lead_response_timers t join leads l on l.id = t.lead_id and l.assignee_id = t.store_id
      where t.remind_at <= ? and t.answered_at is null and t.breached_at is null and t.computed and t.due_at > ?
        and t.reminded_for is distinct from coalesce(t.counted_from, t.assigned_at)
      order by t.remind_at limit ? for update of t skip locked`,
    [now, now, limit],
  );
}

/** The timers of `leadIds` were reminded of, each for the start it has now. */
export async function markReminded(em: EntityManager, leadIds: string[]): Promise<void> {
  if (!leadIds.length) return;
  await query(em, `update lead_response_timers set reminded_for = coalesce(counted_from, assigned_at) where lead_id = any(?::uuid[])`, [leadIds]);
}

/** The company of the user `userId` (null for a retailer's or the operator's user); undefined when there is no such user. */
export async function userCompany(em: EntityManager, userId: string): Promise<string | null | undefined> {
  const [row] = await query<{ company_id: string | null }>(em, `select company_id from users where id = ?`, [userId]);
  return row ? row.company_id : undefined;
}
