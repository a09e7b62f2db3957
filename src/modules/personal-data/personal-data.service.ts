import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import { about, authorize, can } from '../../access/policy';
import { notFound, Validator } from '../../errors';
import { pgArray } from '../../db/sql';
import { isUuid } from '../../search/list';
import { logger } from '../../logger';
import { audit, type AuditActor } from '../audit/audit.service';
import { checkEmail, parsePhone } from '../lead/lead.rules';
import { defaultPersonalDataCompany, personalDataPolicy } from './personal-data.policy';
import {
  appendLedger,
  companyExists,
  companyLeads,
  ERASURE_STEPS,
  exportActivities,
  exportAuditEntries,
  exportConfirmations,
  exportEvents,
  exportLeads,
  exportNotifications,
  identitiesOf,
  identityHashes,
  insertJob,
  jobDone,
  leadOwner,
  leadsByHashes,
  leadsByIdentity,
  lockJob,
  markAttempt,
  markDone,
  markStepDone,
  readJob,
  runningJobs,
  type ErasureJobRow,
  type LedgerRow,
} from './personal-data.repository';
import { ErasureStatus, type ErasureJob, type PersonSelector } from './personal-data.types';

/** A selector, checked: one way to find the person, normalised as the duplicate rules normalise it. */
export interface Person {
  companyId: string | null;
  kind: 'email' | 'phone' | 'lead';
  email?: string;
  phone?: string;
  leadId?: string;
}

/** The most leads a person is looked for through (a bound: the same person is rarely more). */
export const MAX_PERSON_LEADS = 100_000;
/** Rounds of "leads sharing an e-mail or phone with the leads found" (each an index lookup). */
const EXPANSION_ROUNDS = 5;
/** The most leads one export page holds. */
export const MAX_EXPORT_PAGE = 200;
export const STEP_NAMES = ERASURE_STEPS.map(([name]) => name);

