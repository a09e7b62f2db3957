import { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';

/** One problem with one CSV row: the file's line, the column (or `row`) and why. */
export interface RowError {
  row: number;
  column: string;
  reason: string;
}

export interface CsvRow {
  /** The line the record ends on (the header is line 1); a record without quoted line breaks is one line. */
  line: number;
  values: Record<string, string>;
}

/**
 * Why a whole file is refused (nothing of it is written): `INVALID_CSV` for text that is not CSV in the
 * declared encoding (the message names the line and column), `INVALID_FILE` for a CSV file that is not an
 * import (no header, a key column missing), `BUSY` when another import of the company holds its lock and
 * the caller does not wait, `INTERRUPTED` on Ctrl-C.
 */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly code: 'INVALID_CSV' | 'INVALID_FILE' | 'BUSY' | 'INTERRUPTED' = 'INVALID_FILE',
  ) {
    super(message);
  }
}

/**
 * The text encodings a CSV file may be in (`--encoding`), by canonical name, with the other names the
 * option takes. A UTF-8, UTF-16LE or UTF-16BE byte-order mark wins over the option.
 */
export const CSV_ENCODINGS = {
  'utf-8': ['utf8'],
  'utf-16le': ['utf16le', 'utf-16'],
  'utf-16be': ['utf16be'],
  latin1: ['iso-8859-1', 'latin-1', 'l1'],
  'windows-1252': ['cp1252', 'windows1252'],
} as const;
export type CsvEncoding = keyof typeof CSV_ENCODINGS;

/** The canonical encoding of a name `--encoding` takes (any case), or null. */
export function csvEncoding(name: string): CsvEncoding | null {
  const wanted = name.trim().toLowerCase();
  for (const [canonical, aliases] of Object.entries(CSV_ENCODINGS)) {
    if (canonical === wanted || (aliases as readonly string[]).includes(wanted)) return canonical as CsvEncoding;
  }
  return null;
}

/** Longest record (a line, or several joined by a quoted line break) csv-parse accumulates: bounds a huge line. */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Most columns a header may name (the imports know 8 and 21; spreadsheets add a few of their own). */
export const MAX_COLUMNS = 200;

export interface ReadCsvOptions {
  /** The declared encoding of a file's bytes; undefined: UTF-8, and the error hints at `--encoding`. */
  encoding?: CsvEncoding;
  /** `text`: a string already decoded by the client (GraphQL); `file` (default): bytes from a file. */
  source?: 'file' | 'text';
  /** The header's column names (trimmed, lower-cased), before any record: throw to refuse the file. */
  onHeader?: (columns: string[]) => void;
}

/**
 * Records of a CSV file by csv-parse (RFC 4180 quoting, blank lines skipped); header names are trimmed
 * and lower-cased. The bytes are decoded first (a byte-order mark wins, else `encoding`, else UTF-8) and
 * checked: bytes that are not valid in the encoding, U+FFFD (text decoded with the wrong encoding
 * earlier), NUL and other control characters but tab and line breaks stop the import with the line and
 * column. So do malformed CSV (a stray or unclosed quote, more fields than the header), a record over
 * `MAX_RECORD_BYTES`, a header with more than `MAX_COLUMNS` columns or one named twice, and an empty file:
 * an `ImportError` (`INVALID_CSV` or `INVALID_FILE`) whose message is one line.
 */
export async function* readCsv(input: Readable | string, options: ReadCsvOptions = {}): AsyncGenerator<CsvRow> {
  const source = options.source ?? (typeof input === 'string' ? 'text' : 'file');
  const bytes = typeof input === 'string' ? Readable.from([Buffer.from(input, 'utf8')]) : input;
  let header: string[] | null = null;
  // The line of the last record csv-parse read (ahead of the consumer): where an unclosed quote opened after.
  let parsed = 1;
  const parser = parse({
    on_record: (record: unknown, context: { lines: number }) => {
      parsed = context.lines;
      return record;
    },
    bom: false,
    encoding: 'utf8',
    columns: (names: string[]) => {
      header = checkHeader(names);
      options.onHeader?.(header);
      return header;
    },
    skip_empty_lines: true,
    trim: true,
    info: true,
    relax_column_count_less: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const text = Readable.from(decode(bytes, options.encoding, source));
  text.on('error', (e) => parser.destroy(e));
  text.pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield { line: record.info.lines, values: record.record };
    }
  } catch (e) {
    throw e instanceof CsvError ? csvError(e, parsed) : e;
  } finally {
    text.destroy();
  }
  if (!header) throw new ImportError('the file is empty: it has no header row', 'INVALID_FILE');
}

