import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, query } from '../../db/sql';
import { fromClause, type Sql } from '../../search/types';
import { leadSearch } from '../lead/lead.search';
import type { LeadEventType } from '../lead-events/lead-events.record';

/** Whose endpoints: a company's or a retailer's, by the column that holds the owner. */
export type WebhookOwner = { column: 'owner_company_id'; id: string } | { column: 'owner_retailer_id'; id: string };

/** A timestamp as the driver gives it (PostgreSQL's text form or a Date). */
type Timestamp = Date | string;

/** A `webhook_endpoints` row. */
export interface EndpointRow {
  id: string;
  owner_company_id: string | null;
  owner_retailer_id: string | null;
  url: string;
  description: string | null;
  events: string[];
  /** Sealed (webhook.signature.ts). */
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Timestamp | null;
  created_by_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A `webhook_deliveries` row with its event's type and lead. */
export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_seq: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Timestamp | null;
  last_response_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  event_type: LeadEventType;
  lead_id: string;
}

/** A `webhook_delivery_attempts` row. */
export interface AttemptRow {
  id: string;
  delivery_id: string;
  attempt: number;
  succeeded: boolean;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: Timestamp;
}

/** What a new or changed endpoint holds. */
export interface EndpointValues {
  url: string;
  events: string[];
  description: string | null;
}

/** The owner's endpoints, oldest first. */
export function ownerEndpoints(em: EntityManager, owner: WebhookOwner): Promise<EndpointRow[]> {
  return em.execute(`select * from webhook_endpoints where ${owner.column} = ? order by created_at, id`, [owner.id]);
}

/** The owner's endpoint `id` (a UUID), if any. */
export async function ownerEndpoint(em: EntityManager, owner: WebhookOwner, id: string): Promise<EndpointRow | undefined> {
  const rows: EndpointRow[] = await em.execute(`select * from webhook_endpoints where id = ? and ${owner.column} = ?`, [id, owner.id]);
  return rows[0];
}

export async function insertEndpoint(em: EntityManager, owner: WebhookOwner, values: EndpointValues & { sealedSecret: string; createdById: string }): Promise<EndpointRow> {
  const [row] = await em.execute<EndpointRow[]>(
    `insert into webhook_endpoints (${owner.column}, url, description, events, secret, created_by_id)
       values (?, ?, ?, ?::text[], ?, ?) returning *`,
    [owner.id, values.url, values.description, pgArray(values.events), values.sealedSecret, values.createdById],
  );
  return row;
}

/** Writes an endpoint's values; `enable` turns it on (clearing its failures), `disable` off by an admin. */
export async function updateEndpoint(em: EntityManager, id: string, values: EndpointValues & { enable: boolean; disable: boolean }): Promise<EndpointRow> {
  const { enable, disable } = values;
  const [row] = await em.execute<EndpointRow[]>(
    `update webhook_endpoints set url = ?, events = ?::text[], description = ?, updated_at = now(),
              enabled = case when ? then true when ? then false else enabled end,
              disabled_reason = case when ? then null when ? then 'disabled by an admin' else disabled_reason end,
              failing_since = case when ? then null else failing_since end
        where id = ? returning *`,
    [values.url, pgArray(values.events), values.description, enable, disable, enable, disable, enable, id],
  );
  return row;
}

export async function enabledEndpointCount(em: EntityManager, owner: WebhookOwner): Promise<number> {
  const [{ n }] = await em.execute(`select count(*)::int as n from webhook_endpoints where ${owner.column} = ? and enabled`, [owner.id]);
  return n;
}

export async function updateEndpointSecret(em: EntityManager, id: string, sealedSecret: string): Promise<EndpointRow> {
  const [row] = await em.execute<EndpointRow[]>(`update webhook_endpoints set secret = ?, updated_at = now() where id = ? returning *`, [sealedSecret, id]);
  return row;
}

/** The endpoint's deliveries, newest first, of one status or any (`status` null), at most `limit`. */
export function endpointDeliveries(em: EntityManager, endpointId: string, status: string | null, limit: number): Promise<DeliveryRow[]> {
  return em.execute(
    `select d.*, e.type as event_type, e.lead_id from webhook_deliveries d join lead_events e on e.id = d.event_id
        where d.endpoint_id = ? and (?::text is null or d.status = ?) order by d.created_at desc, d.id limit ?`,
    [endpointId, status, status, limit],
  );
}

/** A delivery (a UUID) to one of the owner's endpoints, with whether that endpoint is enabled. */
export async function ownerDelivery(em: EntityManager, owner: WebhookOwner, deliveryId: string): Promise<{ id: string; enabled: boolean } | undefined> {
  const rows = await em.execute<Array<{ id: string; enabled: boolean }>>(
    `select d.id, w.enabled from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id where d.id = ? and w.${owner.column} = ?`,
    [deliveryId, owner.id],
  );
  return rows[0];
}

