import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import { about, authorize, can } from '../../access/policy';
import { notFound, Validator } from '../../errors';
import { isUuid } from '../../search/list';
import { logger } from '../../logger';
import { audit, changes, type AuditActor } from '../audit/audit.service';
import { defaultPersonalDataCompany, personalDataPolicy } from './personal-data.policy';
import { companyExists, insertJob } from './personal-data.repository';
import { runErasureJob } from './personal-data.service';
import {
  companiesPage,
  deleteDueLogs,
  DELIVERY_LOGS,
  dueLeads,
  dueLogIds,
  retentionSettingsRow,
  saveRetentionSettings,
  type DeliveryLog,
} from './retention.repository';
import { RetentionDryRun, RetentionSettings, type RetentionRun, type RetentionSettingsInput } from './retention.types';

/** The periods of a company that has set none (docs/personal-data.md "Retention"). */
/**
 * A company's periods until its admin sets them: delivery logs 90 days; leads kept (null). Erasing a
 * company's customers is the company's decision, never a default an upgrade switches on.
 */
export const RETENTION_DEFAULTS: { inactiveLeadMonths: number | null; deliveryLogDays: number } = { inactiveLeadMonths: null, deliveryLogDays: 90 };

/** The bounds of one run in one company: leads per erasure job and jobs, rows per delete and deletes per log. */
export const RETENTION_LIMITS = { leadBatch: 200, leadJobs: 5, logBatch: 1000, logBatches: 10 };

/** The most ids a dry run lists per kind. */
export const MAX_DRY_RUN_IDS = 1000;

const LOG_FIELDS: Record<DeliveryLog, 'webhookDeliveries' | 'notificationDeliveries' | 'visitorConfirmations'> = {
  webhook_deliveries: 'webhookDeliveries',
  notification_deliveries: 'notificationDeliveries',
  visitor_confirmations: 'visitorConfirmations',
};

/** The company's periods: its own, or the defaults. */
export async function retentionSettings(em: EntityManager, companyId: string): Promise<RetentionSettings> {
  const row = await retentionSettingsRow(em, companyId);
  return row
    ? { companyId, inactiveLeadMonths: row.inactive_lead_months, deliveryLogDays: row.delivery_log_days, defaults: false }
    : { companyId, ...RETENTION_DEFAULTS, defaults: true };
}

/** What is due in the company now, touching nothing: at most `first` ids of each kind. */
export async function retentionDryRun(em: EntityManager, companyId: string, first = MAX_DRY_RUN_IDS): Promise<RetentionDryRun> {
  const settings = await retentionSettings(em, companyId);
  const leadIds = settings.inactiveLeadMonths === null ? [] : await dueLeads(em, companyId, settings.inactiveLeadMonths, first + 1);
  const logs: Record<DeliveryLog, string[]> = { webhook_deliveries: [], notification_deliveries: [], visitor_confirmations: [] };
  for (const log of DELIVERY_LOGS) logs[log] = await dueLogIds(em, log, companyId, settings.deliveryLogDays, first + 1);
  const truncated = [leadIds, ...Object.values(logs)].some((ids) => ids.length > first);
  return {
    companyId,
    settings,
    leadIds: leadIds.slice(0, first),
    webhookDeliveryIds: logs.webhook_deliveries.slice(0, first),
    notificationDeliveryIds: logs.notification_deliveries.slice(0, first),
    visitorConfirmationIds: logs.visitor_confirmations.slice(0, first),
    truncated,
  };
}

/**
 * One run of the company's retention, bounded by `RETENTION_LIMITS`: inactive leads are erased through
 * the erasure path (jobs of selector `retention`, ledger entries with the lead ids and no hashes, so a
 * ledger re-applied after a restore erases those leads and never the person's other leads), then old
 * delivery logs are deleted. Records `retention.applied` with the counts when anything went.
 */
