import { InvalidArgumentError, type Command } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CliError, type CliRuntime, type Session } from '../runtime';
import { uuid } from '../args';
import { table } from '../output';
import { auditLogPage, MAX_AUDIT_PAGE, verifyChains, type ChainReport } from '../../modules/audit/audit.service';
import { chainKnown } from '../../modules/audit/audit.repository';
import type { AuditEntry } from '../../modules/audit/audit.types';

interface ListOptions {
  company?: string;
  first: number;
  after?: string;
  action?: string[];
}

function pageSize(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_AUDIT_PAGE) throw new InvalidArgumentError(`"${value}" is not a whole number from 1 to ${MAX_AUDIT_PAGE}.`);
  return Number(value);
}

const list = (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter(Boolean)];

async function em(session: Session): Promise<EntityManager> {
  return (await session.orm()).em.fork() as EntityManager;
}

function entryJson(e: AuditEntry) {
  return {
    id: e.id,
    company_id: e.companyId,
    sequence: e.sequence,
    at: e.at.toISOString(),
    actor_type: e.actorType,
    actor_id: e.actorId,
    api_key_id: e.apiKeyId,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    details: e.details,
    hash: e.hash,
    previous_hash: e.previousHash,
  };
}

function reportJson(r: ChainReport) {
  return { company_id: r.companyId, entries: r.entries, last_sequence: r.lastSequence, last_hash: r.lastHash, ok: !r.problem, problem: r.problem && { kind: r.problem.kind, sequence: r.problem.sequence, entry_id: r.problem.entryId, message: r.problem.message } };
}

const chainName = (companyId: string | null) => (companyId ? `company ${companyId}` : 'the platform');

/**
 * `leadnet audit list|verify` (docs/personal-data.md "Audit log", docs/operations.md): the command line
 * reads every chain, as the platform operator.
 */
export function register(program: Command, runtime: CliRuntime): void {
  const group = program.command('audit').description("Read and verify the tamper-evident audit log (one chain per company, and the platform's)");

  runtime.action<ListOptions>(
    group
      .command('list')
      .description("A company's audit entries, newest first (the platform's chain without --company)")
      .option('--company <id>', 'the company', uuid)
      .option('--first <n>', `how many (1 to ${MAX_AUDIT_PAGE})`, pageSize, 50)
      .option('--after <cursor>', "the entries before this cursor (a previous page's last sequence number)")
      .option('--action <action>', 'only these actions (repeatable, or comma-separated)', list),
    async (session, o) => {
      const db = await em(session);
      if (o.company && !(await chainKnown(db, o.company))) throw new CliError(`No company with id ${o.company}.`, 'NOT_FOUND');
      const page = await auditLogPage(db, o.company ?? null, { action: o.action ?? null }, o.first, o.after ?? null);
      const text = page.entries.length
        ? table(
            ['SEQ', 'AT', 'ACTOR', 'ACTION', 'TARGET', 'DETAILS'],
            page.entries.map((e) => [String(e.sequence), e.at.toISOString(), `${e.actorType}${e.actorId ? ` ${e.actorId}` : ''}`, e.action, `${e.targetType} ${e.targetId ?? '-'}`, JSON.stringify(e.details)]),
          ) + (page.hasNextPage ? `\n(more: --after ${page.endCursor})` : '')
        : `No audit entries for ${chainName(o.company ?? null)}.`;
      return { json: { entries: page.entries.map(entryJson), has_next_page: page.hasNextPage, end_cursor: page.endCursor }, text };
    },
  );

  runtime.action<{ company?: string }>(
    group
      .command('verify')
      .description('Walk each chain (or one company\'s) and report the first entry changed or removed; exit status 2 when one was')
      .option('--company <id>', "only this company's chain", uuid),
    async (session, o) => {
      const db = await em(session);
      if (o.company && !(await chainKnown(db, o.company))) throw new CliError(`No company with id ${o.company}.`, 'NOT_FOUND');
      const reports = await verifyChains(db, { companyId: o.company ?? null, all: !o.company });
      const broken = reports.filter((r) => r.problem);
      const lines = reports.map((r) => (r.problem ? `TAMPERED ${chainName(r.companyId)}: ${r.problem.message}` : `ok       ${chainName(r.companyId)}: ${r.entries} entries`));
      if (!reports.length) lines.push('The audit log is empty.');
      const failure = broken.length
        ? new CliError(`the audit log was tampered with in ${broken.length} chain${broken.length === 1 ? '' : 's'}: ${broken.map((r) => `${chainName(r.companyId)} at entry ${r.problem!.sequence}`).join('; ')}`, 'AUDIT_TAMPERED', 2)
        : undefined;
      return { json: { ok: !broken.length, chains: reports.map(reportJson) }, text: lines.join('\n'), failure };
    },
  );
}