/** SHA-256 (hex) of a normalised e-mail or E.164 phone number, as the ledger keeps it. */
export function hashIdentity(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Checks a selector (400-style BAD_USER_INPUT on a malformed one; nothing is looked up). */
export function checkSelector(selector: PersonSelector | null | undefined): Person {
  const v = new Validator();
  const s = selector ?? {};
  const given = (['email', 'phone', 'leadId'] as const).filter((k) => s[k] !== null && s[k] !== undefined);
  let companyId: string | null = null;
  if (s.companyId !== null && s.companyId !== undefined) {
    if (isUuid(s.companyId)) companyId = s.companyId.toLowerCase();
    else v.add('company_id', 'invalid', 'is not a company id');
  }
  if (given.length !== 1) {
    v.add('selector', 'invalid', 'must give exactly one of email, phone or lead_id');
    v.throwIfAny();
  }
  const person: Person = { companyId, kind: given[0] === 'leadId' ? 'lead' : given[0] };
  if (s.email !== null && s.email !== undefined) {
    person.email = checkEmail(typeof s.email === 'string' ? s.email : '', 'email', v);
  } else if (s.phone !== null && s.phone !== undefined) {
    const country = (s.phoneCountry ?? 'US').trim().toUpperCase();
    const parsed = typeof s.phone === 'string' && s.phone.length <= 64 && /^[A-Z]{2}$/.test(country) ? parsePhone(s.phone, country) : null;
    if (!parsed) v.add('phone', 'invalid', 'is not a phone number');
    else person.phone = parsed.e164;
  } else if (!isUuid(s.leadId)) {
    v.add('lead_id', 'invalid', 'is not a lead id');
  } else {
    person.leadId = s.leadId.toLowerCase();
  }
  v.throwIfAny();
  return person;
}

/**
 * The person's leads in the company, in id order: those with the e-mail or phone (or the lead named),
 * and then, a few rounds over, the company's leads sharing an e-mail or phone with those (the merged
 * duplicates and their copies). Every lookup is by the duplicate rules' indexes.
 */
export async function personLeads(em: EntityManager, companyId: string, person: Person): Promise<string[]> {
  const found = new Set<string>();
  let fresh: string[];
  if (person.kind === 'lead') fresh = await companyLeads(em, companyId, [person.leadId!]);
  else fresh = await leadsByIdentity(em, companyId, person.email ? [person.email] : [], person.phone ? [person.phone] : []);
  const seenEmails = new Set(person.email ? [person.email] : []);
  const seenPhones = new Set(person.phone ? [person.phone] : []);
  for (let round = 0; fresh.length && round < EXPANSION_ROUNDS && found.size < MAX_PERSON_LEADS; round++) {
    fresh.forEach((id) => found.add(id));
    const ids = await identitiesOf(em, fresh);
    const emails = ids.emails.filter((e) => !seenEmails.has(e));
    const phones = ids.phones.filter((p) => !seenPhones.has(p));
    emails.forEach((e) => seenEmails.add(e));
    phones.forEach((p) => seenPhones.add(p));
    fresh = (await leadsByIdentity(em, companyId, emails, phones)).filter((id) => !found.has(id));
  }
  return [...found].sort().slice(0, MAX_PERSON_LEADS);
}

/** Who is asking, as the job and the audit name it. */
function requester(caller: Caller | null | undefined): string | null {
  return caller ? `user:${caller.userId}` : 'operator';
}

/** An erasure job as GraphQL shows it. */
export function toErasureJob(row: ErasureJobRow): ErasureJob {
  return {
    id: row.id,
    companyId: row.company_id,
    status: row.status === 'done' ? ErasureStatus.DONE : ErasureStatus.RUNNING,
    leadCount: row.lead_ids.length,
    stepsDone: row.steps_done,
    steps: STEP_NAMES,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

/** Test seams: a step that throws once (an interruption between steps). Never set in production. */
export const erasureHooks: { beforeStep?: (step: string, jobId: string) => void | Promise<void> } = {};

/**
 * Runs the job's steps not done yet, each in a transaction of its own that also marks it done, then
 * appends the ledger, records `person.erased` in the audit log and marks the job done, together. The job
 * row is locked by each transaction, so two runners take turns and the second finds the step done.
 * A failing step leaves the job running (with its error and attempt counted) and throws.
 */
export async function runErasureJob(root: EntityManager, jobId: string, actor: Caller | AuditActor | null): Promise<ErasureJobRow> {
  for (const [name, step] of ERASURE_STEPS) {
    try {
      await root.fork().transactional(async (tx) => {
        const job = await lockJob(tx as EntityManager, jobId);
        if (!job || job.status === 'done' || job.steps_done.includes(name)) return;
        await erasureHooks.beforeStep?.(name, jobId);
        if (job.lead_ids.length) await step(tx as EntityManager, pgArray(job.lead_ids), job.lead_ids);
        await markStepDone(tx as EntityManager, jobId, name);
      });
    } catch (err) {
      const message = err instanceof Error ? err.message.split('\n')[0].slice(0, 500) : 'failed';
      await markAttempt(root.fork(), jobId, `${name}: ${message}`).catch(() => undefined);
      logger.error({ err, jobId, step: name }, 'erasure step failed; the job resumes later');
      throw err;
    }
  }
  await root.fork().transactional(async (tx) => {
    const em = tx as EntityManager;
    const job = await lockJob(em, jobId);
    if (!job || job.status === 'done') return;
    await appendLedger(em, job);
    await audit.record(em, actor, 'person.erased', { type: 'erasure_job', id: job.id, companyId: job.company_id }, { leads: job.lead_ids.length, selector: job.selector });
    await markDone(em, jobId);
  });
  return (await readJob(root.fork(), jobId))!;
}

/** Starts an erasure job for these leads (fixed now) and the identity hashes the ledger keeps. */
export async function startErasure(
  em: EntityManager,
  companyId: string,
  selector: Person['kind'],
  leadIds: readonly string[],
  extraHashes: { emails: string[]; phones: string[] },
  requestedBy: string | null,
  id?: string,
): Promise<ErasureJobRow> {
  return em.fork().transactional(async (tx) => {
    const hashes = leadIds.length ? await identityHashes(tx as EntityManager, leadIds) : { emails: [], phones: [] };
    return insertJob(tx as EntityManager, {
      id,
      companyId,
      selector,
      leadIds,
      emailHashes: [...new Set([...hashes.emails, ...extraHashes.emails])].sort(),
      phoneHashes: [...new Set([...hashes.phones, ...extraHashes.phones])].sort(),
      requestedBy,
    });
  });
}

/** Resumes every running job (oldest first); returns how many finished and how many failed again. */
export async function resumeErasures(em: EntityManager, actor: Caller | AuditActor | null, limit = 100, idleSeconds = 0): Promise<{ finished: number; failed: number }> {
  let finished = 0;
  let failed = 0;
  for (const id of await runningJobs(em.fork(), limit, idleSeconds)) {
    try {
      await runErasureJob(em, id, actor);
      finished++;
    } catch {
      failed++;
    }
  }
  return { finished, failed };
}

/** One ledger entry, as `leadnet personal-data ledger` writes it (a JSON line). */
export interface LedgerEntry {
  job_id: string;
  company_id: string;
  lead_ids: string[];
  email_hashes: string[];
  phone_hashes: string[];
  erased_at: string;
}

export function ledgerEntry(row: LedgerRow): LedgerEntry {
  return {
    job_id: row.job_id,
    company_id: row.company_id,
    lead_ids: row.lead_ids,
    email_hashes: row.email_hashes,
    phone_hashes: row.phone_hashes,
    erased_at: new Date(row.erased_at).toISOString(),
  };
}

/**
 * Applies ledger entries again (a database restored from a backup taken before them): an entry whose job
 * is done here is skipped; otherwise its leads still present, and the company's leads whose e-mail or
 * phone hashes to one of its hashes, are erased by a job with the entry's id (which resumes one the
 * backup caught running).
 */
export async function reapplyLedger(em: EntityManager, entries: readonly LedgerEntry[], actor: Caller | AuditActor | null): Promise<{ reapplied: number; skipped: number; leads: number }> {
  let reapplied = 0;
  let skipped = 0;
  let leads = 0;
  for (const entry of entries) {
    if (!isUuid(entry.job_id) || !isUuid(entry.company_id)) throw new Error(`ledger entry ${JSON.stringify(entry.job_id)} is not an erasure (no job_id or company_id)`);
    const fork = em.fork();
    if (await jobDone(fork, entry.job_id)) {
      skipped++;
      continue;
    }
    if (!(await companyExists(fork, entry.company_id))) {
      skipped++;
      continue;
    }
    const existing = await readJob(fork, entry.job_id);
    if (!existing) {
      const byId = await companyLeads(fork, entry.company_id, entry.lead_ids.filter(isUuid));
      const byHash = await leadsByHashes(fork, entry.company_id, entry.email_hashes, entry.phone_hashes);
      const ids = [...new Set([...byId, ...byHash])].sort();
      if (entry.email_hashes.length || entry.phone_hashes.length) {
        await startErasure(em, entry.company_id, 'lead', ids, { emails: entry.email_hashes, phones: entry.phone_hashes }, 'ledger', entry.job_id);
      } else {
        // An entry of leads only (retention's): erased again by id, and its ledger entry stays without hashes,
        // so no later re-application reaches the same person's other leads through it.
        await em.fork().transactional((tx) =>
          insertJob(tx as EntityManager, { id: entry.job_id, companyId: entry.company_id, selector: 'lead', leadIds: ids, emailHashes: [], phoneHashes: [], requestedBy: 'ledger' }),
        );
      }
      leads += ids.length;
    } else {
      leads += existing.lead_ids.length;
    }
    await runErasureJob(em, entry.job_id, actor);
    reapplied++;
  }
  return { reapplied, skipped, leads };
}

/** Personal data through GraphQL (and the command line, with the operator's rights), as the policy decides. */
export class PersonalDataService {
  constructor(private readonly ctx: Context) {}

  /**
   * The company the request is about, checked: FORBIDDEN for a role that may not, NOT_FOUND for another
   * company (or a lead outside the company).
   */
  private async company(person: Person): Promise<string> {
    const caller = this.ctx.caller;
    authorize(caller, 'manage', personalDataPolicy);
    let companyId = person.companyId ?? defaultPersonalDataCompany(caller!);
    if (!companyId && person.kind === 'lead') {
      const owner = await leadOwner(this.ctx.em, person.leadId!);
      if (!owner?.companyId) throw notFound('Lead', person.leadId!);
      companyId = owner.companyId;
    }
    if (!companyId) {
      const v = new Validator().add('company_id', 'blank', "can't be blank (the platform operator names the company)");
      v.throwIfAny();
    }
    if (!can(caller, 'visible', about(personalDataPolicy, { companyId: companyId! })) || !(await companyExists(this.ctx.em, companyId!))) throw notFound('Company', companyId!);
    authorize(caller, 'manage', about(personalDataPolicy, { companyId: companyId! }));
    if (person.kind === 'lead') {
      const owner = await leadOwner(this.ctx.em, person.leadId!);
      if (!owner || owner.companyId !== companyId) throw notFound('Lead', person.leadId!);
    }
    return companyId!;
  }

  /**
   * One page of everything held about the person in the company (`first` leads after the lead id
   * `after`, in id order), each lead with its contacts, location, consents, outcome, offers, activities,
   * events and the webhook deliveries that carried them, notification mails and visitor confirmations.
   * An unknown person is an empty document, as is a person known only to another company.
   */
  async export(selector: PersonSelector, first: number, after: string | null | undefined): Promise<Record<string, unknown>> {
    const person = checkSelector(selector);
    const v = new Validator();
    if (!Number.isInteger(first) || first < 1 || first > MAX_EXPORT_PAGE) v.add('first', 'invalid', `must be 1 to ${MAX_EXPORT_PAGE}`);
    if (after !== null && after !== undefined && !isUuid(after)) v.add('after', 'invalid', 'is not a cursor of this export');
    v.throwIfAny();
    const companyId = await this.company(person);
    return exportPage(this.ctx.em, companyId, person, first, after ?? null, this.ctx.caller);
  }

  /** Erases the person in the company (a job run at once; when a step fails it stays RUNNING and resumes later). */
  async erase(selector: PersonSelector): Promise<ErasureJob> {
    const person = checkSelector(selector);
    const companyId = await this.company(person);
    const em = this.ctx.em;
    const leadIds = await personLeads(em, companyId, person);
    const given = { emails: person.email ? [hashIdentity(person.email)] : [], phones: person.phone ? [hashIdentity(person.phone)] : [] };
    const job = await startErasure(em, companyId, person.kind, leadIds, given, requester(this.ctx.caller));
    try {
      return toErasureJob(await runErasureJob(em, job.id, this.ctx.caller));
    } catch {
      // The job keeps its place: the erasure worker (or `leadnet personal-data resume-erasures`) finishes it.
      return toErasureJob((await readJob(em.fork(), job.id))!);
    }
  }
}

/** One export page (no access check: `PersonalDataService` checks, the command line is the operator's). */
export async function exportPage(
  root: EntityManager,
  companyId: string,
  person: Person,
  first: number,
  after: string | null,
  actor: Caller | AuditActor | null,
): Promise<Record<string, unknown>> {
  const em = root.fork();
  const all = await personLeads(em, companyId, person);
  const rest = after ? all.filter((id) => id > after.toLowerCase()) : all;
  const page = rest.slice(0, first);
  const leads = await exportLeads(em, page);
  const byLead = <T extends Record<string, unknown>>(rows: T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) {
      const id = row.lead_id as string;
      map.set(id, [...(map.get(id) ?? []), row]);
    }
    return map;
  };
  const activities = byLead(await exportActivities(em, page));
  const events = byLead(await exportEvents(em, page));
  const notifications = byLead(await exportNotifications(em, page));
  const confirmations = byLead(await exportConfirmations(em, page));
  const audited = byLead(await exportAuditEntries(em, companyId, page));
  const strip = (rows: Array<Record<string, unknown>> | undefined) => (rows ?? []).map(({ lead_id: _drop, ...rest }) => rest);
  if (!after) {
    await audit.record(em, actor, 'person.exported', { type: 'company', id: companyId, companyId }, { leads: all.length, selector: person.kind });
  }
  return {
    company_id: companyId,
    selector: person.kind,
    generated_at: new Date().toISOString(),
    total_leads: all.length,
    leads: leads.map((lead) => ({
      ...lead,
      activities: strip(activities.get(lead.id as string)),
      events: strip(events.get(lead.id as string)),
      notification_deliveries: strip(notifications.get(lead.id as string)),
      visitor_confirmations: strip(confirmations.get(lead.id as string)),
      audit_entries: strip(audited.get(lead.id as string)),
    })),
    page: { first, after, end_cursor: page.length ? page[page.length - 1] : null, has_next_page: rest.length > page.length },
    held_elsewhere: {
      search_engine: 'the same leads, indexed from these rows (no other data)',
      import_export_files: 'none stored: imports are read and exports written by the caller',
    },
  };
}
