import { serviceUnavailable, type AppError } from '../errors';

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5;

/** Socket-level failures: the database host refuses, resets or never answers. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * PostgreSQL SQLSTATEs of an unreachable or unavailable server: class 08 (connection exception),
 * 57P01-57P03 (shutdown, crash, not accepting connections yet) and 53300 (too many connections).
 * Constraint, syntax and data errors are bugs or bad input and stay out of this list.
 */
function unavailableSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/**
 * What node-postgres, knex and tarn say when a connection is lost or cannot be had in time. knex's
 * "Transaction query already complete" is a statement sent on a transaction the driver has already
 * closed: its BEGIN (or an earlier statement) ran out of time or lost its connection, and knex still hands
 * the transaction to the unit of work (a hung database: `recordActor`, the first statement of a lead write).
 */
const MESSAGES = [
  /^Connection terminated/,
  /^timeout expired$/,
  /^Query read timeout$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Knex: Timeout acquiring a connection/,
  /canceling statement due to statement timeout/,
  /^Transaction query already complete/,
];

const followed = (e: { originalError?: unknown; cause?: unknown; previous?: unknown }) => [e.originalError, e.cause, e.previous];
const cancelledAtBound = (e: { code?: unknown; message?: unknown }) => e.code === '57014' && typeof e.message === 'string' && e.message.includes('statement timeout');

/**
 * Whether an error is PostgreSQL cancelling a statement at `DB_STATEMENT_TIMEOUT_MS`: the database
 * answers, but this request's statement ran (or waited on a lock) past its bound. Follows the same links
 * as `isDatabaseUnavailable`.
 */
export function isStatementTimeout(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  if (cancelledAtBound(err as object)) return true;
  return followed(err as object).some((x) => x !== err && isStatementTimeout(x, depth + 1));
}

/**
 * Whether an error means "the database is unreachable or too slow to answer now" (a 503 with
 * `Retry-After`), as opposed to a bug (a 500). Follows `originalError` (GraphQL), `cause` and
 * `previous` (MikroORM) links. A statement timeout counts: the service cannot answer within its
 * bound, and retrying later is the right advice.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; originalError?: unknown; cause?: unknown; previous?: unknown; errors?: unknown };
  if (typeof e.code === 'string') {
    if (NETWORK_CODES.has(e.code)) return true;
    if (/^[0-9A-Z]{5}$/.test(e.code) && unavailableSqlState(e.code)) return true;
    if (cancelledAtBound(e)) return true;
  }
  if (e.name === 'KnexTimeoutError' || e.name === 'ConnectionException') return true;
  if (typeof e.message === 'string') {
    // knex prefixes the SQL: "select 1 - Connection terminated unexpectedly".
    const message = e.message.replace(/^[\s\S]* - (?=[A-Z])/, '');
    if (MESSAGES.some((re) => re.test(message) || re.test(e.message as string))) return true;
  }
  // Several connection attempts (IPv4 and IPv6) fail together as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length && e.errors.every((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return followed(e).some((x) => x !== err && isDatabaseUnavailable(x, depth + 1));
}

/**
 * Whether PostgreSQL rolled a transaction back to break a deadlock (40P01) or a serialization conflict
 * (40001): the write lost to concurrent ones and may succeed when run again (`transactional()` does, a few
 * times). Not an outage. Follows the same links as `isDatabaseUnavailable`.
 */
export function isTransactionConflict(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const code = (err as { code?: unknown }).code;
  if (code === '40P01' || code === '40001') return true;
  return followed(err as object).some((x) => x !== err && isTransactionConflict(x, depth + 1));
}

/** The 503 of an outage (`isDatabaseUnavailable`), saying whether a statement ran past its bound or the database is unreachable. */
export function outageError(err: unknown): AppError {
  return serviceUnavailable(isStatementTimeout(err));
}
