import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';

/** One problem with one CSV row: the file's line, the column (or `row`) and why. */
export interface RowError {
  row: number;
  column: string;
  reason: string;
}

export interface CsvRow {
  /** The line the record starts on (the header is line 1). */
  line: number;
  values: Record<string, string>;
}

/** The text encodings a CSV file may be in (`--encoding`); a UTF-8 or UTF-16LE byte-order mark wins. */
export const CSV_ENCODINGS = ['utf8', 'utf16le', 'latin1'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

/**
 * Records of a CSV file by csv-parse (RFC 4180 quoting, a byte-order mark dropped and its encoding
 * used, blank lines skipped); header names are trimmed and lower-cased. Malformed CSV (an unclosed
 * quote, a row with more fields than the header) stops the import with the line it was found on.
 */
export async function* readCsv(input: Readable, encoding: CsvEncoding = 'utf8'): AsyncGenerator<CsvRow> {
  const parser = input.pipe(
    parse({
      bom: true,
      encoding,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      trim: true,
      info: true,
      relax_column_count_less: true,
    }),
  );
  for await (const record of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    yield { line: record.info.lines, values: record.record };
  }
}