/** Makes a delivery pending and due now. */
export async function redeliverNow(em: EntityManager, deliveryId: string): Promise<DeliveryRow> {
  const [row] = await em.execute<DeliveryRow[]>(
    `with d as (update webhook_deliveries set status = 'pending', next_attempt_at = now(), updated_at = now() where id = ? returning *)
       select d.*, e.type as event_type, e.lead_id from d join lead_events e on e.id = d.event_id`,
    [deliveryId],
  );
  return row;
}

/** The attempts of many deliveries, in attempt order (one statement). */
export function deliveryAttempts(em: EntityManager, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  return em.execute(`select * from webhook_delivery_attempts where delivery_id = any(?::uuid[]) order by attempt`, [pgArray(deliveryIds as string[])]);
}

/**
 * Deletes up to `limit` lead events older than `retentionDays` that are dispatched and that no pending
 * delivery still needs (their deliveries and attempts by cascade); returns the ids deleted.
 */
export function deleteOldEvents(em: EntityManager, retentionDays: number, limit: number): Promise<Array<{ id: string }>> {
  return em.execute(
    `delete from lead_events where id in (
           select e.id from lead_events e
            where e.dispatched_at is not null and e.occurred_at < now() - make_interval(days => ?)
              and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
            order by e.occurred_at limit ?)
         returning id`,
    [retentionDays, limit],
  );
}

/** A lead event not yet dispatched. */
export interface UndispatchedEvent {
  id: string;
  type: LeadEventType;
  lead_id: string;
  owner_company_id: string | null;
  owner_retailer_id: string | null;
}

/** Up to `limit` of the newest undispatched events, locked (others' locked ones skipped). */
export function lockUndispatchedEvents(em: EntityManager, limit: number): Promise<UndispatchedEvent[]> {
  return em.execute(
    `select id, type, lead_id, owner_company_id, owner_retailer_id from lead_events where dispatched_at is null order by seq desc limit ? for update skip locked`,
    [limit],
  );
}

/** An endpoint that hears of an event: enabled, subscribed to its type and existing when it happened. */
export interface ListeningEndpoint {
  endpoint_id: string;
  owner_company_id: string | null;
  owner_retailer_id: string | null;
  event_id: string;
  lead_id: string;
}

export function listeningEndpoints(em: EntityManager, eventIds: string[]): Promise<ListeningEndpoint[]> {
  return em.execute(
    `select w.id as endpoint_id, w.owner_company_id, w.owner_retailer_id, e.id as event_id, e.lead_id
           from lead_events e join webhook_endpoints w on w.enabled and e.type = any(w.events) and w.created_at <= e.occurred_at
          where e.id = any(?::uuid[])`,
    [pgArray(eventIds)],
  );
}

/** Of `leadIds`, those in the compiled lead scope `cond`. */
export async function leadIdsInScope(em: EntityManager, cond: Sql, leadIds: string[]): Promise<string[]> {
  const rows = await query<{ id: string }>(em, `select l.id from ${fromClause(leadSearch, cond.sql)} where l.id = any(?::uuid[]) and (${cond.sql})`, [
    leadIds,
    ...cond.bindings,
  ]);
  return rows.map((r) => r.id);
}

/** One pending delivery per pair (endpoint, event), due when its event happened; pairs already there are left. */
export async function insertDeliveries(em: EntityManager, pairs: Array<{ endpoint_id: string; event_id: string }>): Promise<void> {
  await em.execute(
    `insert into webhook_deliveries (endpoint_id, event_id, event_seq, next_attempt_at)
         select p.endpoint_id, e.id, e.seq, e.occurred_at from unnest(?::uuid[], ?::uuid[]) as p(endpoint_id, event_id) join lead_events e on e.id = p.event_id
         on conflict do nothing`,
    [pgArray(pairs.map((p) => p.endpoint_id)), pgArray(pairs.map((p) => p.event_id))],
  );
}

/** Each event's payload (a JSON text: its lead as serialized). */
export async function storePayloads(em: EntityManager, payloads: ReadonlyArray<readonly [eventId: string, json: string]>): Promise<void> {
  await em.execute(`update lead_events e set payload = p.payload::jsonb from unnest(?::uuid[], ?::text[]) as p(id, payload) where e.id = p.id`, [
    pgArray(payloads.map(([id]) => id)),
    pgArray(payloads.map(([, json]) => json)),
  ]);
}

export async function markDispatched(em: EntityManager, eventIds: string[]): Promise<void> {
  await em.execute(`update lead_events set dispatched_at = now() where id = any(?::uuid[])`, [pgArray(eventIds)]);
}

