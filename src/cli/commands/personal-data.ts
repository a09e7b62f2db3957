import fs from 'node:fs';
import type { Command } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CliError, type CliRuntime, type Session } from '../runtime';
import { uuid } from '../args';
import { CLI_ACTOR } from '../../modules/audit/audit.service';
import {
  checkSelector,
  exportPage,
  hashIdentity,
  ledgerEntry,
  MAX_EXPORT_PAGE,
  personLeads,
  reapplyLedger,
  resumeErasures,
  runErasureJob,
  startErasure,
  toErasureJob,
  type LedgerEntry,
  type Person,
} from '../../modules/personal-data/personal-data.service';
import { companyExists, leadOwner, ledgerPage } from '../../modules/personal-data/personal-data.repository';
import { applyRetention, applyRetentionEverywhere, MAX_DRY_RUN_IDS, retentionDryRun } from '../../modules/personal-data/retention.service';
import type { RetentionRun } from '../../modules/personal-data/retention.types';

interface SelectorOptions {
  company?: string;
  email?: string;
  phone?: string;
  country?: string;
  lead?: string;
}

async function em(session: Session): Promise<EntityManager> {
  return (await session.orm()).em.fork() as EntityManager;
}

const selectorOptions = (command: Command) =>
  command
    .option('--company <id>', 'the company whose data it is (optional with --lead)', uuid)
    .option('--email <address>', 'the person by e-mail (trimmed, lower-cased, as the duplicate rules match)')
    .option('--phone <number>', 'the person by phone (E.164 as the duplicate rules match; without +, read in --country)')
    .option('--country <code>', 'the ISO 3166 country a --phone without + is read in (default US)')
    .option('--lead <id>', 'the person by one of their leads');

/** The checked selector and its company (NOT_FOUND when the company or the lead is not there). */
async function target(db: EntityManager, o: SelectorOptions): Promise<{ person: Person; companyId: string }> {
  const person = checkSelector({ companyId: o.company ?? null, email: o.email ?? null, phone: o.phone ?? null, phoneCountry: o.country ?? null, leadId: o.lead ?? null });
  let companyId = person.companyId;
  if (person.kind === 'lead') {
    const owner = await leadOwner(db, person.leadId!);
    if (!owner?.companyId || (companyId && owner.companyId !== companyId)) throw new CliError(`No lead with id ${person.leadId} in ${companyId ? `company ${companyId}` : 'any company'}.`, 'NOT_FOUND');
    companyId = owner.companyId;
  }
  if (!companyId) throw new CliError('Name the company (--company) or a lead (--lead).', 'BAD_USER_INPUT');
  if (!(await companyExists(db, companyId))) throw new CliError(`No company with id ${companyId}.`, 'NOT_FOUND');
  return { person, companyId };
}

/** Writes `text` to the stream, waiting when it is full (a large export stays bounded in memory). */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.write(text)) resolve();
    else {
      stream.once('drain', resolve);
      stream.once('error', reject);
    }
  });
}

/** The ledger's entries from a JSON-lines file (as `ledger` writes it). */
function readLedger(file: string): LedgerEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`Cannot read the ledger ${file}: ${(e as Error).message}`, 'BAD_USER_INPUT');
  }
  return text
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, n]) => {
      try {
        const entry = JSON.parse(line) as LedgerEntry;
        if (!entry || typeof entry !== 'object' || !Array.isArray(entry.lead_ids) || !Array.isArray(entry.email_hashes) || !Array.isArray(entry.phone_hashes)) throw new Error('not an entry');
        return entry;
      } catch {
        throw new CliError(`${file}:${n} is not a ledger entry (a JSON line of \`leadnet personal-data ledger\`).`, 'BAD_USER_INPUT');
      }
    });
}

/**
 * `leadnet personal-data export|erase|resume-erasures|ledger|reapply-erasures|retention` (docs/personal-data.md):
 * the command line acts as the platform operator, for any company.
 */
