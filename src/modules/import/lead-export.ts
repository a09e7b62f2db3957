import type { Writable } from 'node:stream';
import { once } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import { stringify } from 'csv-stringify';
import { organisationAdmin } from '../../auth/caller';
import { compileScope } from '../../search/where';
import { leadSearch } from '../lead/lead.search';
import { leadScope } from '../lead/lead.policy';
import { toDate } from '../webhooks/webhook.service';
import { exportPage } from './import.queries';
import type { Caller } from '../../auth/caller';
import { audit, type AuditActor } from '../audit/audit.service';

export const LEAD_EXPORT_COLUMNS = [
  'id', 'name', 'status', 'owner_type', 'owner_id', 'assignee_id', 'emails', 'phone_numbers', 'street_line_one', 'street_line_two',
  'postal_code', 'city', 'province', 'country', 'latitude', 'longitude', 'source_type', 'source_id', 'created_at', 'updated_at',
] as const;
const PAGE = 1000;

/**
 * A cell a spreadsheet would run as a formula (OWASP "CSV injection"): starting with `=`, `+`, `-`, `@`
 * (or their full-width forms), after optional spaces, or with a tab or carriage return. Leading `'`s are
 * looked through, so that the escape below can be undone exactly.
 */
const FORMULA = /^'*(?:[\s\u00a0\u3000]*[=+\-@\uff1d\uff0b\uff0d\uff20]|[\t\r])/;
/** A lead's phone numbers as stored: E.164 (`+` and digits), `;`-separated. A spreadsheet reads no formula there. */
const PHONE_LIST = /^\+\d{1,15}(?:;\+\d{1,15})*$/;

/**
 * A text cell of the CSV export as written: with one more leading `'` when it could run as a formula,
 * so that a spreadsheet shows it as text. To get the value back, drop one leading `'` from a cell that
 * matches `FORMULA` and starts with `'` (every column; docs/import-export.md). Numbers (latitude and
 * longitude) are not text cells, and a phone number list (`+15035550100`) is written as it is.
 */
export function csvCell(value: string): string {
  if (PHONE_LIST.test(value)) return value;
  return FORMULA.test(value) ? `'${value}` : value;
}

/**
 * `leadnet export leads`: every lead the company's admin sees (the list scope), oldest first, created at
 * or after `since`, as CSV (csv-stringify, a header row, `;` between a lead's emails and phone numbers,
 * formula cells neutralised by `csvCell`) or JSON lines (values as stored). Streams: read in keyset pages of 1000, written as they come, waiting when the output is slow.
 * Recorded in the company's audit log (`export.run`) before the first row leaves, so an export cut short
 * (a reader that stops early) is recorded too; `actor` left out is the platform operator at the command line.
 */
export async function exportLeads(
  em: EntityManager,
  companyId: string,
  out: Writable,
  options: { since?: Date; format: 'csv' | 'jsonl'; actor?: Caller | AuditActor | null },
): Promise<number> {
  await audit.record(em, options.actor, 'export.run', { type: 'company', id: companyId, companyId }, { kind: 'leads', format: options.format, since: options.since?.toISOString() ?? null });
  const cond = compileScope(leadSearch, leadScope(organisationAdmin({ companyId })));
  // escape_formulas stays off: csvCell does it, reversibly and leaving phone numbers alone.
  const csv = options.format === 'csv' ? stringify({ header: true, columns: [...LEAD_EXPORT_COLUMNS], cast: { string: csvCell } }) : null;
  const done = csv ? new Promise<void>((resolve, reject) => csv.on('end', resolve).on('error', reject)) : null;
  csv?.pipe(out, { end: false });
  let count = 0;
  // The cursor keeps the timestamp as PostgreSQL wrote it (microseconds; a JS Date has milliseconds).
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const rows = await exportPage(em, cond, { since: options.since, after, limit: PAGE });
    for (const { cursor_at: _cursor, ...r } of rows) {
      const record = { ...r, created_at: toDate(r.created_at)!.toISOString(), updated_at: toDate(r.updated_at)!.toISOString() };
      if (csv) {
        if (!csv.write(record)) await once(csv, 'drain');
      } else if (!out.write(`${JSON.stringify({ ...record, emails: r.emails ? r.emails.split(';') : [], phone_numbers: r.phone_numbers ? r.phone_numbers.split(';') : [] })}\n`)) {
        await once(out, 'drain');
      }
    }
    count += rows.length;
    if (rows.length < PAGE) break;
    after = { at: rows[rows.length - 1].cursor_at, id: rows[rows.length - 1].id };
  }
  if (csv && done) {
    csv.end();
    await done;
  }
  return count;
}
