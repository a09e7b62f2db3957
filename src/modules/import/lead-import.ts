import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { Geocoder } from '../../geo/geocoder';
import type { SearchBackend } from '../../search/types';
import { organisationAdmin } from '../../auth/caller';
import { Loaders } from '../../db/loaders';
import type { Context } from '../../context';
import { AppError } from '../../errors';
import { isUuid } from '../../search/list';
import { LeadService } from '../lead/lead.service';
import { mergeOf } from '../lead/lead.merge';
import type { LeadInput } from '../lead/lead.input';
import { CONSENT_LIMITS } from '../lead/lead-consent.types';
import { ImportError, readCsv, type RowError } from './csv';
import {
  addRowErrors,
  checkAborted,
  IMPORT_BATCH,
  ignoredColumns,
  inImportTransaction,
  newReport,
  type ImportInput,
  type ImportOptions,
  type ImportReport,
} from './transaction';
import { storeIdsByExternalId } from './import.queries';

export const LEAD_COLUMNS = [
  'name',
  'email',
  'phone',
  'street_line_one',
  'street_line_two',
  'city',
  'province',
  'postal_code',
  'country',
  'source_type',
  'assignee',
  'message',
  'consent_purpose',
  'consent_text',
  'consent_version',
  'consent_given_at',
] as const;
/** The most data rows a lead file may have; a bigger file is refused whole (split it). */
export const MAX_LEAD_ROWS = 10_000;
const MAX_TEXT = 255;
/** A `message` cell: the note a quote request carries. */
const MAX_MESSAGE = 10_000;
const CONSENT_COLUMNS = ['consent_purpose', 'consent_text', 'consent_version', 'consent_given_at'] as const;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** What a lead import needs besides its transaction: what a request's context has. */
export interface LeadImportDeps {
  config: Config;
  search: SearchBackend;
  geocoder: Geocoder;
}

/**
 * `leadnet import leads`: one lead per CSV row of a company, created by the lead service's batch create
 * (`LeadService.createMany`, what `POST /v1/leads/batch` runs): the same validation, duplicate merge
 * (a row sharing an email or phone number with a lead of the company, or with an earlier row, merges
 * into it), routing, events and outbox. A row with consent columns adds one consent record with source
 * `import`. Rows this file's checks or the lead rules refuse are reported (line, column, reason) and
 * skipped; the others are written in batches of `IMPORT_BATCH`, all in one transaction under the
 * company's import lock (`inImportTransaction`). A dry run writes every batch in a savepoint it rolls
 * back, so its counts are exactly what the import would do. At most `MAX_LEAD_ROWS` rows a file.
 */
export async function importLeads(em: EntityManager, deps: LeadImportDeps, companyId: string, input: ImportInput, options: ImportOptions): Promise<ImportReport> {
  return inImportTransaction(em, companyId, 'leads', options, async (tx) => {
    if (!options.dryRun) return run(tx, deps, companyId, input, options);
    let report: ImportReport | undefined;
    await tx
      .transactional(async (sp) => {
        report = await run(sp as EntityManager, deps, companyId, input, options);
        throw DRY_RUN;
      })
      .catch((e) => {
        if (e !== DRY_RUN) throw e;
      });
    return report!;
  });
}

const DRY_RUN = Symbol('dry run');

/** A row read: the lead to create, or the row's errors (kept with the batch so the report stays in file order). */
type PendingRow = { line: number; input: LeadInput; errors?: undefined } | { line: number; input?: undefined; errors: RowError[] };