export function register(program: Command, runtime: CliRuntime): void {
  const group = program.command('personal-data').description("A person's data in a company: export it, erase it, and re-apply erasures after a restore");

  runtime.action<SelectorOptions & { out?: string }>(
    selectorOptions(group.command('export').description('Everything held about a person in a company, as one JSON document (streamed lead by lead)')).option(
      '--out <file>',
      'write the document to this file (default: standard output)',
    ),
    async (session, o) => {
      const db = await em(session);
      const { person, companyId } = await target(db, o);
      const stream = o.out ? fs.createWriteStream(o.out, { mode: 0o600 }) : process.stdout;
      let after: string | null = null;
      let count = 0;
      let total = 0;
      for (;;) {
        const page: Record<string, any> = await exportPage(db, companyId, person, MAX_EXPORT_PAGE, after, CLI_ACTOR);
        if (after === null) {
          total = page.total_leads;
          const head = { company_id: page.company_id, selector: page.selector, generated_at: page.generated_at, total_leads: page.total_leads, held_elsewhere: page.held_elsewhere };
          await write(stream, `${JSON.stringify(head).slice(0, -1)},"leads":[`);
        }
        for (const lead of page.leads) await write(stream, `${count++ ? ',' : ''}\n${JSON.stringify(lead)}`);
        if (!page.page.has_next_page) break;
        after = page.page.end_cursor;
      }
      await write(stream, '\n]}\n');
      if (o.out) await new Promise<void>((resolve, reject) => (stream as fs.WriteStream).end((e?: Error | null) => (e ? reject(e) : resolve())));
      const summary = { company_id: companyId, leads: count, total_leads: total, out: o.out ?? null };
      return { json: summary, text: o.out ? `Wrote ${count} lead${count === 1 ? '' : 's'} to ${o.out}.` : '' };
    },
  );

  runtime.action<SelectorOptions>(
    selectorOptions(group.command('erase').description("Erase a person's personal fields everywhere in the company (a resumable job; counts and outcomes stay)")),
    async (session, o) => {
      const orm = await session.orm();
      const db = orm.em.fork() as EntityManager;
      const { person, companyId } = await target(db, o);
      const leadIds = await personLeads(db, companyId, person);
      const given = { emails: person.email ? [hashIdentity(person.email)] : [], phones: person.phone ? [hashIdentity(person.phone)] : [] };
      const job = await startErasure(db, companyId, person.kind, leadIds, given, 'operator');
      const done = toErasureJob(await runErasureJob(orm.em as EntityManager, job.id, CLI_ACTOR));
      const json = { id: done.id, company_id: done.companyId, status: done.status, lead_count: done.leadCount, steps_done: done.stepsDone };
      return { json, text: `Erasure ${done.id}: ${done.leadCount} lead${done.leadCount === 1 ? '' : 's'} erased in company ${companyId} (${done.status}).` };
    },
  );

  runtime.action(group.command('resume-erasures').description('Finish the erasure jobs an interruption left running'), async (session) => {
    const orm = await session.orm();
    const r = await resumeErasures(orm.em as EntityManager, CLI_ACTOR);
    const failure = r.failed ? new CliError(`${r.failed} erasure job${r.failed === 1 ? '' : 's'} failed again; see the log and retry.`, 'ERASURE_FAILED') : undefined;
    return { json: r, text: `${r.finished} erasure job${r.finished === 1 ? '' : 's'} finished.`, failure };
  });

  runtime.action<{ out?: string }>(
    group.command('ledger').description('The erasure ledger (ids and SHA-256 hashes only) as JSON lines: keep it apart from the backups').option('--out <file>', 'write it to this file (default: standard output)'),
    async (session, o) => {
      const db = await em(session);
      const stream = o.out ? fs.createWriteStream(o.out, { mode: 0o600 }) : process.stdout;
      let after = '0';
      let count = 0;
      for (;;) {
        const rows = await ledgerPage(db, after, 1000);
        for (const row of rows) await write(stream, `${JSON.stringify(ledgerEntry(row))}\n`);
        count += rows.length;
        if (rows.length < 1000) break;
        after = rows[rows.length - 1].seq;
      }
      if (o.out) await new Promise<void>((resolve, reject) => (stream as fs.WriteStream).end((e?: Error | null) => (e ? reject(e) : resolve())));
      return { json: { entries: count, out: o.out ?? null }, text: o.out ? `Wrote ${count} ledger entr${count === 1 ? 'y' : 'ies'} to ${o.out}.` : '' };
    },
  );

  runtime.action<{ ledger: string }>(
    group
      .command('reapply-erasures')
      .description('After a restore from a backup: erase again the people of the ledger entries this database has not erased')
      .requiredOption('--ledger <file>', 'the ledger (JSON lines of `leadnet personal-data ledger`, taken before the restore)'),
    async (session, o) => {
      const entries = readLedger(o.ledger);
      const orm = await session.orm();
      const r = await reapplyLedger(orm.em as EntityManager, entries, CLI_ACTOR);
      return { json: r, text: `${r.reapplied} erasure${r.reapplied === 1 ? '' : 's'} applied again (${r.leads} lead${r.leads === 1 ? '' : 's'}), ${r.skipped} already applied.` };
    },
  );

  runtime.action<{ company?: string; dryRun?: boolean; first?: string }>(
    group
      .command('retention')
      .description("Apply the companies' retention periods now (erase inactive leads, delete old delivery logs); --dry-run lists what would go")
      .option('--company <id>', 'only this company (default: every company)', uuid)
      .option('--dry-run', 'list what is due, touching nothing')
      .option('--first <n>', `with --dry-run: at most this many ids of each kind (1 to ${MAX_DRY_RUN_IDS}, default 100)`),
    async (session, o) => {
      const orm = await session.orm();
      const db = orm.em.fork() as EntityManager;
      if (o.company && !(await companyExists(db, o.company))) throw new CliError(`No company with id ${o.company}.`, 'NOT_FOUND');
      if (o.dryRun) {
        const first = o.first === undefined ? 100 : Number(o.first);
        if (!Number.isInteger(first) || first < 1 || first > MAX_DRY_RUN_IDS) throw new CliError(`--first must be 1 to ${MAX_DRY_RUN_IDS}.`, 'BAD_USER_INPUT');
        if (!o.company) throw new CliError('A dry run names its company (--company).', 'BAD_USER_INPUT');
        const r = await retentionDryRun(db, o.company, first);
        const text = [
          `Retention in company ${r.companyId} (${r.settings.inactiveLeadMonths === null ? 'leads kept' : `leads inactive ${r.settings.inactiveLeadMonths} months`}, delivery logs ${r.settings.deliveryLogDays} days${r.settings.defaults ? ', the defaults' : ''}) would remove:`,
          `  leads: ${r.leadIds.length}${r.leadIds.length ? ` (${r.leadIds.join(', ')})` : ''}`,
          `  webhook deliveries: ${r.webhookDeliveryIds.length}`,
          `  notification deliveries: ${r.notificationDeliveryIds.length}`,
          `  visitor confirmations: ${r.visitorConfirmationIds.length}`,
          ...(r.truncated ? [`  (lists cut at ${first}: more is due)`] : []),
        ].join('\n');
        return {
          json: {
            company_id: r.companyId,
            settings: { inactive_lead_months: r.settings.inactiveLeadMonths, delivery_log_days: r.settings.deliveryLogDays, defaults: r.settings.defaults },
            lead_ids: r.leadIds,
            webhook_delivery_ids: r.webhookDeliveryIds,
            notification_delivery_ids: r.notificationDeliveryIds,
            visitor_confirmation_ids: r.visitorConfirmationIds,
            truncated: r.truncated,
          },
          text,
        };
      }
      const runs: RetentionRun[] = o.company ? [await applyRetention(orm.em as EntityManager, o.company, CLI_ACTOR)] : await applyRetentionEverywhere(orm.em as EntityManager, CLI_ACTOR);
      const json = runs.map((r) => ({
        company_id: r.companyId,
        leads: r.leads,
        webhook_deliveries: r.webhookDeliveries,
        notification_deliveries: r.notificationDeliveries,
        visitor_confirmations: r.visitorConfirmations,
        more: r.more,
      }));
      const lines = runs.map(
        (r) =>
          `Company ${r.companyId}: ${r.leads} lead${r.leads === 1 ? '' : 's'} erased, ${r.webhookDeliveries} webhook deliveries, ${r.notificationDeliveries} notification deliveries, ${r.visitorConfirmations} visitor confirmations deleted${r.more ? ' (more is due: run again)' : ''}.`,
      );
      return { json: { runs: json }, text: lines.length ? lines.join('\n') : 'Nothing was due.' };
    },
  );
}
