import fs from 'node:fs';
import { Option, type Command } from 'commander';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../../config';
import { CliError, Session, type CliRuntime } from '../runtime';
import { uuid } from '../args';
import { ImportError, importProducts, PRODUCT_COLUMNS, type ImportReport } from '../../modules/import/product-import';
import { exportLeads } from '../../modules/import/lead-export';
import { CSV_ENCODINGS, type CsvEncoding } from '../../modules/import/csv';
import { importLocations, LOCATION_COLUMNS } from '../../modules/import/location-import';
import { createGeocoder } from '../../geo/factory';
import { progressBar } from '../progress';

async function company(session: Session, id: string): Promise<EntityManager> {
  const em = (await session.orm()).em.fork() as EntityManager;
  const rows = await em.execute(`select 1 from companies where id = ?`, [id]);
  if (!rows.length) throw new CliError(`No company with id ${id}.`, 'NOT_FOUND');
  return em;
}

function openFile(file: string): fs.ReadStream {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new CliError(`Cannot read ${file}: no such file.`, 'NOT_FOUND');
  return fs.createReadStream(file);
}

function reportText(kind: string, r: ImportReport): string {
  const lines = [
    `${r.dry_run ? 'Dry run: would import' : 'Imported'} ${r.rows} ${kind} rows: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.invalid} invalid (skipped).`,
  ];
  for (const e of r.errors.slice(0, 200)) lines.push(`  line ${e.row}, ${e.column}: ${e.reason}`);
  if (r.errors.length > 200) lines.push(`  ... and ${r.errors.length - 200} more (--json lists them all)`);
  return lines.join('\n');
}

type Importer = (em: EntityManager, input: fs.ReadStream, options: { dryRun: boolean; encoding: CsvEncoding; onProgress?: (rows: number) => void }) => Promise<ImportReport>;
type ImportOptions = { company: string; dryRun?: boolean; json?: boolean; encoding: CsvEncoding };

/** Runs one import of `file` with a progress bar on a terminal (not with --json); the report is the command's result. */
async function runImport(session: Session, o: ImportOptions, file: string, kind: string, run: Importer) {
  const input = openFile(file);
  const em = await company(session, o.company);
  const bar = progressBar(input, fs.statSync(file).size, o.json ? ({ isTTY: false } as NodeJS.WriteStream) : process.stderr);
  try {
    const report = await run(em, input, { dryRun: o.dryRun === true, encoding: o.encoding, onProgress: (rows) => bar.update(rows) });
    bar.done();
    return { json: report, text: reportText(kind, report) };
  } catch (e) {
    bar.done();
    if (e instanceof ImportError) throw new CliError(`${file}: ${e.message}`, 'INVALID_FILE');
    if (e instanceof Error && 'code' in e && String((e as any).code).startsWith('CSV_')) throw new CliError(`${file}: ${e.message}`, 'INVALID_CSV');
    throw e;
  } finally {
    input.destroy();
  }
}

/** `--encoding`: the file's text encoding when it has no byte-order mark. */
function encodingOption(): Option {
  return new Option('--encoding <encoding>', "the file's encoding when it has no byte-order mark").choices([...CSV_ENCODINGS]).default('utf8');
}

/** `leadnet import products|locations FILE.csv --company ID [--dry-run] [--encoding E] [--json]`. */
export function register(program: Command, runtime: CliRuntime): void {
  const group = program.command('import').description('Load a network from CSV files (csv-parse: RFC 4180 quoting, BOM)');
  runtime.action<ImportOptions>(
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
  runtime.action<ImportOptions>(
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
      runImport(session, o, file, 'location', (em, input, options) => importLocations(em, createGeocoder(session.config), o.company, input, options)),
  );

  // Streams to stdout as it reads: not a runtime action, whose result is printed at the end.
  program
    .command('export')
    .description('Write records out as CSV or JSON lines on stdout')
    .command('leads')
    .description("Every lead the company's admin sees (as GET /v1/leads), oldest first")
    .requiredOption('--company <id>', 'the company', uuid)
    .option('--since <date>', 'only leads created at or after this ISO 8601 date or time')
    .option('--format <format>', 'csv or jsonl', 'csv')
    .action(async (o: { company: string; since?: string; format: string }) => {
      let session: Session | undefined;
      try {
        if (!['csv', 'jsonl'].includes(o.format)) throw new CliError(`--format must be csv or jsonl, not "${o.format}".`, 'USAGE');
        const since = o.since === undefined ? undefined : new Date(o.since);
        if (since && Number.isNaN(since.getTime())) throw new CliError(`--since "${o.since}" is not a date.`, 'USAGE');
        session = new Session(parseConfig(process.env), (line) => process.stderr.write(`${line}\n`));
        const em = await company(session, o.company);
        await exportLeads(em, o.company, process.stdout, { since, format: o.format as 'csv' | 'jsonl' });
      } catch (e) {
        process.stderr.write(`leadnet: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exitCode = 1;
      } finally {
        await session?.close().catch(() => undefined);
      }
    });
}