/** A claimed delivery with what its request needs (the endpoint, the event and its serialized lead). */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  created_at: Timestamp;
  endpoint_id: string;
  /** The endpoint: deliveries are claimed and sent per endpoint. */
  lane: string;
  url: string;
  secret: string;
  event_id: string;
  type: LeadEventType;
  occurred_at: Timestamp;
  lead_id: string;
  lead_activity_id: string | null;
  owner_company_id: string | null;
  owner_retailer_id: string | null;
  data: any;
  payload: unknown;
  seq: string | number;
  /** The trace of the request that wrote the event, if it was traced (docs/tracing.md). */
  traceparent: string | null;
}

/**
 * Every enabled endpoint's due deliveries, up to `laneConcurrency` less its deliveries in flight
 * (`busy`), at most `limit` in all, leased for `leaseSeconds`.
 */
export function claimDeliveries(
  em: EntityManager,
  claim: { busy: Array<[endpointId: string, inFlight: number]>; laneConcurrency: number; limit: number; leaseSeconds: number },
): Promise<ClaimedDelivery[]> {
  return em.execute(
    `with busy as (select * from unnest(?::uuid[], ?::int[]) as b(endpoint_id, n)),
            due as (
              select d.id, row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.event_seq) as rank, coalesce(b.n, 0) as in_flight
                from webhook_endpoints w
                cross join lateral (
                  select d.id, d.endpoint_id, d.next_attempt_at, d.event_seq from webhook_deliveries d
                   where d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()
                   order by d.next_attempt_at, d.event_seq limit ?) d
                left join busy b on b.endpoint_id = w.id
               where w.enabled),
            claimed as (select id from due where rank <= ? - in_flight limit ?)
       update webhook_deliveries d set next_attempt_at = now() + make_interval(secs => ?)
         from claimed c, webhook_endpoints w, lead_events e
        where d.id = c.id and d.status = 'pending' and w.id = d.endpoint_id and e.id = d.event_id
       returning d.id, d.attempts, d.created_at, d.endpoint_id, d.endpoint_id::text as lane, w.url, w.secret, e.id as event_id, e.type, e.occurred_at, e.lead_id,
                 e.lead_activity_id, e.owner_company_id, e.owner_retailer_id, e.data, e.payload, e.seq, e.traceparent`,
    [
      pgArray(claim.busy.map(([id]) => id)),
      pgArray(claim.busy.map(([, n]) => String(n))),
      claim.laneConcurrency,
      claim.laneConcurrency,
      claim.limit,
      claim.leaseSeconds,
    ],
  );
}

/** One attempt of a delivery, as the log keeps it. */
export interface AttemptValues {
  attempt: number;
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
}

export async function insertAttempt(em: EntityManager, deliveryId: string, a: AttemptValues): Promise<void> {
  await em.execute(
    `insert into webhook_delivery_attempts (delivery_id, attempt, succeeded, response_code, duration_ms, error) values (?, ?, ?, ?, ?, ?)`,
    [deliveryId, a.attempt, a.ok, a.status, a.durationMs, a.error],
  );
}

/** The delivery succeeded at `attempt`, and its endpoint is failing no more. */
export async function markDelivered(em: EntityManager, delivery: { id: string; endpoint_id: string }, attempt: number, status: number | null): Promise<void> {
  await em.execute(
    `update webhook_deliveries set status = 'succeeded', attempts = ?, next_attempt_at = null, last_response_code = ?, last_error = null, updated_at = now() where id = ?`,
    [attempt, status, delivery.id],
  );
  await em.execute(`update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`, [delivery.endpoint_id]);
}

/**
 * The delivery failed at `attempt`: pending again at `retryAt`, or failed when given up; its endpoint
 * is failing since its first failure and disabled once failing for `disableAfterHours`.
 */
export async function markFailed(
  em: EntityManager,
  delivery: { id: string; endpoint_id: string },
  failure: { attempt: number; giveUp: boolean; retryAt: Date | null; status: number | null; error: string | null; disableAfterHours: number },
): Promise<void> {
  await em.execute(
    `update webhook_deliveries set status = ?, attempts = ?, next_attempt_at = ?, last_response_code = ?, last_error = ?, updated_at = now() where id = ?`,
    [failure.giveUp ? 'failed' : 'pending', failure.attempt, failure.retryAt, failure.status, failure.error, delivery.id],
  );
  const hours = failure.disableAfterHours;
  await em.execute(
    `update webhook_endpoints set failing_since = coalesce(failing_since, now()),
                enabled = failing_since is null or failing_since > now() - make_interval(secs => ?),
                disabled_reason = case when failing_since is not null and failing_since <= now() - make_interval(secs => ?)
                                       then 'failing for ' || ? || ' hours' else disabled_reason end
          where id = ?`,
    [hours * 3600, hours * 3600, String(hours), delivery.endpoint_id],
  );
}
