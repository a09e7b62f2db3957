import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, query } from '../../db/sql';

/**
 * The SQL of personal data (docs/personal-data.md "Access" and "Erasure"): finding a person's leads in a
 * company by the indexes the duplicate rules use (`lower(email)`, the E.164 `phone_number`), reading
 * everything held about a page of them (one statement per table, whatever the page's size), the erasure
 * steps (each one idempotent: run twice, the second finds nothing left to change) and the jobs and the
 * ledger that drive them.
 */

/** SHA-256 (hex) of a text in SQL, as `hashIdentity` computes it in JavaScript. */
const sha = (expr: string) => `encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;

/** The company's leads having one of the normalised e-mails or E.164 phone numbers (index lookups). */
export async function leadsByIdentity(em: EntityManager, companyId: string, emails: readonly string[], phones: readonly string[]): Promise<string[]> {
  if (!emails.length && !phones.length) return [];
  const rows = await query<{ id: string }>(
    em,
    `select l.id from leads l
      where l.id in (select lead_id from emails where lower(email) = any(?::text[])
                     union select lead_id from phone_numbers where phone_number = any(?::text[]))
        and l.owner_company_id = ?`,
    [pgArray(emails), pgArray(phones), companyId],
  );
  return rows.map((r) => r.id);
}

/** The normalised e-mails and phone numbers of leads (to find the same person's other leads). */
export async function identitiesOf(em: EntityManager, leadIds: readonly string[]): Promise<{ emails: string[]; phones: string[] }> {
  if (!leadIds.length) return { emails: [], phones: [] };
  const [row] = await query<{ emails: string[] | null; phones: string[] | null }>(
    em,
    `select array(select distinct lower(email) from emails where lead_id = any(?::uuid[])) as emails,
            array(select distinct phone_number from phone_numbers where lead_id = any(?::uuid[])) as phones`,
    [pgArray(leadIds), pgArray(leadIds)],
  );
  return { emails: row?.emails ?? [], phones: row?.phones ?? [] };
}

/** A lead's owner (its company; null for a retailer's lead), or undefined when there is no such lead. */
export async function leadOwner(em: EntityManager, leadId: string): Promise<{ companyId: string | null } | undefined> {
  const [row] = await query<{ owner_company_id: string | null }>(em, `select owner_company_id from leads where id = ?`, [leadId]);
  return row ? { companyId: row.owner_company_id } : undefined;
}

export async function companyExists(em: EntityManager, companyId: string): Promise<boolean> {
  return (await query(em, `select 1 from companies where id = ?`, [companyId])).length > 0;
}

/** The SHA-256 hashes of the normalised e-mails and phone numbers of leads, computed in the database. */
export async function identityHashes(em: EntityManager, leadIds: readonly string[]): Promise<{ emails: string[]; phones: string[] }> {
  const [row] = await query<{ emails: string[] | null; phones: string[] | null }>(
    em,
    `select array(select distinct ${sha('lower(email)')} from emails where lead_id = any(?::uuid[])) as emails,
            array(select distinct ${sha('phone_number')} from phone_numbers where lead_id = any(?::uuid[])) as phones`,
    [pgArray(leadIds), pgArray(leadIds)],
  );
  return { emails: row?.emails ?? [], phones: row?.phones ?? [] };
}

/** The company's leads whose normalised e-mail or phone number hashes to one of these (a ledger re-applied). */
export async function leadsByHashes(em: EntityManager, companyId: string, emailHashes: readonly string[], phoneHashes: readonly string[]): Promise<string[]> {
  if (!emailHashes.length && !phoneHashes.length) return [];
  const rows = await query<{ id: string }>(
    em,
    `select l.id from leads l
      where l.owner_company_id = ?
        and (exists (select 1 from emails e where e.lead_id = l.id and ${sha('lower(e.email)')} = any(?::text[]))
             or exists (select 1 from phone_numbers p where p.lead_id = l.id and ${sha('p.phone_number')} = any(?::text[])))`,
    [companyId, pgArray(emailHashes), pgArray(phoneHashes)],
  );
  return rows.map((r) => r.id);
}

/** Which of `ids` are leads of the company. */
export async function companyLeads(em: EntityManager, companyId: string, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await query<{ id: string }>(em, `select id from leads where id = any(?::uuid[]) and owner_company_id = ?`, [pgArray(ids), companyId]);
  return rows.map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------------
// Access: everything held about a page of leads, one statement per table.

const JSON_ROWS = (from: string, order: string) => `coalesce((select json_agg(x order by ${order}) from (${from}) x), '[]'::json)`;

/** The leads of `ids` with their contacts, location, consents, outcome, offers and timer, in id order. */
export async function exportLeads(em: EntityManager, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (!ids.length) return [];
  return query(
    em,
    `select l.id, l.name, l.status, l.created_at, l.updated_at, l.owner_company_id, l.owner_retailer_id, l.assignee_id, l.source_type, l.source_id,
            l.created_by_id, l.escalated_at,
            (select row_to_json(loc) from (select address_name, street_line_one, street_line_two, postal_code, city, province, country, latitude, longitude,
                                                  coordinates_source from locations where id = l.location_id) loc) as location,
            ${JSON_ROWS(`select id, email, created_at from emails where lead_id = l.id`, 'x.created_at, x.id')} as emails,
            ${JSON_ROWS(`select id, phone_number, country_code, formatted_international, created_at from phone_numbers where lead_id = l.id`, 'x.created_at, x.id')} as phone_numbers,
            ${JSON_ROWS(`select id, purpose, text, version, source, site_key_id, given_at, withdrawn_at from lead_consents where lead_id = l.id`, 'x.given_at, x.id')} as consents,
            (select row_to_json(o) from (select result, amount_minor, currency, lost_reason, closed_on, recorded_at, recorded_by_id from lead_outcomes where lead_id = l.id) o) as outcome,
            ${JSON_ROWS(`select id, store_id, offered_at, respond_by, state, answered_at, answered_by_id, decline_reason, decline_note, handovers, escalation from lead_offers where lead_id = l.id`, 'x.offered_at, x.id')} as offers
       from leads l where l.id = any(?::uuid[]) order by l.id`,
    [pgArray(ids)],
  );
}

/** The activities of the leads `ids` (their timeline), oldest first. */
export async function exportActivities(em: EntityManager, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (!ids.length) return [];
  return query(
    em,
    `select id, lead_id, type, data, source_type, source_id, crm_id, crm_provider, crm_data_cache, created_at, updated_at
       from lead_activities where lead_id = any(?::uuid[]) order by lead_id, created_at, id`,
    [pgArray(ids)],
  );
}

/** The lead events of `ids` (the outbox) with the webhook deliveries that carried them and each attempt. */
export async function exportEvents(em: EntityManager, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (!ids.length) return [];
  return query(
    em,
    `select e.id, e.lead_id, e.type, e.occurred_at, e.data, e.payload, e.dispatched_at,
            ${JSON_ROWS(
              `select d.id, d.endpoint_id, w.url as endpoint_url, d.status, d.attempts, d.last_response_code, d.last_error, d.created_at, d.updated_at,
                      ${JSON_ROWS(`select attempt, succeeded, response_code, duration_ms, error, created_at from webhook_delivery_attempts where delivery_id = d.id`, 'x.attempt')} as attempt_log
                 from webhook_deliveries d left join webhook_endpoints w on w.id = d.endpoint_id where d.event_id = e.id`,
              'x.created_at, x.id',
            )} as webhook_deliveries
       from lead_events e where e.lead_id = any(?::uuid[]) order by e.lead_id, e.seq`,
    [pgArray(ids)],
  );
}

/** The notification mails about the leads `ids` (to the network's users) with their delivery logs. */
export async function exportNotifications(em: EntityManager, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (!ids.length) return [];
  return query(
    em,
    `select n.id, n.lead_id, n.kind, n.event_id, n.user_id, n.status, n.attempts, n.last_error, n.sent_at, n.created_at, n.about,
            ${JSON_ROWS(`select status, attempt, smtp_code, error, at from notification_delivery_log where delivery_id = n.id`, 'x.at')} as log
       from notification_deliveries n where n.lead_id = any(?::uuid[]) order by n.lead_id, n.created_at, n.id`,
    [pgArray(ids)],
  );
}

/** The confirmation mails sent to the visitor who asked through a store's contact form. */
export async function exportConfirmations(em: EntityManager, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (!ids.length) return [];
  return query(
    em,
    `select id, lead_id, store_id, email, locale, created_at, sent_at, attempts, last_error
       from visitor_confirmations where lead_id = any(?::uuid[]) order by lead_id, created_at, id`,
    [pgArray(ids)],
  );
}

/** The company's audit entries about the leads `ids` (targets named by a lead id), along the chain's target index. */
export async function exportAuditEntries(em: EntityManager, companyId: string, ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
  if (!ids.length) return [];
  return query(
    em,
    `select target_id as lead_id, seq, at, actor_type, actor_id, action, target_type, details
       from audit_entries where chain_id = ? and target_id = any(?::text[]) order by target_id, seq`,
    [companyId, pgArray(ids)],
  );
}

// ---------------------------------------------------------------------------------------------------
// Erasure steps. Each takes the job's lead ids and is idempotent.

/** Keys of activity and event `data` that hold ids, enums, amounts and dates only: routing history and outcomes. */
export const KEPT_DATA_KEYS = [
  'from_id', 'to_id', 'rule', 'distance_miles', 'result', 'amount_minor', 'currency', 'closed_on', 'offer_id', 'store_id', 'user_id',
  'reason', 'next_store_id', 'escalation', 'handovers', 'activity_type', 'from', 'to',
];

/** `data` (a jsonb column of `alias`) reduced to its kept scalar keys; `from`/`to` (statuses) only on `statusType`. */
const scrubbed = (alias: string, statusType: string) =>
  `(select case when count(*) = 0 then null else jsonb_object_agg(k.key, k.value) end
      from jsonb_each(case when jsonb_typeof(${alias}.data) = 'object' then ${alias}.data else '{}'::jsonb end) k
     where k.key = any(?::text[]) and jsonb_typeof(k.value) in ('string', 'number', 'boolean', 'null')
       and (k.key not in ('from', 'to') or ${alias}.type = '${statusType}'))`;

export type ErasureStep = (em: EntityManager, ids: string, leadIds: readonly string[]) => Promise<void>;

/**
 * The steps of an erasure, in order (their names are stored in `erasure_jobs.steps_done`). `ids` is
 * the job's lead ids as a PostgreSQL array literal (`pgArray(leadIds)`).
 */
export const ERASURE_STEPS: ReadonlyArray<readonly [name: string, run: ErasureStep]> = [
  [
    'leads',
    async (em, ids) => {
      // The lead's name and address go (its location row is its own: a lead write creates it); status,
      // owner, assignee and source stay, so counts and routing history do. Triggers rewrite search_text
      // and queue the lead for the search engine.
      const rows = await query<{ location_id: string }>(em, `select location_id from leads where id = any(?::uuid[]) and location_id is not null`, [ids]);
      // `erased_at` marks it for retention, which passes over erased leads.
      await query(
        em,
        `update leads set name = null, location_id = null, erased_at = coalesce(erased_at, now()), updated_at = now()
          where id = any(?::uuid[]) and (name is not null or location_id is not null or erased_at is null)`,
        [ids],
      );
      if (rows.length) await query(em, `delete from locations where id = any(?::uuid[])`, [pgArray(rows.map((r) => r.location_id))]);
    },
  ],
  [
    'contacts',
    async (em, ids) => {
      await query(em, `delete from emails where lead_id = any(?::uuid[])`, [ids]);
      await query(em, `delete from phone_numbers where lead_id = any(?::uuid[])`, [ids]);
    },
  ],
  [
    'activities',
    async (em, ids) => {
      await query(
        em,
        `update lead_activities a set data = ${scrubbed('a', 'LeadActivity::StatusChange')}, crm_id = null, crm_data_cache = null, updated_at = now()
          where a.lead_id = any(?::uuid[])`,
        [pgArray(KEPT_DATA_KEYS), ids],
      );
    },
  ],
  [
    'outcomes',
    async (em, ids) => {
      // The result, amount and date stay; the reason in words and a decline's note go.
      await query(em, `update lead_outcomes set lost_reason = null where lead_id = any(?::uuid[]) and lost_reason is not null`, [ids]);
      await query(em, `update lead_offers set decline_note = null where lead_id = any(?::uuid[]) and decline_note is not null`, [ids]);
    },
  ],
  [
    'events',
    async (em, ids) => {
      await query(
        em,
        `update lead_events e set data = ${scrubbed('e', 'lead.status_changed')}, payload = null
          where e.lead_id = any(?::uuid[]) and (e.data is not null or e.payload is not null)`,
        [pgArray(KEPT_DATA_KEYS), ids],
      );
    },
  ],
  [
    'deliveries',
    async (em, ids) => {
      // Webhook logs hold no body (the payload was the event's); their errors may quote an address.
      await query(
        em,
        `update webhook_delivery_attempts a set error = null
           from webhook_deliveries d join lead_events e on e.id = d.event_id
          where a.delivery_id = d.id and e.lead_id = any(?::uuid[]) and a.error is not null`,
        [ids],
      );
      await query(
        em,
        `update webhook_deliveries d set last_error = null from lead_events e
          where e.id = d.event_id and e.lead_id = any(?::uuid[]) and d.last_error is not null`,
        [ids],
      );
      // Mails not sent yet are not sent; the log keeps its steps without their error texts.
      await query(
        em,
        `update notification_deliveries set status = case when status in ('pending', 'queued') then 'skipped' else status end, last_error = null,
                about = case when jsonb_typeof(about) = 'object' then about - 'note' - 'lost_reason' else about end
          where lead_id = any(?::uuid[])`,
        [ids],
      );
      await query(
        em,
        `update notification_delivery_log g set error = null from notification_deliveries n
          where g.delivery_id = n.id and n.lead_id = any(?::uuid[]) and g.error is not null`,
        [ids],
      );
      await query(em, `delete from visitor_confirmations where lead_id = any(?::uuid[])`, [ids]);
    },
  ],
  [
    'stored_answers',
    async (em, _ids, leadIds) => {
      // A write's stored answer (Idempotency-Key, kept 24 hours) may be the lead as it was created.
      if (!leadIds.length) return;
      const patterns = pgArray(leadIds.map((id) => `%${id}%`));
      await query(em, `delete from idempotency_keys where body like any(?::text[])`, [patterns]);
    },
  ],
  [
    'erased_events',
    async (em, ids) => {
      // One `lead.erased` per lead (ids only: the webhook body carries `{"id"}` as its lead).
      await query(
        em,
        `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id)
         select 'lead.erased', l.id, l.owner_company_id, l.owner_retailer_id from leads l
          where l.id = any(?::uuid[]) and not exists (select 1 from lead_events e where e.lead_id = l.id and e.type = 'lead.erased')
          order by l.id`,
        [ids],
      );
    },
  ],
];

// ---------------------------------------------------------------------------------------------------
// Jobs and the ledger.

export interface ErasureJobRow {
  id: string;
  company_id: string;
  selector: string;
  lead_ids: string[];
  email_hashes: string[];
  phone_hashes: string[];
  steps_done: string[];
  status: 'running' | 'done';
  attempts: number;
  last_error: string | null;
  requested_by: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const JOB_COLUMNS = 'id, company_id, selector, lead_ids, email_hashes, phone_hashes, steps_done, status, attempts, last_error, requested_by, created_at, updated_at, finished_at';

export async function insertJob(
  em: EntityManager,
  job: { id?: string; companyId: string; selector: string; leadIds: readonly string[]; emailHashes: readonly string[]; phoneHashes: readonly string[]; requestedBy: string | null },
): Promise<ErasureJobRow> {
  const [row] = await query<ErasureJobRow>(
    em,
    `insert into erasure_jobs (id, company_id, selector, lead_ids, email_hashes, phone_hashes, requested_by)
     values (coalesce(?::uuid, gen_random_uuid()), ?, ?, ?::uuid[], ?::text[], ?::text[], ?) returning ${JOB_COLUMNS}`,
    [job.id ?? null, job.companyId, job.selector, pgArray(job.leadIds), pgArray(job.emailHashes), pgArray(job.phoneHashes), job.requestedBy],
  );
  return row;
}

/** The job, row-locked until the transaction ends (a step and its mark commit together, one runner at a time). */
export async function lockJob(em: EntityManager, id: string): Promise<ErasureJobRow | undefined> {
  const [row] = await query<ErasureJobRow>(em, `select ${JOB_COLUMNS} from erasure_jobs where id = ? for update`, [id]);
  return row;
}

export async function readJob(em: EntityManager, id: string): Promise<ErasureJobRow | undefined> {
  const [row] = await query<ErasureJobRow>(em, `select ${JOB_COLUMNS} from erasure_jobs where id = ?`, [id]);
  return row;
}

export async function markStepDone(em: EntityManager, id: string, step: string): Promise<void> {
  await query(em, `update erasure_jobs set steps_done = array_append(steps_done, ?::text), updated_at = now() where id = ? and not (? = any(steps_done))`, [step, id, step]);
}

export async function markAttempt(em: EntityManager, id: string, error: string | null): Promise<void> {
  await query(em, `update erasure_jobs set attempts = attempts + 1, last_error = ?, updated_at = now() where id = ?`, [error, id]);
}

export async function markDone(em: EntityManager, id: string): Promise<void> {
  await query(em, `update erasure_jobs set status = 'done', finished_at = now(), updated_at = now(), last_error = null where id = ?`, [id]);
}

/** The running jobs (oldest first) not touched for `idleSeconds` (0: all), at most `limit`. */
export async function runningJobs(em: EntityManager, limit: number, idleSeconds = 0): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select id from erasure_jobs where status = 'running' and updated_at <= now() - make_interval(secs => ?) order by created_at limit ?`,
    [idleSeconds, limit],
  );
  return rows.map((r) => r.id);
}

