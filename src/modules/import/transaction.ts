import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ImportError, type CsvEncoding, type RowError } from './csv';
import { tryImportLock, waitForImportLock } from './import.queries';
import type { Caller } from '../../auth/caller';
import { audit, type AuditActor } from '../audit/audit.service';

export interface ImportReport {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  invalid: number;
  dry_run: boolean;
  /** The first `MAX_LISTED_ERRORS` row errors, in file order. */
  errors: RowError[];
  /** Row errors beyond those listed (a huge file of bad rows must not become a huge report). */
  errors_omitted: number;
  /** Header columns the import does not read (an `id` or `company_id` column is never taken from a file). */
  ignored_columns: string[];
}

export const MAX_LISTED_ERRORS = 1000;
export const IMPORT_BATCH = 1000;

export interface ImportOptions {
  dryRun: boolean;
  /** The file's declared encoding (`--encoding`); a byte-order mark wins. */
  encoding?: CsvEncoding;
  /** `text` for CSV text a client decoded (GraphQL), `file` for a file's bytes (the CLI). */
  source?: 'file' | 'text';
  onProgress?: (rows: number) => void;
  /** Aborted (Ctrl-C): the import stops at the next row or batch and its transaction rolls back. */
  signal?: AbortSignal;
  /**
   * Another import of the company holds its lock. Given: called, then the import waits for it (the CLI).
   * Not given: the import waits at most `lockWaitMs` and then fails with `ImportError` `BUSY` (GraphQL).
   */
  onWait?: () => void;
  lockWaitMs?: number;
  /** Who imports, for the audit log: the request's caller; left out, the platform operator at the command line. */
  actor?: Caller | AuditActor | null;
}

export type ImportInput = Readable | string;

export function newReport(dryRun: boolean): ImportReport {
  return { rows: 0, created: 0, updated: 0, unchanged: 0, invalid: 0, dry_run: dryRun, errors: [], errors_omitted: 0, ignored_columns: [] };
}

/** Counts one invalid row and lists its errors while the list is short. */
export function addRowErrors(report: ImportReport, errors: RowError[]): void {
  report.invalid++;
  const room = Math.max(0, MAX_LISTED_ERRORS - report.errors.length);
  report.errors.push(...errors.slice(0, room));
  report.errors_omitted += Math.max(0, errors.length - room);
}

/** The header's columns the import does not read, in header order. */
export function ignoredColumns(header: string[], known: readonly string[]): string[] {
  return header.filter((c) => c && !known.includes(c));
}

/** Stops the import when `signal` is aborted (Ctrl-C). */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ImportError('interrupted', 'INTERRUPTED');
}


/**
 * Runs a whole import as one transaction under the company's import lock (a transaction-scoped advisory
 * lock): imports of one company take turns, so two files naming the same SKU or external id never
 * interleave, and a failure, a malformed line, Ctrl-C or a crash anywhere in the file writes nothing.
 * A dry run takes the same path and writes nothing. An import that writes is recorded in the company's
 * audit log (`import.run`, its counts) in the same transaction.
 */
export async function inImportTransaction(
  em: EntityManager,
  companyId: string,
  kind: 'products' | 'locations' | 'leads',
  options: ImportOptions,
  work: (tx: EntityManager) => Promise<ImportReport>,
): Promise<ImportReport> {
  return em.transactional(async (tx) => {
    const sql = tx as EntityManager;
    const key = `import:${companyId}`;
    if (!(await tryImportLock(sql, key))) {
      if (options.onWait) {
        options.onWait();
        await waitForImportLock(sql, key);
      } else {
        await waitForLock(sql, key, options.lockWaitMs ?? 3000);
      }
    }
    checkAborted(options.signal);
    const result = await work(sql);
    if (!options.dryRun) {
      const { rows, created, updated, unchanged, invalid } = result;
      await audit.record(sql, options.actor, 'import.run', { type: 'company', id: companyId, companyId }, { kind, source: options.source ?? 'file', rows, created, updated, unchanged, invalid });
    }
    // The last chance to stop: after this the transaction commits.
    checkAborted(options.signal);
    return result;
  });
}

async function waitForLock(sql: EntityManager, key: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    if (await tryImportLock(sql, key)) return;
  }
  throw new ImportError("another import of this company's network is running; retry when it has finished", 'BUSY');
}