function checkHeader(names: string[]): string[] {
  if (names.length > MAX_COLUMNS) throw new ImportError(`line 1: the header has ${names.length} columns; an import reads at most ${MAX_COLUMNS}`, 'INVALID_CSV');
  const header = names.map((h) => String(h).trim().toLowerCase());
  const first = new Map<string, number>();
  header.forEach((h, i) => {
    if (!h) return;
    if (first.has(h)) throw new ImportError(`line 1, columns ${first.get(h)! + 1} and ${i + 1}: the header names "${h}" twice`, 'INVALID_CSV');
    first.set(h, i);
  });
  return header;
}

/** csv-parse's error as one line that names the line and the column. */
function csvError(e: CsvError, lastLine: number): ImportError {
  const info = e as CsvError & { lines?: number; column?: string | number | null; record?: unknown[]; columns?: unknown };
  const line = info.lines ?? lastLine;
  const column = typeof info.column === 'string' ? `column "${info.column}"` : typeof info.column === 'number' ? `column ${info.column + 1}` : null;
  const at = column ? `line ${line}, ${column}` : `line ${line}`;
  const quoted = 'put the whole field in double quotes and double each quote inside it ("say ""hi""")';
  switch (e.code) {
    case 'INVALID_OPENING_QUOTE':
      return new ImportError(`${at}: a quote inside a field that does not start with one; ${quoted}`, 'INVALID_CSV');
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new ImportError(`${at}: a quoted field goes on after its closing quote; ${quoted}`, 'INVALID_CSV');
    case 'CSV_QUOTE_NOT_CLOSED':
      return new ImportError(`line ${line}: the file ends inside a quoted field opened after line ${lastLine}; close its quote`, 'INVALID_CSV');
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const got = Array.isArray(info.record) ? info.record.length : null;
      const want = Array.isArray(info.columns) ? info.columns.length : null;
      return new ImportError(`line ${line}: ${got ?? 'more'} fields, but the header has ${want ?? 'fewer'} columns`, 'INVALID_CSV');
    }
    case 'CSV_MAX_RECORD_SIZE':
      return new ImportError(`line ${line}: a record longer than ${MAX_RECORD_BYTES / 1024 / 1024} MiB (a quote left open joins the lines after it)`, 'INVALID_CSV');
    default:
      return new ImportError(`line ${line}: ${e.message}`, 'INVALID_CSV');
  }
}

const BOMS: Array<[number[], CsvEncoding]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

/** Windows-1252 where it differs from Latin-1 (0x80-0x9F); the five bytes it leaves undefined stay C1 controls. */
const CP1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** Characters no import takes: C0 controls but tab, LF and CR; DEL; C1 controls; U+FFFD. */
const REFUSED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/;

type Decoder = (chunk: Buffer, end: boolean) => string;

function decoder(encoding: CsvEncoding): Decoder {
  if (encoding === 'latin1') return (chunk) => chunk.toString('latin1');
  if (encoding === 'windows-1252') return (chunk) => chunk.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => CP1252[c.charCodeAt(0) - 0x80]);
  // Not fatal: an invalid sequence becomes U+FFFD, which the check below finds and places.
  const d = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
  return (chunk, end) => d.decode(chunk, { stream: !end });
}

const NAMES: Record<CsvEncoding, string> = { 'utf-8': 'UTF-8', 'utf-16le': 'UTF-16LE', 'utf-16be': 'UTF-16BE', latin1: 'Latin-1', 'windows-1252': 'Windows-1252' };

/**
 * The bytes of `input` as UTF-8 for csv-parse, after a byte-order mark (dropped) or the declared
 * encoding, with every character checked; the first refused one throws with its line and column.
 */
