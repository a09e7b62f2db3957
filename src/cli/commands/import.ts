import fs from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../../config';
import { CliError, processIo, reportError, Session, type CliRuntime } from '../runtime';
import { uuid } from '../args';
import { importProducts, PRODUCT_COLUMNS } from '../../modules/import/product-import';
import type { ImportOptions, ImportReport } from '../../modules/import/transaction';
import { exportLeads } from '../../modules/import/lead-export';
import { CSV_ENCODINGS, csvEncoding, ImportError, type CsvEncoding } from '../../modules/import/csv';
import { importLocations, LOCATION_COLUMNS } from '../../modules/import/location-import';
import { importLeads, LEAD_COLUMNS, MAX_LEAD_ROWS } from '../../modules/import/lead-import';
import { PostgresSearchBackend } from '../../search/postgres.queries';
import { companyExists } from '../../modules/import/import.queries';
import { createGeocoder } from '../../geo/factory';
import { progressBar } from '../progress';

async function company(session: Session, id: string): Promise<EntityManager> {
  const em = (await session.orm()).em.fork() as EntityManager;
  if (!(await companyExists(em, id))) throw new CliError(`No company with id ${id}.`, 'NOT_FOUND');
  return em;
}

function openFile(file: string): { input: fs.ReadStream; size: number } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new CliError(`Cannot read ${file}: no such file.`, 'NOT_FOUND');
  }
  if (!stat.isFile()) throw new CliError(`Cannot read ${file}: not a file.`, 'NOT_FOUND');
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    throw new CliError(`Cannot read ${file}: permission denied.`, 'NOT_FOUND');
  }
  return { input: fs.createReadStream(file), size: stat.size };
}

function reportText(kind: string, r: ImportReport): string {
  const lines = [
    `${r.dry_run ? 'Dry run: would import' : 'Imported'} ${r.rows} ${kind} rows: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.invalid} invalid (skipped).`,
  ];
  if (r.ignored_columns.length) lines.push(`Ignored columns (not read by this import): ${r.ignored_columns.join(', ')}.`);
  for (const e of r.errors.slice(0, 200)) lines.push(`  line ${e.row}, ${e.column}: ${e.reason}`);
  const more = r.errors.length - Math.min(200, r.errors.length) + r.errors_omitted;
  if (more > 0) lines.push(`  ... and ${more} more${r.errors.length > 200 ? ' (--json lists the first 1000)' : ''}`);
  return lines.join('\n');
}

type Importer = (em: EntityManager, input: fs.ReadStream, options: ImportOptions) => Promise<ImportReport>;
type ImportCommandOptions = { company: string; dryRun?: boolean; json?: boolean; encoding?: CsvEncoding };

/**
 * Runs one import of `file`: a progress bar on a terminal (not with --json), the report as the result,
 * exit status 1 when every row is invalid. Ctrl-C (or SIGTERM) stops it: one line on stderr, the
 * import's transaction rolls back (nothing of the file is written), exit status 130 (143).
 */
async function runImport(session: Session, o: ImportCommandOptions, file: string, kind: string, run: Importer) {
  const { input, size } = openFile(file);
  const json = o.json === true;
  const abort = new AbortController();
  const bar = progressBar(input, size, json ? ({ isTTY: false } as NodeJS.WriteStream) : process.stderr);
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(exitStatus(signal));
    signalled = signal;
    bar.done();
    reportError(processIo, new CliError(`interrupted (${signal}): the import of ${file} is rolled back; nothing of it is written.`, 'INTERRUPTED'), json);
    abort.abort();
    // The import stops at its next row or statement; a statement that does not end (a lock wait) is cut
    // short by exiting: PostgreSQL rolls back a transaction whose connection closes.
    setTimeout(() => process.exit(exitStatus(signal)), 5000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const em = await company(session, o.company);
    const report = await run(em, input, {
      dryRun: o.dryRun === true,
      encoding: o.encoding,
      source: 'file',
      signal: abort.signal,
      onProgress: (rows) => bar.update(rows),
      onWait: () => {
        if (!json) process.stderr.write(`Waiting for another import of company ${o.company} to finish...\n`);
      },
    });
    bar.done();
    if (signalled) throw interrupted(signalled);
    const failure =
      report.rows > 0 && report.invalid === report.rows
        ? new CliError(`${file}: every row is invalid (${report.rows} of ${report.rows}); nothing was imported.`, 'ALL_ROWS_INVALID')
        : undefined;
    return { json: report, text: reportText(kind, report), failure };
  } catch (e) {
    bar.done();
    if (signalled) throw interrupted(signalled);
    if (e instanceof ImportError) throw new CliError(`${file}: ${e.message}`, e.code);
    throw e;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    input.destroy();
  }
}

const exitStatus = (signal: NodeJS.Signals) => (signal === 'SIGINT' ? 130 : 143);
const interrupted = (signal: NodeJS.Signals) => new CliError('interrupted', 'INTERRUPTED', exitStatus(signal), true);