async function run(em: EntityManager, deps: LeadImportDeps, companyId: string, input: ImportInput, options: ImportOptions): Promise<ImportReport> {
  const report = newReport(options.dryRun);
  const stores = await storeIdsByExternalId(em, companyId);
  // The rows are written on the company's behalf (as its admin sees and routes; no user is their author):
  // who imported is the audit entry's actor. The import policy has already admitted the caller.
  const caller = organisationAdmin({ companyId });
  let batch: PendingRow[] = [];
  const flush = async () => {
    if (!batch.length) return;
    checkAborted(options.signal);
    // A context per batch: its loaders and unit of work hold one batch's rows, not the file's.
    em.clear();
    const ctx: Context = { em, caller, loaders: new Loaders(em), config: deps.config, search: deps.search, geocoder: deps.geocoder };
    const valid = batch.filter((b) => b.input);
    const answers = valid.length ? await new LeadService(ctx).createMany(valid.map((b) => b.input!), { consentSource: 'import' }) : [];
    const answerOf = new Map(valid.map((b, i) => [b, answers[i]]));
    for (const row of batch) {
      const answer = answerOf.get(row);
      if (row.errors) addRowErrors(report, row.errors);
      else if (answer instanceof AppError) addRowErrors(report, rowErrors(row.line, answer));
      else if (answer && mergeOf(answer)) report.updated++;
      else report.created++;
    }
    batch = [];
    options.onProgress?.(report.rows);
  };
  const onHeader = (header: string[]) => {
    if (!header.includes('name')) throw new ImportError(`the header has no name column (columns: ${LEAD_COLUMNS.join(', ')})`);
    if (!header.includes('email') && !header.includes('phone')) throw new ImportError(`the header has no email or phone column (columns: ${LEAD_COLUMNS.join(', ')})`);
    report.ignored_columns = ignoredColumns(header, LEAD_COLUMNS);
  };
  for await (const { line, values } of readCsv(input, { encoding: options.encoding, source: options.source, onHeader })) {
    checkAborted(options.signal);
    report.rows++;
    if (report.rows > MAX_LEAD_ROWS) throw new ImportError(`line ${line}: a lead file has at most ${MAX_LEAD_ROWS.toLocaleString('en-US')} rows; split it`);
    const errors: RowError[] = [];
    const lead = parseRow(line, values, errors, stores);
    batch.push(errors.length ? { line, errors } : { line, input: lead });
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return report;
}

/** A row as the lead create's input; the file's own rules (lengths, the assignee, the consent time) checked. */
function parseRow(line: number, values: Record<string, string>, errors: RowError[], stores: Map<string, string>): LeadInput {
  const fail = (column: string, reason: string) => errors.push({ row: line, column, reason });
  const text = (column: string, max = MAX_TEXT): string | null => {
    const v = (values[column] ?? '').trim();
    if (!v) return null;
    if (v.length > max) fail(column, `is longer than ${max} characters`);
    if (v.includes('\u0000')) fail(column, 'contains a NUL character');
    return v;
  };
  const list = (column: string) => (text(column, 4 * MAX_TEXT) ?? '').split(';').map((x) => x.trim()).filter(Boolean);
  const country = text('country');
  const address = {
    streetLineOne: text('street_line_one'),
    streetLineTwo: text('street_line_two'),
    city: text('city'),
    province: text('province'),
    postalCode: text('postal_code'),
    country,
  };
  const assignee = text('assignee');
  let assigneeId: string | undefined;
  if (assignee) {
    // A store's external id (as `import locations` sets it) or its id.
    assigneeId = stores.get(assignee) ?? (isUuid(assignee) ? assignee : undefined);
    if (!assigneeId) fail('assignee', `no store with external id "${assignee}" in this company`);
  }
  const message = text('message', MAX_MESSAGE);
  const consent: Record<string, string | null> = Object.fromEntries(CONSENT_COLUMNS.map((c) => [c, text(c, c === 'consent_text' ? CONSENT_LIMITS.text : MAX_TEXT)]));
  let givenAt: Date | null = null;
  if (consent.consent_given_at) {
    givenAt = ISO_8601.test(consent.consent_given_at) ? new Date(consent.consent_given_at) : null;
    if (!givenAt || Number.isNaN(givenAt.getTime())) fail('consent_given_at', 'is not an ISO 8601 date or time');
  }
  const withConsent = CONSENT_COLUMNS.some((c) => consent[c] !== null);
  return {
    name: text('name'),
    emails: list('email').map((email) => ({ email })),
    phoneNumbers: list('phone').map((phoneNumber) => ({ phoneNumber, countryCode: country && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : undefined })),
    location: Object.values(address).some((v) => v !== null) ? address : undefined,
    sourceType: text('source_type'),
    assigneeId,
    leadActivities: message ? [{ message }] : undefined,
    consents: withConsent ? [{ purpose: consent.consent_purpose, text: consent.consent_text, version: consent.consent_version, givenAt }] : undefined,
  };
}

/** A lead create's refusal as the row's errors, each on the CSV column its field comes from. */
function rowErrors(line: number, error: AppError): RowError[] {
  if (!error.details.length) return [{ row: line, column: error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN' ? 'assignee' : 'row', reason: error.message }];
  return error.details.map((d) => ({ row: line, column: columnOf(d.field), reason: d.message }));
}

function columnOf(field: string): string {
  if (field === 'base') return 'email';
  if (field.startsWith('emails')) return 'email';
  if (field.startsWith('phone_numbers')) return 'phone';
  if (field.startsWith('lead_activities')) return 'message';
  if (field.startsWith('assignee')) return 'assignee';
  const consent = /^consents\[\d+\]\.(\w+)$/.exec(field);
  if (consent) return `consent_${consent[1]}`;
  const location = /^location\.(\w+)$/.exec(field);
  if (location) return location[1] === 'country_code' ? 'country' : location[1];
  return field;
}