async function* decode(input: AsyncIterable<Buffer | string>, declared: CsvEncoding | undefined, source: 'file' | 'text'): AsyncGenerator<Buffer> {
  let encoding: CsvEncoding | null = null;
  let decodeChunk: Decoder = () => '';
  let head: Buffer = Buffer.alloc(0);
  const position = new Position();
  // Bytes read so far and the recent ones, to name an invalid byte of a UTF-8 file.
  let consumed = 0;
  let recent: Buffer = Buffer.alloc(0);
  let recentStart = 0;
  const check = (text: string) => {
    const i = text.search(REFUSED);
    if (i < 0) {
      position.advance(text);
      if (encoding === 'utf-8') consumed += Buffer.byteLength(text);
      return;
    }
    const before = text.slice(0, i);
    const at = position.at(before);
    const offset = consumed + Buffer.byteLength(before);
    throw new ImportError(`line ${at.line}, column ${at.column}: ${refusal(text.charCodeAt(i), offset)}`, 'INVALID_CSV');
  };
  const refusal = (code: number, offset: number): string => {
    const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    if (code === 0xfffd) {
      const raw = encoding === 'utf-8' ? recent.subarray(offset - recentStart, offset - recentStart + 3) : null;
      const literal = !raw || (raw.length === 3 && raw[0] === 0xef && raw[1] === 0xbf && raw[2] === 0xbd);
      if (source === 'text') return 'U+FFFD (the replacement character): the file was decoded with the wrong encoding before it was sent; read it in its own encoding (often Windows-1252) and send that text';
      if (literal) return 'U+FFFD (the replacement character): this text was decoded with the wrong encoding before it was saved; export it again from its source';
      const name = NAMES[encoding!];
      const byte = raw && raw.length ? `byte 0x${raw[0].toString(16).toUpperCase().padStart(2, '0')}` : 'bytes';
      const hint =
        encoding === 'utf-8'
          ? declared
            ? '; if the file is in another encoding, pass that one to --encoding (latin1, windows-1252, utf-16le)'
            : '; a file in another encoding needs --encoding (a spreadsheet\'s CSV is often --encoding windows-1252 or latin1)'
          : '';
      return `${byte} is not valid ${name}${hint}`;
    }
    if (code === 0) {
      if (source === 'text') return 'a NUL character (U+0000): CSV text may not contain one';
      return encoding === 'utf-8'
        ? 'a NUL byte: the file is not UTF-8 text (a UTF-16 file without a byte-order mark needs --encoding utf-16le)'
        : `a NUL character: the file is not ${NAMES[encoding!]} text`;
    }
    if (code >= 0x80 && code <= 0x9f && encoding === 'latin1') return `control character ${hex}: the file may be Windows-1252 rather than Latin-1 (--encoding windows-1252)`;
    if (code >= 0x80 && code <= 0x9f && encoding === 'windows-1252') return `byte 0x${code.toString(16).toUpperCase()} is not a Windows-1252 character`;
    return `control character ${hex}: an import takes no control characters but tab and line breaks`;
  };
  const emit = (chunk: Buffer, end: boolean): Buffer | null => {
    if (encoding === 'utf-8') {
      // Keep the last bytes of the previous chunk: a multi-byte sequence may straddle the two.
      const keep = recent.subarray(Math.max(0, recent.length - 4));
      recentStart += recent.length - keep.length;
      recent = Buffer.concat([keep, chunk]);
    }
    const text = decodeChunk(chunk, end);
    check(text);
    return text ? Buffer.from(text, 'utf8') : null;
  };
  for await (const raw of input) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    if (encoding === null) {
      head = Buffer.concat([head, chunk]);
      if (head.length < 3) continue;
      ({ encoding, decodeChunk, rest: head } = start(head, declared, source));
      const out = emit(head, false);
      if (out) yield out;
      continue;
    }
    const out = emit(chunk, false);
    if (out) yield out;
  }
  if (encoding === null) ({ encoding, decodeChunk, rest: head } = start(head, declared, source));
  else head = Buffer.alloc(0);
  const out = emit(head, true);
  if (out) yield out;
}

function start(head: Buffer, declared: CsvEncoding | undefined, source: 'file' | 'text') {
  for (const [bom, encoding] of BOMS) {
    if (head.length >= bom.length && bom.every((b, i) => head[i] === b)) return { encoding, decodeChunk: decoder(encoding), rest: head.subarray(bom.length) };
  }
  const encoding = source === 'text' ? 'utf-8' : (declared ?? 'utf-8');
  return { encoding, decodeChunk: decoder(encoding), rest: head };
}

/** Characters of `s` (a surrogate pair is one). */
function characters(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--;
  }
  return n;
}

/**
 * Line and column (1-based, in characters) in the decoded text, counting lines as csv-parse does: LF
 * (and CRLF) unless the file's first line break is a lone CR.
 */
class Position {
  line = 1;
  /** Characters since the last line break. */
  column = 0;
  private br: '\n' | '\r' | null = null;
  /** The text so far ends with a CR and no LF came before it: the next character says which break the file uses. */
  private crAtEnd = false;

  /** Where the character after `before` (text not yet advanced over) is. */
  at(before: string): { line: number; column: number } {
    const probe = Object.assign(new Position(), this);
    probe.advance(before);
    return { line: probe.line, column: probe.column + 1 };
  }

  advance(text: string): void {
    if (!text) return;
    if (this.br === null && this.crAtEnd) {
      this.crAtEnd = false;
      this.br = text[0] === '\n' ? '\n' : '\r';
      if (this.br === '\r') {
        this.line++;
        this.column = 0;
      }
    }
    if (this.br === null) {
      const i = text.search(/[\r\n]/);
      if (i >= 0 && text[i] === '\n') this.br = '\n';
      else if (i >= 0 && i + 1 < text.length) this.br = text[i + 1] === '\n' ? '\n' : '\r';
      else if (i >= 0) this.crAtEnd = true;
    }
    let last = -1;
    if (this.br) {
      for (let i = text.indexOf(this.br); i >= 0; i = text.indexOf(this.br, i + 1)) {
        this.line++;
        last = i;
      }
    }
    this.column = last >= 0 ? characters(text.slice(last + 1)) : this.column + characters(text);
  }
}