export async function applyRetention(root: EntityManager, companyId: string, actor: Caller | AuditActor | null, limits = RETENTION_LIMITS): Promise<RetentionRun> {
  const settings = await retentionSettings(root.fork(), companyId);
  const run: RetentionRun = { companyId, leads: 0, webhookDeliveries: 0, notificationDeliveries: 0, visitorConfirmations: 0, more: false };
  if (settings.inactiveLeadMonths !== null) {
    for (let n = 0; n < limits.leadJobs; n++) {
      const ids = await dueLeads(root.fork(), companyId, settings.inactiveLeadMonths, limits.leadBatch);
      if (!ids.length) break;
      const job = await root.fork().transactional((tx) =>
        insertJob(tx as EntityManager, { companyId, selector: 'retention', leadIds: ids, emailHashes: [], phoneHashes: [], requestedBy: 'retention' }),
      );
      try {
        await runErasureJob(root, job.id, actor);
      } catch (err) {
        // The job stays running; the erasure worker finishes it and its leads are not due meanwhile.
        logger.error({ err, companyId, jobId: job.id }, 'retention: an erasure failed; it resumes later');
        run.more = true;
        break;
      }
      run.leads += ids.length;
      if (ids.length < limits.leadBatch) break;
      if (n === limits.leadJobs - 1) run.more = true;
    }
  }
  for (const log of DELIVERY_LOGS) {
    for (let n = 0; n < limits.logBatches; n++) {
      const deleted = await deleteDueLogs(root.fork(), log, companyId, settings.deliveryLogDays, limits.logBatch);
      run[LOG_FIELDS[log]] += deleted;
      if (deleted < limits.logBatch) break;
      if (n === limits.logBatches - 1) run.more = true;
    }
  }
  if (run.leads || run.webhookDeliveries || run.notificationDeliveries || run.visitorConfirmations) {
    await audit.record(root.fork(), actor, 'retention.applied', { type: 'company', id: companyId, companyId }, {
      leads: run.leads,
      webhook_deliveries: run.webhookDeliveries,
      notification_deliveries: run.notificationDeliveries,
      visitor_confirmations: run.visitorConfirmations,
    });
  }
  return run;
}

/** One run over every company (id order, in pages), each bounded; returns each company's run that did something. */
export async function applyRetentionEverywhere(root: EntityManager, actor: Caller | AuditActor | null, limits = RETENTION_LIMITS): Promise<RetentionRun[]> {
  const runs: RetentionRun[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await companiesPage(root.fork(), after, 500);
    for (const company of page) {
      const run = await applyRetention(root, company.id, actor, limits);
      if (run.leads || run.webhookDeliveries || run.notificationDeliveries || run.visitorConfirmations) runs.push(run);
    }
    if (page.length < 500) break;
    after = page[page.length - 1].id;
  }
  return runs;
}

/** Retention through GraphQL: a company admin for its own company, the platform operator for any (the personal-data policy). */
export class RetentionService {
  constructor(private readonly ctx: Context) {}

  /** The company asked about, checked: FORBIDDEN for another role, NOT_FOUND for another company. */
  private async company(companyId: string | null | undefined): Promise<string> {
    const caller = this.ctx.caller;
    authorize(caller, 'manage', personalDataPolicy);
    const v = new Validator();
    if (companyId !== null && companyId !== undefined && !isUuid(companyId)) v.add('company_id', 'invalid', 'is not a company id').throwIfAny();
    const id = companyId?.toLowerCase() ?? defaultPersonalDataCompany(caller!);
    if (!id) v.add('company_id', 'blank', "can't be blank (the platform operator names the company)").throwIfAny();
    if (!can(caller, 'visible', about(personalDataPolicy, { companyId: id! })) || !(await companyExists(this.ctx.em, id!))) throw notFound('Company', id!);
    authorize(caller, 'manage', about(personalDataPolicy, { companyId: id! }));
    return id!;
  }

  async get(companyId: string | null | undefined): Promise<RetentionSettings> {
    return retentionSettings(this.ctx.em, await this.company(companyId));
  }

  async update(input: RetentionSettingsInput): Promise<RetentionSettings> {
    const companyId = await this.company(input.companyId);
    const v = new Validator();
    const m = input.inactiveLeadMonths;
    if (m !== undefined && m !== null && !(Number.isInteger(m) && m >= 1 && m <= 1200)) v.add('inactive_lead_months', 'invalid', 'must be 1 to 1200 months, or null to keep leads');
    const d = input.deliveryLogDays;
    if (d === null || (d !== undefined && !(Number.isInteger(d) && d >= 1 && d <= 36_500))) v.add('delivery_log_days', 'invalid', 'must be 1 to 36500 days');
    v.throwIfAny();
    return this.ctx.em.fork().transactional(async (tx) => {
      const em = tx as EntityManager;
      const current = await retentionSettings(em, companyId);
      const next = { inactiveLeadMonths: m === undefined ? current.inactiveLeadMonths : m, deliveryLogDays: d ?? current.deliveryLogDays };
      await saveRetentionSettings(em, companyId, next);
      const changed = changes({ ...current }, { ...current, ...next }, ['inactiveLeadMonths', 'deliveryLogDays']);
      if (Object.keys(changed).length) await audit.record(em, this.ctx.caller, 'settings.retention_changed', { type: 'company', id: companyId, companyId }, changed);
      return { companyId, ...next, defaults: false };
    });
  }

  async dryRun(companyId: string | null | undefined, first: number): Promise<RetentionDryRun> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_DRY_RUN_IDS) new Validator().add('first', 'invalid', `must be 1 to ${MAX_DRY_RUN_IDS}`).throwIfAny();
    return retentionDryRun(this.ctx.em, await this.company(companyId), first);
  }
}