export interface LedgerRow {
  seq: string;
  job_id: string;
  company_id: string;
  lead_ids: string[];
  email_hashes: string[];
  phone_hashes: string[];
  erased_at: Date;
}

export async function appendLedger(em: EntityManager, job: ErasureJobRow): Promise<void> {
  await query(
    em,
    `insert into erasure_ledger (job_id, company_id, lead_ids, email_hashes, phone_hashes) values (?, ?, ?::uuid[], ?::text[], ?::text[])
     on conflict (job_id) do nothing`,
    [job.id, job.company_id, pgArray(job.lead_ids), pgArray(job.email_hashes), pgArray(job.phone_hashes)],
  );
}

/** A page of the ledger after `afterSeq`, in order. */
export async function ledgerPage(em: EntityManager, afterSeq: string, limit: number): Promise<LedgerRow[]> {
  return query<LedgerRow>(
    em,
    `select seq::text as seq, job_id, company_id, lead_ids, email_hashes, phone_hashes, erased_at from erasure_ledger where seq > ?::bigint order by seq limit ?`,
    [afterSeq, limit],
  );
}

/** Whether the job exists and is done. */
export async function jobDone(em: EntityManager, id: string): Promise<boolean> {
  return (await query(em, `select 1 from erasure_jobs where id = ? and status = 'done'`, [id])).length > 0;
}