const ENCODING_NAMES = Object.entries(CSV_ENCODINGS)
  .map(([name, aliases]) => [name, ...aliases].join('/'))
  .join(', ');

/** `--encoding`: the file's text encoding when it has no byte-order mark. */
function encodingOption(): Option {
  return new Option('--encoding <encoding>', `the file's encoding when it has no byte-order mark (default UTF-8): ${ENCODING_NAMES}`).argParser(
    (value: string) => {
      const encoding = csvEncoding(value);
      if (!encoding) throw new InvalidArgumentError(`"${value}" is not an encoding an import reads (${ENCODING_NAMES}).`);
      return encoding;
    },
  );
}

/** `leadnet import products|locations|leads FILE.csv --company ID [--dry-run] [--encoding E] [--json]`. */
export function register(program: Command, runtime: CliRuntime): void {
  const group = program.command('import').description('Load a network from CSV files (csv-parse: RFC 4180 quoting, BOM); one transaction per file');
  runtime.action<ImportCommandOptions>(
    group
      .command('products')
      .description(`Create or update a company's products, one per row, matched on the SKU. Columns: ${PRODUCT_COLUMNS.join(', ')}`)
      .argument('<file>', 'the CSV file (header row first)')
      .requiredOption('--company <id>', 'the company owning the catalog', uuid)
      .option('--dry-run', 'report what would change; write nothing')
      .addOption(encodingOption()),
    (session, o, [file]) =>
      runImport(session, o, file, 'product', (em, input, options) => importProducts(em, o.company, input, options)),
  );
  runtime.action<ImportCommandOptions>(
    group
      .command('locations')
      .description(
        `Create or update a company's stores (retailer, retailer location, CRL), one per row, matched on external_id; rows without coordinates are geocoded. Columns: ${LOCATION_COLUMNS.join(', ')}`,
      )
      .argument('<file>', 'the CSV file (header row first)')
      .requiredOption('--company <id>', 'the company whose network the stores join', uuid)
      .option('--dry-run', 'report what would change; write nothing')
      .addOption(encodingOption()),
    (session, o, [file]) =>
      runImport(session, o, file, 'location', async (em, input, options) => importLocations(em, createGeocoder(session.config, await session.orm()), o.company, input, options)),
  );
  runtime.action<ImportCommandOptions>(
    group
      .command('leads')
      .description(
        `Create a company's leads, one per row, as POST /v1/leads/batch does (a duplicate merges); consent columns record a consent with source import. At most ${MAX_LEAD_ROWS} rows. Columns: ${LEAD_COLUMNS.join(', ')}`,
      )
      .argument('<file>', 'the CSV file (header row first)')
      .requiredOption('--company <id>', 'the company owning the leads', uuid)
      .option('--dry-run', 'report what would be created or merged; write nothing')
      .addOption(encodingOption()),
    (session, o, [file]) =>
      runImport(session, o, file, 'lead', async (em, input, options) => {
        const orm = await session.orm();
        // The create path reads no search: index updates go through the outbox, which the server's indexer delivers.
        const search = new PostgresSearchBackend(() => orm.em as EntityManager);
        return importLeads(em, { config: session.config, search, geocoder: createGeocoder(session.config, orm) }, o.company, input, options);
      }),
  );

  // Streams to stdout as it reads: not a runtime action, whose result is printed at the end.
  program
    .command('export')
    .description('Write records out as CSV or JSON lines on stdout')
    .command('leads')
    .description("Every lead the company's admin sees (as GET /v1/leads), oldest first")
    .requiredOption('--company <id>', 'the company', uuid)
    .option('--since <date>', 'only leads created at or after this ISO 8601 date or time')
    .addOption(new Option('--format <format>', 'csv (text cells that a spreadsheet would run as a formula get a leading \') or jsonl (values as stored); default csv, jsonl with --json').choices(['csv', 'jsonl']))
    .option('--json', 'JSON lines on stdout (unless --format csv), errors as JSON on stderr')
    .action(async (o: { company: string; since?: string; format?: 'csv' | 'jsonl'; json?: boolean }) => {
      const json = o.json === true;
      let session: Session | undefined;
      const stdoutClosed = (e: NodeJS.ErrnoException) => {
        // A reader that stops early (`| head`) ends the export quietly.
        if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      };
      process.stdout.on('error', stdoutClosed);
      try {
        const since = o.since === undefined ? undefined : new Date(o.since);
        if (since && Number.isNaN(since.getTime())) throw new CliError(`--since "${o.since}" is not a date.`, 'USAGE');
        session = new Session(parseConfig(process.env), json ? () => undefined : (line) => process.stderr.write(`${line}\n`));
        const em = await company(session, o.company);
        await exportLeads(em, o.company, process.stdout, { since, format: o.format ?? (json ? 'jsonl' : 'csv') });
      } catch (e) {
        reportError(processIo, e, json);
        process.exitCode = e instanceof CliError ? e.exitCode : 1;
      } finally {
        await session?.close().catch(() => undefined);
      }
    });
}
