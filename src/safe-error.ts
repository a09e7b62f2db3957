/**
 * How an error is written to the logs (the `err` serializer of src/logger.ts): its class, code, a
 * message with no data in it, and the stack frames. Never SQL statements, bound values or the
 * database's `detail` (`Key (email)=(ada@example.com) already exists`): a 500 must not copy leads'
 * emails and names into the logs.
 */
export interface SafeError {
  type: string;
  code?: string | number;
  message: string;
  /** Identifiers PostgreSQL names (no values). */
  table?: string;
  column?: string;
  constraint?: string;
  routine?: string;
  stack?: string;
  cause?: SafeError;
}

const SQL_START = /^\s*(select|insert|update|delete|with|alter|create|drop)\b/i;
const MAX_MESSAGE = 300;

/** Quoted literals, e-mail addresses and long digit runs (phone numbers) become `?`. */
export function redact(text: string): string {
  return text
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/"(?:[^"\\]|\\.)*"/g, '"?"')
    .replace(/[^\s@'"(),]+@[^\s@'"(),]+/g, '?@?')
    .replace(/\+?\d[\d\s().-]{6,}\d/g, '?');
}

/** The database's own sentence without the statement before it (`insert into ... - duplicate key ...`). */
function withoutStatement(message: string): string {
  if (!SQL_START.test(message)) return message;
  // MikroORM (knex): `<statement with values> - <database message>[ - detail: <row values>]`.
  // The statement may span lines; the database's sentence is its last line.
  const text = message.replace(/ - detail: [\s\S]*$/, '');
  const i = text.lastIndexOf(' - ');
  return i < 0 ? '(SQL statement withheld)' : text.slice(i + 3).split('\n')[0];
}

export function safeError(err: unknown, depth = 0): SafeError {
  if (!(err instanceof Error)) return { type: typeof err, message: redact(String(err)).slice(0, MAX_MESSAGE) };
  const e = err as Error & Record<string, unknown>;
  const out: SafeError = {
    type: e.constructor?.name ?? e.name,
    message: redact(withoutStatement(e.message)).slice(0, MAX_MESSAGE),
  };
  const code = e.code ?? e.sqlState;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  for (const key of ['table', 'column', 'constraint', 'routine'] as const) {
    if (typeof e[key] === 'string') out[key] = e[key] as string;
  }
  if (typeof e.stack === 'string') {
    // V8's stack opens with `<name>: <message>`, the message's own lines included: a line of a message
    // shaped like a frame is no frame.
    const header = `${e.name}: ${e.message}`;
    const body = e.stack.startsWith(header) ? e.stack.slice(header.length) : e.stack;
    const frames = body.split('\n').filter((line) => /^\s+at /.test(line));
    out.stack = [`${out.type}: ${out.message}`, ...frames.slice(0, 20)].join('\n');
  }
  if (e.cause !== undefined && depth < 3) out.cause = safeError(e.cause, depth + 1);
  return out;
}
